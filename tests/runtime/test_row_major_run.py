"""Row-major tensors and DFBs end to end: compile, run on the emulator, compare with NumPy.

A row-major tensor lives in DRAM one page per row of its innermost dimension;
a DFB made like it has its shape in elements. These programs copy whole and
partial rows (1-D, 2-D and 3-D blocks) in both directions, compute element-wise
on row-major blocks (bf16 and f32, with scalars), and check that the NOC moves
exactly the bytes of the slices and that run-time slice checks speak in elements.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import ttl
from ttl.compiler.driver import load_operation
from ttl.host import jit, toolchain
from ttl.runtime import Device
from ttl.runtime.errors import KernelFaultError

BF16 = ml_dtypes.bfloat16

COPIES = """\
import ttl


@ttl.operation(grid=(1, 1))
def op(x, y):
    row_dfb = ttl.make_dataflow_buffer_like(x, shape=(16,), block_count=2)
    box_dfb = ttl.make_dataflow_buffer_like(x, shape=(3, 32), block_count=2)

    @ttl.datamovement()
    def read():
        for n in range(3):
            with row_dfb.reserve() as row, box_dfb.reserve() as box:
                a = ttl.copy(x[n, 0, 8:24], row)
                b = ttl.copy(x[n, 1:4, 4:36], box)
                a.wait()
                b.wait()

    @ttl.datamovement()
    def write():
        for n in range(3):
            with row_dfb.wait() as row, box_dfb.wait() as box:
                a = ttl.copy(row, y[n, 4, 0:16])
                b = ttl.copy(box, y[n, 0:3, 8:40])
                a.wait()
                b.wait()
"""

ELEMENTWISE = """\
import ttl


@ttl.operation(grid=(1, 1))
def op(a, b, y):
    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(2, 40), block_count=2)
    b_dfb = ttl.make_dataflow_buffer_like(b, shape=(2, 40), block_count=2)
    y_dfb = ttl.make_dataflow_buffer_like(y, shape=(2, 40), block_count=2)

    @ttl.compute()
    def compute():
        for _ in range(3):
            with a_dfb.wait() as av, b_dfb.wait() as bv, y_dfb.reserve() as yv:
                yv.store(ttl.math.exp(av) + bv * 2.0 - ttl.math.sqrt(ttl.math.abs(bv)))

    @ttl.datamovement()
    def read():
        for r in range(3):
            with a_dfb.reserve() as ab, b_dfb.reserve() as bb:
                ta = ttl.copy(a[r * 2:r * 2 + 2, :], ab)
                tb = ttl.copy(b[r * 2:r * 2 + 2, :], bb)
                ta.wait()
                tb.wait()

    @ttl.datamovement()
    def write():
        for r in range(3):
            with y_dfb.wait() as yb:
                ttl.copy(yb, y[r * 2:r * 2 + 2, :]).wait()
"""

DYNAMIC = """\
import ttl


@ttl.operation(grid=(1, 1))
def op(a, y):
    dfb = ttl.make_dataflow_buffer_like(a, shape=(8,), block_count=2)

    @ttl.datamovement()
    def read():
        for r in range(4):
            with dfb.reserve() as blk:
                ttl.copy(a[{index}], blk).wait()

    @ttl.datamovement()
    def write():
        for r in range(4):
            with dfb.wait() as blk:
                ttl.copy(blk, y[r * 8:r * 8 + 8]).wait()
