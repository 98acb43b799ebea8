"""`ttl run` with L1-sharded tensors: the example passes and its profile shows where the
copies went; a bad shard spec is a located diagnostic at the program's line."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from ttl.host import toolchain

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "ttnn" / "sharded_add.py"

pytestmark = pytest.mark.skipif(
    toolchain.find_compiler() is None, reason=f"{toolchain.flags.default_cxx()} is not installed"
)


def _copies(out: str) -> dict[str, tuple[int, int]]:
    """The profile's tensor-copy table: kind -> (bytes read, bytes written)."""
    rows = {}
    for line in out.splitlines():
        words = line.split()
        if len(words) >= 3 and " ".join(words[:-2]) in ("DRAM", "local L1", "remote L1"):
            rows[" ".join(words[:-2])] = (int(words[-2]), int(words[-1]))
    return rows


@pytest.mark.parametrize(
    "shift, local, remote", [(0, (65536, 32768), (0, 0)), (1, (0, 0), (65536, 32768))]
)
def test_block_sharded_example_and_its_copy_table(ttl_run, shift, local, remote):
    code, out, err = ttl_run("--profile", EXAMPLE, "--strategy", "block", "--shift", shift)
    assert code == 0, err
    assert f"sharded_add block shift {shift}: [128, 128]" in out and "PASS" in out
    assert "tensor copies" in out and "bytes read" in out
    assert _copies(out) == {"DRAM": (0, 0), "local L1": local, "remote L1": remote}


def test_bad_shard_shape_is_a_diagnostic_at_the_line(ttl_run, tmp_path):
    program = tmp_path / "bad_shard.py"
    program.write_text(
        textwrap.dedent(
            """\
            import torch
            import ttnn

            cores = ttnn.CoreRangeSet({ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(3, 0))})
            spec = ttnn.ShardSpec(cores, [40, 128], ttnn.ShardOrientation.ROW_MAJOR)
            height = ttnn.TensorMemoryLayout.HEIGHT_SHARDED
            config = ttnn.MemoryConfig(height, ttnn.BufferType.L1, spec)
            t = ttnn.from_torch(torch.zeros(160, 128), layout=ttnn.TILE_LAYOUT,
                                memory_config=config)
            """
        )
    )
    code, _, err = ttl_run(program)
    assert code != 0 and "Traceback" not in err, err
    assert (
        f"{program}:8:1: error: shard shape [40, 128] is not a whole number of 32x32 tiles" in err
    )
    assert "t = ttnn.from_torch(" in err and "hint: make both multiples of 32" in err
