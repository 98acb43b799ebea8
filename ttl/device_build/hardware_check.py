"""Compiling a bundle's kernels as TT-Metal's JIT build would, against the pinned headers.

This is the hardware check: it answers "would these kernels build for a
Tenstorrent device?" without the SFPI compiler or a device. Each kernel of a
manifest is wrapped exactly as TT-Metal 0.81.1's JIT wraps it and compiled
with ``-fsyntax-only`` by the device C++ compiler (Debian's
``riscv64-unknown-elf-g++``) against the headers of :mod:`tt_metal`'s pin:

* a data-movement kernel: ``hw/firmware/src/tt-1xx/brisck.cc`` (processor
  slot ``dm0``) or ``ncrisck.cc`` (``dm1``), which include a generated
  ``kernel_includes.hpp`` holding ``#include "<kernel>"``;
* a compute kernel: ``trisck.cc`` three times (``UCK_CHLKC_UNPACK``,
  ``UCK_CHLKC_MATH``, ``UCK_CHLKC_PACK``), which reach the kernel through
  the shipped ``chlkc_list.h`` and the generated ``chlkc_{unpack,math,pack}.cpp``;
* every kernel gets the generated ``chlkc_descriptors.h`` (the data format
  and tile shape of each circular buffer, from the manifest's DFBs, and the
  compute config) and ``defines_generated.h``.

Flags, include directories and defines are the JIT's, read from the wheel's
``libtt_metal.so`` (``docs/notes/tt-metal-jit-build.md``), with these
differences, each forced by the compiler at hand:

* ``-march=rv32im -mabi=ilp32`` for the SFPI compiler's ``-mcpu=tt-*``, and
  none of its ``-ftt-*`` extensions; no ``-flto``; ``-Wno-attributes`` (GCC
  does not know SFPI's ``rvtt_*`` pointer attributes).
* The C and C++ runtime headers, which the SFPI toolchain bundles and Debian's
  bare-metal GCC lacks: GCC 12's libstdc++ headers (``libstdc++-12-dev``),
  Debian's picolibc for RISC-V (``picolibc-riscv64-unknown-elf``) and two
  configuration headers of ours for a bare-metal libstdc++
  (``tt_metal_shims/cxx``).
* Compute kernels only: SFPI's own headers (``sfpi.h``, ``lltt.h``) ship with
  the SFPI compiler, not in the wheel; ``tt_metal_shims/sfpi`` declares the
  part of their interface the LLK headers use, enough to parse and instantiate
  the LLK's code, not to check SFPI's use or generate code. Two LLK headers
  GCC 12 rejects come from :func:`gcc12_overlay`. See :data:`COMPUTE_COVERAGE`.

Standard library only, as the rest of :mod:`ttl.device_build`.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import enum
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ttl.device_build import flags, kernels, tt_metal
from ttl.device_build.kernels import run_bounded

_SHIMS = Path(__file__).with_name("tt_metal_shims")

#: Environment variable naming the SFPI toolchain's ``include`` directory (its real
#: ``sfpi.h``): with the SFPI compiler as $TTL_DEVICE_CXX, the check then compiles
#: compute kernels against SFPI itself instead of our declarations.
SFPI_INCLUDE_ENV = "TTL_SFPI_INCLUDE"

#: What a passing compute check does and does not establish.
COMPUTE_COVERAGE = (
    "compute kernels: the kernel's code and every TT-Metal compute API and LLK template it "
    "instantiates are parsed and type-checked for all three TRISCs; the SFPU's vector code "
    "below the LLK (sfpi.h) is checked against our declarations of SFPI's interface, not "
    "SFPI's own headers, and no code is generated"
)


class Processor(enum.Enum):
    """The five RISC-V cores of a Tensix node, with TT-Metal's PROCESSOR_INDEX."""

    BRISC = 0
    NCRISC = 1
    TRISC0 = 2
    TRISC1 = 3
    TRISC2 = 4

    @property
    def is_compute(self) -> bool:
        return self.value >= Processor.TRISC0.value


