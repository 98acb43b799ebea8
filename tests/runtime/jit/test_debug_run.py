"""print, ttl.signpost and the trace, run on the emulator through the JIT."""

from __future__ import annotations

import io
import json

import debug_ops
import ml_dtypes
import numpy as np
import pytest

from ttl.host import jit
from ttl.runtime.errors import DeadlockError

BF16 = ml_dtypes.bfloat16
SHAPE = (32 * debug_ops.M_TILES, 32 * debug_ops.N_TILES)


def _tensors():
    c = (np.arange(SHAPE[0] * SHAPE[1]).reshape(SHAPE) % 97).astype(BF16)
    a = (np.arange(32 * 64).reshape(32, 64) % 13).astype(BF16)
    b = np.ones((64, 64), BF16)
    return a, b, c, np.zeros(SHAPE, BF16)


def _rows(tile: np.ndarray) -> list[str]:
    """A 32x32 tile of small integers as the emulator prints it."""
    text = [[str(int(v)) for v in row] for row in tile.astype(np.float32)]
    width = max(len(s) for row in text for s in row)
    return ["    " + " ".join(s.rjust(width) for s in row) for row in text]


@pytest.fixture
def run_spec(needs_device_cxx):
    def run(**configure):
        out = io.StringIO()
        jit.configure(prints=out, **configure)
        a, b, c, y = _tensors()
        debug_ops.spec_debugging(a, b, c, y)
        np.testing.assert_array_equal(y.astype(np.float32), 2 * c.astype(np.float32))
        return out.getvalue().splitlines(), c

    return run


def test_spec_print_example_output(run_spec):
    lines, c = run_spec()
    read = [line.removeprefix("[(0,0) matmul_read] ") for line in lines if "matmul_read]" in line]
    # A tensor with num_pages=2: header, then two whole tiles (pages) in row-major order.
    assert read[0] == "c: <Tensor c shape=(32, 64) dtype=bf16>"
    assert read[1] == "  Printing first 2 page(s):"
    assert read[2] == "  page 0 (tile (0, 0)):"
    assert read[3:35] == _rows(c[:, :32])
    assert read[35] == "  page 1 (tile (0, 1)):"
    assert read[36:68] == _rows(c[:, 32:])
    assert read[68] == "a: <Tensor a shape=(32, 64) dtype=bf16>"  # num_pages defaults to 1
    assert read[70] == "  page 0 (tile (0, 0)):"
    assert read[103] == "c_dfb after reserve: <DataflowBuffer c_dfb shape=(1, 1) dtype=bf16>"
    # TT-Metal's print_cb_details: the third DFB in L1, 0x2000, two 2048-byte pages.
    assert read[104] == (
        "cb_id 2: { size: 4096, limit: 12288, page_size: 2048, num_pages: 2, "
        "rd_ptr: 8192, wr_ptr: 8192, wr_tile_ptr: 0 }"
    )
    assert read[105] == "m_tile= 0  n_tile= 0  c_blk: <Block of c_dfb shape=(1, 1) dtype=bf16>"
    assert read[106] == "  tile (0, 0):"
    assert read[107:139] == _rows(c[:, :32])
    after_push = read.index("c_dfb after push: <DataflowBuffer c_dfb shape=(1, 1) dtype=bf16>")
    assert read[after_push + 1].endswith("rd_ptr: 8192, wr_ptr: 10240, wr_tile_ptr: 1 }")
    assert [r for r in read if r.startswith("k_tile=")] == ["k_tile= 0", "k_tile= 1"] * 2
    # The compute kernel prints its reserved block after the store: the math has run.
    compute = [line for line in lines if line.startswith("[(0,0) compute] ")]
    assert compute[0] == "[(0,0) compute] y_blk: <Block of y_dfb shape=(1, 1) dtype=bf16>"
    assert [x.removeprefix("[(0,0) compute] ") for x in compute[2:34]] == _rows(2 * c[:, :32])


