"""Multicast matmul 512x512x512 (bf16) on a 4x4 grid: a ttnn program both runtimes run unchanged.

The operation is examples/basic/matmul_mcast.py's ``matmul_mcast`` (loaded from
that file, so each runtime compiles the same source with its own ``ttl``); the
result is checked against torch in float32. ``PIPE_MATMUL_VARIANT=unicast``
runs ``matmul_unicast`` instead (every node reads its own blocks).
"""

import importlib.util
import os
from pathlib import Path

import torch
import ttnn

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "basic" / "matmul_mcast.py"
N = 512


def _load_example():
    spec = importlib.util.spec_from_file_location("matmul_mcast_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


matmul = getattr(_load_example(), "matmul_" + os.environ.get("PIPE_MATMUL_VARIANT", "mcast"))

torch.manual_seed(0)
device = ttnn.open_device(device_id=0)
try:

    def from_torch(t):
        return ttnn.from_torch(
            t,
            dtype=ttnn.bfloat16,
            layout=ttnn.TILE_LAYOUT,
            device=device,
            memory_config=ttnn.DRAM_MEMORY_CONFIG,
        )

    a = torch.rand((N, N), dtype=torch.bfloat16) - 0.5
    b = torch.rand((N, N), dtype=torch.bfloat16) - 0.5
    y = from_torch(torch.zeros((N, N), dtype=torch.bfloat16))
    matmul(from_torch(a), from_torch(b), y)
    got = ttnn.to_torch(y).float()
    want = a.float() @ b.float()
    assert torch.allclose(got, want, rtol=2e-2, atol=5e-2), (got - want).abs().max()
finally:
    ttnn.close_device(device)
