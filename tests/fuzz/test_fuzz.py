"""The fuzzer: generated TT-Lang programs, valid and broken, through the whole toolchain.

Properties: a valid program (programs.py) compiles, runs on the emulator and
matches its NumPy float64 reference within its bf16 tolerance; a broken one
(a mutation of a valid one) is a located ``TTLCompileError`` with a hint, or a
device error of ours. No other exception escapes, ever.

Runs a bounded, deterministic set in CI (``derandomize``); explore more with
``TTL_FUZZ_EXAMPLES=500 TTL_FUZZ_RANDOM=1 pytest tests/fuzz``. Every failure
it found is kept as a regression test in test_corpus.py.
"""

from __future__ import annotations

import os

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from programs import MUTATIONS, programs, run_program, write_program

from ttl.compiler.driver import load_operation
from ttl.errors import TTLCompileError
from ttl.host import jit, toolchain
from ttl.runtime.errors import DeviceError

EXAMPLES = int(os.environ.get("TTL_FUZZ_EXAMPLES", "12"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not os.environ.get("TTL_FUZZ_RANDOM"),
    database=None,
    phases=(Phase.explicit, Phase.generate),  # shrinking recompiles for minutes: skip it
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

pytestmark = pytest.mark.skipif(
    toolchain.find_compiler() is None, reason=f"{toolchain.flags.default_cxx()} is not installed"
)


@FUZZ
@given(program=programs())
def test_valid_programs_match_numpy(workdir, program):
    run_program(workdir, program)


@FUZZ
@given(program=programs(), mutation=st.sampled_from(MUTATIONS))
def test_broken_programs_are_located_errors(workdir, program, mutation):
    name, old, new = mutation
    source = program.source()
    if old not in source:
        return  # this program has nothing to break that way
    source = source.replace(old, new, 1)
    try:
        op = load_operation(write_program(workdir, source), "op")
        shape_in, shape_out = program.shapes()
        inputs = [np.zeros(shape_in, ml_dtypes.bfloat16) for _ in range(program.n_inputs)]
        jit.run_operation(op, *inputs, np.zeros(shape_out, ml_dtypes.bfloat16))
    except TTLCompileError as e:
        assert e.loc is not None and e.hint, f"{name}: unlocated or hintless:\n{e.render()}"
    except DeviceError:
        pass  # the run stopped with a report of ours
