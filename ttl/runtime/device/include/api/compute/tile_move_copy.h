// TT-Metal's api/compute/tile_move_copy.h for the emulator (see api/compute/common.h).
#pragma once

#include "api/compute/common.h"
