// TT-Metal's api/compute/binary_max_min.h for the emulator (see api/compute/common.h).
#pragma once

#include "api/compute/common.h"
