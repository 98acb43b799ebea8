"""`ttl run program.py`: programs written for hardware, run unchanged on the emulator."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ttl.host import toolchain

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "ttnn"
NUMPY_EXAMPLE = EXAMPLES / "eltwise_add_mul_numpy.py"

pytestmark = pytest.mark.skipif(
    toolchain.find_compiler() is None, reason=f"{toolchain.flags.default_cxx()} is not installed"
)


def _program(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_numpy_example_passes(ttl_run):
    code, out, err = ttl_run(NUMPY_EXAMPLE)
    assert code == 0, err
    assert "eltwise_add_mul [64, 64] bfloat16: max |y - numpy| = 0" in out
    assert out.strip().endswith("PASS")
    assert "ttl profile" not in out  # only with --profile


def test_a_warm_run_imports_no_compiler_and_starts_no_subprocess(ttl_run, tmp_path):
    """With the operation in the cache, a process needs neither xDSL nor `g++ --version`
    (nor pyelftools, which only error reports use)."""
    assert ttl_run(NUMPY_EXAMPLE)[0] == 0  # fills the cache if no earlier test did
    wrapper = _program(
        tmp_path,
        "warm.py",
        f"""\
        import runpy, subprocess, sys

        def no_subprocess(*args, **kwargs):
            raise AssertionError(f"a subprocess on a warm run: {{args}}")

        subprocess.run = subprocess.Popen = no_subprocess
        sys.path.insert(0, {str(EXAMPLES)!r})  # the example's operation module
        runpy.run_path({str(NUMPY_EXAMPLE)!r}, run_name="__main__")
        heavy = [m for m in sys.modules if m.split(".")[0] in ("xdsl", "elftools")]
        heavy += [m for m in sys.modules if m == "ttl.compiler"]
        print("heavy modules:", heavy)
        """,
    )
    code, out, err = ttl_run(wrapper)
    assert code == 0, err
    assert out.strip().endswith("heavy modules: []"), out


def test_full_collections_wait_for_the_program_to_open_its_device(ttl_run, tmp_path):
    """While the program starts up, full collections are deferred; opening the device
    freezes what start-up made and restores CPython's thresholds (ttl.host.startup)."""
    prog = _program(
        tmp_path,
        "collector.py",
        """\
        import gc
        import ttnn

        print("start-up:", gc.get_threshold()[2], gc.get_freeze_count())
        device = ttnn.open_device(device_id=0)
        print("opened:", gc.get_threshold()[2], gc.get_freeze_count() > 0)
        """,
    )
    code, out, err = ttl_run(prog)
    assert code == 0, err
    assert out.splitlines() == ["start-up: 1000 0", "opened: 10 True"]


def test_compiler_options_on_the_command_line(ttl_run, cache_dir):
    """--ttl-* flags anywhere among the program's arguments are ttl's: the program's
    own argparse never sees them, and they select another bundle."""
    before = set((cache_dir / "bundles").iterdir()) if (cache_dir / "bundles").exists() else set()
    code, out, err = ttl_run(NUMPY_EXAMPLE, "--rows", "32", "--no-ttl-fpu-binary-ops")
    assert code == 0, err
    assert out.strip().endswith("PASS")
    (entry,) = set((cache_dir / "bundles").iterdir()) - before
    cpp = (entry / "kernels" / "compute.cpp").read_text()
    assert "mul_binary_tile(" in cpp and "mul_tiles(" not in cpp
    code, out, _ = ttl_run(NUMPY_EXAMPLE, "--ttl-help")
    assert code == 0 and "--[no-]ttl-maximize-dst" in out and "PASS" not in out
    code, _, err = ttl_run(NUMPY_EXAMPLE, "--ttl-maximise-dst")
    assert code == 2
    assert "unknown compiler option '--ttl-maximise-dst' (did you mean --ttl-maximize-dst" in err