#: The TRISC each compute stage runs on: (processor, UCK_CHLKC_ define, namespace, file).
_TRISC_STAGES = (
    (Processor.TRISC0, "UCK_CHLKC_UNPACK", "chlkc_unpack", "TRISC_UNPACK"),
    (Processor.TRISC1, "UCK_CHLKC_MATH", "chlkc_math", "TRISC_MATH"),
    (Processor.TRISC2, "UCK_CHLKC_PACK", "chlkc_pack", "TRISC_PACK"),
)

#: TT-Metal's DataFormat values (tt_metal/hw/inc/.../tensix_types.h).
DATA_FORMATS = {
    "Float32": 0,
    "Float16": 1,
    "Bfp8": 2,
    "Bfp4": 3,
    "Tf32": 4,
    "Float16_b": 5,
    "Bfp8_b": 6,
    "Bfp4_b": 7,
    "Int32": 8,
    "UInt16": 9,
    "Lf8": 10,
    "Bfp2": 11,
    "Int8": 14,
    "Bfp2_b": 15,
    "UInt32": 24,
    "UInt8": 30,
}
_INVALID_FORMAT = 255


@dataclass(frozen=True)
class Arch:
    """One device architecture's JIT settings."""

    name: str  # the target name in a manifest: wormhole_b0, blackhole
    family: str  # hw/inc/internal/tt-1xx/<family>
    define: str  # ARCH_WORMHOLE, ARCH_BLACKHOLE
    num_circular_buffers: int
    # create_device_kernel_defines for the smallest board of the architecture.
    device_defines: tuple[str, ...]
    extra_llk_dirs: tuple[str, ...] = ()


ARCHES = {
    "wormhole_b0": Arch(
        name="wormhole_b0",
        family="wormhole",
        define="ARCH_WORMHOLE",
        num_circular_buffers=32,
        # n150: 12 DRAM banks, 64 L1 banks, PCIe at NOC (0, 3).
        device_defines=(
            "IS_NOT_POW2_NUM_DRAM_BANKS=1",
            "LOG_BASE_2_OF_NUM_L1_BANKS=6",
            "NUM_DRAM_BANKS=12",
            "NUM_L1_BANKS=64",
            "PCIE_NOC_X=0",
            "PCIE_NOC_Y=3",
        ),
    ),
    "blackhole": Arch(
        name="blackhole",
        family="blackhole",
        define="ARCH_BLACKHOLE",
        num_circular_buffers=64,
        # p150: 8 DRAM banks, 140 L1 banks, PCIe at NOC (19, 24).
        device_defines=(
            "IS_NOT_POW2_NUM_L1_BANKS=1",
            "LOG_BASE_2_OF_NUM_DRAM_BANKS=3",
            "NUM_DRAM_BANKS=8",
            "NUM_L1_BANKS=140",
            "PCIE_NOC_X=19",
            "PCIE_NOC_Y=24",
        ),
        extra_llk_dirs=("tt-llk/tt_llk_blackhole/llk_lib/hal",),
    ),
}

#: JitBuildEnv::init's common flags that GCC accepts (see the module docstring).
_COMMON_FLAGS = (
    "-std=c++17",
    "-ffast-math",
    "-fno-finite-math-only",
    "-fsigned-zeros",
    "-fno-associative-math",
    "-fno-exceptions",
    "-fno-rtti",
    "-fno-use-cxa-atexit",
    "-Wall",
    "-Werror",
    "-Wno-error=deprecated-declarations",
    "-Wno-error=multistatement-macros",
    "-Wno-error=parentheses",
    "-Wno-error=unused-but-set-variable",
    "-Wno-unused-variable",
    "-Wno-unused-function",
    # Ours: GCC does not know SFPI's pointer attributes or the LLK's pragmas.
    "-Wno-attributes",
    "-Wno-unknown-pragmas",
    # GCC 12 warns on DEVICE_PRINT's copy of a (packed) TileSlice as words.
    "-Wno-error=address-of-packed-member",
)
_DM_FLAGS = ("-Os", "-fno-tree-loop-distribute-patterns")
_COMPUTE_FLAGS = ("-O3",)

