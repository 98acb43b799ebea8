// Declared in `hdrs`, but includes a header that is not: the device build fails.
#pragma once
#include "secret.hpp"

inline void declared_entry() { secret_entry(); }
