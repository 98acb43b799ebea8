"""The hardware check: kernels compiled against TT-Metal's pinned headers as its JIT wraps them.

These tests compile real kernels with the device compiler against the pinned
TT-Metal 0.81.1 headers (downloaded once by ``ttl.device_build.tt_metal``):
hand-written TT-Metal kernels pass, kernels written against an API TT-Metal
lacks fail with the compiler's diagnostics, and a generated bundle's
data-movement kernels pass.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from ttl.device_build import flags, hardware_check, tt_metal
from ttl.device_build.hardware_check import ARCHES, Processor

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "compiler"))

READER = """#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  constexpr auto args = TensorAccessorArgs<1>();
  const auto accessor = TensorAccessor(args, get_arg_val<uint32_t>(0), 2048);
  constexpr uint32_t cb = get_compile_time_arg_val(0);
  cb_reserve_back(cb, 1);
  noc_async_read_page(0, accessor, get_write_ptr(cb));
  noc_async_read_barrier();
  cb_push_back(cb, 1);
}
"""

COMPUTE = """#include "api/compute/common.h"
#include "api/compute/eltwise_binary.h"
#include "api/compute/tile_move_copy.h"
void kernel_main() {
  compute_kernel_hw_startup(0, 1, 16);
  add_init(0, 1);
  cb_wait_front(0, 1);
  cb_wait_front(1, 1);
  cb_reserve_back(16, 1);
  tile_regs_acquire();
  add_tiles(0, 1, 0, 0, 0);
  tile_regs_commit();
  tile_regs_wait();
  pack_tile(0, 16);
  tile_regs_release();
  cb_push_back(16, 1);
  cb_pop_front(0, 1);
  cb_pop_front(1, 1);
}
"""


@pytest.fixture(scope="module")
def headers() -> Path:
    if shutil.which(flags.default_cxx()) is None:
        pytest.skip(f"{flags.default_cxx()} is not installed")
    try:
        hardware_check.runtime_include_flags()
    except hardware_check.HardwareCheckError as e:
        pytest.skip(str(e))
    return tt_metal.headers()


def _bundle(tmp_path: Path, sources: dict[str, str], kernels: list[dict]) -> Path:
    bundle = tmp_path / "op.bundle"
    (bundle / "kernels").mkdir(parents=True)
    for name, text in sources.items():
        (bundle / "kernels" / name).write_text(text)
    dfb = {"page_size": 2048, "data_format": "Float16_b"}
    manifest = {
        "target": "wormhole_b0",
        "dfbs": [dict(dfb, physical_index=i) for i in (0, 1, 16)],
        "kernels": kernels,
    }
    (bundle / "manifest.json").write_text(json.dumps(manifest))
    return bundle


def test_hand_written_tt_metal_kernels_pass_on_every_processor(headers, tmp_path):
    bundle = _bundle(
        tmp_path,
        {"reader.cpp": READER, "compute.cpp": COMPUTE},
        [
            {
                "name": "reader",
                "source": "reader.cpp",
                "kind": "data_movement",
                "processor_slot": "dm1",
                "compile_time_args": [{"value": 0}, {"value": 2}, {"value": 2048}],
            },
            {"name": "compute", "source": "compute.cpp", "kind": "compute"},
        ],
    )
    results = hardware_check.check_bundle(bundle, root=headers)
    assert [(r.kernel, r.processor) for r in results] == [
        ("reader", Processor.NCRISC),
        ("compute", Processor.TRISC0),
        ("compute", Processor.TRISC1),
        ("compute", Processor.TRISC2),
    ]
    for r in results:
        assert r.ok, r.output


@pytest.mark.parametrize(
    ("source", "diagnostic"),
    [
        # The emulator's old spellings, which TT-Metal 0.81.1 does not have.
        (
            READER.replace(
                "const auto accessor = TensorAccessor(args, get_arg_val<uint32_t>(0), 2048);",
                "const TensorAccessor accessor(get_arg_val<uint32_t>(0), 2048);",
            ),
            "TensorAccessor",
        ),
        (READER.replace("noc_async_read_barrier();", "ttl_node_x();"), "'ttl_node_x' was not"),
        # Too few compile-time args for the TensorAccessorArgs at offset 1.
        (READER.replace("TensorAccessorArgs<1>", "TensorAccessorArgs<5>"), "Index out of range"),
    ],
)
def test_kernels_tt_metal_lacks_fail_with_the_compilers_diagnostics(
    headers, tmp_path, source, diagnostic
):
    bundle = _bundle(
        tmp_path,
        {"reader.cpp": source},
        [
            {
                "name": "reader",
                "source": "reader.cpp",
                "kind": "data_movement",
                "processor_slot": "dm0",
                "compile_time_args": [{"value": 0}, {"value": 2}, {"value": 2048}],
            }
        ],
    )
    (result,) = hardware_check.check_bundle(bundle, root=headers)
    assert result.processor is Processor.BRISC
    assert not result.ok
    assert diagnostic in result.output
    assert "reader.cpp" in result.output  # located in the kernel, not our temp directory


def test_a_compute_kernel_cannot_use_the_data_movement_api_on_a_trisc(headers, tmp_path):
    source = COMPUTE.replace("add_init(0, 1);", "add_init(0, 1);\n  noc_async_read_barrier();")
    bundle = _bundle(
        tmp_path,
        {"compute.cpp": source},
        [{"name": "compute", "source": "compute.cpp", "kind": "compute"}],
    )
    results = hardware_check.check_bundle(bundle, root=headers)
    assert not any(r.ok for r in results)
    assert all("noc_async_read_barrier" in r.output for r in results)


@pytest.mark.parametrize("target", ["wormhole_b0", "blackhole"])
@pytest.mark.parametrize("example", ["matmul_mcast", "gelu_mlp"])
def test_generated_kernels_pass_on_every_processor(headers, tmp_path, example, target):
    """matmul_mcast: pipes, multicasts, matmul; gelu_mlp: SFPU math (TRISC1 reaches SFPI);
    each against the architecture's own LLK and HAL headers."""
    from compiler_testlib import EXAMPLES, compile_example, write_bundle_sources

    result = compile_example(next(p for p in EXAMPLES if p.stem == example), target=target)
    assert result.manifest["target"] == target
    bundle = write_bundle_sources(result, tmp_path / f"{example}.bundle")
    results = hardware_check.check_bundle(bundle, root=headers)
    assert {r.processor for r in results} == set(Processor)
    assert all(r.ok for r in results), [r.output for r in results if not r.ok]


