"""The tt-lang-sim side of the differential tests: runs a batch of TT-Lang programs.

Run by sim_harness.py in the simulator's own environment (.venv-sim), under
the simulator's launcher, which makes ``import ttl`` and ``import ttnn``
resolve to the simulator's:

    .venv-sim/bin/tt-lang-sim tests/differential/sim_driver.py -- BATCH.json

This file never runs in .venv and imports nothing of ours. BATCH.json lists
cases: ``{"name", "program" (a .py file defining the operation), "operation"
(its name), "inputs" ([.npy files]), "output_shape", "output" (.npy file to
write)}``. For each case the host side does what the tutorials do: torch
tensors from the .npy inputs, ``ttnn.from_torch`` in the case's ``layout``
(TILE_LAYOUT, or ROW_MAJOR_LAYOUT for ``row_major``) and ``dtype`` on an opened
device, the operation called with the inputs and a zeroed output tensor, then
``ttnn.to_torch``. The output is written as float32 .npy (the simulator
promotes bf16 to float32 by default, rebinding torch.bfloat16 to float32:
the values may need rounding to bf16, which the harness does). A case that raises
records its error and the batch goes on; ``{name: error or null}`` is written
to the file named by ``results`` in BATCH.json.
"""

import importlib.util
import json
import sys
import traceback

import numpy as np
import torch
import ttnn


def tensor(device, value, case):
    return ttnn.from_torch(
        value,
        dtype=ttnn.float32 if case.get("dtype") == "f32" else ttnn.bfloat16,
        layout=ttnn.ROW_MAJOR_LAYOUT if case.get("layout") == "row_major" else ttnn.TILE_LAYOUT,
        device=device,
        memory_config=ttnn.DRAM_MEMORY_CONFIG,
    )


def run_case(device, case, index):
    spec = importlib.util.spec_from_file_location(f"differential_case_{index}", case["program"])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    operation = getattr(module, case["operation"])
    dtype = torch.float32 if case.get("dtype") == "f32" else torch.bfloat16
    inputs = [
        tensor(device, torch.from_numpy(np.load(path)).to(dtype), case) for path in case["inputs"]
    ]
    out = tensor(device, torch.zeros(tuple(case["output_shape"]), dtype=dtype), case)
    operation(*inputs, out)
    np.save(case["output"], ttnn.to_torch(out).to(torch.float32).numpy())


def main():
    args = [a for a in sys.argv[1:] if a != "--"]
    with open(args[0]) as f:
        batch = json.load(f)
    errors = {}
    device = ttnn.open_device(device_id=0)
    try:
        for index, case in enumerate(batch["cases"]):
            try:
                run_case(device, case, index)
                errors[case["name"]] = None
            except BaseException as error:  # one bad case must not end the batch
                if isinstance(error, KeyboardInterrupt):
                    raise
                errors[case["name"]] = "".join(traceback.format_exception(error))[-4000:]
    finally:
        ttnn.close_device(device)
    with open(batch["results"], "w") as f:
        json.dump(errors, f)


main()
