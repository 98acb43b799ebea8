#!/usr/bin/env bash
# The main job: build an example TT-Lang operation with Bazel (offline) into a
# bundle of RV32 ELFs, run it on the emulated Tensix device, and print the
# check against NumPy and the per-kernel profile.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bazel run //examples:eltwise_single_tile_test
