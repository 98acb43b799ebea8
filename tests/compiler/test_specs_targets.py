"""Tensor specs and the target slot table."""

from pathlib import Path

import pytest

from ttl.specs import TensorSpec
from ttl.targets import TARGETS, get_target, tile_bytes


def test_spec_string_form_round_trips():
    spec = TensorSpec.parse("bf16[256, 512]")
    assert spec == TensorSpec((256, 512), "bf16", "tile")
    assert str(spec) == "bf16[256,512]"
    assert spec.tile_shape == (8, 16)
    assert TensorSpec.parse("f32[2,64,96]").tile_shape == (2, 2, 3)
    assert TensorSpec.parse("float32[64,64]").dtype == "f32"


@pytest.mark.parametrize(
    "text",
    [
        "bf16[]",
        "bf16[64]",
        "i8[64,64]",
        "bf16[33,64]",
        "bf16 64,64",
        "bf16[0,32]",
        "bfp8[64,64]:row_major",  # block-float is tiled only
        "bf16[0,1]:tile",
    ],
)
def test_bad_specs_are_rejected(text):
    with pytest.raises(ValueError):
        TensorSpec.parse(text)


def test_an_explicit_tile_layout_gives_a_logical_shape_padded_to_whole_tiles():
    scalar = TensorSpec.parse("bf16[1,1]:tile")
    assert scalar.shape == (32, 32) and scalar.logical_shape == (1, 1)
    assert str(scalar) == "bf16[1,1]:tile" and TensorSpec.parse(str(scalar)) == scalar
    assert TensorSpec.parse("f32[40]:tile").shape == (32, 64)  # a vector is row 0 of tiles
    assert TensorSpec.parse("bf16[]:tile").shape == (32, 32)
    assert TensorSpec.parse("bf16[2,33,64]:tile").shape == (2, 64, 64)
    # Whole tiles: the logical shape is the stored one, and the text is unchanged.
    whole = TensorSpec.parse("bf16[64,64]:tile")
    assert whole.logical is None and whole == TensorSpec((64, 64)) and str(whole) == "bf16[64,64]"
    # A ttnn tensor's logical shape (the JIT's with_logical): part of what compiles.
    assert TensorSpec((32, 32)).with_logical((1, 1)) == scalar != TensorSpec((32, 32))


def test_a_partial_tile_shape_without_a_layout_is_an_error_that_names_both_fixes():
    with pytest.raises(ValueError, match=r"multiples of 32.*write :tile after it.*:row_major"):
        TensorSpec.parse("bf16[60,64]")
    with pytest.raises(ValueError, match=r"is stored as \(32, 32\), not \(64, 64\)"):
        TensorSpec((64, 64), logical=(1, 1))
    with pytest.raises(ValueError, match="only a tiled tensor has a logical shape"):
        TensorSpec((1, 40), layout="row_major", logical=(40,))


def test_spec_from_array_like():
    class Fake:
        shape = (64, 32)
        dtype = "float32"

    assert TensorSpec.of(Fake()) == TensorSpec((64, 32), "f32")


def test_slot_table():
    wh, bh = get_target("wormhole_b0"), get_target("blackhole")
    for t in (wh, bh):
        assert t.slots == {"compute": ("compute",), "data_movement": ("dm0", "dm1")}
        assert t.dst_tiles(fp32=False, full_sync=False) == 8
        assert t.dst_tiles(fp32=True, full_sync=False) == 4
        assert t.dst_tiles(fp32=False, full_sync=True) == 16
        assert t.dst_tiles(fp32=True, full_sync=True) == 8
        assert t.max_dst_tiles == 16
    # Spec v0.21, Appendix E: at most 32 DFBs on Wormhole, 64 on Blackhole.
    assert (wh.dfb_count, bh.dfb_count) == (32, 64)
    assert wh.l1_bytes == 1499136 and wh.full_grid == (8, 8)
    assert bh.l1_bytes == 1572864 and bh.full_grid == (13, 10)
    assert sorted(TARGETS) == ["blackhole", "wormhole_b0"]
    assert tile_bytes("bf16") == 2048 and tile_bytes("f32") == 4096
    with pytest.raises(KeyError, match="known targets"):
        get_target("grayskull")


def test_targets_module_is_neutral():
    import ttl.targets as t

    source = Path(t.__file__).read_text()
    assert "ttl.compiler" not in source and "ttl.runtime" not in source
