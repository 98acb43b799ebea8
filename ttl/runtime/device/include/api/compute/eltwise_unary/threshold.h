// TT-Metal's api/compute/eltwise_unary/threshold.h for the emulator (see api/compute/common.h).
#pragma once

#include "api/compute/common.h"
