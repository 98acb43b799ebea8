"""Cross-kernel DFB protocol check and dispatch-condition identity.

Spec ("Dispatch-stable condition results"): "The compiler also preserves branch
polarity, structured nesting, and supported boolean expressions when it uses the
identity to prove equal conditional DFB execution. Missing or partial identity
remains conservative." Issue 5 items 9 and 10.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from compiler_testlib import REPO, filecheck

SPECS = {"a": "bf16[32,32]", "y": "bf16[32,32]"}

PAIR = """
import ttl

HEADER = "cond.hpp"


def make():
    active = ttl.DispatchCondition(ttl.ScalarType.I64)
    other = ttl.DispatchCondition(ttl.ScalarType.I64)

    @ttl.operation(grid=(1, 1))
    def op(a, y):
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)  # ERROR

        @ttl.datamovement()
        def read():
            on = ttl.call_extern_func(HEADER, "producer_on", condition_result=active)
            off = ttl.call_extern_func(HEADER, "producer_off", condition_result=other)
            if PRODUCER_TEST:
                with a_dfb.reserve() as blk:
                    tx = ttl.copy(a[0, 0], blk)
                    tx.wait()

        @ttl.datamovement()
        def write():
            on = ttl.call_extern_func(HEADER, "consumer_on", condition_result=CONSUMER_COND)
            off = ttl.call_extern_func(HEADER, "consumer_off", condition_result=other)
            CONSUMER_BODY

    return op


op = make()
"""

_POP = ["with a_dfb.wait() as blk:", "    tx = ttl.copy(blk, y[0, 0])", "    tx.wait()"]


def _program(producer_test: str, consumer: str, consumer_cond: str = "active") -> str:
    """The pair with the consumer's body ``consumer`` (relative indentation; POP = the pop)."""
    lines = []
    for i, line in enumerate(consumer.split("\n")):
        indent = ("" if i == 0 else " " * 12) + line[: len(line) - len(line.lstrip())]
        if line.strip() == "POP":
            lines += [(indent if i or j else "") + pop for j, pop in enumerate(_POP)]
        else:
            lines.append(indent + line.strip())
    return (
        PAIR.replace("PRODUCER_TEST", producer_test)
        .replace("CONSUMER_COND", consumer_cond)
        .replace("CONSUMER_BODY", "\n".join(lines))
    )


@pytest.fixture
def header_dir(tmp_path: Path) -> tuple[str, ...]:
    (tmp_path / "cond.hpp").write_text("#pragma once\n")
    return (str(tmp_path),)


@pytest.mark.parametrize(
    ("producer_test", "consumer"),
    [
        ("on", "if on:\n    POP"),  # same identity, same polarity
        ("not on", "if not on:\n    POP"),  # polarity
        ("on and not off", "if on:\n    if not off:\n        POP"),  # nesting, and/not
        ("on or off", "if not (not on and not off):\n    POP"),  # or, De Morgan
    ],
)
def test_conditional_pair_with_one_identity_is_proven(
    compile_source, header_dir, producer_test, consumer
):
    src = _program(producer_test, consumer)
    result = compile_source(src, "op", SPECS, include_dirs=header_dir)
    # Both evaluations of `active` carry one attribute; `other` has a distinct ordinal.
    filecheck(
        result.ir,
        """
        CHECK: ttl.kernel @read
        CHECK-DAG: "producer_on"{{.*}}condition = #ttl.dispatch_condition<0, i64>
        CHECK-DAG: "producer_off"{{.*}}condition = #ttl.dispatch_condition<1, i64>
        CHECK: ttl.kernel @write
        CHECK-DAG: "consumer_on"{{.*}}condition = #ttl.dispatch_condition<0, i64>
        CHECK-DAG: "consumer_off"{{.*}}condition = #ttl.dispatch_condition<1, i64>
        """,
    )
    entry = result.plan["dfbs"][0]
    assert entry["allocation"]["reason"].startswith("not reused: kernels 'op.read', 'op.write'")


