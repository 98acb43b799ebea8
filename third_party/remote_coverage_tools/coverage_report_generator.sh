#!/bin/sh
echo "coverage reports are not available in the offline Bazel 4.2.3 build;" \
  "use the MODULE.bazel (Bazel 7+) setup for 'bazel coverage'" >&2
exit 1
