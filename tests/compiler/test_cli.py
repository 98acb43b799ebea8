"""The ttlc command line: outputs, exit codes, diagnostics without tracebacks."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from compiler_testlib import REPO

EXAMPLE = REPO / "examples" / "basic" / "eltwise_single_tile.py"
ARGS = [f"--arg={n}=bf16[64,128]" for n in "abcy"]


def ttlc(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ttl.host.ttlc", *args],
        check=False,
        capture_output=True,
        text=True,
        cwd=cwd,
    )


def test_compiles_into_out_dir(tmp_path):
    out = tmp_path / "out"
    proc = ttlc(f"--src={EXAMPLE}", "--operation=eltwise_single_tile", *ARGS, f"--out={out}")
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == [
        "compute.cpp",
        "eltwise_single_tile.mlir",
        "manifest.json",
        "plan.json",
        "read.cpp",
        "write.cpp",
    ]
    assert json.loads((out / "manifest.json").read_text())["target"] == "wormhole_b0"


def test_a_compile_time_constant_argument(tmp_path):
    # `--arg name=const:<literal>`: a parameter that is not a tensor (docs/language.md).
    src = tmp_path / "rows.py"
    src.write_text(
        "import ttl\n\n"
        "@ttl.operation(grid=(1, 1))\n"
        "def rows(a, n, y):\n"
        "    dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)\n\n"
        "    @ttl.datamovement()\n"
        "    def dm():\n"
        "        for r in range(n):\n"
        "            with dfb.reserve() as blk:\n"
        "                ttl.copy(a[r, 0], blk).wait()\n"
        "                ttl.copy(blk, y[r, 0]).wait()\n"
    )
    out = tmp_path / "out"
    args = ["--arg=a=bf16[96,32]", "--arg=n=const:3", "--arg=y=bf16[96,32]"]
    proc = ttlc(f"--src={src}", "--operation=rows", *args, f"--out={out}")
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["operation"]["constants"] == {"n": "3"}
    assert "r < 3;" in (out / "dm.cpp").read_text()
    bad = ttlc(f"--src={src}", "--operation=rows", *args[:1], "--arg=n=const:", *args[2:])
    assert bad.returncode == 2 and "is not a Python literal" in bad.stderr, bad.stderr


def test_a_logical_shape_argument_with_an_explicit_tile_layout(tmp_path):
    # `bf16[1,1]:tile`: one stored tile whose top level sees shape (1, 1) (docs/language.md).
    src = tmp_path / "scalar.py"
    src.write_text(
        "import ttl\n\n"
        "@ttl.operation(grid=(1, 1))\n"
        "def scalar(c, y):\n"
        "    assert c.shape == (1, 1), c.shape\n"
        "    dfb = ttl.make_dataflow_buffer_like(c, shape=(1, 1), block_count=2)\n\n"
        "    @ttl.datamovement()\n"
        "    def dm():\n"
        "        with dfb.reserve() as blk:\n"
        "            ttl.copy(c[0, 0], blk).wait()\n"
        "            ttl.copy(blk, y[0, 0]).wait()\n"
    )
    out = tmp_path / "out"
    proc = ttlc(
        f"--src={src}",
        "--operation=scalar",
        "--arg=c=bf16[1,1]:tile",
        "--arg=y=bf16[32,32]",
        f"--out={out}",
    )
    assert proc.returncode == 0, proc.stderr
    c = json.loads((out / "manifest.json").read_text())["tensors"][0]
    assert (c["shape"], c["logical_shape"]) == ([32, 32], [1, 1])
    bad = ttlc(
        f"--src={src}",
        "--operation=scalar",
        "--arg=c=bf16[1,1]",
        "--arg=y=bf16[32,32]",
        f"--out={out}",
    )
    assert bad.returncode == 2, bad.stderr
    assert "multiples of 32" in bad.stderr and "write :tile after it" in bad.stderr, bad.stderr


def test_console_script_target_grid_and_emit(tmp_path):
    exe = shutil.which("ttlc", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("ttlc console script not installed (pip install -e .)")
    grid_example = REPO / "examples" / "basic" / "eltwise_grid.py"
    args = [f"--arg={n}=bf16[320,320]" for n in "abcy"]
    proc = subprocess.run(
        [
            exe,
            f"--src={grid_example}",
            "--operation=eltwise_grid",
            *args,
            "--target=blackhole",
            "--grid=full",
            "--emit=manifest",
            f"--out={tmp_path}",
            "--include_dir=inc1",
            "--include_dir=inc2",
        ],
        check=False,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["manifest.json"]
    m = json.loads((tmp_path / "manifest.json").read_text())
    assert m["target"] == "blackhole" and m["grid"] == {"x": 13, "y": 10}


def test_emit_ir_to_stdout():
    proc = ttlc(f"--src={EXAMPLE}", "--operation=eltwise_single_tile", *ARGS, "--emit=ir")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("builtin.module {")
    assert "ttl.kernel @compute" in proc.stdout


def test_user_error_exits_1_with_diagnostic_only(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "import ttl\n\n"
        "@ttl.operation(grid=(1, 1))\n"
        "def op(a):\n"
        "    a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))\n\n"
        "    @ttl.compute()\n"
        "    def compute():\n"
        "        with a_dfb.wait() as blk:\n"
        "            ttl.copy(a[0, 0], blk)\n"
    )
    proc = ttlc(f"--src={bad}", "--operation=op", "--arg=a=bf16[32,32]")
    assert proc.returncode == 1
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"{bad}:10:13: error: ttl.copy is only allowed in data-movement")
    assert "            ttl.copy(a[0, 0], blk)" in proc.stderr
    assert "hint:" in proc.stderr


def test_spec_mismatch_exits_1():
    proc = ttlc(f"--src={EXAMPLE}", "--operation=eltwise_single_tile", "--arg=a=bf16[64,128]")
    assert proc.returncode == 1
    assert "parameter 'b' has no tensor spec" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["--no_such_flag"],
        ["--operation=eltwise_single_tile"],
        [f"--src={EXAMPLE}", "--operation=eltwise_single_tile", "--arg=a"],
        [f"--src={EXAMPLE}", "--operation=eltwise_single_tile", "--arg=a=q7[1]"],
        [f"--src={EXAMPLE}", "--operation=eltwise_single_tile", *ARGS, "--target=nope"],
        [f"--src={EXAMPLE}", "--operation=eltwise_single_tile", *ARGS, "--emit=asm"],
        [f"--src={EXAMPLE}", "--operation=eltwise_single_tile", *ARGS, "--grid=big"],
        [f"--src={EXAMPLE}", "--operation=no_such_op", *ARGS],
        ["--src=/no/such/file.py", "--operation=x"],
        [f"--src={EXAMPLE}", "--operation=eltwise_single_tile", *ARGS, f"--out={EXAMPLE}"],
        [f"--src={EXAMPLE}", "--operation=eltwise_single_tile", *ARGS, "--options=--ttl-x"],
    ],
)
def test_bad_flags_exit_2(args):
    proc = ttlc(*args)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    "source,line,message",
    [
        ("import ttl\nx = (1,\n", 2, "invalid Python"),
        ("import ttl\n\nvalue = 1 // 0\n", 3, "raised ZeroDivisionError"),
    ],
)
def test_broken_source_file_is_a_user_error(tmp_path, source, line, message):
    bad = tmp_path / "broken.py"
    bad.write_text(source)
    proc = ttlc(f"--src={bad}", "--operation=op", "--arg=a=bf16[32,32]")
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"{bad}:{line}:")
    assert message in proc.stderr


def test_bad_grid_names_the_flag_and_the_fix():
    proc = ttlc(f"--src={EXAMPLE}", "--operation=eltwise_single_tile", *ARGS, "--grid=big")
    assert proc.returncode == 2
    assert "ttlc: error: --grid: cannot parse grid 'big': write e.g. 4x4 or full" in proc.stderr


def test_missing_required_flag_message():
    proc = ttlc("--operation=eltwise_single_tile", *ARGS)
    assert proc.returncode == 2
    assert proc.stderr == "ttlc: error: --src and --operation are required\n"


def test_both_clis_import_in_one_process():
    """No flag is defined at import time, so ttlc and `ttl run` import together."""
    code = "import ttl.host.cli, ttl.host.ttlc, ttl.rules.private.tools.ttlc"
    proc = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, cwd=REPO
    )
    assert proc.returncode == 0, proc.stderr


def test_each_parse_gets_fresh_flag_values():
    """What the Bazel worker does per request: no value leaks from an earlier request."""
    from absl import flags

    from ttl.host import cli, ttlc

    first = ttlc.new_flags()
    assert ttlc.parse_flags(["ttlc", "--src=a.py", "--operation=op", "--grid=2x2"], first) == [
        "ttlc"
    ]
    assert (first.src, first.operation, first.grid) == ("a.py", "op", "2x2")
    with pytest.raises(ttlc.FlagError, match=r"^--src and --operation are required$"):
        ttlc.parse_flags(["ttlc", "--operation=op"], ttlc.new_flags())
    with pytest.raises(ttlc.FlagError, match=r"^--src and --operation are required$"):
        ttlc.parse_flags(["ttlc", "--src=", "--operation=op"], ttlc.new_flags())
    with pytest.raises(flags.IllegalFlagValueError, match="--target=nope"):
        ttlc.parse_flags(
            ["ttlc", "--src=a.py", "--operation=op", "--target=nope"], ttlc.new_flags()
        )
    second = ttlc.new_flags()
    ttlc.parse_flags(["ttlc", "--src=b.py", "--operation=op"], second)
    assert second.grid is None and first.grid == "2x2"
    run_flags = cli.new_flags()
    assert cli.parse(["ttl", "run", "--grid=full", "prog.py", "--x"], run_flags) == [
        "prog.py",
        "--x",
    ]
    assert run_flags.grid == "full" and not run_flags.profile
    assert "src" not in run_flags and "profile" not in second