@pytest.mark.parametrize(
    ("producer_test", "consumer", "cond"),
    [
        ("on", "if on:\n    POP", "other"),  # different identities
        ("on", "if not on:\n    POP", "active"),  # opposite polarity
        ("on and off", "if on:\n    POP", "active"),  # missing conjunct
    ],
)
def test_conditional_traffic_that_differs_is_rejected(
    compile_error, header_dir, producer_test, consumer, cond
):
    err = compile_error(
        _program(producer_test, consumer, cond), "op", SPECS, include_dirs=header_dir
    )
    assert re.fullmatch(
        r"DFB 'a_dfb' is unbalanced when (dispatch condition #\d \(evaluated by [^)]*\) "
        r"is (true|false)(, )?)+: "
        r"kernel 'op.read' pushes \d tiles? but kernel 'op.write' pops \d tiles?",
        err.message,
    ), err.message


def test_distinct_declarations_with_equal_text_stay_distinct(compile_error, header_dir):
    # Spec: "Distinct declarations remain independent even when calls have equal C++
    # names, headers, template arguments, or source text."
    src = _program("on", "if on:\n    POP", "other").replace('"consumer_on"', '"producer_on"')
    err = compile_error(src, "op", SPECS, include_dirs=header_dir)
    assert "is unbalanced when" in err.message


def test_runtime_condition_without_identity_stays_conservative(compile_source):
    # "Missing or partial identity remains conservative": no proof (no error), no reuse.
    src = """
    import ttl

    @ttl.operation(grid=(2, 1))
    def op(a, y):
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)

        @ttl.datamovement()
        def read():
            if ttl.node(dims=1) == 0:
                with a_dfb.reserve() as blk:
                    tx = ttl.copy(a[0, 0], blk)
                    tx.wait()

        @ttl.datamovement()
        def write():
            if ttl.node(dims=1) == 0:
                with a_dfb.wait() as blk:
                    tx = ttl.copy(blk, y[0, 0])
                    tx.wait()
    """
    plan = compile_source(src, "op", SPECS).plan
    assert "not reused" in plan["dfbs"][0]["allocation"]["reason"]


def test_static_loop_counts_must_match(compile_error):
    # Issue 5 item 10: "produced and consumed tile counts match on every path (loops with
    # static trip counts ...)"; the message names the DFB, both kernels and the counts.
    src = """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a, y):
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)  # ERROR

        @ttl.datamovement()
        def read():
            for i in range(2):
                with a_dfb.reserve() as blk:
                    tx = ttl.copy(a[0, 0], blk)
                    tx.wait()

        @ttl.datamovement()
        def write():
            for i in range(3):
                with a_dfb.wait() as blk:
                    tx = ttl.copy(blk, y[0, 0])
                    tx.wait()
    """
    err = compile_error(src, "op", SPECS)
    assert err.message == (
        "DFB 'a_dfb' is unbalanced: kernel 'op.read' pushes 2 tiles but kernel 'op.write' "
        "pops 3 tiles"
    )


def test_a_kernel_that_lost_its_decorator_is_rejected(compile_error):
    # The writer lost its decorator: it is the only code that touches y, so y would
    # silently keep its old contents (found by the bad-input campaign, tests/campaign).
    src = """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a, y):
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)
        y_dfb = ttl.make_dataflow_buffer_like(y, shape=(1, 1), block_count=2)

        @ttl.datamovement()
        def read():
            with a_dfb.reserve() as blk:
                ttl.copy(a[0, 0], blk).wait()

        @ttl.compute()
        def compute():
            with a_dfb.wait() as blk, y_dfb.reserve() as out:
                out.store(blk + blk)

        def write():  # ERROR
            with y_dfb.wait() as blk:
                ttl.copy(blk, y[0, 0]).wait()
    """
    err = compile_error(src, "op", SPECS)
    assert err.message == (
        "function 'write' of operation 'op' is the only code that uses tensor 'y', but it "
        "is not a kernel and nothing calls it, so 'y' is never read or written"
    )
    assert err.hint == (
        "is it missing its decorator? write @ttl.datamovement() above 'def write():'"
    )


