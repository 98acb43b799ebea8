// TT-Metal's api/debug/assert.h for the emulator: ASSERT(condition) stops the
// kernel when the condition is false, naming it and the call's source line (on
// hardware, the watcher's check, when the watcher is on; here, always).
#pragma once

#include "ttl/kernel_api.h"

#define ASSERT(condition, ...) ttl_assert(static_cast<bool>(condition), #condition)
