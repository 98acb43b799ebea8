"""Signpost zones of one hart (TT-Lang ``with ttl.signpost(name):``).

The kernel writes the zone's name address to a doorbell on entry and on exit
(TT-Metal's ``DeviceZoneScopedN``, an object constructed at the zone's entry and
destroyed at its exit: api/debug/kernel_profiler.hpp); the hart records each closed zone with its
entry and exit cycle (``Hart.clock``, the profile's timing model) and the
instructions executed inside it. Zones nest; the open ones form the hart's
signpost stack, which deadlock reports show. Without profiling there is no
clock: zones are still counted, with cycles and instructions ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ttl.runtime.errors import DeviceFault


@dataclass(frozen=True)
class Zone:
    """One execution of a signpost's body on one hart."""

    name: str
    depth: int  # 0 for an outermost zone
    begin: int | None  # cycle at entry (profiling only)
    end: int | None  # cycle at exit
    instructions: int | None  # executed inside the zone (profiling only)


@dataclass
class SignpostStats:
    """All executions of one signpost on one hart."""

    count: int = 0
    cycles: int | None = None  # total over its executions (profiling only)
    instructions: int | None = None

    @property
    def mean_cycles(self) -> float | None:
        return None if self.cycles is None or not self.count else self.cycles / self.count


class HartZones:
    """The zones of one hart during one launch."""

    def __init__(self) -> None:
        self.stack: list[tuple[str, int | None, int | None]] = []  # (name, cycle, instructions)
        self.zones: list[Zone] = []

    def reset(self) -> None:
        self.stack.clear()
        self.zones.clear()

    def begin(self, name: str, cycle: int | None, instructions: int | None) -> None:
        self.stack.append((name, cycle, instructions))

    def end(self, name: str, cycle: int | None, instructions: int | None) -> None:
        if not self.stack or self.stack[-1][0] != name:
            open_ = self.stack[-1][0] if self.stack else None
            raise DeviceFault(
                f"signpost '{name}' ends, but the innermost open signpost is "
                + (f"'{open_}'" if open_ else "none")
            )
        _, c0, i0 = self.stack.pop()
        self.zones.append(
            Zone(
                name,
                len(self.stack),
                c0,
                cycle,
                None if i0 is None or instructions is None else instructions - i0,
            )
        )

    def open_names(self) -> list[str]:
        """The signpost stack, outermost first."""
        return [name for name, _, _ in self.stack]

    def summary(self) -> dict[str, SignpostStats]:
        """Per signpost name (first-entry order): count, total cycles and instructions."""
        out: dict[str, SignpostStats] = {}
        for z in self.zones:
            s = out.setdefault(z.name, SignpostStats())
            s.count += 1
            if z.begin is not None and z.end is not None:
                s.cycles = (s.cycles or 0) + z.end - z.begin
            if z.instructions is not None:
                s.instructions = (s.instructions or 0) + z.instructions
        return out
