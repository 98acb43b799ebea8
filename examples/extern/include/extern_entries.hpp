// External entry points of the external-functions spec examples (examples/extern).
// Device code: integer-only C++, no libc, against TT-Metal's kernel API. The header
// is included into compute and data-movement kernels, so it includes the API of the
// processor it is compiled for (TT-Metal's COMPILE_FOR_* defines), as TT-Metal
// kernel headers do: a compute kernel (TRISC) has no data-movement API.
#pragma once

#include <cstdint>

#if defined(COMPILE_FOR_TRISC)
#include "api/compute/cb_api.h"
#include "api/compute/pack.h"
#include "api/compute/reg_api.h"
#include "api/compute/tile_move_copy.h"
#else
#include "api/dataflow/dataflow_api.h"
#endif

// Scalar results: nonzero, so the guarded work runs.
inline int64_t is_enabled() { return 1; }

// A compute-kernel entry taking a raw buffer address; a DRAM buffer is never at 0.
inline void compute_entry(uint32_t buffer_address) {
  while (buffer_address == 0) {
  }
}

// Runs in every kernel it is selected into; touches nothing.
inline void shared_entry() {}

// Dispatch-stable condition: the same truth value in every kernel.
inline int64_t evaluate_for_producer() { return 1; }
inline int64_t evaluate_for_consumer() { return 7; }
inline int64_t evaluate_for_writer() { return -1; }

// Consumes Count transactions of TilesPerTransaction pages from DFB Source.
template <typename Source, uint32_t Count, uint32_t TilesPerTransaction>
void external_drain() {
  for (uint32_t i = 0; i < Count; ++i) {
    cb_wait_front(Source::index, TilesPerTransaction);
    cb_pop_front(Source::index, TilesPerTransaction);
  }
}

#if defined(COMPILE_FOR_TRISC)
// Moves one block from Source to Destination (both ttlang::DFBDescriptor types), tile
// by tile through DST, as a TT-Metal compute kernel copies.
template <typename Source, typename Destination>
void execute_enabled_work() {
  cb_wait_front(Source::index, Source::pages_per_block);
  cb_reserve_back(Destination::index, Destination::pages_per_block);
  copy_init(Source::index);
  for (uint32_t tile = 0; tile < Source::pages_per_block; ++tile) {
    tile_regs_acquire();
    copy_tile(Source::index, tile, 0);
    tile_regs_commit();
    tile_regs_wait();
    pack_tile(0, Destination::index, tile);
    tile_regs_release();
  }
  cb_push_back(Destination::index, Destination::pages_per_block);
  cb_pop_front(Source::index, Source::pages_per_block);
}

#else  // data movement: reads and writes L1 itself
namespace ttl_examples {
// Copies `pages` pages of 32-bit words from DFB `src`'s front to DFB `dst`'s back.
inline void copy_pages(uint32_t src, uint32_t dst, uint32_t pages, uint32_t page_bytes) {
  const volatile uint32_t* from = reinterpret_cast<const volatile uint32_t*>(get_read_ptr(src));
  volatile uint32_t* to = reinterpret_cast<volatile uint32_t*>(get_write_ptr(dst));
  for (uint32_t i = 0; i < pages * page_bytes / 4; ++i) {
    to[i] = from[i];
  }
}
}  // namespace ttl_examples

// Reads the first `tiles` pages of `input` (a TensorAccessor: TT-Metal's class
// template, so a template parameter here) into DFB `dfb`, one page per block.
template <typename Accessor>
void reader_entry(const Accessor& input, uint32_t dfb, int32_t tiles) {
  for (int32_t t = 0; t < tiles; ++t) {
    cb_reserve_back(dfb, 1);
    noc_async_read_page(static_cast<uint32_t>(t), input, get_write_ptr(dfb));
    noc_async_read_barrier();
    cb_push_back(dfb, 1);
  }
}

// Waits for two one-page blocks of SourceIndex, forwards the first page to DestinationIndex.
template <uint32_t SourceIndex, uint32_t DestinationIndex>
void external_stage(uint32_t source) {
  static_assert(SourceIndex < 32 && DestinationIndex < 32, "DFB indices");
  cb_wait_front(source, 2);
  cb_reserve_back(DestinationIndex, 1);
  ttl_examples::copy_pages(source, DestinationIndex, 1, 2048);
  cb_push_back(DestinationIndex, 1);
  cb_pop_front(source, 2);
}
#endif
