"""`ttl plot TRACE.json OUT.png`: a trace's timeline as a PNG, and its errors."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from ttl.host import plot_cli
from ttl.runtime.scheduler import KernelStats
from ttl.runtime.signposts import Zone
from ttl.runtime.timeline import DfbCount, NocTransfer
from ttl.runtime.trace import chrome_trace

ROOT = Path(__file__).resolve().parents[2]


def _trace() -> dict:
    """A two-kernel trace with every kind of event (built by ttl.runtime.trace)."""
    reader = KernelStats("read", (0, 0), "dm0", 3, 900, 0, cycles=900)
    reader.zones = [Zone("load", 0, 100, 400, 300), Zone("inner", 1, 150, 300, 150)]
    reader.wait_spans = [(400, 600, "cb_reserve_back(DFB 0, 1 page)")]
    reader.transfers = [NocTransfer("noc read", "DRAM bank 0 @ 0x0", "L1 @ 0x0", 2048, 0, 120)]
    waiter = KernelStats("compute", (0, 0), "compute", 2, 800, 4, cycles=800)
    waiter.wait_spans = [(0, 350, "noc_semaphore_wait(semaphore at 0x0, value 1)")]
    counts = [DfbCount((0, 0), 0, 0, 0), DfbCount((0, 0), 0, 300, 1), DfbCount((0, 0), 0, 700, 0)]
    return chrome_trace([("op", [reader, waiter], counts)])


def _png_size(path: Path) -> tuple[int, int]:
    """Width and height of a PNG after checking its signature and header chunk's CRC."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    header = data[16:29]
    (crc,) = struct.unpack(">I", data[29:33])
    assert crc == zlib.crc32(kind + header)
    assert data.endswith(b"IEND\xaeB`\x82")
    width, height = struct.unpack(">II", header[:8])
    return width, height


@pytest.fixture
def trace_file(tmp_path) -> Path:
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(_trace()))
    return path


def test_plot_writes_a_png(trace_file, tmp_path, capsys):
    out = tmp_path / "timeline.png"
    assert plot_cli.main([str(trace_file), str(out), "--title=t"]) == 0
    width, height = _png_size(out)
    assert width > 600 and height > 200
    assert f"ttl plot: wrote {out}" in capsys.readouterr().err


def test_ttl_plot_command(trace_file, tmp_path):
    """The console command dispatches `plot` (run as `python -m ttl.host.cli`)."""
    out = tmp_path / "cmd.png"
    proc = subprocess.run(
        [sys.executable, "-m", "ttl.host.cli", "plot", str(trace_file), str(out)],
        capture_output=True,
        text=True,
        check=False,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    _png_size(out)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "is not JSON ("),
        ('{"events": []}', "has no traceEvents list: not a Chrome Trace Event JSON object"),
        ("[1, 2]", "has no traceEvents list"),
        ('{"traceEvents": [{"ph": "M"}]}', "holds no kernel spans: nothing to plot"),
    ],
)
def test_a_file_that_is_not_a_trace_is_a_clear_error(tmp_path, capsys, content, message):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    assert plot_cli.main([str(bad), str(tmp_path / "o.png")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"ttl plot: error: {bad}") and message in err
    assert "Traceback" not in err and not (tmp_path / "o.png").exists()


def test_missing_trace_file(tmp_path, capsys):
    assert plot_cli.main([str(tmp_path / "none.json"), str(tmp_path / "o.png")]) == 1
    err = capsys.readouterr().err
    assert f"ttl plot: error: cannot read {tmp_path / 'none.json'}: No such file" in err


def test_unwritable_output_is_an_error_before_reading(tmp_path, capsys):
    out = tmp_path / "no" / "dir" / "o.png"
    assert plot_cli.main([str(tmp_path / "none.json"), str(out)]) == 1
    err = capsys.readouterr().err
    assert f"cannot write output file {out}: directory {out.parent} does not exist" in err


def test_output_must_be_a_png(trace_file, tmp_path, capsys):
    assert plot_cli.main([str(trace_file), str(tmp_path / "o.svg")]) == 1
    assert "the output must be a .png file" in capsys.readouterr().err


def test_usage_error_exits_2(capsys):
    with pytest.raises(SystemExit) as info:
        plot_cli.main(["only_one.json"])
    assert info.value.code == 2
    assert "usage: ttl plot [--title=TEXT] TRACE.json OUT.png" in capsys.readouterr().err


def test_missing_matplotlib_names_the_package(trace_file, tmp_path, capsys, monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib... fails
    assert plot_cli.main([str(trace_file), str(tmp_path / "o.png")]) == 1
    err = capsys.readouterr().err
    assert "ttl plot: error: plotting needs the matplotlib package" in err
    assert "pip install matplotlib==3.11.2" in err
