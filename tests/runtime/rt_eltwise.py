"""The a*b+c launch used by the eltwise tests and bench/launch_bench.py."""

from __future__ import annotations

import numpy as np

from ttl.runtime import Device, DFBConfig, KernelSpec, Program


def split(n: int, parts: int) -> list[tuple[int, int]]:
    """(start, count) of ``n`` tiles split over ``parts`` nodes as evenly as possible."""
    base, extra = divmod(n, parts)
    out, start = [], 0
    for i in range(parts):
        count = base + (i < extra)
        out.append((start, count))
        start += count
    return out


def run_eltwise(dev: Device, elfs: dict, a, b, c, dtype: str, block_count: int = 2):
    """Runs y = a * b + c on every node of ``dev``; returns (y, report)."""
    ta, tb, tc = (dev.write_tensor(x, dtype) for x in (a, b, c))
    ty = dev.allocate_tensor(np.shape(a), dtype)
    nodes = sorted(dev.nodes)
    parts = dict(zip(nodes, split(ta.num_pages, len(nodes)), strict=True))
    page = ta.page_size
    dfbs = [DFBConfig(i, page, 1, block_count, dtype) for i in (0, 1, 2, 16)]
    prog = Program(
        kernels=[
            KernelSpec(
                "reader",
                elfs["reader"],
                "dm0",
                {n: [ta.address, tb.address, tc.address, s, k] for n, (s, k) in parts.items()},
            ),
            KernelSpec(
                "compute", elfs["compute"], "compute", {n: [k] for n, (s, k) in parts.items()}
            ),
            KernelSpec(
                "writer",
                elfs["writer"],
                "dm1",
                {n: [ty.address, s, k] for n, (s, k) in parts.items()},
            ),
        ],
        dfbs=dfbs,
    )
    report = dev.launch(prog)
    return dev.read_tensor(ty, like=a), report
