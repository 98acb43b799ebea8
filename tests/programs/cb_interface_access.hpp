// External C++ that reads a DFB's TT-Metal interface without changing it: the
// unpacker's LocalCBInterface (internal/circular_buffer_interface.h).
#pragma once

#include <cstdint>

#if defined(COMPILE_FOR_TRISC)
#include "api/compute/common.h"
#endif

// Counts, on the unpacker, the front blocks that lie inside the DFB's ring; the
// count is this thread's own and is never written back into the DFB.
template <typename Descriptor>
inline void count_front_blocks() {
#if defined(COMPILE_FOR_TRISC)
  using namespace ckernel;  // where TT-Metal declares the compute API
  static uint32_t fronts_in_ring = 0;
  UNPACK(({
    const LocalCBInterface& cb = get_local_cb_interface(Descriptor::index);
    if (cb.fifo_rd_ptr >= cb.fifo_limit - cb.fifo_size && cb.fifo_rd_ptr < cb.fifo_limit) {
      fronts_in_ring++;
    }
  }));
  (void)fronts_in_ring;
#endif
}
