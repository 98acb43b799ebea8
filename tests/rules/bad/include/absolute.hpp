// Declared in `hdrs`, but includes a header by an absolute path outside the
// workspace (tests/rules/test_bad_input.py writes it): not an input of the
// build, so the device build fails instead of going stale when it changes.
#pragma once
#include "/tmp/ttl-bazel-outside/outside.hpp"

inline void absolute_entry() { outside_entry(); }
