"""Every program the fuzzer ever failed on, kept as a regression test (test_fuzz.py)."""

from __future__ import annotations

import pytest
from programs import Expr, Program, run_program

CORPUS = [
    pytest.param(
        # reduce_sum of max(scalar, bf16 block) with fp32_dest_acc_en: the compiler-made
        # f32 DFB of the operand mixed f32 fill tiles with bf16 reads in one ttl.binary,
        # and the IR did not verify (an internal compiler error).
        Program(
            n_inputs=2,
            rows=1,
            cols=3,
            k=1,
            expr=Expr("max", (Expr("neg", (Expr(0.5),)), Expr(0))),
            reduce=True,
            fp32=True,
        ),
        id="mixed-dtype-binary-in-f32-operand-dfb",
    ),
]


@pytest.mark.parametrize("program", CORPUS)
def test_corpus_program_matches_numpy(workdir, program):
    run_program(workdir, program)
