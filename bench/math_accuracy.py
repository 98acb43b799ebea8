"""Accuracy of every unary ttl.math function on the emulator vs a float64 reference.

    .venv/bin/python bench/math_accuracy.py [--target wormhole_b0] [--tiles 8] [--markdown]

Each case of ``ttl.host.mathcheck.CASES`` (the Appendix B unary functions as
a program writes them, e.g. ``ttl.math.elu(a_blk, 0.5)``) runs through the
real emulator (compiled kernels, coprocessor, bf16 pack) over a sweep of its
domain with the edges (0, -0, +-1, negatives for log/sqrt, overflow for exp,
+-1 for atanh/asin); the table gives the numerical method and the maximum
error against NumPy float64: absolute and in bf16 ULPs of the reference.
Elements where the reference is NaN or beyond the bf16 range must be NaN or
the right infinity (the ``bad`` column counts those that are not).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from ttl.host import mathcheck


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--target", default="wormhole_b0", help="wormhole_b0 or blackhole")
    parser.add_argument("--tiles", type=int, default=8, help="tiles (1024 inputs) per case")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="math_accuracy_") as tmp:
        results = mathcheck.run_cases(
            mathcheck.CASES, args.target, tiles=args.tiles, directory=Path(tmp)
        )
    rows = []
    failed = False
    for case in mathcheck.CASES:
        x, y = results[case.name]
        max_abs, max_ulps, bad = mathcheck.errors(case, x, y)
        failed |= bool(bad.any())
        rows.append(
            (
                case.name,
                case.lowering,
                case.method,
                f"{max_abs:.3g}",
                f"{max_ulps:.2f}",
                str(int(bad.sum())),
                f"[{case.lo:g}, {case.hi:g}] + edges",
            )
        )
    head = ("function", "lowering", "method", "max abs err", "max bf16 ULPs", "bad", "inputs")
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + " --- |" * len(head))
        for r in rows:
            print("| " + " | ".join(f"`{c}`" if i in (0, 1) else c for i, c in enumerate(r)) + " |")
    else:
        widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
        for r in [head, *rows]:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)))
    print(f"\n{len(rows)} cases on the emulated {args.target}, {args.tiles * 1024} inputs each")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