def test_the_gcc12_overlay_lets_fill_and_rounding_parse(headers, tmp_path):
    """ckernel_sfpu_fill.h's static_assert(false) and ckernel_sfpu_rounding_ops.h's
    `#pragma GCC unroll ITERATIONS` stop GCC 12 without the overlay."""
    source = COMPUTE.replace(
        '#include "api/compute/tile_move_copy.h"',
        '#include "api/compute/tile_move_copy.h"\n#include "api/compute/eltwise_unary/fill.h"\n'
        '#include "api/compute/eltwise_unary/rounding.h"',
    ).replace("add_tiles(0, 1, 0, 0, 0);", "fill_tile_init();\n  fill_tile_bitcast(0, 0u);")
    bundle = _bundle(
        tmp_path,
        {"compute.cpp": source},
        [{"name": "compute", "source": "compute.cpp", "kind": "compute"}],
    )
    results = hardware_check.check_bundle(bundle, root=headers)
    assert all(r.ok for r in results), [r.output for r in results if not r.ok]
    overlay = hardware_check.gcc12_overlay(headers, ARCHES["wormhole_b0"])
    edited = {p.name: p.read_text() for p in overlay.rglob("*.h")}
    assert "// [gcc12] #pragma GCC unroll ITERATIONS" in edited["ckernel_sfpu_rounding_ops.h"]
    assert "static_assert(INSTRUCTION_MODE != INSTRUCTION_MODE" in edited["ckernel_sfpu_fill.h"]


def test_descriptors_header_lists_each_dfb_format_and_page_size():
    manifest = {"dfbs": [{"physical_index": 3, "data_format": "Float32", "page_size": 4096}]}
    kernel = {"compute_config": {"fp32_dest_acc_en": True, "math_fidelity": "LoFi"}}
    text = hardware_check.descriptors_header(manifest, kernel, ARCHES["wormhole_b0"])
    formats = text.split("unpack_src_format[32] = {\n    ")[1].split("\n")[0].split(",")
    assert formats[3] == "0" and formats[0] == "255"  # Float32; unused CBs are Invalid
    sizes = text.split("unpack_tile_size[32] = {\n    ")[1].split("\n")[0].split(",")
    assert sizes[3] == "4096"
    assert "constexpr bool DST_ACCUM_MODE = true;" in text
    assert "static_cast<ckernel::MathFidelity>(0)" in text


def test_processor_defines_follow_the_jit():
    arch = ARCHES["blackhole"]
    assert hardware_check.processor_defines(arch, Processor.NCRISC) == [
        "PROCESSOR_INDEX=1",
        "COMPILE_FOR_NCRISC",
        "PROGRAMMABLE_CORE_TYPE=0",
        "ARCH_BLACKHOLE",
    ]
    assert hardware_check.processor_defines(arch, Processor.TRISC2)[:4] == [
        "PROCESSOR_INDEX=4",
        "UCK_CHLKC_PACK",
        "NAMESPACE=chlkc_pack",
        "COMPILE_FOR_TRISC=2",
    ]


