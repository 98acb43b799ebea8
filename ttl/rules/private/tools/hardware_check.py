"""Runs the hardware check on bundles (run by `ttl_hardware_check_test`).

``hardware_check.py --tt_metal_version FILE [--require KIND] BUNDLE...``: the
pinned TT-Metal headers are the `@tt_metal` repository whose VERSION file is
FILE (its directory holds `api/`, `hw/`, ...). See
:mod:`ttl.device_build.hardware_check`.
"""

from __future__ import annotations

import os
import sys

from ttl.device_build import hardware_check


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] != "--tt_metal_version":
        print("usage: hardware_check.py --tt_metal_version FILE [flags] BUNDLE...", file=sys.stderr)
        return 2
    root = os.path.dirname(os.path.abspath(argv[1]))
    return hardware_check.main(["--tt_metal", root, *argv[2:]])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
