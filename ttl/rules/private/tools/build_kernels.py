"""The `TtlDeviceBuild`/`TtlDeviceLink` action: `ttl.device_build.cli.build_kernels_main`."""

import sys

from ttl.device_build.cli import build_kernels_main

if __name__ == "__main__":
    sys.exit(build_kernels_main(sys.argv[1:]))
