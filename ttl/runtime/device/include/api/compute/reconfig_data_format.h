// TT-Metal's api/compute/reconfig_data_format.h for the emulator (see api/compute/common.h).
#pragma once

#include "api/compute/common.h"
