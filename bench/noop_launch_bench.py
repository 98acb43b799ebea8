"""Benchmark: launching an operation whose kernels do nothing, ours against tt-lang-sim.

    PYTHONPATH=. .venv/bin/python bench/noop_launch_bench.py [--grid 8x8] [--repeat 7] \
        [--rounds 3] [--sim-python .venv-sim/bin/python]

Issue 18's goal: launch overhead on the full 8x8 grid under 50 ms. The program
is ``noop`` below, the smallest one both runtimes accept: no tensor, and the
three kernels tt-lang-sim requires (compute, dm0, dm1), each ``pass``, on
``grid="full"`` (8x8 on wormhole_b0), which --grid sets as each runtime's
command line does (``ttl run --grid``: ``jit.configure``; ``tt-lang-sim --grid``).

Alternating ours and theirs, --rounds times: ours in this process through the
JIT (compiled before the first round; each round drops the devices first, so
its first call creates the device and its harts), timing each call and the
``Device.launch`` inside it (the call's report); then theirs, this script
under tt-lang-sim in its own process (op_timer.py times each call), making
1 + --repeat calls. Prints the medians of first and warm calls, the ratios
ours/theirs, and whether the warm operation call meets the goal.
"""

from __future__ import annotations

import argparse
import statistics
import time

from emulator_bench import ROOT, TIMER, add_sim_python, run_once, sim_next_to

import ttl

# theirs: bench/ on the path for the import above, and no checkout's `ttl` shadowing theirs
SIM_ENV = {"PYTHONPATH": str(ROOT / "bench")}
GOAL_SECONDS = 0.050


@ttl.operation(grid="full")
def noop():
    @ttl.compute()
    def compute():
        pass

    @ttl.datamovement()
    def dm0():
        pass

    @ttl.datamovement()
    def dm1():
        pass


def ours(repeat: int) -> tuple[list[float], list[float]]:
    """Seconds of 1 + ``repeat`` calls on a fresh device: (operation calls, their launches)."""
    from ttl.host import jit

    jit.release_devices()  # the first call creates the device and its harts again
    calls, launches = [], []
    for _ in range(1 + repeat):
        start = time.perf_counter()
        noop()
        calls.append(time.perf_counter() - start)
        launches.append(jit.profile().calls[-1].run_seconds)
    return calls, launches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", default="8x8", help="grid as XxY (default: the full 8x8)")
    parser.add_argument("--repeat", type=int, default=7, help="warm calls per round and side")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of ours, then theirs")
    parser.add_argument("--calls", type=int, help="(theirs) only call the operation N times")
    add_sim_python(parser, str(ROOT / ".venv-sim" / "bin" / "python"))
    args = parser.parse_args()
    if args.calls is not None:  # theirs: this script run by op_timer.py under tt-lang-sim
        for _ in range(args.calls):
            noop()
        return

    from ttl.host import jit

    x, y = (int(v) for v in args.grid.split("x"))
    sim = sim_next_to(args.sim_python)
    theirs_cmd = [str(sim), str(TIMER), "--grid", f"{x},{y}", "--"]
    theirs_cmd += [str(ROOT / "bench" / "noop_launch_bench.py"), f"--calls={1 + args.repeat}"]
    jit.configure(grid=(x, y))
    noop()  # compile (or load from the JIT cache) before any timed call
    first: dict[str, list[float]] = {"ours": [], "launch": [], "sim": []}
    warm: dict[str, list[float]] = {"ours": [], "launch": [], "sim": []}
    for _ in range(args.rounds):
        calls, launches = ours(args.repeat)
        sims = run_once(theirs_cmd, SIM_ENV)["calls"]
        for name, seconds in (("ours", calls), ("launch", launches), ("sim", sims)):
            first[name].append(seconds[0])
            warm[name] += seconds[1:]

    def ms(name: str) -> tuple[float, float]:
        return 1e3 * statistics.median(first[name]), 1e3 * statistics.median(warm[name])

    harts = len(jit.profile().calls[-1].kernels)
    print(
        f"noop on grid {x}x{y} ({harts} harts): medians of {args.rounds} first calls and "
        f"{args.rounds * args.repeat} warm calls, alternating ours/tt-lang-sim"
    )
    print(f"{'':26} {'first ms':>9} {'warm ms':>9}")
    rows = [
        ("ours: operation call", ms("ours")),
        ("ours: Device.launch", ms("launch")),
        ("tt-lang-sim: call", ms("sim")),
    ]
    for label, (cold, hot) in rows:
        print(f"{label:26} {cold:9.2f} {hot:9.2f}")
    (cold, hot), (sim_cold, sim_hot) = ms("ours"), ms("sim")
    print(f"{'ratio ours/tt-lang-sim':26} {cold / sim_cold:9.2f} {hot / sim_hot:9.2f}")
    verdict = "met" if hot < 1e3 * GOAL_SECONDS else "MISSED"
    scope = "" if (x, y) == (8, 8) else " (the goal is for the full 8x8 grid)"
    print(f"goal: warm operation call under {GOAL_SECONDS * 1e3:.0f} ms: {verdict}{scope}")


if __name__ == "__main__":
    main()