def test_blocks_pushed_into_a_dfb_nobody_reads_are_accepted_while_they_fit(compile_source):
    # The spec's pipe examples stage data through blocks a kernel reserves, fills and
    # pushes without any kernel waiting on the DFB: the data stays there, nothing hangs.
    src = """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a, y):
        staging = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)

        @ttl.datamovement()
        def dm():
            with staging.reserve() as blk:
                ttl.copy(a[0, 0], blk).wait()
                ttl.copy(blk, y[0, 0]).wait()

        @ttl.compute()
        def compute():
            pass
    """
    result = compile_source(src, "op", SPECS)
    assert "cb_push_back(dfb_staging, 1);" in result.sources["dm.cpp"]


def test_more_pushes_than_a_dfb_nobody_reads_holds_are_rejected(compile_error):
    # The third reserve() waits for a block nobody frees: a hang on every path.
    src = """
    import ttl

    @ttl.operation(grid=(1, 1))
    def op(a, y):
        staging = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)  # ERROR

        @ttl.datamovement()
        def dm():
            for i in range(3):
                with staging.reserve() as blk:
                    ttl.copy(a[0, 0], blk).wait()
                    ttl.copy(blk, y[0, 0]).wait()

        @ttl.compute()
        def compute():
            pass
    """
    err = compile_error(src, "op", SPECS)
    assert err.message == (
        "DFB 'staging' is pushed by kernel 'op.dm' but no kernel pops it, and it holds only "
        "2 tiles: a reserve() beyond them waits forever"
    )


def test_an_unknown_trip_count_names_its_line(compile_source):
    src = """
    import ttl

    @ttl.operation(grid=(2, 1))
    def op(a, y):
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, 1), block_count=2)

        @ttl.datamovement()
        def read():
            for i in range(ttl.node(dims=1)):
                with a_dfb.reserve() as blk:
                    ttl.copy(a[0, 0], blk).wait()

        @ttl.datamovement()
        def write():
            for i in range(ttl.node(dims=1)):
                with a_dfb.wait() as blk:
                    ttl.copy(blk, y[0, 0]).wait()
    """
    ir = compile_source(src, "op", SPECS).ir
    assert re.search(r"a loop with a runtime trip count \(line \d+\) in kernel 'op.read'", ir), ir


def _unified_conditional(writer_test: str) -> str:
    src = (REPO / "examples" / "extern" / "spec_examples.py").read_text()
    assert "            if writer_active:\n" in src
    return src.replace("            if writer_active:\n", f"            if {writer_test}:\n")


def test_unified_split_preserves_condition_identity(write_source, monkeypatch):
    # Spec: "Composition and logical-kernel splitting preserve declaration identity."
    # The spec's conditional_operation is split into three kernels, each evaluating
    # `active`; the protocol check proves both DFBs balanced on every path.
    from ttl.compiler.driver import compile_operation, load_operation

    monkeypatch.chdir(REPO)
    path = write_source(_unified_conditional("writer_active"))
    result = compile_operation(
        load_operation(str(path), "conditional_operation"),
        {"inp": "bf16[32,128]", "out": "bf16[32,128]"},
        include_dirs=("examples/extern/include",),
    )
    assert [d["protocol"] for d in result.plan["dfbs"]] == [
        "balanced on every path (0 or 4 tiles pushed and popped)"
    ] * 2


def test_unified_split_with_opposite_polarity_is_rejected(compile_error, monkeypatch):
    monkeypatch.chdir(REPO)
    err = compile_error(
        _unified_conditional("not writer_active"),
        "conditional_operation",
        {"inp": "bf16[32,128]", "out": "bf16[32,128]"},
        include_dirs=("examples/extern/include",),
    )
    assert err.message.startswith("DFB 'destination' is unbalanced when dispatch condition #0")
    assert err.message.endswith(
        "is false: kernel 'conditional_operation.consumer' pushes 0 tiles but kernel "
        "'conditional_operation.data_movement' pops 4 tiles"
    )
