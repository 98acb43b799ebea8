// TT-Metal's api/compute/cb_api.h for the emulator (see api/compute/common.h).
#pragma once

#include "api/compute/common.h"