def test_profile_table_and_program_args(ttl_run):
    code, out, err = ttl_run("--profile", NUMPY_EXAMPLE, "--rows", "96", "--cols", "32")
    assert code == 0, err
    assert "[96, 32]" in out and "PASS" in out
    table = out[out.index("ttl profile") :]
    assert "call 1: eltwise_add_mul on wormhole_b0 1x1" in table
    assert "tiles moved 12" in table  # 3 inputs read + 1 output written, 3 tiles each
    for column in ("instructions", "turns", "cop ops", "waits"):
        assert column in table
    assert ", waited " in table and " cycles" in table  # profiled: waits carry cycles waited
    assert "not measured" not in table
    for kernel in ("compute", "read", "write"):
        assert f"\n  {kernel} " in table


def test_target_and_grid_flags(ttl_run):
    code, out, err = ttl_run("--target=blackhole", "--grid=2x2", "--profile", NUMPY_EXAMPLE)
    assert code == 0, err
    assert "PASS" in out and "on blackhole 2x2" in out
    assert "(1,1)" in out  # kernels ran on every node of the 2x2 grid


def test_bad_flags_are_usage_errors(ttl_run):
    for args in (["--grid=abc", NUMPY_EXAMPLE], ["--target=grayskull", NUMPY_EXAMPLE], []):
        code, _, err = ttl_run(*args)
        assert code == 2 and "usage: ttl run" in err and "Traceback" not in err
    _, _, err = ttl_run("--grid=abc", NUMPY_EXAMPLE)
    assert "--grid: cannot parse grid 'abc': write e.g. 4x4 or full" in err


def test_missing_program(ttl_run):
    code, out, err = ttl_run("no_such_program.py")
    assert (code, out) == (1, "")
    assert err == "ttl run: error: no such file: no_such_program.py\n"


def test_program_exception_shows_only_the_programs_traceback(ttl_run, tmp_path):
    prog = _program(
        tmp_path,
        "raises.py",
        """
        import ttnn


        def helper():
            raise ValueError("boom")


        device = ttnn.open_device(device_id=0)
        helper()
    """,
    )
    code, _, err = ttl_run(prog)
    assert code == 1
    assert err.startswith("Traceback (most recent call last):")
    assert f'File "{prog}", line 10, in <module>' in err
    assert f'File "{prog}", line 6, in helper' in err
    assert err.rstrip().endswith("ValueError: boom")
    assert "runpy" not in err and "ttl/runtime" not in err


def test_program_exit_status_is_kept(ttl_run, tmp_path):
    prog = _program(tmp_path, "exits.py", "import sys\nprint('bye')\nsys.exit(3)\n")
    code, out, _ = ttl_run(prog)
    assert (code, out) == (3, "bye\n")


def test_compile_error_is_a_diagnostic_without_traceback(ttl_run, tmp_path):
    prog = _program(
        tmp_path,
        "bad_op.py",
        """
        import numpy as np
        import ttl


        @ttl.operation(grid=(1, 1))
        def bad(a, y):
            a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1))

            @ttl.compute()
            def compute():
                with a_dfb.wait() as blk:
                    blk.frobnicate()


        x = np.zeros((32, 32), np.float32)
        bad(x, x)
    """,
    )
    code, _, err = ttl_run(prog)
    assert code == 1
    assert f"{prog}:13:" in err and "error:" in err and "frobnicate" in err
    assert "Traceback" not in err


def test_bad_tensor_is_a_diagnostic_at_the_call(ttl_run, tmp_path):
    prog = _program(
        tmp_path,
        "bad_tensor.py",
        f"""
        import sys
        import numpy as np
        sys.path.insert(0, {str(EXAMPLES)!r})
        from eltwise_add_mul_op import eltwise_add_mul

        x = np.zeros((32, 32), np.float64)
        eltwise_add_mul(x, x, x, x)
    """,
    )
    code, _, err = ttl_run(prog)
    assert code == 1 and "Traceback" not in err
    assert f"{prog}:8:1: error: tensor 'a' of operation 'eltwise_add_mul'" in err
    assert "float64" in err and "hint:" in err


