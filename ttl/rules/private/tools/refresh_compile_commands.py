"""Writes compile_commands.json for the device kernels of ttl_operation targets (for clangd).

    bazel run @ttl_bazel//ttl/rules/private/tools:refresh_compile_commands -- [TARGET...]

Builds the `compile_commands` output group of TARGET (default `//...`) in the
workspace `bazel run` was called from, reads which databases that build made
(its build event file), fills in the execution root and writes them, merged,
to `compile_commands.json` at the workspace root (or `--out`). Each entry is
one generated kernel source with the flags of the resolved device toolchain
and the include directories of its external headers. Run it again after
changing an operation. Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from urllib.parse import unquote, urlparse

PLACEHOLDER = "__EXEC_ROOT__"
DATABASE = "compile_commands.json"


def built_databases(events_file: str) -> list[str]:
    """Paths of the compile_commands.json files in a build event (JSON) file."""
    paths = []
    with open(events_file, encoding="utf-8") as f:
        for line in f:
            event = json.loads(line)
            for file in event.get("namedSetOfFiles", {}).get("files", []):
                uri = file.get("uri", "")
                if uri.startswith("file://") and uri.endswith("/" + DATABASE):
                    paths.append(unquote(urlparse(uri).path))
    return sorted(set(paths))


def merge(databases: list[str], execution_root: str) -> list[dict]:
    """The entries of every database, the placeholder replaced, sorted by file."""
    entries = []
    for path in databases:
        with open(path, encoding="utf-8") as f:
            for entry in json.load(f):
                entry["directory"] = entry["directory"].replace(PLACEHOLDER, execution_root)
                entries.append(entry)
    return sorted(entries, key=lambda e: e["file"])


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("targets", nargs="*", default=["//..."])
    parser.add_argument("--workspace", default=os.environ.get("BUILD_WORKSPACE_DIRECTORY"))
    parser.add_argument("--out", help="where to write (default: <workspace>/compile_commands.json)")
    parser.add_argument(
        "--startup", action="append", default=[], help="a Bazel startup flag, e.g. --output_base=X"
    )
    parser.add_argument(
        "--build_flag", action="append", default=[], help="a flag for the build, e.g. --config=ci"
    )
    parser.add_argument("--bazel", default="bazel")
    args = parser.parse_args(argv)
    if not args.workspace:
        parser.error("run it with `bazel run`, or give --workspace")
    bazel = [args.bazel, *args.startup]
    with tempfile.TemporaryDirectory() as tmp:
        events = os.path.join(tmp, "events.json")
        build = subprocess.run(
            [
                *bazel,
                "build",
                "--output_groups=compile_commands",
                f"--build_event_json_file={events}",
                *args.build_flag,
                *args.targets,
            ],
            cwd=args.workspace,
            check=False,
        )
        if build.returncode != 0:
            print("refresh_compile_commands: the build failed (above)", file=sys.stderr)
            return build.returncode
        databases = built_databases(events)
    execution_root = subprocess.run(
        [*bazel, "info", "execution_root"],
        cwd=args.workspace,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    if not databases:
        print(
            f"refresh_compile_commands: no ttl_operation in {' '.join(args.targets)}",
            file=sys.stderr,
        )
        return 1
    entries = merge(databases, execution_root)
    out = args.out or os.path.join(args.workspace, DATABASE)
    with open(out, "w", encoding="utf-8") as f:
        json.dump(entries, f, indent=1)
        f.write("\n")
    print(f"refresh_compile_commands: {len(entries)} kernel sources -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
