"""Compiles and links every kernel of a TT-Lang manifest into an RV32 ELF.

Run by `ttl_operation` as one action per operation (Starlark in Bazel 4 cannot
create one action per file of a tree artifact). For each `kernels[]` entry of
the manifest: compile crt0 and `kernels/<source>` (`<cxx> <copts> -I...
-D<manifest defines> -D<rule defines> -c`) to fixed object names, then link
(`<cxx> <linkopts> -T <linker script> crt0.o <stem>.o -lgcc -o <out>/<stem>.elf`).

The sandbox path is mapped to `.` (`-ffile-prefix-map`) and `-frandom-seed` is
the kernel's name, so ELFs are byte-identical across output bases and
machines. A header missing from the sandbox is reported as an undeclared
input, with the attribute to declare it in.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys

_MISSING_HEADER = re.compile(
    r"^(?P<file>[^:\n]+):(?P<line>\d+):(?:\d+:)? fatal error: (?P<header>[^:\n]+): "
    r"No such file or directory",
    re.MULTILINE,
)


def elf_commands(
    args: argparse.Namespace, sources: list[str], stem: str, defines: list[str], cwd: str
) -> list[list[str]]:
    """Compile crt0 and each source to fixed object names, then link `<out>/<stem>.elf`.

    Compiling and linking in one driver call would name the objects after
    random temporary files, and the linker records those names in the ELF.
    """
    objs = os.path.join(args.out + ".objs", stem)
    os.makedirs(objs, exist_ok=True)
    compile_flags = [
        args.cxx,
        f"-ffile-prefix-map={cwd}=.",
        # gcc does not forward the map to the assembler (crt0.S's comp_dir).
        f"-Wa,--debug-prefix-map={cwd}=.",
        *args.copt,
        *[f"-I{d}" for d in args.include_dir],
        *defines,
        *[f"-D{d}" for d in args.define],
        f"-frandom-seed={stem}",
        "-c",
    ]
    commands = []
    objects = []
    for index, source in enumerate([args.crt0, *sources]):
        obj = os.path.join(objs, f"{index}_{os.path.basename(source)}.o")
        commands.append([*compile_flags, source, "-o", obj])
        objects.append(obj)
    elf = os.path.join(args.out, stem + ".elf")
    commands.append(
        [args.cxx, *args.linkopt, "-T", args.linker_script, *objects, "-lgcc", "-o", elf]
    )
    return commands


def kernel_commands(args: argparse.Namespace, kernel: dict, cwd: str) -> list[list[str]]:
    """The commands building one manifest kernel (its defines from the manifest)."""
    source = os.path.join(args.kernels, kernel["source"])
    stem = os.path.splitext(kernel["source"])[0]
    defines = [f"-D{k}={v}" for k, v in sorted(kernel.get("defines", {}).items())]
    # include_paths of the kernel's external calls (exec-root relative), after the declared dirs.
    defines = [f"-I{d}" for d in kernel.get("include_dirs", [])] + defines
    return elf_commands(args, [source], stem, defines, cwd)


def explain_failure(label: str, kernel: dict, output: str, manifest: dict) -> str:
    """The compiler output, preceded by what to declare when a header is missing.

    Names the `ttl.call_extern_func` sites behind the missing header: the calls
    of that header, else (a header included by a called header) every external
    call compiled into this kernel.
    """
    calls = manifest.get("extern_calls", [])
    notes = []
    for match in _MISSING_HEADER.finditer(output):
        header = match.group("header").strip('"<>')
        where = match.group("file")
        sites = [c for c in calls if c.get("header") == header] or [
            c for c in calls if c.get("kernel") == kernel.get("name")
        ]
        site = "".join(
            " (ttl.call_extern_func of `{}` at {}:{})".format(
                c.get("header"),
                (c.get("loc") or {}).get("file", "?"),
                (c.get("loc") or {}).get("line", "?"),
            )
            for c in sites
        )
        notes.append(
            f"{label}: undeclared header `{header}`, included from {where}:{match.group('line')}"
            f"{site}: add it to `hdrs` of {label}, or to the `hdrs` of a cc_library in its "
            f"`deps` (with `includes`/`strip_include_prefix` if it is included by a shorter path)."
        )
    head = "\n".join(notes)
    return (head + "\n" if head else "") + (
        f"{label}: device compile of kernel `{kernel.get('name')}` ({kernel['source']}) failed:\n"
        + output
    )


def run_commands(commands: list[list[str]]) -> subprocess.CompletedProcess:
    """Runs `commands` in order, stopping at (and returning) the first failure."""
    for command in commands:
        proc = subprocess.run(command, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            break
    return proc


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--label", required=True)
    parser.add_argument("--manifest", help="Build every kernel of this manifest...")
    parser.add_argument("--kernels", help="...whose sources are in this directory.")
    parser.add_argument(
        "--source",
        action="append",
        default=[],
        help="Or: build these sources into one ELF named --stem.",
    )
    parser.add_argument("--stem")
    parser.add_argument("--out", required=True)
    parser.add_argument("--cxx", required=True)
    parser.add_argument("--copt", action="append", default=[])
    parser.add_argument("--linkopt", action="append", default=[])
    parser.add_argument("--include_dir", action="append", default=[])
    parser.add_argument("--define", action="append", default=[])
    parser.add_argument("--linker_script", required=True)
    parser.add_argument("--crt0", required=True)
    args = parser.parse_args(argv)

    os.makedirs(args.out, exist_ok=True)
    cwd = os.getcwd()
    try:
        if args.manifest:
            return build_manifest(args, cwd)
        proc = run_commands(elf_commands(args, args.source, args.stem, [], cwd))
        if proc.returncode != 0:
            sys.stderr.write(f"{args.label}: device compile failed:\n")
            sys.stderr.write((proc.stdout + proc.stderr).replace(cwd + os.sep, ""))
        return proc.returncode
    finally:
        shutil.rmtree(args.out + ".objs", ignore_errors=True)


def build_manifest(args: argparse.Namespace, cwd: str) -> int:
    """Builds every kernel of the manifest in parallel; reports every failure."""
    with open(args.manifest, encoding="utf-8") as f:
        manifest = json.load(f)
    kernels = manifest.get("kernels", [])
    if not kernels:
        print(f"{args.label}: the manifest lists no kernels", file=sys.stderr)
        return 1

    def build(kernel: dict) -> tuple[dict, subprocess.CompletedProcess]:
        return kernel, run_commands(kernel_commands(args, kernel, cwd))

    workers = max(1, min(len(kernels), os.cpu_count() or 1))
    status = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        for kernel, proc in pool.map(build, kernels):
            if proc.returncode != 0:
                status = 1
                output = (proc.stdout + proc.stderr).replace(cwd + os.sep, "")
                sys.stderr.write(explain_failure(args.label, kernel, output, manifest))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
