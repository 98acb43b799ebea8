"""Runs one campaign case and names its outcome.

Clean outcomes: the reference result; a ``TTLCompileError`` located in the
program's file (or at the caller's line, for a bad call); a device error of
ours whose report names the program's ``.py`` line (or, for a bad call, the
tensor). Anything else is not clean: a wrong or silent result, an error
without a location, an exception that is not ours (a traceback), or a run
longer than the budget (a hang).
"""

from __future__ import annotations

import re
import signal
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from cases import CORRECT, Case, _inputs

from ttl.compiler.driver import load_operation
from ttl.errors import TTLCompileError
from ttl.host import jit
from ttl.runtime.errors import DeviceError

BUDGET_SECONDS = 120  # far above the livelock and deadlock reports (a few seconds)

CLEAN = ("correct result", "located compile error", "located runtime error", "host error")

OUTCOMES: dict[str, str] = {}  # case id -> outcome class, filled by test_campaign.py


@dataclass(frozen=True)
class Outcome:
    """What a case did: its class, and the message that shows why."""

    kind: str
    detail: str = ""

    @property
    def clean(self) -> bool:
        return self.kind in CLEAN


class _HangError(Exception):
    pass


def _alarm(signum, frame):
    raise _HangError


def run_case(case: Case, workdir: Path, seed: int = 0) -> Outcome:
    """Writes the case's program, calls it, and classifies what happened."""
    path = workdir / f"{re.sub(r'[^a-z0-9]+', '_', case.id.lower())}.py"
    path.write_text(case.source)
    rng = np.random.default_rng(seed)
    tensors, kwargs = case.call(rng) if case.call else (_inputs(case.base, rng), {})
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(BUDGET_SECONDS)
    try:
        op = load_operation(str(path), "op")
        jit.run_operation(op, *tensors, **kwargs)
    except _HangError:
        return Outcome("hang", f"no result after {BUDGET_SECONDS} s")
    except TTLCompileError as e:
        return _compile_error(case, path, e)
    except DeviceError as e:
        return _device_error(case, path, e)
    except Exception as e:  # the campaign's point: nothing else may escape
        return Outcome("traceback", f"{type(e).__module__}.{type(e).__name__}: {e}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    if case.expect != CORRECT:
        return Outcome("silent", "ran without an error")
    return _compare(case, tensors)


def _compile_error(case: Case, path: Path, e: TTLCompileError) -> Outcome:
    text = e.render()
    if e.loc is None:
        return Outcome("unlocated error", text)
    in_program = Path(e.loc.filename).name == path.name
    if case.group == "host":
        # A bad call is reported at the call (in the campaign's driver) or in the program.
        if not all(m in text for m in case.mentions):
            return Outcome("unlocated error", f"does not name {case.mentions}: {text}")
        return Outcome("host error", text)
    if not in_program:
        return Outcome("unlocated error", f"not located in {path.name}: {text}")
    if case.expect == CORRECT:
        return Outcome("false rejection", text)
    return Outcome("located compile error", text)


def _device_error(case: Case, path: Path, e: DeviceError) -> Outcome:
    text = str(e)
    if case.group == "host" and all(m in text for m in case.mentions):
        return Outcome("host error", text)
    if re.search(rf"{re.escape(path.name)}:\d+", text) is None:
        return Outcome("unlocated error", text)
    if case.expect == CORRECT:
        return Outcome("false rejection", text)
    return Outcome("located runtime error", text)


def _host_data(t):
    """A ttnn tensor's (one device's) logical array; anything else as it is."""
    return t.shards()[0] if hasattr(t, "shards") else t


def _compare(case: Case, tensors: list) -> Outcome:
    def as_f64(t):
        t = getattr(t, "array", t)  # a ttl.row_major array
        if hasattr(t, "float"):  # torch
            return t.float().numpy().astype(np.float64)
        return np.asarray(t).astype(np.float64)

    values = [as_f64(_host_data(t)) for t in tensors]
    want = case.base.reference(*values[:-1])
    got = values[-1]
    scale = max(1.0, float(np.abs(want).max()))
    err = float(np.abs(got - want).max()) / scale
    if err > case.base.rtol:
        return Outcome("wrong result", f"relative error {err:.3g} > {case.base.rtol}")
    return Outcome("correct result", f"relative error {err:.3g}")
