// Writes tiles [start, start + n) of DFB 16 to a DRAM tensor.
#include <cstdint>
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  constexpr uint32_t page_size = TensorAccessorArgs<0>::AlignedPageSize;
  const auto y = TensorAccessor(TensorAccessorArgs<0>(), get_arg_val<uint32_t>(0), page_size);
  const uint32_t start = get_arg_val<uint32_t>(1);
  const uint32_t n = get_arg_val<uint32_t>(2);
  for (uint32_t i = start; i < start + n; i++) {
    cb_wait_front(16, 1);
    noc_async_write_page(i, y, get_read_ptr(16));
    noc_async_write_barrier();
    cb_pop_front(16, 1);
  }
}