#: Where Debian keeps the C and C++ runtime headers the check compiles with.
LIBSTDCXX_DIR = "/usr/include/c++/12"
LIBSTDCXX_CONFIG_DIR = "/usr/include/x86_64-linux-gnu/c++/12"
PICOLIBC_DIR = "/usr/lib/picolibc/riscv64-unknown-elf/include"
_RUNTIME_PACKAGES = {
    LIBSTDCXX_DIR: "libstdc++-12-dev",
    LIBSTDCXX_CONFIG_DIR: "libstdc++-12-dev",
    PICOLIBC_DIR: "picolibc-riscv64-unknown-elf",
}


# GCC 12 rejects two constructs of the LLK that the SFPI compiler's newer GCC accepts,
# even in templates a kernel never instantiates: `#pragma GCC unroll` with a template
# parameter (evaluated at the definition), and `static_assert(false, ...)` in a discarded
# `if constexpr` branch (not dependent before C++23's P2593).
_UNROLL_PARAMETER = re.compile(r"^(\s*)#pragma GCC unroll ([A-Za-z_]\w*)\s*$", re.MULTILINE)
_STATIC_ASSERT_FALSE = re.compile(r'static_assert\(false, "(INSTRUCTION_MODE)\b')
_QUOTED_INCLUDE = re.compile(r'^(\s*#\s*include\s*)"([^"]+)"', re.MULTILINE)


def _new_overlay(prefix: str) -> Path:
    """An empty overlay directory, removed when the process exits."""
    overlay = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, overlay, True)
    return overlay


def _write_copy(
    copy: Path, original: Path, edited: str, copied: frozenset[str] = frozenset()
) -> None:
    """Writes ``edited`` (``original``'s text, changed) to ``copy``. Its quoted includes
    of headers beside ``original`` point at those originals, except ``copied`` ones,
    which are copies beside ``copy`` too."""

    def resolve(match: re.Match[str]) -> str:
        target = original.parent / match.group(2)
        if match.group(2) in copied or not target.is_file():
            return match.group(0)
        return f'{match.group(1)}"{target}"'

    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(_QUOTED_INCLUDE.sub(resolve, edited), encoding="utf-8")


@functools.cache
def gcc12_overlay(root: Path, arch: Arch) -> Path:
    """A directory of copies of the LLK headers GCC 12 cannot parse, each with a one-line
    edit (an unroll hint dropped; the assertion made dependent on the template parameter
    it tests), laid out as the include directories they are found through; made once per
    process. A copy's quoted includes of its own directory point at the originals."""
    overlay = _new_overlay("ttl-gcc12-overlay-")
    for index, directory in enumerate(include_dirs(root, arch, Processor.TRISC1)):
        for path in sorted(Path(directory).rglob("*.h")):
            text = path.read_text(encoding="utf-8", errors="replace")
            edited = _UNROLL_PARAMETER.sub(r"\1// [gcc12] #pragma GCC unroll \2", text)
            edited = _STATIC_ASSERT_FALSE.sub(r'static_assert(\1 != \1, "\1', edited)
            if edited != text:
                _write_copy(overlay / str(index) / path.relative_to(directory), path, edited)
    return overlay


#: DEVICE_PRINT's lambdas take their arguments by reference and pass them to constexpr
#: helpers that only count them; GCC 12 (without P2280) rejects those references in
#: constant expressions, the SFPI compiler's newer GCC accepts them.
_PRINT_LAMBDA = re.compile(r"\(auto&&\.\.\. args\)")
#: The DPRINT headers the print overlay copies (dprint.h includes device_print.h by
#: its own directory, so both are copied).
_PRINT_HEADERS = ("hw/inc/api/debug/dprint.h", "hw/inc/api/debug/device_print.h")


@functools.cache
def gcc12_print_overlay(root: Path) -> Path:
    """A directory with copies of TT-Metal's ``api/debug/dprint.h`` and
    ``device_print.h`` whose DEVICE_PRINT lambdas take their arguments by value
    (``_PRINT_LAMBDA``), laid out as ``hw/inc`` (``-I`` it first); made once per process.
    A copy's quoted includes of other headers of its directory point at the originals."""
    overlay = _new_overlay("ttl-gcc12-dprint-")
    copied = frozenset(Path(h).name for h in _PRINT_HEADERS)
    for header in _PRINT_HEADERS:
        path = root / header
        edited = _PRINT_LAMBDA.sub("(auto... args)", path.read_text(encoding="utf-8"))
        _write_copy(overlay / Path(header).relative_to("hw/inc"), path, edited, copied)
    return overlay


