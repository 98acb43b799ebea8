"""The driver's pass pipeline: IR dumps after each pass, and every step reproducible by
``ttl-opt`` from the previous step's text."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from compiler_testlib import REPO, compile_example, load_example
from test_passes_filecheck import run_ttl_opt

from ttl.compiler.driver import PIPELINE, CompileResult, compile_operation, load_operation

STEPS = ["frontend", *PIPELINE.split(",")]
EXAMPLES = [
    REPO / "examples" / "basic" / "eltwise_single_tile.py",
    REPO / "examples" / "basic" / "matmul_bias_relu.py",
    REPO / "examples" / "kernels" / "conditional_pair.py",
    REPO / "examples" / "kernels" / "dfb_reuse_extern.py",
]
INCLUDE = ("examples/kernels/include",)


def compile_with_dumps(path: Path) -> tuple[CompileResult, list[tuple[str, str]]]:
    dumps: list[tuple[str, str]] = []
    result = compile_example(
        path, include_dirs=INCLUDE, dump_ir_after=lambda step, ir: dumps.append((step, ir))
    )
    return result, dumps


def test_dump_callback_sees_every_step() -> None:
    result, dumps = compile_with_dumps(EXAMPLES[0])
    assert [step for step, _ in dumps] == STEPS
    assert dumps[-1][1] == result.ir
    frontend = dumps[0][1]
    assert "slot =" not in frontend and "physical_index" not in frontend
    assert 'slot = "compute"' in dict(dumps)["ttl-assign-slots"]
    assert "protocol = #ttl.protocol<" in dict(dumps)["ttl-check-dfb-protocol"]


def test_dump_directory(tmp_path: Path) -> None:
    module = load_example(EXAMPLES[0])
    out = tmp_path / "ir"
    result = compile_operation(
        load_operation(str(EXAMPLES[0]), module.OPERATION), module.SPECS, dump_ir_after=str(out)
    )
    names = sorted(p.name for p in out.iterdir())
    assert names == [f"{i:02d}-{step}.mlir" for i, step in enumerate(STEPS)]
    assert (out / names[-1]).read_text() == result.ir


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_each_pass_runs_alone_on_the_previous_text(path: Path, tmp_path: Path) -> None:
    """ttl-opt -p <pass> on step N's text prints step N+1 exactly; the whole pipeline on the
    frontend's text prints the compiler's IR."""
    result, dumps = compile_with_dumps(path)
    texts = [text for _, text in dumps]
    for i, (step, _) in enumerate(dumps[1:]):
        before = tmp_path / f"{i:02d}.mlir"
        before.write_text(texts[i])
        status, out = run_ttl_opt(["-p", step, str(before)])
        assert status == 0, out
        assert out == texts[i + 1], f"{step} differs when run alone on {path.stem}"
    status, out = run_ttl_opt(["-p", PIPELINE, str(tmp_path / "00.mlir")])
    assert status == 0 and out == result.ir


def test_outputs_are_deterministic() -> None:
    first, dumps1 = compile_with_dumps(EXAMPLES[-1])
    second, dumps2 = compile_with_dumps(EXAMPLES[-1])
    assert dumps1 == dumps2
    assert first.files() == second.files()


def test_ttlc_dump_ir_after_flag(tmp_path: Path) -> None:
    out, dump = tmp_path / "out", tmp_path / "ir"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ttl.host.ttlc",
            f"--src={EXAMPLES[0]}",
            "--operation=eltwise_single_tile",
            *(f"--arg={n}=bf16[64,128]" for n in "abcy"),
            f"--out={out}",
            f"--dump_ir_after={dump}",
        ],
        check=False,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    names = sorted(p.name for p in dump.iterdir())
    assert names == [f"{i:02d}-{step}.mlir" for i, step in enumerate(STEPS)]
    assert (dump / names[-1]).read_text() == (out / "eltwise_single_tile.mlir").read_text()
