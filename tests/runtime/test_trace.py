"""The trace's semaphore waits and NOC transfers between nodes, and runaway reports."""

from __future__ import annotations

import pytest

from ttl.runtime import Device, KernelSpec, Program
from ttl.runtime.errors import RunawayKernelError
from ttl.runtime.trace import chrome_trace

RUNAWAY = """
#include <cstdint>
#include "ttl/kernel_api.h"
#include "api/debug/kernel_profiler.hpp"
#include "api/debug/dprint.h"
// Prints twice, then spins forever inside two profiler zones.
void kernel_main() {
  DPRINT("starting\\n");
  DeviceZoneScopedN("outer");
  {
    DeviceZoneScopedN("spin");
    DPRINT("spinning at {}\\n", uint32_t{7});
    for (volatile uint32_t i = 0; ; i = i + 1) {}
  }
}
"""


def _semaphore_trace(build) -> dict:
    report = Device(grid=(2, 1), trace=True).launch(
        Program(
            kernels=[
                KernelSpec("signal", build("semaphore_signal"), "dm0", [60000]),
                KernelSpec("wait", build("semaphore_wait"), "dm1"),
            ],
            semaphores=[0],
        )
    )
    return chrome_trace([("semaphores", report.kernels, report.dfb_counts)])


def test_semaphore_wait_is_a_span_until_the_increment(build):
    events = _semaphore_trace(build)["traceEvents"]
    (wait,) = [e for e in events if e.get("cat") == "semaphore_wait"]
    assert wait["name"].startswith("noc_semaphore_wait(semaphore at 0x")
    assert wait["name"].endswith(", value 1)")
    assert wait["pid"] == 1 + 1  # node (1,0)
    (inc_begin,) = [e for e in events if e["ph"] == "b"]
    (inc_end,) = [e for e in events if e["ph"] == "e"]
    assert inc_begin["name"] == "noc semaphore inc" and inc_begin["cat"] == "noc"
    assert inc_begin["pid"] == 1  # issued by node (0,0)
    assert inc_begin["args"]["destination"].startswith("NOC (19,18) @ 0x")  # node (1,0)
    assert inc_begin["args"]["increment"] == 1
    # The waiter resumes at the cycle the increment ran.
    assert wait["ts"] + wait["dur"] == inc_end["ts"]
    assert not [e for e in events if e["ph"] == "C"]  # no DFBs, no counters


def test_untraced_launch_records_no_transfers(build):
    report = Device(grid=(2, 1), profile=True).launch(
        Program(
            kernels=[
                KernelSpec("signal", build("semaphore_signal"), "dm0", [60000]),
                KernelSpec("wait", build("semaphore_wait"), "dm1"),
            ],
            semaphores=[0],
        )
    )
    assert all(not k.transfers for k in report.kernels) and not report.dfb_counts


@pytest.mark.parametrize("trace", [False, True])
def test_runaway_report_shows_signposts_and_last_prints(build, capsys, trace):
    dev = Device(grid=(1, 1), instruction_budget=200_000, trace=trace)
    with pytest.raises(RunawayKernelError) as info:
        dev.launch(Program(kernels=[KernelSpec("spin", build(RUNAWAY, name="spin"), "dm0")]))
    text = str(info.value)
    assert "executed more than 200000 instructions without finishing" in text
    assert "\n      in signpost 'outer' > 'spin'" in text
    assert "last printed:\n        starting\n        spinning at 7" in text
    assert capsys.readouterr().out == "[(0,0) spin] starting\n[(0,0) spin] spinning at 7\n"