class HardwareCheckError(Exception):
    """The check cannot run here (no compiler, runtime headers or TT-Metal headers)."""


@dataclass(frozen=True)
class KernelCheck:
    """The outcome of compiling one kernel for one processor."""

    kernel: str  # the manifest's kernel name
    source: str  # the kernel source, relative to the bundle
    processor: Processor
    ok: bool
    output: str  # the compiler's diagnostics (empty when clean)


def runtime_include_flags() -> list[str]:
    """``-isystem`` flags of the C and C++ runtime headers; raises if one is missing."""
    for directory, package in _RUNTIME_PACKAGES.items():
        if not os.path.isdir(directory):
            raise HardwareCheckError(
                f"{directory} is missing: the hardware check needs Debian's {package} "
                "(tools/setup.sh installs it)"
            )
    # Our bits/ headers come before the host's configuration, which they replace in part.
    return [
        "-isystem",
        LIBSTDCXX_DIR,
        "-isystem",
        str(_SHIMS / "cxx"),
        "-isystem",
        LIBSTDCXX_CONFIG_DIR,
        "-isystem",
        PICOLIBC_DIR,
    ]


def include_dirs(root: Path, arch: Arch, processor: Processor) -> list[str]:
    """The JIT's ``-I`` directories, in its order, for ``processor`` (``.``/``..`` excluded)."""
    fam, name = arch.family, arch.name
    dirs = [
        "hw/inc",
        "tt-llk/common",
        "tt-llk/tools/include",
        "hostdevcommon/api",
        "api",
        f"hw/ckernels/{name}/metal/common",
        f"hw/ckernels/{name}/metal/llk_io",
        "hw/inc/internal/tt-1xx",
        f"hw/inc/internal/tt-1xx/{fam}",
        f"hw/inc/internal/tt-1xx/{fam}/{name}_defines",
        f"hw/inc/internal/tt-1xx/{fam}/noc",
        f"tt-llk/tt_llk_{name}/common/inc",
        f"tt-llk/tt_llk_{name}/llk_lib",
        *arch.extra_llk_dirs,
    ]
    if processor.is_compute:
        dirs += [f"hw/ckernels/{name}/metal/llk_api", f"hw/ckernels/{name}/metal/llk_api/llk_sfpu"]
    dirs.append("hw/firmware/src/tt-1xx")
    return [str(root / d) for d in dirs]


def processor_defines(arch: Arch, processor: Processor) -> list[str]:
    """The HAL's defines for ``processor`` (hal_1xx defines, in the JIT's order)."""
    out = [f"PROCESSOR_INDEX={processor.value}"]
    if processor is Processor.BRISC:
        out.append("COMPILE_FOR_BRISC")
    elif processor is Processor.NCRISC:
        out.append("COMPILE_FOR_NCRISC")
    else:
        _, uck, namespace, _ = _TRISC_STAGES[processor.value - Processor.TRISC0.value]
        out += [uck, f"NAMESPACE={namespace}", f"COMPILE_FOR_TRISC={processor.value - 2}"]
    return [*out, "PROGRAMMABLE_CORE_TYPE=0", arch.define]


