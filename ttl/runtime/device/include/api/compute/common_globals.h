// TT-Metal's api/compute/common_globals.h for the emulator: MATH(...), PACK(...)
// and UNPACK(...), which keep their code on that thread of a compute kernel.
// The emulator runs a compute kernel's three threads as one hart, so each
// keeps its code, and the code runs once.
#pragma once

#include "ttl/detail/processor.h"

#define MATH(...) __VA_ARGS__
#define PACK(...) __VA_ARGS__
#define UNPACK(...) __VA_ARGS__
