"""tools/setup.sh's choice of torch build (issue 27): PyPI's unless the CPU wheel is at hand.

The functions are sourced from the script (sourcing runs nothing else). pip runs
with no configuration file and none of this machine's PIP_* settings, as on a
machine that reaches only PyPI; there it must choose PyPI's build.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _setup(script: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "TTL_TORCH"))}
    clean.update(PIP_CONFIG_FILE=os.devnull, **env)
    return subprocess.run(
        ["bash", "-c", f"source tools/setup.sh\n{script}"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def test_pypi_alone_chooses_pypis_torch_and_its_locks() -> None:
    proc = _setup('choose_torch_build\necho "$(torch_lock test) $(torch_lock sim)"')
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "setup: torch: PyPI's torch 2.13.0 (with its CUDA libraries, about 2.6 GB;"
        " TTL_TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu selects the CPU build)",
        "requirements-test.lock requirements-sim.lock",
    ]


def test_a_cpu_wheel_with_another_hash_is_not_taken(tmp_path: Path) -> None:
    (tmp_path / "torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl").write_bytes(b"x")
    proc = _setup(
        "if cpu_torch_at_hand; then echo found; else echo absent; fi",
        PIP_FIND_LINKS=str(tmp_path),
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "absent\n"


def test_ttl_torch_forces_a_build_without_probing() -> None:
    proc = _setup(
        "cpu_torch_at_hand() { echo probed; }\nchoose_torch_build\ntorch_lock test",
        TTL_TORCH="cpu",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "setup: torch: PyTorch's CPU build (torch==2.13.0+cpu)",
        "requirements-test-cpu.lock",
    ]


def test_a_bad_ttl_torch_is_refused() -> None:
    proc = _setup("choose_torch_build", TTL_TORCH="gpu")
    assert proc.returncode == 1
    assert proc.stderr == "tools/setup.sh: TTL_TORCH=gpu is not one of cpu, pypi or auto\n"
