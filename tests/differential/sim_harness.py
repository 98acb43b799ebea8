"""Runs one TT-Lang program on tt-lang-sim 1.1.6 and on our emulator, for comparison.

A `Program` is the text of a Python file defining an ``@ttl.operation`` (as
the spec and the simulator's tutorials write them: ``import ttl``, DFBs,
``@ttl.compute`` and ``@ttl.datamovement`` kernels, tensors indexed in tiles)
plus its input arrays and the shape of its one output. The operation is called
as ``operation(*inputs, out)``. The same text runs on both sides, each with a
thin host driver:

* the simulator: `SimBatch` writes each program to a file and each input to a
  .npy file, and runs the whole batch in one subprocess,
  ``.venv-sim/bin/tt-lang-sim sim_driver.py -- batch.json``, the simulator's
  own launcher (which makes ``import ttl``/``import ttnn`` the simulator's).
  sim_driver.py makes ttnn tensors from torch, as the tutorials do, calls the
  operation and writes the output back as .npy. The subprocess starts when the
  batch does, so it runs while our side compiles.
* ours: `run_ours` imports the same file in this process and calls the
  operation with NumPy bf16 (or f32) arrays, marked ``ttl.row_major`` for
  row-major programs (the JIT compiles it once into the compile
  cache, ``$TTL_CACHE_DIR`` or the default, then the emulator runs it).

tt-lang-sim lives in its own virtual environment, .venv-sim (tools/setup.sh,
from requirements-sim.lock); it is never imported here. `compare` checks two
outputs at bf16 tolerance and names the worst element when they differ.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np

import ttl

ROOT = Path(__file__).resolve().parents[2]
SIM_VENV = ROOT / ".venv-sim"
SIM_LAUNCHER = SIM_VENV / "bin" / "tt-lang-sim"
DRIVER = Path(__file__).resolve().with_name("sim_driver.py")
BF16 = ml_dtypes.bfloat16
TILE = 32


@dataclass(frozen=True)
class Program:
    """A TT-Lang program: source text defining `operation`, its inputs, its output shape."""

    name: str
    source: str
    inputs: tuple[np.ndarray, ...]
    output_shape: tuple[int, ...]
    operation: str = "operation"
    layout: str = "tile"  # of every tensor: "tile" or "row_major"
    dtype: str = "bf16"  # of every tensor: "bf16" or "f32"


class SimError(RuntimeError):
    """tt-lang-sim failed to run a program (or the batch); carries its traceback."""


def sim_available() -> str | None:
    """None if .venv-sim has tt-lang-sim, else why not (a skip reason)."""
    if SIM_LAUNCHER.exists():
        return None
    return f"tt-lang-sim is not installed in {SIM_VENV} (tools/setup.sh makes it)"


def _program_file(directory: Path, program: Program) -> Path:
    path = directory / f"{program.name}.py"
    if not path.exists():
        path.write_text(program.source)
    return path


class SimBatch:
    """Programs run by tt-lang-sim in one subprocess, started on construction."""

    def __init__(self, programs: Sequence[Program], directory: Path, timeout: float = 600.0):
        self._directory = directory / "sim"
        self._directory.mkdir(parents=True, exist_ok=True)
        self._timeout = timeout
        self._results: dict[str, str | None] | None = None
        self._outputs: dict[str, Path] = {}
        self._dtypes = {program.name: program.dtype for program in programs}
        cases = []
        for program in programs:
            inputs = []
            for i, value in enumerate(program.inputs):
                path = self._directory / f"{program.name}.in{i}.npy"
                np.save(path, np.asarray(value).astype(np.float32))
                inputs.append(str(path))
            output = self._directory / f"{program.name}.out.npy"
            self._outputs[program.name] = output
            cases.append(
                {
                    "name": program.name,
                    "program": str(_program_file(directory, program)),
                    "operation": program.operation,
                    "inputs": inputs,
                    "output_shape": list(program.output_shape),
                    "output": str(output),
                    "layout": program.layout,
                    "dtype": program.dtype,
                }
            )
        self._results_file = self._directory / "results.json"
        batch = self._directory / "batch.json"
        batch.write_text(json.dumps({"results": str(self._results_file), "cases": cases}))
        # cwd: not the repository root, whose ttl/ would shadow the simulator's package.
        self._process = subprocess.Popen(
            [str(SIM_LAUNCHER), str(DRIVER), "--", str(batch)],
            cwd=self._directory,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
        )

    def _wait(self) -> dict[str, str | None]:
        if self._results is None:
            try:
                log, _ = self._process.communicate(timeout=self._timeout)
            except subprocess.TimeoutExpired:
                self._process.kill()
                log, _ = self._process.communicate()
                raise SimError(f"tt-lang-sim took over {self._timeout} s:\n{log[-4000:]}") from None
            if self._process.returncode != 0 or not self._results_file.exists():
                raise SimError(f"tt-lang-sim exited {self._process.returncode}:\n{log[-4000:]}")
            self._results = json.loads(self._results_file.read_text())
        return self._results

    def output(self, name: str) -> np.ndarray:
        """The program's output under tt-lang-sim (bf16 values as float32); waits for the batch."""
        results = self._wait()
        if name not in results:
            raise SimError(f"tt-lang-sim did not report program {name!r}")
        error = results[name]
        if error is not None:
            raise SimError(f"tt-lang-sim failed on program {name!r}:\n{error}")
        # By default tt-lang-sim promotes bf16 to float32 (torch.bfloat16 is rebound to
        # float32 in its process), so its bf16 output tensor holds float32 values: round
        # them to bf16 (nearest even) as packing the output tile would.
        out = np.load(self._outputs[name])
        return out if self._dtypes[name] == "f32" else out.astype(BF16).astype(np.float32)

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.kill()
            self._process.communicate()


