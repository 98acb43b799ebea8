// External entry points of the logical-kernel examples (examples/kernels).
// Device code: integer-only C++, no libc; DFB access through ttl/kernel_api.h.
#pragma once

#include <cstdint>

#include "ttl/kernel_api.h"

// Dispatch-stable condition: every evaluation returns the same truth value.
inline int32_t copy_enabled() { return 1; }

// Stages tiles [first, first + count) of `input` through DFB Scratch into `output`:
// per tile one complete reserve -> push -> wait -> pop transaction of one page.
template <typename Scratch>
void stage_tiles(const TensorAccessor& input, const TensorAccessor& output, int32_t first,
                 int32_t count) {
  for (int32_t t = first; t < first + count; ++t) {
    const uint32_t page = static_cast<uint32_t>(t);
    cb_reserve_back(Scratch::index, 1);
    noc_async_read_tile(page, input, get_write_ptr(Scratch::index));
    noc_async_read_barrier();
    cb_push_back(Scratch::index, 1);
    cb_wait_front(Scratch::index, 1);
    noc_async_write_tile(page, output, get_read_ptr(Scratch::index));
    noc_async_write_barrier();
    cb_pop_front(Scratch::index, 1);
  }
}