def test_missing_runtime_headers_are_named_with_their_package(monkeypatch):
    monkeypatch.setattr(hardware_check, "PICOLIBC_DIR", "/nonexistent/picolibc")
    monkeypatch.setattr(
        hardware_check,
        "_RUNTIME_PACKAGES",
        {"/nonexistent/picolibc": "picolibc-riscv64-unknown-elf"},
    )
    with pytest.raises(hardware_check.HardwareCheckError, match="picolibc-riscv64-unknown-elf"):
        hardware_check.runtime_include_flags()


def test_cli_exit_status_and_counts(headers, tmp_path, capsys):
    good = _bundle(
        tmp_path,
        {"compute.cpp": COMPUTE},
        [{"name": "compute", "source": "compute.cpp", "kind": "compute"}],
    )
    assert hardware_check.main(["--tt_metal", str(headers), str(good)]) == 0
    out = capsys.readouterr().out
    assert "compute: 3 of 3 kernel compiles pass against TT-Metal 0.81.1" in out
    (good / "kernels" / "compute.cpp").write_text(COMPUTE.replace("add_init", "add_tiles_init"))
    assert hardware_check.main(["--tt_metal", str(headers), str(good)]) == 1
    assert "FAILED" in capsys.readouterr().out
    # A kind that is not required is reported but does not fail the check.
    assert (
        hardware_check.main(["--tt_metal", str(headers), "--require", "data_movement", str(good)])
        == 0
    )
    assert "fails (not required)" in capsys.readouterr().out


def test_a_real_sfpi_include_replaces_our_declarations_and_the_overlay(monkeypatch, tmp_path):
    """With the SFPI toolchain (which cannot run here) the check uses its headers."""
    root = tmp_path / "tt_metal"
    monkeypatch.setattr(hardware_check, "runtime_include_flags", list)
    arch = ARCHES["wormhole_b0"]
    kernel = {"kind": "compute"}
    monkeypatch.setenv(hardware_check.SFPI_INCLUDE_ENV, "/opt/sfpi/include")
    cmd = hardware_check.command(root, arch, Processor.TRISC1, kernel, cxx="g++")
    assert cmd[cmd.index("-I") + 1] == "/opt/sfpi/include"
    assert not any("gcc12" in arg for arg in cmd)
    monkeypatch.delenv(hardware_check.SFPI_INCLUDE_ENV)
    monkeypatch.setattr(hardware_check, "gcc12_overlay", lambda r, a: tmp_path / "none")
    monkeypatch.setattr(hardware_check, "gcc12_print_overlay", lambda r: tmp_path / "dprint")
    (tmp_path / "none").mkdir()
    cmd = hardware_check.command(root, arch, Processor.TRISC1, kernel, cxx="g++")
    assert cmd[cmd.index("-I") + 1].endswith("tt_metal_shims/sfpi")
    assert f"-I{tmp_path / 'dprint'}" in cmd  # GCC 12's DPRINT overlay, on every processor
    dm = hardware_check.command(root, arch, Processor.BRISC, {"kind": "data_movement"}, cxx="g++")
    assert f"-I{tmp_path / 'dprint'}" in dm


ZONES = """
import ttl

@ttl.operation(grid=(1, 1))
def zones(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        with ttl.signpost("read"), a_dfb.reserve() as blk:
            ttl.copy(a[0, 0], blk).wait()

    @ttl.compute()
    def compute():
        with ttl.signpost("math"):
            with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
                y_blk.store(a_blk * 2)

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk, ttl.signpost("write"):
            ttl.copy(blk, y[0, 0]).wait()
"""


def _bundle_of(tmp_path: Path, source: str, stem: str, target: str = "wormhole_b0", specs=None):
    """(compile result, bundle directory) of operation ``stem`` in ``source``."""
    from compiler_testlib import compile_operation, load_operation, write_bundle_sources

    src = tmp_path / f"{stem}.py"
    src.write_text(source)
    specs = specs or {"a": "bf16[32,32]", "y": "bf16[32,32]"}
    result = compile_operation(load_operation(str(src), stem), specs, target=target)
    return result, write_bundle_sources(result, tmp_path / f"{stem}.bundle")


def _check_operation(
    headers: Path, tmp_path: Path, source: str, stem: str, target: str = "wormhole_b0"
):
    """(compile result, hardware check results) of operation ``stem`` in ``source``."""
    result, bundle = _bundle_of(tmp_path, source, stem, target)
    return result, hardware_check.check_bundle(bundle, root=headers)


