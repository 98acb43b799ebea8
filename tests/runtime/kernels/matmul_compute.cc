// C[m, n] = sum_k A[m, k] @ B[k, n]. KERNEL_COMPILE_TIME_ARG_0 selects where
// the sum accumulates: 0 = in DST (matmul_tiles), 1 = in L1 (pack with L1 acc).
#include <cstdint>
#include "api/compute/common.h"
#include "api/compute/eltwise_binary.h"
#include "api/compute/eltwise_binary_sfpu.h"
#include "api/compute/matmul.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  constexpr bool l1_acc = get_compile_time_arg_val(0);
  const uint32_t tiles = get_arg_val<uint32_t>(0), kt = get_arg_val<uint32_t>(1);
  compute_kernel_hw_startup<SrcOrder::Reverse>(0, 1, 16);
  matmul_init(0, 1);
  for (uint32_t t = 0; t < tiles; t++) {
    cb_reserve_back(16, 1);
    if (!l1_acc) tile_regs_acquire();
    for (uint32_t k = 0; k < kt; k++) {
      cb_wait_front(0, 1);
      cb_wait_front(1, 1);
      if (l1_acc) tile_regs_acquire();
      matmul_tiles(0, 1, 0, 0, 0);
      if (l1_acc) {
        pack_reconfig_l1_acc(k > 0);
        pack_tile(0, 16);
        tile_regs_release();
      }
      cb_pop_front(0, 1);
      cb_pop_front(1, 1);
    }
    if (!l1_acc) {
      pack_tile(0, 16);
      tile_regs_release();
    }
    pack_reconfig_l1_acc(0);
    cb_push_back(16, 1);
  }
}
