// y = a * b + c, one tile at a time: DFBs 0, 1, 2 in, DFB 16 out.
#include <cstdint>
#include "ttl/kernel_api.h"

void kernel_main() {
  const uint32_t n = get_arg_val<uint32_t>(0);
  binary_op_init_common(0, 1, 16);
  mul_tiles_init(0, 1);
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
