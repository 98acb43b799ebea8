"""Row softmax of a 1024x1024 bf16 tensor: a ttnn host program both runtimes run unchanged.

The operation is examples/basic/softmax.py's (loaded from that file, so each
runtime compiles the same source with its own `ttl`); the result is checked
against torch.softmax in float32.
"""

import importlib.util
from pathlib import Path

import torch
import ttnn

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "basic" / "softmax.py"
SHAPE = (1024, 1024)


def _load_example():
    spec = importlib.util.spec_from_file_location("softmax_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


softmax = _load_example().softmax

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

    x = torch.randn(SHAPE, dtype=torch.bfloat16)
    y = from_torch(torch.zeros(SHAPE, dtype=torch.bfloat16))
    softmax(from_torch(x), y)
    got = ttnn.to_torch(y).float()
    want = torch.softmax(x.float(), dim=1)
    assert torch.allclose(got, want, rtol=2e-2, atol=1e-3), (got - want).abs().max()
finally:
    ttnn.close_device(device)
