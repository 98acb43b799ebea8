"""DFB producer/consumer across harts, NOC DRAM and node-to-node traffic, semaphores."""

from __future__ import annotations

import numpy as np
import pytest

from ttl.runtime import Device, DFBConfig, KernelSpec, LaunchError, Program

PAGE = 64  # bytes: 16 words

PRODUCER = """
#include <cstdint>
#include "api/dataflow/dataflow_api.h"
// Pushes n blocks of 2 pages; word j of page p holds p * 1000 + j.
void kernel_main() {
  const uint32_t n = get_arg_val<uint32_t>(0);
  for (uint32_t blk = 0; blk < n; blk++) {
    cb_reserve_back(3, 2);
    volatile uint32_t* w = reinterpret_cast<volatile uint32_t*>(get_write_ptr(3));
    for (uint32_t p = 0; p < 2; p++)
      for (uint32_t j = 0; j < 16; j++) w[p * 16 + j] = (blk * 2 + p) * 1000 + j;
    cb_push_back(3, 2);
  }
}
"""

CONSUMER = """
#include <cstdint>
#include "api/dataflow/dataflow_api.h"
// Waits for pages one at a time and copies each to DRAM page p of the output.
void kernel_main() {
  const auto out = TensorAccessor(TensorAccessorArgs<0>(), get_arg_val<uint32_t>(0), 64);
  const uint32_t pages = get_arg_val<uint32_t>(1);
  for (uint32_t p = 0; p < pages; p++) {
    cb_wait_front(3, 1);
    noc_async_write_page(p, out, get_read_ptr(3));
    noc_async_write_barrier();
    cb_pop_front(3, 1);
  }
}
"""


def _words(dev, addr, pages):
    return dev.dram.read_pages(addr, PAGE, pages).view(np.uint32)


def test_dfb_producer_consumer_across_harts(build):
    dev = Device(grid=(1, 1), quantum=500)  # small quanta: many interleavings
    blocks = 9
    out = dev.dram.allocate(blocks * 2, PAGE)
    prog = Program(
        kernels=[
            KernelSpec("producer", build(PRODUCER), "dm0", [blocks]),
            KernelSpec("consumer", build(CONSUMER, ct_args=[2, PAGE]), "dm1", [out, blocks * 2]),
        ],
        dfbs=[DFBConfig(3, PAGE, pages_per_block=2, block_count=2, data_format="f32")],
    )
    report = dev.launch(prog)
    want = np.array([[p * 1000 + j for j in range(16)] for p in range(blocks * 2)])
    np.testing.assert_array_equal(_words(dev, out, blocks * 2), want)
    dfb = dev.nodes[0, 0].dfbs[3]
    assert (dfb.received, dfb.acked) == (18, 18)
    # The 4-page DFB forces the producer to wait for the consumer at least once.
    stalls = {k.kernel: k.stalls for k in report.kernels}
    assert stalls["producer"].get("cb_reserve_back(DFB 3, 2 pages)", 0) >= 1
    assert "pages received 18, acknowledged 18" in dev.describe()


COPY_REVERSED = """
#include <cstdint>
#include "api/dataflow/dataflow_api.h"
// Copies DRAM pages [0, n) of src to dst in reverse order through L1 scratch (DFB 0).
void kernel_main() {
  const auto src = TensorAccessor(TensorAccessorArgs<0>(), get_arg_val<uint32_t>(0), 64);
  const auto dst = TensorAccessor(TensorAccessorArgs<0>(), get_arg_val<uint32_t>(1), 64);
  const uint32_t n = get_arg_val<uint32_t>(2);
  const uint32_t scratch = get_write_ptr(0);
  for (uint32_t i = 0; i < n; i++) {
    noc_async_read(src.get_noc_addr(i), scratch, 64);
    noc_async_read_barrier();
    noc_async_write_page(n - 1 - i, dst, scratch);
    noc_async_write_barrier();
  }
}
"""


def test_noc_dram_interleaved_read_write(build):
    dev = Device(grid=(1, 1))
    n = 29  # more pages than banks, not a multiple of 12
    src = dev.dram.allocate(n, PAGE)
    dst = dev.dram.allocate(n, PAGE)
    data = np.arange(n * 16, dtype=np.uint32).reshape(n, 16)
    dev.dram.write_pages(src, PAGE, data.view(np.uint8))
    # Interleaving: page 13 is the second page in bank 1.
    assert dev.dram.read(1, src + PAGE, PAGE).view(np.uint32)[0] == 13 * 16
    dev.launch(
        Program(
            [KernelSpec("copy", build(COPY_REVERSED, ct_args=[2, PAGE]), "dm0", [src, dst, n])],
            [DFBConfig(0, PAGE, 1, 1, "f32")],
        )
    )
    np.testing.assert_array_equal(_words(dev, dst, n), data[::-1])