def test_prints_go_to_a_file(needs_device_cxx, tmp_path, capsys):
    path = tmp_path / "prints.txt"
    jit.configure(prints=str(path))
    a, b, c, y = _tensors()
    debug_ops.spec_debugging(a, b, c, y)
    jit.close_prints()
    text = path.read_text().splitlines()
    assert text[0] == "[(0,0) matmul_read] c: <Tensor c shape=(32, 64) dtype=bf16>"
    assert "matmul_read" not in capsys.readouterr().out


def test_prints_go_to_stdout_by_default(needs_device_cxx, capsys):
    a, b, c, y = _tensors()
    debug_ops.spec_debugging(a, b, c, y)
    assert "[(0,0) matmul_read] a: <Tensor a" in capsys.readouterr().out


def test_signposts_in_the_profile(run_spec):
    run_spec(profile=True)
    call = jit.profile().calls[-1]
    read = next(k for k in call.kernels if k.kernel == "matmul_read")
    counts = {name: s.count for name, s in read.signposts.items()}
    assert counts == {
        "read c": 2,
        "push c": 2,
        "read a and b": 4,
        "push a and b": 4,
        "i_m_n iteration": 2,
    }
    sp = read.signposts
    assert all(s.cycles is not None and s.cycles > 0 for s in sp.values())
    # Nested zones: an iteration contains its push c and its two push a and b zones.
    assert sp["i_m_n iteration"].cycles >= sp["push c"].cycles + sp["push a and b"].cycles
    assert sp["push c"].cycles >= sp["read c"].cycles
    assert sp["i_m_n iteration"].instructions <= read.instructions
    table = jit.profile().table()
    assert "'i_m_n iteration'  matmul_read  (0,0)  2" in table
    assert "mean cycles" in table


def test_trace_json_structure(run_spec, tmp_path):
    run_spec(trace=True)
    path = tmp_path / "trace.json"
    jit.write_trace(str(path))
    trace = json.loads(path.read_text())
    assert set(trace) == {"traceEvents", "displayTimeUnit", "otherData"}
    assert "model cycles" in trace["otherData"]["time_unit"]
    events = trace["traceEvents"]
    for e in events:
        assert e["ph"] in ("X", "M", "b", "e", "C")
        assert isinstance(e["name"], str) and isinstance(e["pid"], int)
        if e["ph"] != "C":
            assert isinstance(e["tid"], int)
        if e["ph"] == "X":
            assert isinstance(e["ts"], int) and isinstance(e["dur"], int)
            assert e["ts"] >= 0 and e["dur"] >= 0
            assert e["cat"] in ("kernel", "signpost", "dfb_wait", "semaphore_wait")
        elif e["ph"] in ("b", "e"):
            assert e["cat"] == "noc" and isinstance(e["id"], int)
        elif e["ph"] == "C":
            assert e["cat"] == "dfb" and isinstance(e["ts"], int)
        else:
            assert e["name"] in (
                "process_name",
                "process_sort_index",
                "thread_name",
                "thread_sort_index",
            )
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert sorted(names.values()) == ["compute (compute)", "dm0 (matmul_read)", "dm1 (write)"]
    assert [e["args"]["name"] for e in events if e["name"] == "process_name"] == ["node (0,0)"]
    spans = [e for e in events if e["ph"] == "X"]
    kernels = {e["name"]: e for e in spans if e["cat"] == "kernel"}
    assert set(kernels) == {"matmul_read", "compute", "write"}
    zones = [e for e in spans if e["cat"] == "signpost"]
    assert {z["name"] for z in zones} == {
        "i_m_n iteration",
        "push c",
        "read c",
        "push a and b",
        "read a and b",
    }
    reader = kernels["matmul_read"]
    for z in zones:  # every zone lies within its kernel's lifetime, on its thread
        assert (z["pid"], z["tid"]) == (reader["pid"], reader["tid"])
        assert reader["ts"] <= z["ts"] and z["ts"] + z["dur"] <= reader["ts"] + reader["dur"]
    waits = [e for e in spans if e["cat"] == "dfb_wait"]
    assert waits and all(w["name"].startswith(("cb_wait_front", "cb_reserve_back")) for w in waits)


