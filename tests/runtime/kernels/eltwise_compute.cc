// y = a * b + c, one tile at a time: DFBs 0, 1, 2 in, DFB 16 out.
#include <cstdint>
#include "api/compute/common.h"
#include "api/compute/eltwise_binary.h"
#include "api/compute/eltwise_binary_sfpu.h"
#include "api/compute/matmul.h"
#include "api/compute/tile_move_copy.h"

void kernel_main() {
  const uint32_t n = get_arg_val<uint32_t>(0);
  compute_kernel_hw_startup(0, 1, 16);
  mul_init(0, 1, false);
  for (uint32_t i = 0; i < n; i++) {
    cb_wait_front(0, 1);
    cb_wait_front(1, 1);
    cb_wait_front(2, 1);
    cb_reserve_back(16, 1);
    tile_regs_acquire();
    mul_tiles(0, 1, 0, 0, 0);
    copy_tile(2, 0, 1);
    add_binary_tile(0, 1, 0);
    tile_regs_commit();
    tile_regs_wait();
    pack_tile(0, 16);
    tile_regs_release();
    cb_push_back(16, 1);
    cb_pop_front(0, 1);
    cb_pop_front(1, 1);
    cb_pop_front(2, 1);
  }
}
