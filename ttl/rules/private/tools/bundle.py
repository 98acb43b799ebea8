"""The `TtlBundle` action: `ttl.device_build.cli.bundle_main`."""

import sys

from ttl.device_build.cli import bundle_main

if __name__ == "__main__":
    sys.exit(bundle_main(sys.argv[1:]))