# Each DFB is balanced (the compiler accepts it), but the reader fills `a` twice
# before `b` while compute needs one of each: with one-block DFBs nothing moves.
DEADLOCK = """
        import ml_dtypes
        import numpy as np
        import ttl


        @ttl.operation(grid=(1, 1))
        def crossed(a, b, y):
            a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=1)
            b_dfb = ttl.make_dataflow_buffer_like(b, shape=(1, 1), block_count=1)
            y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=1)

            @ttl.compute()
            def compute():
                for _ in range(2):
                    with a_dfb.wait() as ab, b_dfb.wait() as bb, y_dfb.reserve() as yb:
                        yb.store(ab + bb)

            @ttl.datamovement()
            def read():
                for i in range(2):
                    with a_dfb.reserve() as blk:
                        tx = ttl.copy(a[0, i], blk)
                        tx.wait()
                for i in range(2):
                    with b_dfb.reserve() as blk:
                        tx = ttl.copy(b[0, i], blk)
                        tx.wait()

            @ttl.datamovement()
            def write():
                for i in range(2):
                    with y_dfb.wait() as blk:
                        tx = ttl.copy(blk, y[0, i])
                        tx.wait()


        x = np.ones((32, 64), ml_dtypes.bfloat16)
        crossed(x, x, np.zeros_like(x))
    """


def test_deadlock_is_a_clear_message(ttl_run, tmp_path):
    prog = _program(tmp_path, "deadlock.py", DEADLOCK)
    code, _, err = ttl_run(prog)
    assert code == 1 and "Traceback" not in err
    assert err.startswith(f"ttl run: {prog}: DeadlockError: deadlock:")
    assert "kernel 'read': blocked in cb_reserve_back(DFB 0, 1 page) of 'a_dfb' at" in err
    assert "kernel 'compute': blocked in cb_wait_front(DFB 1, 1 page) of 'b_dfb' at" in err
    assert "Check that every DFB page reserved/pushed" in err
    # The TT-Lang line first, then the generated C++ it came from.
    assert re.search(r"at deadlock\.py:22 \(kernels/read\.cpp:\d+, pc 0x[0-9a-f]+\)", err), err


def test_a_deadlocked_call_is_in_the_profile_and_the_trace(ttl_run, tmp_path):
    """The failed call's kernels up to the deadlock: its timeline is what debugging needs."""
    prog = _program(tmp_path, "deadlock.py", DEADLOCK)
    trace = tmp_path / "deadlock.json"
    code, out, err = ttl_run("--profile", f"--trace={trace}", prog)
    assert code == 1 and "DeadlockError" in err
    assert re.search(r"call 1: crossed on wormhole_b0 1x1  \[.*, failed: DeadlockError\]", out), out
    events = json.loads(trace.read_text())["traceEvents"]
    spans = {e["name"] for e in events if e.get("cat") == "kernel"}
    assert spans == {"compute", "read", "write"}, events[:8]
    assert any(e.get("cat") == "dfb_wait" for e in events)  # where compute stood blocked


def test_torch_example_passes(ttl_run):
    pytest.importorskip("torch")
    code, out, err = ttl_run("--profile", EXAMPLES / "eltwise_add_mul.py")
    assert code == 0, err
    assert "torch.bfloat16: max |y - torch| = 0" in out and "PASS" in out
    assert "call 1: eltwise_add_mul" in out


def test_bfloat8_b_example_passes(ttl_run):
    # bfp8 tensors in y = a * b + c and a @ b, checked by the program against torch math
    # quantized by ttnn.from_torch(dtype=ttnn.bfloat8_b) (exact for a * b + c).
    pytest.importorskip("torch")
    code, out, err = ttl_run(EXAMPLES / "bfp8_ops.py")
    assert code == 0, err
    assert "bfp8 a * b + c [64, 64]: max |y - float32 torch| = " in out
    assert "bfp8 a @ b [64, 64]" in out and "PASS" in out


