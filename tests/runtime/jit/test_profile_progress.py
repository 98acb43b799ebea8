"""The per-call profile (data and table) and the TTY-only progress line."""

from __future__ import annotations

import io
import json
import time

import ml_dtypes
import numpy as np

from ttl.host import jit
from ttl.host.progress import Progress


def test_profile_of_a_call_is_data_and_a_table(add_mul):
    jit.configure(profile=True)
    x = np.ones((64, 32), ml_dtypes.bfloat16)  # 2 tiles per tensor
    y = np.zeros_like(x)
    add_mul(x, x, x, y)
    (call,) = jit.profile().calls
    # 3 inputs x 2 tiles read, 2 tiles written, 2048 B per bf16 tile.
    assert (call.noc_bytes_read, call.noc_bytes_written, call.tiles_moved) == (12288, 4096, 8)
    assert sorted(k.kernel for k in call.kernels) == ["compute", "read", "write"]
    compute = next(k for k in call.kernels if k.kernel == "compute")
    assert compute.coprocessor_commands == call.coprocessor_ops > 0
    assert call.profiled and all(k.instructions > 0 and k.turns >= 1 for k in call.kernels)
    # Every blocking wait has its waited measure (cycles under the profile's timing model).
    assert all(set(k.waited) == set(k.stalls) for k in call.kernels)
    data = json.loads(json.dumps(jit.profile().to_dict()))
    assert data["calls"][0]["operation"] == "eltwise_add_mul"
    assert data["calls"][0]["kernels"][0]["instructions"] > 0
    table = jit.profile().table()
    assert "instructions" in table and " cycles" in table and "one instruction per cycle" in table
    assert "tiles moved 8" in table


def test_unprofiled_calls_have_no_instruction_counts(add_mul):
    x = np.ones((32, 32), ml_dtypes.bfloat16)
    add_mul(x, x, x, np.zeros_like(x))
    (call,) = jit.profile().calls
    assert not call.profiled and all(k.instructions is None for k in call.kernels)
    assert call.tiles_moved == 4 and call.coprocessor_ops > 0


def test_empty_profile_says_so():
    assert "no TT-Lang operation was called" in jit.profile().table()


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_progress_draws_on_a_tty_and_erases_itself():
    stream = _Tty()
    with Progress("compiling op", stream, delay=0.0, interval=0.01) as progress:
        time.sleep(0.05)
        progress.update("building kernel compute")
        time.sleep(0.05)
    text = stream.getvalue()
    assert "ttl: compiling op..." in text and "building kernel compute" in text
    assert text.endswith("\r\033[K")


def test_progress_is_silent_off_a_tty_or_when_disabled(monkeypatch):
    stream = io.StringIO()
    with Progress("x", stream, delay=0.0, interval=0.01):
        time.sleep(0.03)
    assert stream.getvalue() == ""
    monkeypatch.setenv("TTL_PROGRESS", "0")
    assert not Progress("x", _Tty()).enabled()


def test_progress_waits_for_its_delay():
    stream = _Tty()
    with Progress("quick", stream, delay=5.0):
        pass
    assert stream.getvalue() == ""


def test_progress_shows_how_far_the_step_is():
    # Issue 30: a long run shows its tile operations and finished nodes.
    stream = _Tty()
    steps = iter(["1,024 tile operations, 0 of 4 nodes finished"] + [None] * 1000)
    with Progress("running op", stream, delay=0.0, interval=0.01, detail=lambda: next(steps)):
        time.sleep(0.05)
    assert "ttl: running op... " in stream.getvalue()
    assert " s (1,024 tile operations, 0 of 4 nodes finished)" in stream.getvalue()


def test_a_device_reports_its_running_launch(add_mul, monkeypatch):
    """Device.progress, read by the progress thread while kernels run."""
    from ttl.runtime import Device

    seen = []
    device = Device("wormhole_b0", (1, 1))
    assert device.progress() is None
    real_run = Device.launch

    def launch(self, program):
        from ttl.runtime import scheduler

        original = scheduler.run_harts

        def watched(harts, *args):
            seen.append(self.progress())
            return original(harts, *args)

        monkeypatch.setattr("ttl.runtime.device.run_harts", watched)
        return real_run(self, program)

    monkeypatch.setattr(Device, "launch", launch)
    a = np.ones((32, 32), ml_dtypes.bfloat16)
    add_mul(a, a, a, np.zeros_like(a), device=device)
    assert seen == ["0 tile operations, 0 of 1 nodes finished"]
    assert device.progress() is None  # after the launch
