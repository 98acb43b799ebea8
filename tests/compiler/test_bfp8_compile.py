"""bfp8 (BFP8_b block-float) tensors in the compiler: specs, IR type, pages, manifest."""

from __future__ import annotations

import pytest
from compiler_testlib import REPO, parse_ir

from ttl.compiler.driver import compile_operation, load_operation
from ttl.specs import TensorSpec
from ttl.targets import tile_bytes

ADD_MUL = REPO / "examples" / "ttnn" / "eltwise_add_mul_op.py"


@pytest.mark.parametrize("spelling", ["bfp8", "bfp8_b", "bfloat8_b", "BFP8"])
def test_spec_spellings(spelling):
    spec = TensorSpec.parse(f"{spelling}[64,96]")
    assert spec == TensorSpec((64, 96), "bfp8") and str(spec) == "bfp8[64,96]"
    assert tile_bytes("bfp8") == 1088  # 64 exponents + 1024 sign-magnitude bytes


def test_an_unknown_dtype_names_the_three():
    with pytest.raises(ValueError, match="use bf16, f32 or bfp8"):
        TensorSpec.parse("fp8[64,64]")


def _compile(specs: dict[str, str]):
    return compile_operation(load_operation(str(ADD_MUL), "eltwise_add_mul"), specs)


def test_bfp8_pages_in_the_manifest_and_kernels():
    result = _compile(
        {"a": "bfp8[64,64]", "b": "bfp8[64,64]", "c": "bf16[64,64]", "y": "bfp8[64,64]"}
    )
    m = result.manifest
    tensors = {t["name"]: t for t in m["tensors"]}
    assert tensors["a"]["page_size"] == 1088 and tensors["a"]["data_format"] == "Bfp8_b"
    assert tensors["c"]["page_size"] == 2048 and tensors["c"]["data_format"] == "Float16_b"
    dfbs = {d["like_tensor"]: d for d in m["dfbs"]}
    assert dfbs["a"]["page_size"] == 1088 and dfbs["a"]["total_bytes"] == 2 * 1088
    assert dfbs["y"]["data_format"] == "Bfp8_b"
    assert m["l1_bytes"] == sum(d["total_bytes"] for d in m["dfbs"])
    # The data-movement kernels address bfp8 tensors in 1088-byte pages.
    sources = "\n".join(result.sources.values())
    assert "get_arg_val<uint32_t>(0), 1088)" in sources
    assert "get_arg_val<uint32_t>(2), 2048)" in sources
    # bf16 and bfp8 tensors: 16-bit DST, as for bf16 alone.
    compute = next(k for k in m["kernels"] if k["processor_slot"] == "compute")
    assert compute["compute_config"]["fp32_dest_acc_en"] is False


def test_the_ir_names_the_block_float_type_and_parses_back():
    result = _compile(dict.fromkeys("abcy", "bfp8[32,32]"))
    assert "!ttl.tensor<32x32x!ttl.bfp8>" in result.ir
    assert "!ttl.dfb<1x1x!ttl.bfp8>" in result.ir
    # DST tiles hold the unpacked bf16 values.
    assert "!ttl.tiles<1x1xbf16>" in result.ir
    parsed = parse_ir(result.ir)
    parsed.verify()
    assert str(parsed) + "\n" == result.ir


def test_bf16_operations_compile_as_before():
    bf16 = _compile(dict.fromkeys("abcy", "bf16[32,32]"))
    assert "bfp8" not in bf16.ir and "1088" not in "\n".join(bf16.sources.values())
