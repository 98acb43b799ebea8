// For every output tile (m, n) and every k: A[m, k] -> DFB 0, B[k, n] -> DFB 1.
#include <cstdint>
#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  constexpr uint32_t page = TensorAccessorArgs<0>::AlignedPageSize;
  const auto a = TensorAccessor(TensorAccessorArgs<0>(), get_arg_val<uint32_t>(0), page);
  const auto b = TensorAccessor(TensorAccessorArgs<0>(), get_arg_val<uint32_t>(1), page);
  const uint32_t mt = get_arg_val<uint32_t>(2), kt = get_arg_val<uint32_t>(3);
  const uint32_t nt = get_arg_val<uint32_t>(4);
  for (uint32_t m = 0; m < mt; m++)
    for (uint32_t n = 0; n < nt; n++)
      for (uint32_t k = 0; k < kt; k++) {
        cb_reserve_back(0, 1);
        cb_reserve_back(1, 1);
        noc_async_read_page(m * kt + k, a, get_write_ptr(0));
        noc_async_read_page(k * nt + n, b, get_write_ptr(1));
        noc_async_read_barrier();
        cb_push_back(0, 1);
        cb_push_back(1, 1);
      }
}
