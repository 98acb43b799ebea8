// TT-Metal's api/compute/binary_remainder.h for the emulator (see api/compute/common.h).
#pragma once

#include "api/compute/common.h"
