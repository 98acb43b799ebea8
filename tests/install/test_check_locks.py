"""tools/check_locks.py: every hash-locked requirement installs from PyPI alone (issue 27).

These ask the real PyPI (CI reaches it); no pip configuration is read, so a wheel
that only this machine's find-links folder holds cannot make a lock pass.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "check_locks.py"

_spec = importlib.util.spec_from_file_location("check_locks", SCRIPT)
assert _spec and _spec.loader
check_locks = importlib.util.module_from_spec(_spec)
sys.modules["check_locks"] = check_locks
_spec.loader.exec_module(check_locks)

SIX = (
    "six==1.16.0 \\\n"
    "    --hash=sha256:8abb2f1d86890a2dfb989f9a77cfcfd3e47c2a354b01111771326f8aa26e0254\n"
    "    # via example\n"
)
# The torch pin the test and sim locks had before issue 27: PyTorch's CPU build,
# which PyPI does not serve.
TORCH_CPU = (
    "torch==2.13.0+cpu \\\n"
    "    --hash=sha256:6746dbcbeb526eb61330b76b41ff1b4eb848951103a892eeb080dfa2b264667b\n"
)


@pytest.fixture(scope="module")
def pypi() -> object:
    return check_locks.PyPI()


def _lock(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_project_locks_install_from_pypi_alone() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "locked requirements install from PyPI alone" in result.stdout
    assert "2 torch CPU builds have PyPI fallback locks" in result.stdout


def test_a_lock_pinning_the_cpu_build_of_torch_fails(tmp_path: Path, pypi: object) -> None:
    lock = _lock(tmp_path, "requirements-test.lock", SIX + TORCH_CPU)
    assert check_locks.check_locks([lock], pypi) == [
        "requirements-test.lock:4: PyPI has no torch==2.13.0+cpu"
    ]


def test_the_cli_names_the_failing_line_and_exits_1(tmp_path: Path) -> None:
    lock = _lock(tmp_path, "requirements-sim.lock", TORCH_CPU)
    result = subprocess.run(
        [sys.executable, str(SCRIPT), str(lock)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 1
    assert "requirements-sim.lock:1: PyPI has no torch==2.13.0+cpu" in result.stderr


def test_a_hash_pypi_does_not_serve_fails(tmp_path: Path, pypi: object) -> None:
    lock = _lock(tmp_path, "requirements.lock", SIX.replace("8abb2f1d", "0000000d"))
    (problem,) = check_locks.check_locks([lock], pypi)
    assert problem == ("requirements.lock:1: none of PyPI's files of six==1.16.0 has a locked hash")


def test_an_unknown_version_fails(tmp_path: Path, pypi: object) -> None:
    lock = _lock(tmp_path, "requirements.lock", SIX.replace("1.16.0", "1.16.99"))
    assert check_locks.check_locks([lock], pypi) == [
        "requirements.lock:1: PyPI has no six==1.16.99"
    ]


def test_a_cpu_lock_needs_its_pypi_fallback(tmp_path: Path, pypi: object) -> None:
    lock = _lock(tmp_path, "requirements-test-cpu.lock", SIX + TORCH_CPU)
    assert check_locks.check_locks([lock], pypi) == [
        "requirements-test-cpu.lock: no requirements-test.lock to fall back to"
    ]


def test_a_cpu_lock_that_disagrees_with_its_fallback_fails(tmp_path: Path, pypi: object) -> None:
    _lock(tmp_path, "requirements-test.lock", SIX.replace("1.16.0", "1.17.0"))
    lock = _lock(tmp_path, "requirements-test-cpu.lock", SIX + TORCH_CPU)
    (problem,) = check_locks.check_locks([lock], pypi)
    assert problem.startswith("requirements-test-cpu.lock:1: six==1.16.0 disagrees with")


def test_a_cpu_lock_with_a_pypi_torch_fails(tmp_path: Path, pypi: object) -> None:
    _lock(tmp_path, "requirements-test.lock", SIX)
    torch = TORCH_CPU.replace("2.13.0+cpu", "2.13.0")
    lock = _lock(tmp_path, "requirements-test-cpu.lock", SIX + torch)
    assert check_locks.check_locks([lock], pypi) == [
        "requirements-test-cpu.lock:4: torch must be the +cpu build here"
    ]


def test_a_loose_pin_is_refused(tmp_path: Path) -> None:
    lock = _lock(tmp_path, "requirements.lock", "six>=1.16\n")
    with pytest.raises(SystemExit, match=r"requirements.lock:1: not an exact, hash-locked pin"):
        check_locks.parse_lock(lock)


def test_a_lock_for_another_python_is_checked_with_that_pythons_tags(
    tmp_path: Path, pypi: object
) -> None:
    """requirements-ttnn.lock pins ttnn's cp312 wheel (ttnn has none for 3.11): its
    `# python: 3.12` line makes the check use CPython 3.12's tags, and without it the
    same pin is a wheel this interpreter cannot install."""
    ttnn = (ROOT / "requirements-ttnn.lock").read_text(encoding="utf-8")
    assert "\n# python: 3.12\n" in ttnn
    lock = _lock(tmp_path, "requirements-ttnn.lock", ttnn)
    assert check_locks.check_locks([lock], pypi) == []
    text = ttnn.replace("# python: 3.12\n", "")
    line = text.splitlines().index("ttnn==0.81.1 \\") + 1
    without = _lock(tmp_path, "requirements-x.lock", text)
    assert check_locks.check_locks([without], pypi) == [
        f"requirements-x.lock:{line}: PyPI's locked files of ttnn==0.81.1 are wheels this"
        " interpreter cannot install"
    ]