def descriptors_header(manifest: Mapping[str, Any], kernel: Mapping[str, Any], arch: Arch) -> str:
    """``chlkc_descriptors.h`` as the JIT generates it for this kernel's program."""
    n = arch.num_circular_buffers
    formats = [_INVALID_FORMAT] * n
    tile_sizes = [1088] * n  # tt_hlk_desc's default (a bfp8_b tile)
    for dfb in manifest.get("dfbs", []):
        index = int(dfb["physical_index"])
        if 0 <= index < n:
            formats[index] = DATA_FORMATS.get(dfb.get("data_format", ""), _INVALID_FORMAT)
            tile_sizes[index] = int(dfb["page_size"])
    config = kernel.get("compute_config") or {}
    fidelity = {"LoFi": 0, "HiFi2": 2, "HiFi3": 3, "HiFi4": 4}[config.get("math_fidelity", "HiFi4")]
    approx = "true" if config.get("math_approx_mode") else "false"
    fp32 = "true" if config.get("fp32_dest_acc_en") else "false"
    sync = "SyncFull" if config.get("dst_full_sync_en") else "SyncHalf"

    def array(ctype: str, name: str, values: Sequence[int]) -> str:
        return f"constexpr {ctype} {name}[{n}] = {{\n    {','.join(map(str, values))}\n}};\n"

    def tile_arrays(side: str) -> str:
        return (
            array("uint8_t", f"{side}_tile_num_faces", [4] * n)
            + array("uint8_t", f"{side}_partial_face", [0] * n)
            + array("uint8_t", f"{side}_tile_face_r_dim", [16] * n)
            + array("uint8_t", f"{side}_narrow_tile", [0] * n)
            + array("uint8_t", f"{side}_tile_r_dim", [32] * n)
            + array("uint8_t", f"{side}_tile_c_dim", [32] * n)
            + array("uint16_t", f"{side}_tile_size", tile_sizes)
            + array("uint8_t", f"{side}_num_faces_r_dim", [2] * n)
            + array("uint8_t", f"{side}_num_faces_c_dim", [2] * n)
        )

    fidelity_block = (
        '#include "llk_defs.h"\n'
        f"constexpr ckernel::MathFidelity MATH_FIDELITY = "
        f"static_cast<ckernel::MathFidelity>({fidelity});\n"
        f"constexpr bool APPROX = {approx};\n"
    )
    return (
        "#pragma once\n"
        f"#if defined(UCK_CHLKC_MATH)\n{fidelity_block}#endif\n"
        f"#if defined(UCK_CHLKC_PACK)\n{fidelity_block}#endif\n"
        "#if !defined(UCK_CHLKC_PACK)\n"
        + array("uint8_t", "unpack_src_format", formats)
        + array("uint8_t", "unpack_dst_format", formats)
        + tile_arrays("unpack")
        + "#endif\n"
        "#if !defined(UCK_CHLKC_MATH) && !defined(UCK_CHLKC_UNPACK)\n"
        + array("unsigned char", "pack_src_format", formats)
        + array("unsigned char", "pack_dst_format", formats)
        + tile_arrays("pack")
        + "#if defined(UCK_CHLKC_PACK)\n"
        + array("uint8_t", "unpack_src_format", formats)
        + "#endif\n#endif\n"
        "#if defined(UCK_CHLKC_MATH) || defined(UCK_CHLKC_PACK) || defined(UCK_CHLKC_UNPACK)\n"
        f"constexpr bool DST_ACCUM_MODE = {fp32};\n"
        f"#define DST_SYNC_MODE DstSync::{sync}\n"
        "constexpr bool UnpackToDestEn = false;\n"
        "#endif\n"
    )


def kernel_processors(kernel: Mapping[str, Any]) -> list[Processor]:
    """The processors a manifest kernel runs on: dm0 BRISC, dm1 NCRISC, compute all TRISCs."""
    if kernel.get("kind") == "compute":
        return [stage[0] for stage in _TRISC_STAGES]
    processor, _ = kernels.data_movement_processor(kernel)
    return [Processor[processor]]


def _write_generated(
    gen: Path, source: Path, manifest: Mapping[str, Any], kernel: Mapping[str, Any], arch: Arch
) -> None:
    """The JIT's generated files for one kernel, in its generated-files directory."""
    include = f'#include "{source}"\n'
    (gen / "kernel_includes.hpp").write_text(include, encoding="utf-8")
    for _, _, namespace, trisc_define in _TRISC_STAGES:
        text = f'#define {trisc_define}\n#include "defines_generated.h"\n{include}'
        (gen / f"{namespace}.cpp").write_text(text, encoding="utf-8")
    defines = "".join(f"#define {k} {v}\n" for k, v in sorted(_defines(kernel).items()))
    (gen / "defines_generated.h").write_text(defines, encoding="utf-8")
    (gen / "chlkc_descriptors.h").write_text(
        descriptors_header(manifest, kernel, arch), encoding="utf-8"
    )


