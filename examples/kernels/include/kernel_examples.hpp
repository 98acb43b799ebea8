// External entry points of the logical-kernel examples (examples/kernels).
// Device code: integer-only C++, no libc; TT-Metal's kernel API (api/dataflow/dataflow_api.h).
#pragma once

#include <cstdint>

#include "api/dataflow/dataflow_api.h"

// Dispatch-stable condition: every evaluation returns the same truth value.
inline int32_t copy_enabled() { return 1; }

// Stages tiles [first, first + count) of `input` through DFB Scratch into `output`:
// per tile one complete reserve -> push -> wait -> pop transaction of one page.
// Input and Output are TensorAccessor types (TT-Metal's class template).
template <typename Scratch, typename Input, typename Output>
void stage_tiles(const Input& input, const Output& output, int32_t first, int32_t count) {
  for (int32_t t = first; t < first + count; ++t) {
    const uint32_t page = static_cast<uint32_t>(t);
    cb_reserve_back(Scratch::index, 1);
    noc_async_read_page(page, input, get_write_ptr(Scratch::index));
    noc_async_read_barrier();
    cb_push_back(Scratch::index, 1);
    cb_wait_front(Scratch::index, 1);
    noc_async_write_page(page, output, get_read_ptr(Scratch::index));
    noc_async_write_barrier();
    cb_pop_front(Scratch::index, 1);
  }
}
