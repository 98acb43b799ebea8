"""Matmul accumulation (DST and L1) through kernels, and coprocessor tile ops."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from ttl.runtime import Device, DFBConfig, KernelSpec, Program, memmap
from ttl.runtime.coprocessor import Coprocessor, DstMode
from ttl.runtime.errors import DeviceFault
from ttl.runtime.tiles import BF16, F32, tilize, untilize

BF = ml_dtypes.bfloat16


@pytest.mark.parametrize("l1_acc", [0, 1], ids=["dst_acc", "l1_acc"])
def test_matmul_accumulates_over_k(build, l1_acc):
    mt, kt, nt = 2, 3, 2
    rng = np.random.default_rng(5)
    a = rng.standard_normal((mt * 32, kt * 32)).astype(np.float32)
    b = rng.standard_normal((kt * 32, nt * 32)).astype(np.float32)
    dev = Device()
    ta, tb = dev.write_tensor(a), dev.write_tensor(b)
    ty = dev.allocate_tensor((mt * 32, nt * 32), "f32")
    writer = build("eltwise_writer", ct_args=[2, 4096])
    dev.launch(
        Program(
            kernels=[
                KernelSpec(
                    "reader",
                    build("matmul_reader", ct_args=[2, 4096]),
                    "dm0",
                    [ta.address, tb.address, mt, kt, nt],
                ),
                KernelSpec(
                    "compute", build("matmul_compute", ct_args=[l1_acc]), "compute", [mt * nt, kt]
                ),
                KernelSpec("writer", writer, "dm1", [ty.address, 0, mt * nt]),
            ],
            dfbs=[DFBConfig(i, 4096, 1, 2, "f32") for i in (0, 1, 16)],
        )
    )
    # fp32 accumulation in a different order than NumPy's: a few ulps.
    np.testing.assert_allclose(dev.read_tensor(ty), a @ b, rtol=1e-5, atol=1e-4)


def _cop(fmt=F32):
    """A coprocessor on a small L1 with helpers to place and read tiles."""
    l1 = np.zeros(64 * 1024, np.uint8)
    cop = Coprocessor(l1, dst_tiles=8)

    def put(addr, tile_rowmajor):
        l1[addr : addr + fmt.tile_bytes] = tilize(tile_rowmajor.astype(fmt.dtype)).view(np.uint8)[0]

    def get(addr):
        return untilize(l1[addr : addr + fmt.tile_bytes].view(fmt.dtype)[None], (32, 32))

    return cop, put, get


def _run(cop, *cmds):
    q = np.zeros(memmap.COP_QUEUE_SIZE // 4, np.uint32)
    q[0] = len(cmds)
    for i, cmd in enumerate(cmds):
        cmd = list(cmd) + [0] * (8 - len(cmd))
        q[8 + 8 * i : 16 + 8 * i] = cmd
    cop.drain(q)
    assert q[0] == 0


@pytest.mark.parametrize(
    "kind,expect",
    [
        (0, lambda x: x),
        (1, lambda x: np.broadcast_to(x[0:1, :], (32, 32))),
        (2, lambda x: np.broadcast_to(x[:, 0:1], (32, 32))),
        (3, lambda x: np.full((32, 32), x[0, 0])),
    ],
)
def test_broadcast_kinds_use_row_major_positions(kind, expect):
    cop, put, get = _cop()
    x = np.arange(1024, dtype=np.float32).reshape(32, 32)
    put(0, x)
    _run(
        cop,
        (memmap.COP_ACQUIRE,),
        (memmap.COP_BCAST, 0, F32.code, 2, kind),
        (memmap.COP_PACK, 2, 8192, F32.code, 0),
    )
    np.testing.assert_array_equal(get(8192), expect(x))


def test_unary_fill_and_dst_binary_ops():
    cop, put, get = _cop()
    x = np.linspace(0.1, 4, 1024, dtype=np.float32).reshape(32, 32)
    put(0, x)
    two = np.float32(2.0).view(np.uint32)
    _run(
        cop,
        (memmap.COP_ACQUIRE,),
        (memmap.COP_UNPACK, 0, F32.code, 0),
        (memmap.COP_UNARY, memmap.UNOP_SQRT, 0),
        (memmap.COP_FILL, 1, int(two)),
        (memmap.COP_BINARY_DST, memmap.BINOP_DIV, 0, 1, 0),
        (memmap.COP_PACK, 0, 8192, F32.code, 0),
    )
    np.testing.assert_allclose(get(8192), np.sqrt(x) / 2, rtol=1e-6)


def test_pack_rounds_to_nearest_even_and_l1_acc_adds():
    cop, _, get = _cop(BF16)
    # 1 + 2^-8 is exactly halfway between two bf16 values: ties go to even (1.0).
    # 1 + 3*2^-8 is halfway too and rounds up to the even 1 + 2^-6.
    vals = np.array([1 + 2**-8, 1 + 3 * 2**-8], np.float32)
    l1 = cop.l1
    f32 = np.resize(vals, (32, 32)).astype(np.float32)
    l1[0:4096] = tilize(f32).view(np.uint8)[0]
    _run(
        cop,
        (memmap.COP_ACQUIRE,),
        (memmap.COP_UNPACK, 0, F32.code, 0),
        (memmap.COP_PACK, 0, 8192, BF16.code, 0),
    )
    assert get(8192)[0, :2].astype(np.float32).tolist() == [1.0, 1 + 2**-6]
    # L1 accumulation: pack adds DST onto the bf16 tile already there.
    _run(cop, (memmap.COP_PACK, 0, 8192, BF16.code, 1))
    assert get(8192)[0, :2].astype(np.float32).tolist() == [2.0, 2 + 2**-5]


def test_dst_index_out_of_range_is_a_fault_with_call_site():
    cop, _, _ = _cop()
    with pytest.raises(DeviceFault, match="DST index 8 is out of range: DST holds 8 tiles") as e:
        _run(cop, (memmap.COP_UNARY, memmap.UNOP_EXP, 8, 0, 0, 0, 0, 0x10000123))
    assert e.value.ra == 0x10000123


def test_bf16_tile_unpack_is_exact():
    cop, put, get = _cop(BF16)
    x = np.random.default_rng(1).standard_normal((32, 32)).astype(BF)
    put(0, x)
    _run(
        cop,
        (memmap.COP_ACQUIRE,),
        (memmap.COP_UNPACK, 0, BF16.code, 3),
        (memmap.COP_PACK, 3, 4096, BF16.code, 0),
    )
    np.testing.assert_array_equal(get(4096).view(np.uint16), x.view(np.uint16))


def test_acquire_clears_every_register_written_since_the_last_acquire():
    """DST is zero in each acquire section (it clears only written registers, all of them)."""
    cop, put, get = _cop()
    x = np.full((32, 32), 3.0, np.float32)
    put(0, x)
    one = int(np.float32(1.0).view(np.uint32))
    # Section 1 writes registers 0, 5 and 7 in that order (7 is DST's last tile).
    _run(
        cop,
        (memmap.COP_ACQUIRE,),
        (memmap.COP_UNPACK, 0, F32.code, 0),
        (memmap.COP_FILL, 7, one),
        (memmap.COP_FILL, 5, one),
    )
    assert cop.dst.any()
    # Section 2: matmul accumulates onto register 7 and pack reads register 5 untouched.
    _run(
        cop,
        (memmap.COP_ACQUIRE,),
        (memmap.COP_MATMUL, 0, F32.code, 0, F32.code, 7),
        (memmap.COP_PACK, 7, 8192, F32.code, 0),
        (memmap.COP_PACK, 5, 16384, F32.code, 0),
    )
    np.testing.assert_array_equal(get(8192), x @ x)
    np.testing.assert_array_equal(get(16384), np.zeros((32, 32), np.float32))
    assert not cop.dst[:7].any()


@pytest.mark.parametrize(
    "cmd,message",
    [
        ((2, 0, 0, 0, 0, 0, 0, 0x10000200), "unknown coprocessor opcode 2"),  # the retired release
        (
            (memmap.COP_UNPACK, 0, 7, 0, 0, 0, 0, 0x10000200),
            r"unsupported data format code 7 \(use bf16, f32 or bfp8\)",
        ),
        (
            (memmap.COP_UNPACK, 64 * 1024 - 8, F32.code, 0, 0, 0, 0, 0x10000200),
            r"tile \[0xfff8, 0x10ff8\) is outside L1 \(0x10000 B\)",
        ),
        ((memmap.COP_BINARY, 31, 0, F32.code, 0, F32.code, 0, 0x10000200), "unknown binary op 31"),
    ],
)
def test_bad_commands_are_faults_at_their_call_site(cmd, message):
    """A command is validated when first resolved; its fault carries the call site."""
    cop, _, _ = _cop()
    with pytest.raises(DeviceFault, match=message) as e:
        _run(cop, cmd)
    assert e.value.ra == 0x10000200


def test_16bit_dst_mode_rounds_each_result_and_fp32_mode_keeps_it():
    cop, put, _ = _cop(F32)
    x = np.full((32, 32), 1 + 2.0**-10, np.float32)  # not a bf16 value
    put(0, x)
    unpack = (memmap.COP_UNPACK, 0, memmap.FMT_FLOAT32, 0)
    _run(cop, unpack)
    assert cop.dst[0, 0] == np.float32(1 + 2.0**-10)
    cop.reset(DstMode(fp32=False, tiles=8))
    _run(cop, unpack)
    assert cop.dst[0, 0] == np.float32(1.0)  # rounded to bf16 (nearest-even)
    cop.reset(DstMode(fp32=True, tiles=8))  # commands resolved in 16-bit mode are dropped
    _run(cop, unpack)
    assert cop.dst[0, 0] == np.float32(1 + 2.0**-10)


def test_dst_mode_sets_the_usable_registers():
    cop, _, _ = _cop()
    cop.reset(DstMode(fp32=True, tiles=4))
    with pytest.raises(DeviceFault, match="DST index 4 is out of range: DST holds 4 tiles"):
        _run(cop, (memmap.COP_FILL, 4, 0))
    with pytest.raises(DeviceFault, match="a DST of 16 tiles does not fit: the node has 8"):
        cop.reset(DstMode(fp32=False, tiles=16))


@pytest.mark.parametrize(
    "entry", [{"fp32_dest_acc_en": 1, "dst_tiles": 8}, {"fp32_dest_acc_en": True}, {"dst_tiles": 0}]
)
def test_dst_mode_from_a_bad_manifest_entry(entry):
    with pytest.raises(ValueError, match="compute_config"):
        DstMode.from_manifest(entry)
    assert DstMode.from_manifest(None) == DstMode(fp32=True, tiles=8)
