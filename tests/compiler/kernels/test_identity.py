"""Deterministic operation identity across processes (issue 5 item 7).

Spec: "Factory-created operations with different immutable nonlocal captures receive
different deterministic operation identities. Equal captures retain the same
identity." and "Composition preserves captured ScalarType members and includes them
in deterministic operation identity."
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from compiler_testlib import REPO

PROGRAM = """
import ttl


def make(n, scalar):
    reader = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
    active = ttl.DispatchCondition(scalar)

    @ttl.operation(grid=(1, 1))
    def op(a):
        k = n
        s = scalar
        c = active

        @ttl.datamovement(kernel=reader)
        def r():
            pass

    return op


op_1_i64 = make(1, ttl.ScalarType.I64)
op_1_i64_again = make(1, ttl.ScalarType.I64)
op_2_i64 = make(2, ttl.ScalarType.I64)
op_1_i32 = make(1, ttl.ScalarType.I32)
"""

DRIVER = """
import json, sys
from ttl.compiler.driver import compile_operation, load_operation
out = {}
for name in ("op_1_i64", "op_1_i64_again", "op_2_i64", "op_1_i32"):
    m = compile_operation(load_operation(sys.argv[1], name), {"a": "bf16[32,32]"}).manifest
    out[name] = m["operation"]["identity"]
print(json.dumps(out))
"""


def _identities(path: str, seed: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(REPO))
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, path], capture_output=True, text=True, env=env, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_identity_is_stable_across_processes_and_tracks_captures(tmp_path):
    path = tmp_path / "factory.py"
    path.write_text(textwrap.dedent(PROGRAM))
    first = _identities(str(path), "1")
    second = _identities(str(path), "2")
    assert first == second  # two processes, different hash seeds: same identities
    assert first["op_1_i64"] == first["op_1_i64_again"]  # equal captures
    assert first["op_1_i64"] != first["op_2_i64"]  # different int capture
    assert first["op_1_i64"] != first["op_1_i32"]  # different captured ScalarType member
    assert all(len(v) == 64 for v in first.values())


def test_allocation_outputs_are_byte_identical_across_processes(tmp_path):
    # Deterministic outputs (DESIGN: "Same inputs -> byte-identical outputs"), including
    # the reused physical index, in two processes with different hash seeds.
    texts = []
    for seed in ("3", "4"):
        out = tmp_path / seed
        env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(REPO))
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "ttl.host.ttlc",
                "--src",
                "examples/kernels/dfb_reuse_extern.py",
                "--operation",
                "dfb_reuse_extern",
                "--arg=inp=bf16[32,128]",
                "--arg=out=bf16[32,128]",
                "--out",
                str(out),
            ],
            capture_output=True,
            text=True,
            env=env,
            cwd=REPO,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        texts.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    assert texts[0] == texts[1]
    assert json.loads(texts[0]["manifest.json"])["logical_dfbs"][1]["physical_index"] == 0
