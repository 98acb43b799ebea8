// TT-Metal's api/compute/compute_kernel_api.h for the emulator (see api/compute/common.h).
#pragma once

#include "api/compute/common.h"
