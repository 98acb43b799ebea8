"""A bundle as ttnn's ProgramDescriptor (ttl.device_build.program, ttnn_program.py).

``describe`` runs everywhere; building the real ttnn objects needs a Python with
ttnn 0.81.1 (3.10 or 3.12), which tools/setup.sh installs into .venv-ttnn where a
Python 3.12 exists. Where none does, the check says so instead of running
(issue 26: the fresh-machine run must still pass), and these tests say it too.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest

from ttl.device_build import program, tt_metal

REPO = Path(__file__).resolve().parents[2]
TTNN_PYTHON = program.find_ttnn_python(REPO)


def _examples() -> list[str]:
    from compiler_testlib import EXAMPLES  # tests/compiler's helpers (on sys.path in the suite)

    return [p.stem for p in EXAMPLES]


def _bundle(tmp_path: Path, example: str) -> Path:
    from compiler_testlib import EXAMPLES, compile_example, write_bundle_sources

    result = compile_example(next(p for p in EXAMPLES if p.stem == example))
    return write_bundle_sources(result, tmp_path / f"{example}.bundle")


def test_describe_resolves_the_manifest_into_descriptor_fields(tmp_path):
    bundle = _bundle(tmp_path, "matmul_mcast")
    manifest = json.loads((bundle / "manifest.json").read_text())
    desc = program.describe(bundle, {"a": 0x20000})
    gx, gy = manifest["grid"]["x"], manifest["grid"]["y"]
    assert len(desc["kernels"]) == len(manifest["kernels"])
    per_node = sorted(manifest["runtime_args"]["per_node"], key=lambda a: a["index"])
    for k, entry in zip(desc["kernels"], manifest["kernels"], strict=True):
        assert Path(k["source"]).read_text() == (bundle / "kernels" / entry["source"]).read_text()
        assert k["compile_time_args"] == [a["value"] for a in entry["compile_time_args"]]
        assert k["core_ranges"] == [[0, 0, gx - 1, gy - 1]]
        assert sorted((x, y) for x, y, _ in k["runtime_args"]) == sorted(
            (x, y) for x in range(gx) for y in range(gy)
        )
        args = k["runtime_args"][0][2]
        for a, value in zip(per_node, args, strict=True):
            if a["kind"] == "noc_x":  # wormhole_b0's translated coordinates
                assert value == 18 + a["column"]
            elif a["kind"] == "noc_y":
                assert value == 18 + a["row"]
            else:
                assert value == (0x20000 if a["tensor"] == "a" else 0)
        if entry["kind"] == "compute":
            assert k["config"]["kind"] == "compute"
            assert k["config"]["math_fidelity"] == "HiFi4"
        else:
            assert (
                k["config"]["processor"]
                == {"BRISC": "RISCV_0", "NCRISC": "RISCV_1"}[entry["processor"]]
            )
    assert [cb["formats"][0]["buffer_index"] for cb in desc["cbs"]] == [
        f["physical_index"] for f in manifest["dfbs"]
    ]
    assert {cb["formats"][0]["data_type"] for cb in desc["cbs"]} == {"BFLOAT16"}
    assert [s["id"] for s in desc["semaphores"]] == [
        s["index"] for s in manifest.get("semaphores", [])
    ]


def test_a_malformed_manifest_is_a_program_error(tmp_path):
    (tmp_path / "manifest.json").write_text('{"target": "wormhole_b0"}')
    with pytest.raises(program.ProgramError, match="not a TT-Metal program description"):
        program.describe(tmp_path)
    assert program.main([str(tmp_path)]) == 2


def test_the_ttnn_lock_pins_tt_metals_wheel():
    """requirements-ttnn.lock's ttnn is the wheel whose headers the hardware check uses."""
    text = (REPO / "requirements-ttnn.lock").read_text()
    pin = tt_metal.pin()
    match = re.search(r"^ttnn==(\S+) \\\n\s+--hash=sha256:(\w+)$", text, re.M)
    assert match, text
    assert match.groups() == (pin.version, pin.sha256)


def test_without_ttnn_the_check_says_that_it_did_not_run(tmp_path, monkeypatch, capsys):
    bundle = _bundle(tmp_path, "eltwise_grid")
    monkeypatch.delenv("TTL_TTNN_PYTHON", raising=False)
    monkeypatch.setattr(program, "TTNN_VENV", ".venv-absent")  # as on a machine without 3.12
    assert program.find_ttnn_python(tmp_path) is None
    assert program.main([str(bundle)]) == 0
    assert "the ttnn descriptor check did not run" in capsys.readouterr().out


def _ttnn_check(programs: list[dict]) -> str:
    if TTNN_PYTHON is None:
        warnings.warn(
            "the ttnn descriptor check did not run: no .venv-ttnn (tools/setup.sh makes it "
            "where python3.12 exists) and no $TTL_TTNN_PYTHON",
            stacklevel=2,
        )
        return ""
    done = program.check_with_ttnn(TTNN_PYTHON, programs)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_every_example_builds_as_a_ttnn_program_descriptor(tmp_path):
    """ttnn's own objects from every example bundle, every field read back and compared."""
    programs = [program.describe(_bundle(tmp_path, name)) for name in _examples()]
    out = _ttnn_check(programs)
    if out:
        assert f"{len(programs)} of {len(programs)} programs build" in out, out
        assert out.count("ttnn.ProgramDescriptor with") == len(programs)


def test_ttnn_reports_a_field_it_does_not_hold(tmp_path):
    """A description ttnn cannot build is reported by the operation, and the check fails."""
    desc = program.describe(_bundle(tmp_path, "eltwise_grid"))
    desc["cbs"][0]["formats"][0]["data_type"] = "NOT_A_TYPE"
    if TTNN_PYTHON is None:
        _ttnn_check([])
        return
    done = program.check_with_ttnn(TTNN_PYTHON, [desc])
    assert done.returncode == 1
    assert "eltwise_grid: ttnn rejected it: AttributeError" in done.stdout
    assert "0 of 1 programs build" in done.stdout


@pytest.mark.parametrize("bad", ["x", "x=", "x=0xzz"])
def test_a_bad_tensor_address_is_a_usage_error(tmp_path, capsys, bad):
    with pytest.raises(SystemExit) as exit_info:
        program.main(["--tensor_address", bad, str(tmp_path)])
    assert exit_info.value.code == 2
    assert "--tensor_address takes NAME=ADDR, e.g. x=0x20000" in capsys.readouterr().err