MCAST_SENDER = """
#include <cstdint>
#include "api/dataflow/dataflow_api.h"
// Node (0,0): fill a page, multicast it to every other node, bump their semaphore 0.
void kernel_main() {
  if (get_relative_logical_x() != 0 || get_relative_logical_y() != 0) return;
  volatile uint32_t* page = reinterpret_cast<volatile uint32_t*>(get_write_ptr(0));
  for (uint32_t j = 0; j < 16; j++) page[j] = 0xC0DE0000u + j;
  const uint32_t gx = 3, gy = 2;  // the test's grid
  // NOC coordinates on wormhole_b0 are 18 + logical ones.
  const uint64_t all = get_noc_multicast_addr(18, 18, 18 + gx - 1, 18 + gy - 1, get_write_ptr(0));
  noc_async_write_multicast(get_write_ptr(0), all, 64, gx * gy - 1);
  noc_async_write_barrier();
  for (uint32_t y = 0; y < gy; y++)
    for (uint32_t x = 0; x < gx; x++)
      if (x || y) noc_semaphore_inc(get_noc_addr(18 + x, 18 + y, get_semaphore(0)), 1);
}
"""

MCAST_RECEIVER = """
#include <cstdint>
#include "api/dataflow/dataflow_api.h"
// Other nodes: wait for the semaphore, then store the page to DRAM page (node index).
void kernel_main() {
  const uint32_t x = get_relative_logical_x(), y = get_relative_logical_y();
  if (!x && !y) return;
  noc_semaphore_wait(reinterpret_cast<volatile uint32_t*>(get_semaphore(0)), 1);
  volatile uint32_t* page = reinterpret_cast<volatile uint32_t*>(get_read_ptr(0));
  page[15] = x * 16 + y;  // prove which node wrote it
  const auto out = TensorAccessor(TensorAccessorArgs<0>(), get_arg_val<uint32_t>(0), 64);
  noc_async_write_page(y * 3 + x, out, get_read_ptr(0));
  noc_async_write_barrier();
}
"""


def test_multicast_and_remote_semaphores(build):
    dev = Device(grid=(3, 2), quantum=1000)
    out = dev.dram.allocate(6, PAGE)
    dev.launch(
        Program(
            kernels=[
                KernelSpec("sender", build(MCAST_SENDER), "dm0"),
                KernelSpec("receiver", build(MCAST_RECEIVER, ct_args=[2, PAGE]), "dm1", [out]),
            ],
            dfbs=[DFBConfig(0, PAGE, 1, 1, "f32")],
            semaphores=[0],
        )
    )
    words = _words(dev, out, 6)
    for y in range(2):
        for x in range(3):
            if x or y:
                row = words[y * 3 + x]
                np.testing.assert_array_equal(row[:15], 0xC0DE0000 + np.arange(15))
                assert row[15] == x * 16 + y


def test_launch_rejects_bad_configuration(build):
    dev = Device(grid=(1, 1))
    elf = build(CONSUMER, ct_args=[2, PAGE])
    with pytest.raises(LaunchError, match="unknown processor slot 'dm2'"):
        dev.launch(Program([KernelSpec("k", elf, "dm2")]))
    with pytest.raises(LaunchError, match="both use slot dm0"):
        dev.launch(Program([KernelSpec("a", elf, "dm0"), KernelSpec("b", elf, "dm0")]))
    with pytest.raises(LaunchError, match=r"DFBs need .* bytes of L1"):
        dev.launch(Program([KernelSpec("k", elf, "dm0")], [DFBConfig(0, 2048, 8, 100)]))
    with pytest.raises(LaunchError, match="DFB index 32 is outside"):
        dev.launch(Program([KernelSpec("k", elf, "dm0")], [DFBConfig(32, 2048, 1, 2)]))
    with pytest.raises(LaunchError, match="cannot read kernel ELF"):
        dev.launch(Program([KernelSpec("k", "/nonexistent.elf", "dm0")]))


def test_relaunch_keeps_each_images_engine(build):
    # One engine (and its translated code) per image, kept across launches of other images.
    dev = Device(grid=(1, 1))
    n = 5
    src, dst = dev.dram.allocate(n, PAGE), dev.dram.allocate(n, PAGE)
    data = np.arange(n * 16, dtype=np.uint32).reshape(n, 16)
    dev.dram.write_pages(src, PAGE, data.view(np.uint8))
    copy = Program(
        [KernelSpec("copy", build(COPY_REVERSED, ct_args=[2, PAGE]), "dm0", [src, dst, n])],
        [DFBConfig(0, PAGE, 1, 1, "f32")],
    )
    producer = Program(
        kernels=[
            KernelSpec("producer", build(PRODUCER), "dm0", [2]),
            KernelSpec(
                "consumer",
                build(CONSUMER, ct_args=[2, PAGE]),
                "dm1",
                [dev.dram.allocate(4, PAGE), 4],
            ),
        ],
        dfbs=[DFBConfig(3, PAGE, pages_per_block=2, block_count=2, data_format="f32")],
    )
    engines = []
    for program in (copy, copy, producer, copy):
        dev.dram.write_pages(dst, PAGE, np.zeros((n, PAGE), np.uint8))
        dev.launch(program)
        engines.append(dev.nodes[0, 0].harts["dm0"].engine)
        if program is copy:
            np.testing.assert_array_equal(_words(dev, dst, n), data[::-1])
    assert engines[0] is engines[1] is engines[3] is not engines[2]
    assert len(dev._engines) == 3  # copy, producer, consumer


