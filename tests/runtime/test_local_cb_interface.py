"""``get_local_cb_interface(cb)``: TT-Metal's per-processor view of a CB.

External C++ that inspects a DFB reads it as TT-Metal kernels do (upstream's
``examples/spec/dataflow_buffer/inspect_external_dfb.hpp`` reads ``fifo_rd_ptr``):
``internal/circular_buffer_interface.h``'s ``LocalCBInterface``, with addresses and
sizes in bytes on a data-movement processor and in 16-byte units (``cb_addr_shift``
4) on a compute one. Each kernel below records its view into the pages it sends on,
before and after its own cb_* calls, and the host checks every field against the
DFB's configuration and the number of pages moved.
"""

from __future__ import annotations

import numpy as np
import pytest

from ttl.runtime import Device, DFBConfig, KernelSpec, Program
from ttl.runtime.errors import KernelFaultError

PAGE = 64  # bytes: 16 words
FIELDS = 8  # words of a LocalCBInterface

# Records `cb`'s view into w[0..7]; the view was taken before the calls since.
RECORD = """
inline void record(volatile uint32_t* w, const LocalCBInterface& v) {
  w[0] = v.fifo_size; w[1] = v.fifo_limit; w[2] = v.fifo_page_size; w[3] = v.fifo_num_pages;
  w[4] = v.fifo_rd_ptr; w[5] = v.fifo_wr_ptr; w[6] = v.tiles_acked; w[7] = v.tiles_received;
}
"""

PRODUCER = (
    """
#include <cstdint>
#include "api/dataflow/dataflow_api.h"
"""
    + RECORD
    + """
// Pushes 3 pages into DFB 0; each page holds the producer's view of DFB 0 as it
// was when the page was reserved (one reference, taken once, kept current).
void kernel_main() {
  LocalCBInterface& view = get_local_cb_interface(0);
  for (uint32_t p = 0; p < 3; p++) {
    cb_reserve_back(0, 1);
    record(reinterpret_cast<volatile uint32_t*>(get_write_ptr(0)), view);
    cb_push_back(0, 1);
  }
}
"""
)

COMPUTE = (
    """
#include <cstdint>
#include "api/compute/common.h"
"""
    + RECORD
    + """
// For each page of DFB 0: copies it to DFB 1 (words 0-7) and adds the compute
// view of DFB 0 (words 8-15), as 16-byte units, after its cb_wait_front.
void kernel_main() {
  for (uint32_t p = 0; p < 3; p++) {
    cb_wait_front(0, 1);
    cb_reserve_back(1, 1);
    LocalCBInterface& in = get_local_cb_interface(0);
    volatile uint32_t* src = reinterpret_cast<volatile uint32_t*>(in.fifo_rd_ptr << cb_addr_shift);
    volatile uint32_t* dst = reinterpret_cast<volatile uint32_t*>(
        get_local_cb_interface(1).fifo_wr_ptr << cb_addr_shift);
    for (uint32_t j = 0; j < 8; j++) dst[j] = src[j];
    record(dst + 8, in);
    cb_push_back(1, 1);
    cb_pop_front(0, 1);
  }
}
"""
)

CONSUMER = """
#include <cstdint>
#include "api/dataflow/dataflow_api.h"
void kernel_main() {
  const auto out = TensorAccessor(TensorAccessorArgs<0>(), get_arg_val<uint32_t>(0), 64);
  for (uint32_t p = 0; p < 3; p++) {
    cb_wait_front(1, 1);
    noc_async_write_page(p, out, get_local_cb_interface(1).fifo_rd_ptr);
    noc_async_write_barrier();
    cb_pop_front(1, 1);
  }
}
"""


def test_each_processor_sees_the_cb_as_tt_metal_lays_it_out(build):
    dev = Device(grid=(1, 1))
    out = dev.dram.allocate(3, PAGE)
    dev.launch(
        Program(
            kernels=[
                KernelSpec("producer", build(PRODUCER), "dm0", []),
                KernelSpec("compute", build(COMPUTE), "compute", []),
                KernelSpec("consumer", build(CONSUMER, ct_args=[2, PAGE]), "dm1", [out]),
            ],
            dfbs=[
                DFBConfig(i, PAGE, pages_per_block=1, block_count=2, data_format="f32")
                for i in (0, 1)
            ],
        )
    )
    words = dev.dram.read_pages(out, PAGE, 3).view(np.uint32)
    base = int(dev.nodes[0, 0].dfbs[0].words[0])
    size = 2 * PAGE
    for p in range(3):
        slot = base + (p % 2) * PAGE  # the page p was written to and read from
        # The producer, in bytes, after p pushes and the reserve that found room for
        # page p (a reserve moves no pointer): the consumer has popped up to p pages.
        view = list(words[p, :FIELDS])
        assert view[:6] == [size, base + size, PAGE, 2, base, slot] and view[7] == p
        assert p - 1 <= view[6] <= p, view  # room for page p: at most one page unread
        # The compute kernel, in 16-byte units, after p pops; the producer has pushed
        # page p and may have pushed the next one.
        # The producer's side (its write pointer, the pages received) shows where the
        # producer was when the compute kernel last called cb_*.
        view = list(words[p, FIELDS:])
        assert view[:5] == [size >> 4, (base + size) >> 4, PAGE >> 4, 2, slot >> 4]
        assert view[6] == p and p + 1 <= view[7] <= min(3, p + 2), view
        assert view[5] == (base + view[7] % 2 * PAGE) >> 4, view


def test_a_cb_index_past_the_target_is_a_located_fault(build):
    bad = """
#include <cstdint>
#include "api/dataflow/dataflow_api.h"
void kernel_main() { (void)get_local_cb_interface(70).fifo_rd_ptr; }
"""
    dev = Device(grid=(1, 1))
    with pytest.raises(KernelFaultError, match=r"kernel0.cc:4 .*DFB 70 does not exist"):
        dev.launch(Program(kernels=[KernelSpec("bad", build(bad), "dm0", [])], dfbs=[]))
