// Node (1,0) waits for its semaphore 0.
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  if (get_relative_logical_x() != 1) return;
  noc_semaphore_wait(reinterpret_cast<volatile uint32_t*>(get_semaphore(0)), 1);
}
