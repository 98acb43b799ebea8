// TT-Metal's api/compute/compute_kernel_hw_startup.h for the emulator (see api/compute/common.h).
#pragma once

#include "api/compute/common.h"