def test_device_reuses_machines_across_launches_with_new_code(build):
    dev = Device(grid=(1, 1), quantum=500)
    n = 5
    src, dst = dev.dram.allocate(n, PAGE), dev.dram.allocate(n, PAGE)
    data = np.arange(n * 16, dtype=np.uint32).reshape(n, 16)
    dev.dram.write_pages(src, PAGE, data.view(np.uint8))
    copy = Program(
        [KernelSpec("copy", build(COPY_REVERSED, ct_args=[2, PAGE]), "dm0", [src, dst, n])],
        [DFBConfig(0, PAGE, 1, 1, "f32")],
    )
    dev.launch(copy)
    machine = dev.nodes[0, 0].harts["dm0"]
    # A different kernel in the same slot: stale translated code would misbehave.
    out = dev.dram.allocate(4, PAGE)
    dev.launch(
        Program(
            kernels=[
                KernelSpec("producer", build(PRODUCER), "dm0", [2]),
                KernelSpec("consumer", build(CONSUMER, ct_args=[2, PAGE]), "dm1", [out, 4]),
            ],
            dfbs=[DFBConfig(3, PAGE, pages_per_block=2, block_count=2, data_format="f32")],
        )
    )
    assert dev.nodes[0, 0].harts["dm0"] is machine
    want = np.array([[p * 1000 + j for j in range(16)] for p in range(4)])
    np.testing.assert_array_equal(_words(dev, out, 4), want)
    dev.launch(copy)  # and back again
    np.testing.assert_array_equal(_words(dev, dst, n), data[::-1])


LONG_PRODUCER = """
#include <cstdint>
#include "api/dataflow/dataflow_api.h"
// Computes for a long time without any API call, then publishes the result.
void kernel_main() {
  uint32_t x = 1;
  for (uint32_t i = 0; i < get_arg_val<uint32_t>(0); i++) x = x * 1664525u + 1013904223u;
  cb_reserve_back(3, 2);
  reinterpret_cast<volatile uint32_t*>(get_write_ptr(3))[0] = x;
  cb_push_back(3, 2);
}
"""


def test_long_running_hart_is_preempted_and_resumed_correctly(build):
    n = 4_000_000  # ~0.15 s of emulation: the watchdog preempts it
    dev = Device(grid=(1, 1))
    out = dev.dram.allocate(2, PAGE)
    report = dev.launch(
        Program(
            kernels=[
                KernelSpec("producer", build(LONG_PRODUCER), "dm0", [n]),
                KernelSpec("consumer", build(CONSUMER, ct_args=[2, PAGE]), "dm1", [out, 2]),
            ],
            dfbs=[DFBConfig(3, PAGE, pages_per_block=2, block_count=1, data_format="f32")],
        )
    )
    assert _words(dev, out, 1)[0, 0] == _lcg_power(1664525, 1013904223, n, 1)
    producer = next(k for k in report.kernels if k.kernel == "producer")
    assert producer.turns > 1  # it was preempted (then counted) before it finished


def _lcg_power(a: int, c: int, n: int, x: int) -> int:
    """x after n steps of x = a*x + c (mod 2^32), by squaring the affine map."""
    mask = 0xFFFFFFFF
    ra, rc = 1, 0  # accumulated map
    while n:
        if n & 1:
            ra, rc = (a * ra) & mask, (a * rc + c) & mask
        a, c = (a * a) & mask, (a * c + c) & mask
        n >>= 1
    return (ra * x + rc) & mask


def test_device_validates_target_and_grid_and_prints_state(build):
    with pytest.raises(LaunchError, match="unknown target 'grayskull'"):
        Device("grayskull")
    with pytest.raises(LaunchError, match=r"grid \(9, 1\) does not fit wormhole_b0's 8x8"):
        Device("wormhole_b0", grid=(9, 1))
    dev = Device("blackhole", grid=(2, 1))
    assert dev.nodes[1, 0].l1.size == 1572864 and dev.dram.num_banks == 8
    dev.launch(
        Program(
            [KernelSpec("consumer", build(CONSUMER, ct_args=[2, PAGE]), "dm1", [0, 0])],
            [DFBConfig(3, PAGE, 1, 2, "f32")],
        )
    )
    text = dev.describe()
    assert "Device(blackhole, grid 2x1" in text
    assert "node (1,0): L1 1572864 B" in text
    assert "DFB 3: 2 pages of 64 B, pages received 0, acknowledged 0" in text
    assert "dm1: kernel 'consumer' done" in text
