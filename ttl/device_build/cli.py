"""Command lines of the device build, run by the ``ttl_operation`` actions.

``build-kernels``: every kernel of a manifest (or some sources) into ELFs.
``bundle``: the manifest, kernel sources, ELFs and IR into a bundle. Both are
thin: the work is :mod:`ttl.device_build.kernels` and
:mod:`ttl.device_build.bundle`, which the JIT calls too.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys

from ttl.device_build.bundle import write_bundle
from ttl.device_build.kernels import (
    DeviceBuildError,
    KernelBuild,
    Toolchain,
    build_elf,
    build_manifest,
    compilation_database,
    manifest_builds,
)


def _kernels_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="build_kernels", description=__doc__)
    parser.add_argument("--label", required=True, help="The target, named in errors.")
    parser.add_argument("--manifest", help="Build every kernel of this manifest...")
    parser.add_argument("--kernels", help="...whose sources are in this directory.")
    parser.add_argument(
        "--source", action="append", default=[], help="Or: build these into one ELF named --stem."
    )
    parser.add_argument("--stem")
    parser.add_argument("--out", help="Directory of the ELFs.")
    parser.add_argument(
        "--compile_commands",
        help="Instead of building: write the compilation database (compile_commands.json) "
        "of --manifest's kernels to this file, its `directory` being --directory.",
    )
    parser.add_argument(
        "--directory", default=".", help="The database's working directory (a placeholder)."
    )
    parser.add_argument("--cxx", required=True)
    parser.add_argument("--copt", action="append", default=[], help="A toolchain compile flag.")
    parser.add_argument("--linkopt", action="append", default=[], help="A toolchain link flag.")
    parser.add_argument(
        "--device_include_dir", action="append", default=[], help="The toolchain's headers."
    )
    parser.add_argument("--include_dir", action="append", default=[], help="Declared headers.")
    parser.add_argument("--define", action="append", default=[], help="NAME=VALUE, every source.")
    parser.add_argument(
        "--confine_includes",
        action="store_true",
        help="Fail if a kernel includes a header by an absolute path (a Bazel action: "
        "every declared input is exec-root relative).",
    )
    parser.add_argument("--linker_script", required=True)
    parser.add_argument("--crt0", required=True)
    return parser


def build_kernels_main(argv: list[str]) -> int:
    """``build_kernels`` flags -> ELFs in ``--out``; errors on stderr, exit status 1."""
    args = _kernels_parser().parse_args(argv)
    toolchain = Toolchain(
        cxx=args.cxx,
        include_dirs=tuple(args.device_include_dir),
        crt0=args.crt0,
        linker_script=args.linker_script,
        copts=tuple(args.copt),
        linkopts=tuple(args.linkopt),
        confine_includes=args.confine_includes,
    )
    if args.compile_commands:
        return _write_compilation_database(args, toolchain)
    if not args.out:
        sys.stderr.write("build_kernels: --out is required (or --compile_commands)\n")
        return 2
    os.makedirs(args.out, exist_ok=True)
    try:
        if args.manifest:
            with open(args.manifest, encoding="utf-8") as f:
                manifest = json.load(f)
            build_manifest(
                toolchain,
                manifest,
                args.kernels,
                args.out,
                label=args.label,
                include_dirs=args.include_dir,
                defines=args.define,
            )
        else:
            build = KernelBuild(
                stem=args.stem,
                sources=tuple(args.source),
                include_dirs=tuple(args.include_dir),
                defines=tuple(args.define),
            )
            try:
                build_elf(toolchain, build, args.out)
            except DeviceBuildError as e:
                raise DeviceBuildError(f"{args.label}: device compile failed:\n{e}") from None
    except DeviceBuildError as e:
        sys.stderr.write(str(e))
        return 1
    return 0


def _write_compilation_database(args: argparse.Namespace, toolchain: Toolchain) -> int:
    if not (args.manifest and args.kernels):
        sys.stderr.write("build_kernels: --compile_commands needs --manifest and --kernels\n")
        return 2
    with open(args.manifest, encoding="utf-8") as f:
        manifest = json.load(f)
    builds = [b for _, b in manifest_builds(manifest, args.kernels, args.include_dir, args.define)]
    entries = compilation_database(toolchain, builds, args.directory)
    with open(args.compile_commands, "w", encoding="utf-8") as f:
        json.dump(entries, f, indent=1, sort_keys=True)
        f.write("\n")
    return 0


def bundle_main(argv: list[str]) -> int:
    """``bundle`` flags -> a bundle directory in ``--out``."""
    parser = argparse.ArgumentParser(prog="bundle", description=__doc__)
    for flag in ("manifest", "kernels", "elfs", "ir", "out"):
        parser.add_argument("--" + flag, required=True)
    args = parser.parse_args(argv)
    with open(args.manifest, encoding="utf-8") as f:
        manifest = json.load(f)
    with open(args.ir, encoding="utf-8") as f:
        ir = f.read()
    shutil.rmtree(args.out, ignore_errors=True)  # a bundle holds nothing else
    write_bundle(args.out, manifest, args.kernels, args.elfs, ir)
    return 0