def test_console_script(ttl_run):
    script = shutil.which("ttl", path=str(Path(sys.executable).parent))
    if script is None:
        pytest.skip("the `ttl` console script is not installed (pip install -e .)")
    code, out, err = ttl_run(NUMPY_EXAMPLE, cmd=(script,))
    assert code == 0 and "PASS" in out, err


DEBUG_PROGRAM = """
    import numpy as np
    import ttl

    @ttl.operation(grid=(1, 1))
    def show(a, y):
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
        y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

        @ttl.datamovement()
        def read():
            with ttl.signpost("load"), a_dfb.reserve() as blk:
                ttl.copy(a[0, 0], blk).wait()
                print("loaded", 1)

        @ttl.compute()
        def compute():
            with a_dfb.wait() as x, y_dfb.reserve() as z:
                z.store(x)

        @ttl.datamovement()
        def write():
            with y_dfb.wait() as blk:
                ttl.copy(blk, y[0, 0]).wait()

    open("ran", "w").close()
    show(np.ones((32, 32), np.float32), np.zeros((32, 32), np.float32))
"""


def test_trace_and_print_file(ttl_run, tmp_path):
    program = _program(tmp_path, "show.py", DEBUG_PROGRAM)
    code, out, err = ttl_run("--trace=trace.json", "--print_file=prints.txt", program)
    assert code == 0, err
    assert (tmp_path / "prints.txt").read_text() == "[(0,0) read] loaded 1\n"
    assert "loaded" not in out
    trace = json.loads((tmp_path / "trace.json").read_text())
    spans = {(e["cat"], e["name"]) for e in trace["traceEvents"] if e["ph"] == "X"}
    assert {("kernel", "read"), ("kernel", "compute"), ("kernel", "write")} <= spans
    assert ("signpost", "load") in spans


@pytest.mark.parametrize(
    "flag,message",
    [
        ("--trace=missing/trace.json", "cannot write trace file missing/trace.json: directory"),
        ("--trace=.", "trace file . is a directory"),
        ("--print_file=missing/p.txt", "cannot write kernel prints to missing/p.txt"),
    ],
)
def test_unwritable_outputs_fail_before_the_run(ttl_run, tmp_path, flag, message):
    program = _program(tmp_path, "show.py", DEBUG_PROGRAM)
    code, _, err = ttl_run(flag, program)
    assert code == 2
    assert f"ttl run: error: {message}" in err
    assert not (tmp_path / "ran").exists()  # the program never started


@pytest.mark.parametrize(
    ("line", "message", "hint"),
    [
        (
            "ttnn.softmax(ttnn.zeros(ttnn.Shape([32, 32])))",
            "error: ttnn.softmax is not part of the emulator's ttnn subset",
            "hint: docs/ttnn.md lists",
        ),
        (
            "ttnn.zeros(ttnn.Shape([32, 32]), ttnn.bfloat8_b, ttnn.ROW_MAJOR_LAYOUT)",
            "error: ttnn.zeros: dtype bfloat8_b needs TILE_LAYOUT",
            "hint: pass layout=ttnn.TILE_LAYOUT, or use dtype=ttnn.bfloat16",
        ),
        (
            "ttnn.open_mesh_device(ttnn.MeshShape(1, 8))",
            "error: mesh MeshShape(1, 8) needs 8 devices but 4 are available",
            "hint: open at most 4 devices",
        ),
    ],
)
def test_ttnn_bad_input_is_a_diagnostic_at_the_line(ttl_run, tmp_path, line, message, hint):
    prog = _program(tmp_path, "bad_ttnn.py", f"import ttnn\n\nx = 1\n{line}\n")
    code, _, err = ttl_run(prog)
    assert code == 1 and "Traceback" not in err, err
    assert f"{prog}:4:1: {message}" in err and line in err and hint in err


