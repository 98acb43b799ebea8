// TT-Metal's api/compute/transpose.h for the emulator (see api/compute/common.h).
#pragma once

#include "api/compute/common.h"