def _defines(kernel: Mapping[str, Any]) -> dict[str, str]:
    """The manifest kernel's own defines."""
    return {k: str(v) for k, v in (kernel.get("defines") or {}).items()}


def command(
    root: Path,
    arch: Arch,
    processor: Processor,
    kernel: Mapping[str, Any],
    *,
    cxx: str,
    kernel_include_dirs: Sequence[str] = (),
) -> list[str]:
    """The compile command of one kernel for one processor, run in a subdirectory of the
    generated files' directory (``-I..`` finds them)."""
    wrapper = "trisck.cc" if processor.is_compute else f"{processor.name.lower()}k.cc"
    dm_defines = []
    if not processor.is_compute:
        _, noc = kernels.data_movement_processor(kernel)
        dm_defines = [f"-D{k}={v}" for k, v in sorted(_defines(kernel).items())]
        dm_defines += [f"-DNOC_INDEX={noc}", "-DNOC_MODE=0"]
    real_sfpi = os.environ.get(SFPI_INCLUDE_ENV)
    sfpi = ["-I", real_sfpi or str(_SHIMS / "sfpi")] if processor.is_compute else []
    overlay = []
    if not real_sfpi:  # the SFPI compiler's GCC needs no overlay
        overlay = [f"-I{gcc12_print_overlay(root)}"]
        if processor.is_compute:
            base = gcc12_overlay(root, arch)
            layers = sorted(base.iterdir(), key=lambda d: int(d.name))  # include_dirs' order
            overlay += [f"-I{d}" for d in layers]
    return [
        cxx,
        *flags.TARGET_FLAGS,
        *(_COMPUTE_FLAGS if processor.is_compute else _DM_FLAGS),
        *_COMMON_FLAGS,
        *runtime_include_flags(),
        "-I.",
        "-I..",
        *[f"-I{d}" for d in kernel_include_dirs],
        *overlay,
        *[f"-I{d}" for d in include_dirs(root, arch, processor)],
        *sfpi,
        "-fsyntax-only",
        str(root / "hw/firmware/src/tt-1xx" / wrapper),
        *[f"-D{d}" for d in arch.device_defines],
        "-DTENSIX_FIRMWARE",
        "-DLOCAL_MEM_EN=0",
        *[f"-D{d}" for d in processor_defines(arch, processor)],
        "-DDISPATCH_MESSAGE_ADDR=0",
        "-DKERNEL_BUILD",
        # As the JIT with TT_METAL_DPRINT_CORES set: DPRINT's arguments compile too.
        "-DDEBUG_PRINT_ENABLED",
        "-D" + kernels.compile_time_args_define(kernels.compile_time_args(kernel)),
        *dm_defines,
    ]


def check_kernel(
    root: Path,
    manifest: Mapping[str, Any],
    kernel: Mapping[str, Any],
    source: Path,
    *,
    arch: Arch,
    cxx: str,
    kernel_include_dirs: Sequence[str] = (),
) -> list[KernelCheck]:
    """Compiles one kernel for each of its processors."""
    results = []
    with tempfile.TemporaryDirectory(prefix="ttl-hwcheck-") as work:
        gen = Path(work)
        _write_generated(gen, source.resolve(), manifest, kernel, arch)
        for processor in kernel_processors(kernel):
            cwd = gen / processor.name.lower()
            cwd.mkdir()
            cmd = command(
                root, arch, processor, kernel, cxx=cxx, kernel_include_dirs=kernel_include_dirs
            )
            timeout = flags.cxx_timeout()
            try:
                proc = run_bounded(cmd, timeout, cwd=cwd)
                ok, output = proc.returncode == 0, proc.stdout + proc.stderr
            except subprocess.TimeoutExpired:  # a header that includes a pipe, say
                ok, output = (
                    False,
                    (
                        f"{cmd[0]} did not finish within {timeout:g} s: does a header include a "
                        f"pipe or a device? ${flags.CXX_TIMEOUT_ENV} sets the limit"
                    ),
                )
            results.append(
                KernelCheck(
                    kernel=str(kernel.get("name")),
                    source=str(kernel.get("source")),
                    processor=processor,
                    ok=ok,
                    output=output.replace(str(source.resolve()), source.name),
                )
            )
    return results