def test_spec_style_program_with_shape_and_rand_reaches_its_kernels(ttl_run, tmp_path):
    # The spec's "Program example" (Operation function): ttnn.Shape, ttnn.rand, a wrapper
    # that makes its output with ttnn.zeros(x.shape, layout=...), ttnn glue around the call.
    prog = _program(
        tmp_path,
        "spec_style.py",
        f"""
        import sys
        import torch
        import ttnn
        sys.path.insert(0, {str(EXAMPLES)!r})
        from eltwise_add_mul_op import eltwise_add_mul


        def foo(x: ttnn.Tensor) -> ttnn.Tensor:
            y = ttnn.zeros(x.shape, layout=ttnn.TILE_LAYOUT)
            eltwise_add_mul(x, x, x, y)
            return y


        torch.manual_seed(0)
        shape = ttnn.Shape([128, 96])
        x = ttnn.rand(shape, layout=ttnn.TILE_LAYOUT)
        out = ttnn.to_torch(ttnn.exp(foo(ttnn.abs(x)), fast_and_approximate_mode=True))
        t = ttnn.to_torch(x).float()
        want = torch.exp((t * t).to(torch.bfloat16).float() + t)
        assert tuple(out.shape) == (128, 96)
        assert torch.allclose(out.float(), want, rtol=1e-2), (out, want)
        print("spec example OK")
    """,
    )
    code, out, err = ttl_run(prog)
    assert code == 0, err
    assert out == "spec example OK\n"


def test_row_major_ttnn_program_runs_the_spec_upsample(ttl_run, tmp_path):
    # The spec's group-transfer example on ROW_MAJOR_LAYOUT ttnn tensors, host side as
    # tt-lang's own test of it writes it: torch images in, upsampled images out.
    spec_dir = EXAMPLES.parent / "spec"
    prog = _program(
        tmp_path,
        "upsample_rm.py",
        f"""
        import sys
        import torch
        import ttnn
        sys.path.insert(0, {str(spec_dir)!r})
        from group_transfer_upsample import C, HI, N, WI, group_transfer_upsample


        torch.manual_seed(42)
        images = torch.rand(N, HI, WI, C, dtype=torch.bfloat16)
        x = ttnn.from_torch(images, layout=ttnn.ROW_MAJOR_LAYOUT)
        y = ttnn.from_torch(
            torch.zeros(N, HI * 2, WI * 3, C, dtype=torch.bfloat16), layout=ttnn.ROW_MAJOR_LAYOUT
        )
        group_transfer_upsample(x, y)
        want = images.repeat_interleave(2, dim=1).repeat_interleave(3, dim=2)
        assert torch.equal(ttnn.to_torch(y), want)
        print("upsample OK")
    """,
    )
    code, out, err = ttl_run(prog)
    assert code == 0, err
    assert out == "upsample OK\n"


def test_output_piped_into_head_ends_quietly(tmp_path):
    """`ttl run prog.py | head -1`: no BrokenPipeError traceback, SIGPIPE's status."""
    program = tmp_path / "chatty.py"
    program.write_text("for i in range(200000):\n    print('line', i)\n")
    script = f"{sys.executable} -m ttl.host.cli run {program} | head -1; echo ${{PIPESTATUS[0]}}"
    proc = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.stdout.splitlines() == ["line 0", "141"]
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr


def test_prints_to_a_full_disk_are_a_clear_error(ttl_run, tmp_path):
    program = tmp_path / "prints.py"
    program.write_text(
        textwrap.dedent(
            f"""\
            import sys
            sys.path.insert(0, {str(ROOT / "tests" / "runtime" / "jit")!r})
            import ml_dtypes, numpy as np
            import debug_ops
            B = ml_dtypes.bfloat16
            a, b, c = np.ones((32, 64), B), np.ones((64, 64), B), np.ones((32, 64), B)
            debug_ops.spec_debugging(a, b, c, np.zeros((32, 64), B))
            """
        )
    )
    code, _, err = ttl_run("--print_file=/dev/full", program)
    assert code == 1
    assert "ttl run: error: No space left on device writing /dev/full" in err
    assert "Traceback" not in err
    code, _, err = ttl_run("--trace=/dev/full", program)  # issue 31: the trace too
    assert code == 1, err
    assert "No space left on device" in err and "/dev/full" in err
    assert "Traceback" not in err
