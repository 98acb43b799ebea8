#!/usr/bin/env bash
# The main job: build with Bazel (offline) and show what came out.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bazel build //tests/toolchain:smoke_kernel
elf="$(bazel info bazel-bin 2>/dev/null)/tests/toolchain/smoke_kernel.elf"
.venv/bin/python - "$elf" <<'PY'
import sys
from elftools.elf.elffile import ELFFile

with open(sys.argv[1], "rb") as stream:
    elf = ELFFile(stream)
    print(f"{sys.argv[1]}: ELF{elf.elfclass} {'little' if elf.little_endian else 'big'}-endian "
          f"{elf['e_machine']} entry=0x{elf['e_entry']:08x}")
PY
