// TT-Metal's api/compute/eltwise_unary/binop_with_scalar.h for the emulator (see api/compute/common.h).
#pragma once

#include "api/compute/common.h"