"""


@pytest.fixture(autouse=True)
def _compiler():
    if toolchain.find_compiler() is None:
        pytest.skip(f"{toolchain.flags.default_cxx()} is not installed")


def _load(tmp_path, text: str, name: str = "prog"):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    return load_operation(str(path), "op"), path


@pytest.mark.parametrize("target", ["wormhole_b0", "blackhole"])
def test_row_slices_copy_both_ways_with_exact_noc_bytes(tmp_path, target):
    op, _ = _load(tmp_path, COPIES)
    x = np.arange(3 * 5 * 48, dtype=np.float32).reshape(3, 5, 48).astype(BF16)
    y = np.zeros_like(x)
    dev = Device(target, (1, 1))
    jit.run_operation(op, ttl.row_major(x), ttl.row_major(y), target=target, device=dev)
    want = np.zeros_like(x)
    want[:, 4, 0:16] = x[:, 0, 8:24]
    want[:, 0:3, 8:40] = x[:, 1:4, 4:36]
    np.testing.assert_array_equal(y, want)
    report = dev.last_report
    assert report is not None
    # 3 x (16 + 3 * 32) elements of 2 bytes each way: the slices' bytes and no more.
    assert report.noc_bytes_read == report.noc_bytes_written == 3 * (16 + 96) * 2


def test_row_copies_are_one_noc_request_per_row_segment(tmp_path):
    op, _ = _load(tmp_path, COPIES)
    cpp = op.compile({"x": "bf16[3,5,48]:row_major", "y": "bf16[3,5,48]:row_major"}).sources
    # x[n, 0, 8:24]: page n * 5 (row 0 of image n), from byte 16, 32 bytes.
    assert "noc_async_read(tensor_x.get_noc_addr(n * 5, 16), row_addr, 32);" in cpp["read.cpp"]
    # x[n, 1:4, 4:36]: three rows of 64 bytes, each one read, packed in the block.
    assert "noc_async_read(tensor_x.get_noc_addr(n * 5 + 1 + row1" in cpp["read.cpp"]
    assert "box_addr + row1 * 64, 64);" in cpp["read.cpp"]
    # Rows of 96 bytes are 96-byte pages (32-byte aligned).
    assert (
        "const auto tensor_x = TensorAccessor(tensor_x_args, get_arg_val<uint32_t>(0), 96);"
        in cpp["read.cpp"]
    )
    assert "noc_async_write(box_addr + row1 * 64, tensor_y.get_noc_addr(" in cpp["write.cpp"]


@pytest.mark.parametrize("dtype", [BF16, np.float32], ids=["bf16", "f32"])
def test_elementwise_compute_on_row_major_blocks_matches_numpy(tmp_path, dtype):
    op, _ = _load(tmp_path, ELEMENTWISE)
    rng = np.random.default_rng(0)
    a, b = (rng.uniform(-1, 1, (6, 40)).astype(np.float32).astype(dtype) for _ in range(2))
    y = np.zeros_like(a)
    jit.run_operation(op, ttl.row_major(a), ttl.row_major(b), ttl.row_major(y))
    af, bf = a.astype(np.float32), b.astype(np.float32)
    want = np.exp(af) + bf * 2 - np.sqrt(np.abs(bf))
    # bf16: a 16-bit DST rounds every intermediate to bf16 (docs/runtime.md, "Numerics").
    tol = 0 if dtype is np.float32 else 2**-7
    np.testing.assert_allclose(y.astype(np.float32), want, rtol=tol, atol=tol * 4 + 1e-6)


def test_torch_tensors_pass_as_row_major(tmp_path):
    torch = pytest.importorskip("torch")
    op, _ = _load(tmp_path, DYNAMIC.format(index="r * 8:r * 8 + 8"))
    a = torch.arange(32, dtype=torch.float32)
    y = torch.zeros(32, dtype=torch.float32)
    jit.run_operation(op, ttl.row_major(a), ttl.row_major(y))
    assert torch.equal(a, y)


def test_out_of_bounds_row_slice_stops_the_run_in_elements(tmp_path):
    op, path = _load(tmp_path, DYNAMIC.format(index="r * 9:r * 9 + 8"))
    a = np.ones(32, np.float32)
    y = np.zeros_like(a)
    with pytest.raises(KernelFaultError) as info:
        jit.run_operation(op, ttl.row_major(a), ttl.row_major(y))
    text = str(info.value)
    assert f"at {path.name}:12 (kernels/read.cpp:" in text
    assert (
        "element slice at offset 27 is out of bounds: a slice of 8 elements in dimension 0 "
        "of row-major tensor 'a' (32 elements); indices are in elements"
    ) in text


def test_a_tiled_array_is_still_tiled_without_row_major(tmp_path):
    op, _ = _load(tmp_path, DYNAMIC.format(index="r * 8:r * 8 + 8"))
    with pytest.raises(ttl.TTLCompileError, match="a tiled tensor needs at least 2 dimensions"):
        jit.run_operation(op, np.ones(32, np.float32), np.zeros(32, np.float32))


UNIFIED = """\
import ttl


@ttl.operation(grid=(1, 1))
def op(inp, out):
    cols = inp.shape[1]
    src = ttl.make_dataflow_buffer_like(inp, shape=(cols,))
    dst = ttl.make_dataflow_buffer_like(out, shape=(cols,))
    for t in range(inp.shape[0]):
        with src.reserve() as blk:
            ttl.copy(inp[t, :], blk).wait()
        with src.wait() as a, dst.reserve() as y:
            y.store(-ttl.math.abs(a))
        with dst.wait() as blk:
            ttl.copy(blk, out[t, :]).wait()
"""


def test_unified_operation_on_row_major_tensors(tmp_path):
    op, _ = _load(tmp_path, UNIFIED)
    a = np.random.default_rng(1).uniform(-1, 1, (5, 70)).astype(np.float32)
    y = np.zeros_like(a)
    jit.run_operation(op, ttl.row_major(a), ttl.row_major(y))
    np.testing.assert_array_equal(y, -np.abs(a))


WHERE_FILL = ELEMENTWISE.replace(
    "yv.store(ttl.math.exp(av) + bv * 2.0 - ttl.math.sqrt(ttl.math.abs(bv)))",
    "yv.store(ttl.math.where(av > ttl.block.fill(0.0, shape=(2, 40)), av, "
    "ttl.block.fill(-1.0, shape=(2, 40))))\n"
    "                yv += bv",
)


def test_where_fill_and_in_place_add_on_row_major_blocks(tmp_path):
    op, _ = _load(tmp_path, WHERE_FILL)
    rng = np.random.default_rng(2)
    a, b = (rng.uniform(-1, 1, (6, 40)).astype(np.float32) for _ in range(2))
    y = np.zeros_like(a)
    jit.run_operation(op, ttl.row_major(a), ttl.row_major(b), ttl.row_major(y))
    np.testing.assert_array_equal(y, np.where(a > 0, a, -1.0) + b)


def test_slice_check_names_extents_beyond_16_bits(tmp_path):
    op, _ = _load(tmp_path, DYNAMIC.format(index="r * 8 + 69990:r * 8 + 69998"))
    a = np.ones(70000, np.float32)
    with pytest.raises(KernelFaultError) as info:
        jit.run_operation(op, ttl.row_major(a), ttl.row_major(np.zeros(32, np.float32)))
    assert (
        "element slice at offset 69998 is out of bounds: a slice of 8 elements in dimension 0 "
        "of row-major tensor 'a' (70000 elements)"
    ) in str(info.value)
