// Node (1,0) waits for its semaphore 0.
#include <cstdint>

#include "ttl/kernel_api.h"

void kernel_main() {
  if (ttl_node_x() != 1) return;
  noc_semaphore_wait(reinterpret_cast<volatile uint32_t*>(get_semaphore(0)), 1);
}
