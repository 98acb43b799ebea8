// Spins until semaphore 0 of this node becomes non-zero (nothing sets it).
#include <cstdint>

#include "api/dataflow/dataflow_api.h"

void kernel_main() {
  volatile uint32_t* sem = reinterpret_cast<volatile uint32_t*>(get_semaphore(0));
  while (*sem == 0) {
  }
}
