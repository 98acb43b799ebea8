// Reads tiles [start, start + n) of three DRAM tensors into DFBs 0, 1, 2.
#include <cstdint>
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  constexpr uint32_t page_size = TensorAccessorArgs<0>::AlignedPageSize;
  const auto a = TensorAccessor(TensorAccessorArgs<0>(), get_arg_val<uint32_t>(0), page_size);
  const auto b = TensorAccessor(TensorAccessorArgs<0>(), get_arg_val<uint32_t>(1), page_size);
  const auto c = TensorAccessor(TensorAccessorArgs<0>(), get_arg_val<uint32_t>(2), page_size);
  const uint32_t start = get_arg_val<uint32_t>(3);
  const uint32_t n = get_arg_val<uint32_t>(4);
  for (uint32_t i = start; i < start + n; i++) {
    cb_reserve_back(0, 1);
    noc_async_read_page(i, a, get_write_ptr(0));
    cb_reserve_back(1, 1);
    noc_async_read_page(i, b, get_write_ptr(1));
    cb_reserve_back(2, 1);
    noc_async_read_page(i, c, get_write_ptr(2));
    noc_async_read_barrier();
    cb_push_back(0, 1);
    cb_push_back(1, 1);
    cb_push_back(2, 1);
  }
}
