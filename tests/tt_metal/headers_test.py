"""@tt_metal holds TT-Metal's kernel API for the pinned version, as declared inputs.

Run by Bazel with the repository's VERSION file and the pin as arguments: the
headers a TT-Metal kernel includes and the JIT build's wrappers must be among
the `@tt_metal//:headers` runfiles, and the version must be the pinned one.
"""

import json
import sys
from pathlib import Path

HEADERS = (
    "hw/inc/api/dataflow/dataflow_api.h",
    "hw/inc/api/tensor/tensor_accessor.h",
    "hw/inc/api/compute/eltwise_binary.h",
    "hw/firmware/src/tt-1xx/brisck.cc",
    "hw/firmware/src/tt-1xx/trisck.cc",
    "hostdevcommon/api/hostdevcommon/common_values.hpp",
)


def main(version_file: str, pin_file: str) -> int:
    root = Path(version_file).parent
    version = Path(version_file).read_text(encoding="utf-8").strip()
    pinned = json.loads(Path(pin_file).read_text(encoding="utf-8"))["version"]
    if version != pinned:
        print(f"@tt_metal is TT-Metal {version}; {pin_file} pins {pinned}", file=sys.stderr)
        return 1
    missing = [h for h in HEADERS if not (root / h).is_file()]
    if missing:
        print(f"@tt_metal: not among the declared headers: {', '.join(missing)}", file=sys.stderr)
        return 1
    print(f"@tt_metal: TT-Metal {version}, {len(HEADERS)} headers checked")
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