def run_ours(program: Program, directory: Path) -> np.ndarray:
    """The program's output on our emulator (float32), called in this process."""
    path = _program_file(directory, program)
    spec = importlib.util.spec_from_file_location(f"differential_{program.name}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    operation = getattr(module, program.operation)
    dtype = np.float32 if program.dtype == "f32" else BF16
    inputs = [np.asarray(value).astype(dtype) for value in program.inputs]
    out = np.zeros(program.output_shape, dtype)
    wrap = ttl.row_major if program.layout == "row_major" else (lambda a: a)
    operation(*(wrap(a) for a in inputs), wrap(out))
    return out.astype(np.float32)


def run_both(
    programs: Sequence[Program], directory: Path
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``{name: (sim output, our output)}`` for every program."""
    batch = SimBatch(programs, directory)
    try:
        ours = {p.name: run_ours(p, directory) for p in programs}
        return {p.name: (batch.output(p.name), ours[p.name]) for p in programs}
    finally:
        batch.close()


@dataclass(frozen=True)
class Tolerance:
    """|ours - sim| <= atol + rtol * |sim|, elementwise (defaults: a few bf16 ulps)."""

    rtol: float = 2.0**-6
    atol: float = 2.0**-6


def compare(
    name: str,
    sim: np.ndarray,
    ours: np.ndarray,
    inputs: Sequence[np.ndarray],
    tolerance: Tolerance = Tolerance(),
) -> None:
    """Raises AssertionError naming the worst element if ours and sim differ beyond tolerance."""
    sim = np.asarray(sim, np.float64)
    ours = np.asarray(ours, np.float64)
    if sim.shape != ours.shape:
        raise AssertionError(f"{name}: output shapes differ: sim {sim.shape}, ours {ours.shape}")
    nan_sim, nan_ours = np.isnan(sim), np.isnan(ours)
    if not np.array_equal(nan_sim, nan_ours):
        index = tuple(int(i) for i in np.argwhere(nan_sim != nan_ours)[0])
        raise AssertionError(
            f"{name}: NaN in one output only, first at {index}: sim {float(sim[index])!r}, "
            f"ours {float(ours[index])!r}{_at(inputs, index)}"
        )
    both = ~nan_sim
    same_inf = np.isinf(sim) & (sim == ours)
    with np.errstate(invalid="ignore"):  # inf - inf where both are the same infinity
        diff = np.where(both & ~same_inf, np.abs(ours - sim), 0.0)
    diff = np.nan_to_num(diff, nan=np.inf)
    excess = diff - (tolerance.atol + tolerance.rtol * np.abs(np.nan_to_num(sim)))
    if (excess > 0).any():
        index = tuple(int(i) for i in np.unravel_index(np.argmax(excess), excess.shape))
        bad = int((excess > 0).sum())
        raise AssertionError(
            f"{name}: ours differs from tt-lang-sim beyond rtol={tolerance.rtol:g} "
            f"atol={tolerance.atol:g} at {bad} of {excess.size} elements; max |diff| "
            f"{diff.max():.6g}; worst at {index}: sim {float(sim[index])!r}, "
            f"ours {float(ours[index])!r}"
            f"{_at(inputs, index)}"
        )


def _at(inputs: Sequence[np.ndarray], index: tuple[int, ...]) -> str:
    """The inputs at an output index, where the shapes allow (elementwise programs)."""
    values = [
        f"{float(np.asarray(x, np.float32)[index])!r}"
        for x in inputs
        if np.ndim(x) == len(index) and all(i < n for i, n in zip(index, np.shape(x), strict=True))
    ]
    return f" (inputs there: {', '.join(values)})" if values else ""
