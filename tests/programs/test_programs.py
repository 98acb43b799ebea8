"""TT-Lang programs written the way the spec and upstream's examples write them.

Each program in this directory is a whole host program (``import ttl``, ``import
ttnn``, torch tensors, ``ttnn.from_torch``) that checks its own result against
torch and prints ``PASS``. Every one runs on both emulated targets under ``ttl
run``; the kernels it compiled are then built against TT-Metal 0.81.1's kernel
API as its JIT would build them (the hardware check). Each also runs under
tt-lang-sim 1.1.6, the reference simulator, so a program here is one that the
reference accepts too (tools/setup.sh installs it in .venv-sim; CI runs it),
except where the program says why not in a line ``# not for tt-lang-sim 1.1.6:
REASON`` (a feature of a spec version after the simulator's, about v0.17). A program
whose operations do no kernel work says so in a line ``# no kernel work: ...``: it
compiles no bundle. A program beyond one target's limits says so in a line ``#
<target> error: MESSAGE``: on that target ``ttl run`` must fail with that located
error.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ttl.device_build import hardware_check
from ttl.host import toolchain

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SIM = ROOT / ".venv-sim" / "bin" / "tt-lang-sim"
PROGRAMS = sorted(p for p in HERE.glob("*.py") if not p.name.startswith("test_"))
SIM_PROGRAMS = [p for p in PROGRAMS if "# not for tt-lang-sim 1.1.6:" not in p.read_text()]
TARGETS = ("wormhole_b0", "blackhole")

pytestmark = pytest.mark.skipif(
    toolchain.find_compiler() is None, reason=f"{toolchain.flags.default_cxx()} is not installed"
)


def _ttl_run(program: Path, cache: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ttl.host.cli", "run", *flags, str(program)],
        capture_output=True,
        text=True,
        check=False,
        env=dict(os.environ, TTL_CACHE_DIR=str(cache)),
        cwd=program.parent,
        timeout=600,
    )


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_program_passes_on_the_emulator_and_builds_for_hardware(program, target, tmp_path):
    proc = _ttl_run(program, tmp_path / "cache", f"--target={target}")
    refused = re.search(rf"^# {target} error: (.+)$", program.read_text(), re.M)
    if refused:  # beyond this target's limits: a located error, not a run
        assert proc.returncode == 1, proc.stdout + proc.stderr
        assert f"{program.name}:" in proc.stderr and refused[1] in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr, proc.stderr
        return
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.rstrip().endswith("PASS"), proc.stdout
    bundles = sorted((tmp_path / "cache" / "bundles").glob("*/manifest.json"))
    if "# no kernel work:" not in program.read_text():
        assert bundles, "the program compiled no operation"
    for manifest in bundles:
        for result in hardware_check.check_bundle(manifest.parent):
            assert result.ok, f"{manifest.parent.name} {result.kernel}:\n{result.output}"


@pytest.mark.parametrize("program", SIM_PROGRAMS, ids=[p.stem for p in SIM_PROGRAMS])
def test_program_passes_on_the_reference_simulator(program):
    if not SIM.exists():
        pytest.skip(f"tt-lang-sim is not installed in {SIM.parent.parent} (tools/setup.sh)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        [str(SIM), str(program)],
        capture_output=True,
        text=True,
        check=False,
        env=env,
        cwd=program.parent,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASS" in proc.stdout, proc.stdout
