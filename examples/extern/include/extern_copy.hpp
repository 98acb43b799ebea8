// external_copy<Source, Destination, Blocks, Negate>(): moves `Blocks` blocks from
// DFB Source to DFB Destination with the device DFB API (integer-only device code).
// Source/Destination are ttlang::DFBDescriptor types; Negate flips the sign bit of
// every bf16/fp32 element (false: a plain copy).
#pragma once

#include <cstdint>

#include "api/dataflow/dataflow_api.h"

template <typename Source, typename Destination, uint32_t Blocks, bool Negate>
void external_copy() {
  static_assert(Source::pages_per_block == Destination::pages_per_block, "same block size");
  static_assert(Source::page_size_bytes == Destination::page_size_bytes, "same page size");
  constexpr uint32_t words = Source::pages_per_block * Source::page_size_bytes / 4;
  constexpr uint32_t sign = Source::page_size_bytes == 2048 ? 0x80008000u : 0x80000000u;
  for (uint32_t b = 0; b < Blocks; ++b) {
    cb_wait_front(Source::index, Source::pages_per_block);
    cb_reserve_back(Destination::index, Destination::pages_per_block);
    const volatile uint32_t* src = reinterpret_cast<const volatile uint32_t*>(get_read_ptr(Source::index));
    volatile uint32_t* dst = reinterpret_cast<volatile uint32_t*>(get_write_ptr(Destination::index));
    for (uint32_t i = 0; i < words; ++i) {
      dst[i] = Negate ? (src[i] ^ sign) : src[i];
    }
    cb_push_back(Destination::index, Destination::pages_per_block);
    cb_pop_front(Source::index, Source::pages_per_block);
  }
}
