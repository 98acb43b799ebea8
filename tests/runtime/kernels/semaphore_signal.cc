// Node (0,0) spins for runtime arg 0 iterations (past a quantum, the waiter
// blocks), then increments semaphore 0 of node (1,0) over the NOC
// (its NOC coordinates on wormhole_b0 are (19, 18): 18 + logical).
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  if (get_relative_logical_x() != 0) return;
  for (volatile uint32_t i = 0; i < get_arg_val<uint32_t>(0); i = i + 1) {
  }
  noc_semaphore_inc(get_noc_addr(19, 18, get_semaphore(0)), 1);
  noc_async_write_barrier();
}