def test_trace_has_noc_transfers_and_dfb_occupancy(run_spec, tmp_path):
    run_spec(trace=True)
    path = tmp_path / "trace.json"
    jit.write_trace(str(path))
    events = json.loads(path.read_text())["traceEvents"]
    kernels = {e["name"]: e for e in events if e.get("cat") == "kernel"}
    # NOC transfers: a begin and an end per transfer id, on the issuing kernel's thread.
    begins = {e["id"]: e for e in events if e["ph"] == "b"}
    ends = {e["id"]: e for e in events if e["ph"] == "e"}
    assert begins and begins.keys() == ends.keys()
    for i, b in begins.items():
        assert b["ts"] <= ends[i]["ts"] and ends[i]["name"] == b["name"]
    reads = [b for b in begins.values() if b["name"] == "noc read"]
    writes = [b for b in begins.values() if b["name"] == "noc write"]
    # The reader reads c (2 tiles) and a, b (4 tiles each, k loop twice), and the pages
    # its tensor prints show (c's 2, a's 1) into L1; the writer writes y.
    assert len(reads) == 2 * (1 + 2 * 2) + 3 and len(writes) == 2
    reader, writer = kernels["matmul_read"], kernels["write"]
    assert all((r["pid"], r["tid"]) == (reader["pid"], reader["tid"]) for r in reads)
    assert all(w["tid"] == writer["tid"] for w in writes)
    assert reads[0]["args"]["source"].startswith("DRAM bank ")
    assert reads[0]["args"]["destination"].startswith("L1 @ 0x")
    assert reads[0]["args"]["bytes"] == 2048
    # DFB occupancy: per DFB a counter track that starts at 0 and stays within the
    # DFB's 2 pages (cycle order; see ttl/runtime/timeline.py on its final value).
    counters: dict[str, list[tuple[int, int]]] = {}
    for e in events:
        if e["ph"] == "C":
            counters.setdefault(e["name"], []).append((e["ts"], e["args"]["pages filled"]))
    # DFB 4 is the page the tensor prints read into (ttl-stage-tensor-prints).
    assert sorted(counters) == ["DFB 0", "DFB 1", "DFB 2", "DFB 3", "DFB 4"]
    for name, samples in counters.items():
        assert samples[0] == (0, 0)
        assert [t for t, _ in samples] == sorted(t for t, _ in samples)
        assert all(0 <= v <= 2 for _, v in samples)
        assert any(v > 0 for _, v in samples) == (name != "DFB 4")  # never pushed


def test_deadlock_report_shows_signposts_and_last_prints(needs_device_cxx):
    out = io.StringIO()
    jit.configure(prints=out)
    a = np.ones((32, 64), BF16)
    with pytest.raises(DeadlockError) as info:
        debug_ops.stuck(a, a, np.zeros((32, 64), BF16))
    text = str(info.value)
    read = text[text.index("kernel 'read'") :]
    assert "in signpost 'outer' > 'all of a first'" in read
    assert "last printed:\n        pushing a tile 0\n        pushing a tile 1" in read
    assert out.getvalue() == "[(0,0) read] pushing a tile 0\n[(0,0) read] pushing a tile 1\n"


def test_trace_of_a_run_plots_to_a_png(run_spec, tmp_path):
    from ttl.host.timeline_plot import load_trace, plot

    run_spec(trace=True)
    trace, out = tmp_path / "trace.json", tmp_path / "timeline.png"
    jit.write_trace(str(trace))
    plot(load_trace(str(trace)), str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000
