// TT-Metal's api/compute/reduce.h for the emulator (see api/compute/common.h).
#pragma once

#include "api/compute/common.h"
