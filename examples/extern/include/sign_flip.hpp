// negate_block<Source, Destination>(): moves one block from DFB Source to DFB
// Destination, flipping the sign bit of every bf16/fp32 element.
//
// The sign mask lives in a function-local static initialised on the first call
// from a value the compiler cannot fold: a "guarded" static. On a bare-metal
// device that needs -fno-threadsafe-statics (no __cxa_guard_acquire to link),
// which ttl.device_build passes on every path (Bazel and the JIT).
#pragma once

#include <cstdint>

#include "api/dataflow/dataflow_api.h"

namespace ttl_examples {
// The sign bits of every element in a 32-bit word of a page of `page_bytes`.
inline uint32_t sign_mask(uint32_t page_bytes) {
  return page_bytes == 2048 ? 0x80008000u : 0x80000000u;  // bf16 tile: 2 KiB pages
}

// The page size read at run time: keeps the static's initialiser dynamic.
template <typename Dfb>
uint32_t page_bytes_at_run_time() {
  volatile uint32_t bytes = Dfb::page_size_bytes;
  return bytes;
}
}  // namespace ttl_examples

template <typename Source, typename Destination>
void negate_block() {
  static const uint32_t mask =
      ttl_examples::sign_mask(ttl_examples::page_bytes_at_run_time<Source>());
  cb_wait_front(Source::index, Source::pages_per_block);
  cb_reserve_back(Destination::index, Destination::pages_per_block);
  const volatile uint32_t* src = reinterpret_cast<const volatile uint32_t*>(get_read_ptr(Source::index));
  volatile uint32_t* dst = reinterpret_cast<volatile uint32_t*>(get_write_ptr(Destination::index));
  for (uint32_t i = 0; i < Source::pages_per_block * Source::page_size_bytes / 4; ++i) {
    dst[i] = src[i] ^ mask;
  }
  cb_push_back(Destination::index, Destination::pages_per_block);
  cb_pop_front(Source::index, Source::pages_per_block);
}
