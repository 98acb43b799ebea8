// Small external entry points used by the examples of the external-functions spec.
// Device code: integer-only C++, no libc; DFB access through ttl/kernel_api.h.
#pragma once

#include <cstdint>

#include "ttl/kernel_api.h"

// Nonzero on every node: the work below runs.
inline int64_t is_enabled() { return 1; }

// Marker work: nothing to do (its effect is that it ran at all).
inline void execute_enabled_work() {}

// Runs in both canonical kernels: touches nothing.
inline void shared_entry() {}