def check_bundle(
    bundle: Path,
    *,
    root: Path | None = None,
    cxx: str | None = None,
    kernel_include_dirs: Sequence[str] = (),
) -> list[KernelCheck]:
    """Compiles every kernel of the bundle (``manifest.json`` and ``kernels/``) for hardware."""
    cxx = cxx or flags.default_cxx()
    if shutil.which(cxx) is None:
        raise HardwareCheckError(
            f"device compiler {cxx} not found: install gcc-riscv64-unknown-elf, "
            f"or set {flags.CXX_ENV} to a C++ compiler that targets rv32im/ilp32"
        )
    root = root or tt_metal.headers()
    manifest = json.loads((bundle / "manifest.json").read_text(encoding="utf-8"))
    arch = ARCHES.get(manifest.get("target", "wormhole_b0"), ARCHES["wormhole_b0"])
    kernels = manifest.get("kernels", [])

    def one(kernel: Mapping[str, Any]) -> list[KernelCheck]:
        # include_paths first, as the device build searches them; relative to the
        # working directory (the compiles run elsewhere).
        dirs = [os.path.abspath(d) for d in (*kernel.get("include_dirs", []), *kernel_include_dirs)]
        source = bundle / "kernels" / kernel["source"]
        return check_kernel(
            root, manifest, kernel, source, arch=arch, cxx=cxx, kernel_include_dirs=dirs
        )

    workers = max(1, min(len(kernels), os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        return [result for results in pool.map(one, kernels) for result in results]


KINDS = ("data_movement", "compute")


def report(bundle: str, results: Sequence[KernelCheck], required: Sequence[str]) -> list[str]:
    """One line per kernel and processor; a failure's first diagnostics follow it."""
    lines = []
    for r in results:
        kind = "compute" if r.processor.is_compute else "data_movement"
        status = "ok" if r.ok else "FAILED" if kind in required else "fails (not required)"
        lines.append(f"{bundle}: kernel {r.kernel} ({r.source}) on {r.processor.name}: {status}")
        if not r.ok:
            lines += ["    " + line for line in r.output.splitlines()[:40]]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m ttl.device_build.hardware_check [--tt_metal DIR] [--require KIND] BUNDLE...``."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="hardware_check",
        description="Compile every kernel of TT-Lang bundles against TT-Metal's kernel API "
        "headers, wrapped as TT-Metal's JIT build wraps them (-fsyntax-only).",
    )
    parser.add_argument("bundles", nargs="+", help="Bundle directories (manifest.json, kernels/).")
    parser.add_argument(
        "--tt_metal",
        help="The pinned TT-Metal headers (api/, hw/, ...); default: download them "
        "(ttl.device_build.tt_metal).",
    )
    parser.add_argument(
        "--include_dir",
        action="append",
        default=[],
        help="Where external headers are, after each kernel's include_paths.",
    )
    parser.add_argument(
        "--require",
        action="append",
        choices=KINDS,
        help="Kernel kinds that must compile (default: both); the others are reported only.",
    )
    args = parser.parse_args(argv)
    required = args.require or list(KINDS)
    try:
        root = Path(args.tt_metal) if args.tt_metal else tt_metal.headers()
        failed, counts = 0, {kind: [0, 0] for kind in KINDS}
        for bundle in args.bundles:
            results = check_bundle(Path(bundle), root=root, kernel_include_dirs=args.include_dir)
            for line in report(bundle, results, required):
                print(line)
            for r in results:
                kind = "compute" if r.processor.is_compute else "data_movement"
                counts[kind][0] += r.ok
                counts[kind][1] += 1
                failed += not r.ok and kind in required
    except (HardwareCheckError, tt_metal.TTMetalError, OSError, ValueError, KeyError) as e:
        print(f"hardware_check: {e}", file=sys.stderr)
        return 2
    pin = tt_metal.pin().version
    for kind, (ok, total) in counts.items():
        print(f"{kind}: {ok} of {total} kernel compiles pass against TT-Metal {pin}")
    print(COMPUTE_COVERAGE)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