@pytest.mark.parametrize("target", ["wormhole_b0", "blackhole"])
def test_signposts_are_tt_metal_profiler_zones_on_every_processor(headers, tmp_path, target):
    """with ttl.signpost(...) is DeviceZoneScopedN in a scope; TT-Metal's profiler header
    compiles it on BRISC, NCRISC and the three TRISCs of both architectures."""
    result, results = _check_operation(headers, tmp_path, ZONES, "zones", target)
    assert result.manifest["target"] == target
    assert all("DeviceZoneScopedN(" in text for text in result.sources.values())
    assert {r.processor for r in results} == set(Processor)
    assert all(r.ok for r in results), [r.output for r in results if not r.ok]


PRINTS = """
import ttl

@ttl.operation(grid=(1, 1))
def prints(a, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        print("a:", a, num_pages=1)
        with a_dfb.reserve() as blk:
            print("reserved", a_dfb)
            ttl.copy(a[0, 0], blk).wait()
            print("k =", 3, "flag", True, blk, end="")

    @ttl.compute()
    def compute():
        with a_dfb.wait() as a_blk, y_dfb.reserve() as y_blk:
            print("in:", a_blk)
            y_blk.store(a_blk * 2)
            print("out:", y_blk)
            print("y:", y_dfb)

    @ttl.datamovement()
    def write():
        with y_dfb.wait() as blk:
            print("writing", blk)
            ttl.copy(blk, y[0, 0]).wait()
"""


@pytest.mark.parametrize("target", ["wormhole_b0", "blackhole"])
def test_kernels_that_print_build_for_hardware_on_every_processor(headers, tmp_path, target):
    """print() of text, scalars, a tensor, a DFB and blocks lowers to TT-Metal's
    DPRINT(format, ...), TSLICE and print_cb_details: BRISC, NCRISC and the three
    TRISCs compile it against TT-Metal's headers."""
    result, results = _check_operation(headers, tmp_path, PRINTS, "prints", target)
    assert all('#include "api/debug/dprint.h"' in text for text in result.sources.values())
    assert {r.processor for r in results} == set(Processor)
    assert all(r.ok for r in results), [r.output for r in results if not r.ok]


TWO_TENSORS = """
import ttl

@ttl.operation(grid=(1, 1))
def two(a, b, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

    @ttl.datamovement()
    def read():
        for col in range(2):
            with a_dfb.reserve() as a_blk, b_dfb.reserve() as b_blk:
                ttl.copy(a[0, col], a_blk).wait()
                ttl.copy(b[0, col], b_blk).wait()

    @ttl.compute()
    def compute():
        for _ in range(2):
            with a_dfb.wait() as x, b_dfb.wait() as z, y_dfb.reserve() as o:
                o.store(x + z)

    @ttl.datamovement()
    def write():
        for col in range(2):
            with y_dfb.wait() as blk:
                ttl.copy(blk, y[0, col]).wait()
"""

# TT-Metal's TensorAccessorArgs of an L1-sharded 1x2-page tensor over two cores, all
# compile-time: config Sharded, page size, rank, bank count, tensor shape and shard
# shape in pages, the two bank coordinates packed in one word.
SHARDED_ARGS = [1, 2048, 2, 2, 1, 2, 1, 1, (1 << 8 | 1) | (2 << 8 | 1) << 16]


def test_a_kernel_builds_with_a_sharded_tensors_accessor_args(headers, tmp_path):
    """A host dispatching a sharded tensor passes its own, longer TensorAccessorArgs:
    the reader chains each tensor's offset from the previous one's, so it compiles."""
    specs = {"a": "bf16[32,64]", "b": "bf16[32,64]", "y": "bf16[32,64]"}
    _, bundle = _bundle_of(tmp_path, TWO_TENSORS, "two", specs=specs)
    manifest = json.loads((bundle / "manifest.json").read_text())
    (read,) = [k for k in manifest["kernels"] if k["name"] == "read"]
    args = read["compile_time_args"]
    first = [i for i, a in enumerate(args) if a["name"].startswith("tensor_a.")]
    assert len(first) == 2  # the interleaved form: config and page size
    sharded = [{"name": f"tensor_a.sharded[{i}]", "value": v} for i, v in enumerate(SHARDED_ARGS)]
    read["compile_time_args"] = args[: first[0]] + sharded + args[first[-1] + 1 :]
    (bundle / "manifest.json").write_text(json.dumps(manifest))
    results = [r for r in hardware_check.check_bundle(bundle, root=headers) if r.kernel == "read"]
    assert results and all(r.ok for r in results), [r.output for r in results]
