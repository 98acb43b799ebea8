"""Manifest schema, runtime-argument layout and determinism."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from compiler_testlib import EXAMPLES, REPO, compile_example

BY_NAME = {p.stem: p for p in EXAMPLES}


def test_manifest_schema():
    m = compile_example(BY_NAME["matmul_bias_relu"]).manifest
    assert m["schema"] == "ttl.manifest" and m["version"] == 1
    assert m["target"] == "wormhole_b0"
    assert m["grid"] == {"x": 1, "y": 1}
    assert m["operation"]["name"] == "matmul_bias_relu"
    assert m["operation"]["source"] == "matmul_bias_relu.py"
    assert len(m["operation"]["identity"]) == 64
    assert [t["name"] for t in m["tensors"]] == ["a", "b", "c", "y"]
    a = m["tensors"][0]
    assert a == {
        "name": "a",
        "index": 0,
        "shape": [128, 256],
        "dtype": "bf16",
        "layout": "tile",
        "tile_shape": [4, 8],
        "num_pages": 32,
        "page_size": 2048,
        "data_format": "Float16_b",
        "written": False,
    }
    dfbs = {d["name"]: d for d in m["dfbs"]}
    assert [d["physical_index"] for d in m["dfbs"]] == [0, 1, 2, 3, 4]
    assert dfbs["acc_dfb"] == {
        "name": "acc_dfb",
        "physical_index": 3,
        "like_tensor": "y",
        "block_shape": [2, 2],
        "pages_per_block": 4,
        "block_count": 2,
        "page_size": 2048,
        "data_format": "Float16_b",
        "total_bytes": 16384,
    }
    assert m["l1_bytes"] == sum(d["total_bytes"] for d in m["dfbs"])
    kernels = {k["name"]: k for k in m["kernels"]}
    assert kernels["compute"]["kind"] == "compute"
    assert kernels["compute"]["processor_slot"] == "compute"
    assert kernels["compute"]["logical_kernel"] == "matmul_bias_relu.compute"
    assert kernels["read"]["processor_slot"] == "dm0"
    assert kernels["write"]["processor_slot"] == "dm1"
    assert kernels["read"]["source"] == "read.cpp"
    assert (kernels["read"]["processor"], kernels["read"]["noc"]) == ("BRISC", 0)
    assert (kernels["write"]["processor"], kernels["write"]["noc"]) == ("NCRISC", 1)
    assert kernels["compute"]["processor"] == "TRISC" and "noc" not in kernels["compute"]
    # read uses a, b and c DFBs: compile-time args in ascending physical index.
    # then each tensor's TensorAccessorArgs: interleaved DRAM (IsDram = 2), page size.
    assert kernels["read"]["compile_time_args"] == [
        {"name": "dfb_a_dfb", "value": 0},
        {"name": "dfb_b_dfb", "value": 1},
        {"name": "dfb_c_dfb", "value": 2},
        *(
            arg
            for t in "abc"
            for arg in (
                {"name": f"tensor_{t}.args_config", "value": 2},
                {"name": f"tensor_{t}.aligned_page_size", "value": 2048},
            )
        ),
    ]
    assert kernels["write"]["defines"] == {}
    gx, gy = m["grid"]["x"], m["grid"]["y"]
    assert m["runtime_args"] == {
        "per_node": [
            *({"index": i, "kind": "tensor_address", "tensor": n} for i, n in enumerate("abcy")),
            *({"index": 4 + x, "kind": "noc_x", "column": x} for x in range(gx)),
            *({"index": 4 + gx + y, "kind": "noc_y", "row": y} for y in range(gy)),
        ],
        "common": [],
    }


def test_manifest_text_is_canonical(tmp_path):
    result = compile_example(BY_NAME["eltwise_single_tile"])
    names = result.write(str(tmp_path))
    assert names == sorted(
        [
            "compute.cpp",
            "eltwise_single_tile.mlir",
            "manifest.json",
            "plan.json",
            "read.cpp",
            "write.cpp",
        ]
    )
    text = (tmp_path / "manifest.json").read_text()
    assert text == json.dumps(json.loads(text), indent=2, sort_keys=True) + "\n"
    assert str(REPO) not in text and "/tmp" not in text
    plan = json.loads((tmp_path / "plan.json").read_text())
    assert plan["dfbs"][0] == {
        "name": "a_dfb",
        "physical_index": 0,
        "producers": ["eltwise_single_tile.read"],
        "consumers": ["eltwise_single_tile.compute"],
        "allocation": {
            "reason": "not reused: kernels 'eltwise_single_tile.compute', "
            "'eltwise_single_tile.read' use it concurrently",
            "shares_index_with": [],
        },
        "protocol": "balanced on every path (8 tiles pushed and popped)",
    }


_COMPILE_ALL = """
import sys
sys.path.insert(0, {tests!r})
from compiler_testlib import EXAMPLES, compile_example
for path in EXAMPLES:
    compile_example(path).write(sys.argv[1] + "/" + path.stem)
"""


def test_determinism_two_processes_two_dirs(tmp_path):
    dirs = [tmp_path / "one", tmp_path / "two"]
    script = _COMPILE_ALL.format(tests=str(REPO / "tests" / "compiler"))
    for i, d in enumerate(dirs):
        env = dict(os.environ, PYTHONHASHSEED=str(i + 1))
        subprocess.run([sys.executable, "-c", script, str(d)], check=True, env=env, cwd=tmp_path)
    files_one = sorted(p.relative_to(dirs[0]) for p in dirs[0].rglob("*") if p.is_file())
    files_two = sorted(p.relative_to(dirs[1]) for p in dirs[1].rglob("*") if p.is_file())
    # Per example: IR, manifest, plan and at least two kernels (data movement only, for pipes).
    assert files_one == files_two and len(files_one) >= 5 * len(EXAMPLES)
    for rel in files_one:
        assert (dirs[0] / rel).read_bytes() == (dirs[1] / rel).read_bytes(), rel


def test_identity_tracks_source_and_captures(compile_source):
    src = """
    import ttl
    N = {n}

    @ttl.operation(grid=(1, 1))
    def op(a, y):
        a_dfb = ttl.make_dataflow_buffer_like(a, shape=(1, N))

        @ttl.datamovement()
        def read():
            with a_dfb.reserve() as blk:
                ttl.copy(a[0, 0:N], blk).wait()
    """
    specs = {"a": "bf16[32,64]", "y": "bf16[32,64]"}
    one = compile_source(src.format(n=1), "op", specs).manifest["operation"]["identity"]
    one_again = compile_source(src.format(n=1), "op", specs).manifest["operation"]["identity"]
    two = compile_source(src.format(n=2), "op", specs).manifest["operation"]["identity"]
    assert one == one_again and one != two


def test_written_marks_copy_destinations_only():
    """Only tensors a kernel may write are `written` (runtimes read back only those)."""
    manifest = compile_example(BY_NAME["eltwise_single_tile"]).manifest
    assert {t["name"]: t["written"] for t in manifest["tensors"]} == {
        "a": False,
        "b": False,
        "c": False,
        "y": True,
    }
