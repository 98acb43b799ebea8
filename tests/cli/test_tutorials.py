"""The 15 public TT-Lang tutorials of the tt-lang-sim 1.1.6 wheel, run under ``ttl run``.

Each must exit 0: the tutorials check their own results (``assert torch.allclose``,
``assert pcc > 0.99``). They come from the wheel installed in .venv-sim (tools/setup.sh,
as for tests/differential); nothing of theirs is committed here. The element-wise and
broadcast tutorials run as shipped (2048 x 2048). The matmul ones, shipped at
M = K = N = 8192, run from a copy whose size line reads 512 (the only change), which
still spreads their blocks over every node and, for steps 5-7, over the 4 emulated
devices of the default mesh.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ttl.host import toolchain

ROOT = Path(__file__).resolve().parents[2]
SIM_VENV = ROOT / ".venv-sim"
SHIPPED_SIZE = "M, K, N = 8192, 8192, 8192"
TEST_SIZE = "M, K, N = 512, 512, 512"


def _tutorials() -> list[Path]:
    found = sorted(SIM_VENV.glob("lib/python3*/site-packages/ttl/tutorials/*/*.py"))
    return [p for p in found if p.name != "__init__.py"]


TUTORIALS = _tutorials()
pytestmark = [
    pytest.mark.skipif(
        not TUTORIALS, reason=f"tt-lang-sim is not installed in {SIM_VENV} (tools/setup.sh)"
    ),
    pytest.mark.skipif(
        toolchain.find_compiler() is None,
        reason=f"{toolchain.flags.default_cxx()} is not installed",
    ),
]


def test_the_wheel_ships_15_tutorials():
    names = sorted(f"{p.parent.name}/{p.stem}" for p in TUTORIALS)
    assert len(names) == 15, names


def _runnable(tutorial: Path, directory: Path) -> Path:
    """The tutorial itself, or a copy with the matmul size line reduced."""
    text = tutorial.read_text()
    if tutorial.parent.name != "matmul":
        return tutorial
    assert text.count(SHIPPED_SIZE) == 1, f"{tutorial} no longer sets {SHIPPED_SIZE}"
    copy = directory / tutorial.name
    copy.write_text(text.replace(SHIPPED_SIZE, TEST_SIZE))
    return copy


@pytest.mark.parametrize("tutorial", TUTORIALS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_tutorial_runs_and_passes_its_checks(tutorial, tmp_path, ttl_run):
    program = _runnable(tutorial, tmp_path)
    # TTL_NUM_DEVICES unset: the documented default mesh of 4 devices.
    code, stdout, stderr = ttl_run(program, env={"TTL_NUM_DEVICES": None}, timeout=600)
    assert code == 0, stderr[-4000:]
    if "multidevice" in tutorial.stem:
        assert stdout.count("PCC") >= (4 if "all_reduce" in tutorial.stem else 1)
