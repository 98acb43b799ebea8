"""Profiling: exact instruction counts per kernel and cycles waited per wait."""

from __future__ import annotations

import pytest
from unicorn import UC_HOOK_CODE

from ttl.runtime import Device, DFBConfig, KernelSpec, Program

# Producer and consumer of one-page blocks on DFB 0; each side spins a busy
# loop of get_arg_val(1) iterations per page (volatile: the loop is not folded).
PRODUCER = """
#include <cstdint>
#include "ttl/kernel_api.h"
void kernel_main() {
  const uint32_t pages = get_arg_val<uint32_t>(0), spin = get_arg_val<uint32_t>(1);
  for (uint32_t p = 0; p < pages; p++) {
    for (volatile uint32_t i = 0; i < spin; i = i + 1) {}
    cb_reserve_back(0, 1);
    cb_push_back(0, 1);
  }
}
"""

CONSUMER = """
#include <cstdint>
#include "ttl/kernel_api.h"
void kernel_main() {
  const uint32_t pages = get_arg_val<uint32_t>(0), spin = get_arg_val<uint32_t>(1);
  for (uint32_t p = 0; p < pages; p++) {
    cb_wait_front(0, 1);
    cb_pop_front(0, 1);
    for (volatile uint32_t i = 0; i < spin; i = i + 1) {}
  }
}
"""

PAGES = 6
WAIT = "cb_wait_front(DFB 0, 1 page)"
RESERVE = "cb_reserve_back(DFB 0, 1 page)"


def _program(build, producer_spin: int, consumer_spin: int) -> Program:
    return Program(
        kernels=[
            KernelSpec("producer", build(PRODUCER, name="producer"), "dm0", [PAGES, producer_spin]),
            KernelSpec("consumer", build(CONSUMER, name="consumer"), "dm1", [PAGES, consumer_spin]),
        ],
        dfbs=[DFBConfig(0, 64, pages_per_block=1, block_count=2, data_format="f32")],
    )


def _stats(report):
    return {k.kernel: k for k in report.kernels}


@pytest.mark.parametrize("quantum", [None, 7, 1000])
def test_instruction_count_is_exact(build, quantum):
    """The block-hook count equals a per-instruction UC_HOOK_CODE count, run by run.

    The spin (70000 iterations, several instructions each) crosses the 200000
    instruction counted quantum, and quanta of 7 and 1000 stop mid-block
    often: the count must stay exact across every kind of stop.
    """
    dev = Device(grid=(1, 1), profile=True, quantum=quantum)
    program = _program(build, 70_000, 10)
    dev.launch(program)  # creates the machines, which the reference hooks then watch
    reference = {}
    for (_, slot), hart in dev._machines.items():
        reference[slot] = 0

        def count(uc, address, size, user_data, slot=slot):
            reference[slot] += 1

        hart.uc.hook_add(UC_HOOK_CODE, count)
    stats = _stats(dev.launch(program))  # load() retranslates: every block carries both hooks
    assert reference["dm0"] > PAGES * 70_000
    assert stats["producer"].instructions == reference["dm0"]
    assert stats["consumer"].instructions == reference["dm1"]
    # A profiled run charges the budget what it executed.
    assert stats["producer"].budget_used == reference["dm0"]


def test_unprofiled_report_has_no_instruction_counts(build):
    report = Device(grid=(1, 1)).launch(_program(build, 10, 10))
    assert all(k.instructions is None and k.waited == {} for k in report.kernels)
    assert "not measured" in report.table()


@pytest.mark.parametrize("slow", ["producer", "consumer"])
def test_waiting_side_has_the_large_wait_measure(build, slow):
    """The fast side waits on the slow one's busy loop; the slow side hardly waits."""
    spin = 20_000
    program = _program(
        build, spin if slow == "producer" else 10, spin if slow == "consumer" else 10
    )
    stats = _stats(Device(grid=(1, 1), profile=True).launch(program))
    fast = "consumer" if slow == "producer" else "producer"
    fast_wait = WAIT if fast == "consumer" else RESERVE
    waited = stats[fast].waited.get(fast_wait, 0)
    # Every page but the ones the DFB buffers costs the fast side a whole busy loop
    # of the slow side (at least 2 instructions per iteration).
    assert waited >= (PAGES - 2) * spin * 2
    assert sum(stats[slow].waited.values()) < waited // 100
    assert stats[fast].stalls[fast_wait] >= 1


@pytest.mark.parametrize("quantum", [None, 1000])
def test_a_waiting_kernel_finishes_at_its_producers_cycle(build, quantum):
    """Harts run in parallel in the timing model: a consumer that only waits for a slow
    producer ends (instructions + cycles waited) a few cycles after the producer's last
    push, however the emulator interleaved them."""
    spin = 20_000
    stats = _stats(
        Device(grid=(1, 1), profile=True, quantum=quantum).launch(_program(build, spin, 10))
    )
    producer, consumer = stats["producer"], stats["consumer"]
    consumer_end = consumer.instructions + sum(consumer.waited.values())
    # The producer's clock at its last push is its instruction count less a few
    # instructions after it; the consumer then pops and spins 10 iterations.
    assert 0 <= consumer_end - producer.instructions < 500
    assert sum(producer.waited.values()) < 500


def test_wait_on_another_nodes_semaphore_is_measured(build):
    """A semaphore increment from another node over the NOC wakes the waiter at the
    signalling hart's cycle."""
    spin = 30_000
    report = Device(grid=(2, 1), profile=True).launch(
        Program(
            kernels=[
                KernelSpec("signal", build("semaphore_signal"), "dm0", [spin]),
                KernelSpec("wait", build("semaphore_wait"), "dm1"),
            ],
            semaphores=[0],
        )
    )
    by_node = {(k.kernel, k.node): k for k in report.kernels}
    signaller, waiter = by_node["signal", (0, 0)], by_node["wait", (1, 0)]
    (waited,) = waiter.waited.values()
    assert signaller.instructions > spin * 2
    # The waiter resumes at the signaller's cycle and runs a few instructions more.
    assert 0 <= waiter.instructions + waited - signaller.instructions < 500
