"""Logical device domains (spec v0.21, "Device domain").

A *device domain* is a rectangular index set of logical devices, made of one or
more named components (``ttl.DeviceDomain([4])``, ``ttl.DeviceDomain.product(
rows=2, cols=4)``); a :class:`DeviceRef` names one member by its component
coordinates and a :class:`DeviceRange` a half-open rectangle of them. Devices are
numbered row-major across all component dimensions. An operation declares the
domain it runs on with ``ttl.operation(device_domain=...)``: its grid runs on every
device of the domain, which must have as many devices as the TT-NN mesh it is
called on. In kernels, ``domain.current_index()`` is the running device's index and
``domain.is_current(ref)`` tests it. Plain Python: part of the DSL layer.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any

from ttl._intrinsic import intrinsic
from ttl.errors import SourceLoc, TTLCompileError, caller_loc


def _extent(value: Any, what: str) -> tuple[int, ...]:
    dims = (value,) if isinstance(value, int) else tuple(value) if _is_seq(value) else None
    if not dims or not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in dims):
        raise TTLCompileError(
            f"{what} must be a positive integer or a sequence of them, got {value!r}",
            caller_loc(3),
            "write e.g. ttl.DeviceDomain([4]) or ttl.DeviceDomain([2, 4])",
        )
    return dims


def _is_seq(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str)


class DeviceRef:
    """One logical device: positional coordinates (over the domain's dimensions, in
    order) or named ones (``DeviceRef(rows=1, cols=2)``, one sequence or int each)."""

    def __init__(self, *coordinates: int, **named_coordinates: Any):
        if coordinates and named_coordinates:
            raise TTLCompileError(
                "ttl.DeviceRef takes positional or named coordinates, not both",
                caller_loc(2),
                "write ttl.DeviceRef(1, 2) or ttl.DeviceRef(rows=1, cols=2)",
            )
        self.coordinates = tuple(coordinates)
        self.named = dict(named_coordinates)

    def __repr__(self) -> str:
        args = [str(c) for c in self.coordinates] + [f"{k}={v!r}" for k, v in self.named.items()]
        return f"ttl.DeviceRef({', '.join(args)})"


class DeviceRange:
    """The half-open rectangle of logical devices from ``lo`` up to ``hi`` (exclusive)."""

    def __init__(self, lo: DeviceRef, hi: DeviceRef):
        if not isinstance(lo, DeviceRef) or not isinstance(hi, DeviceRef):
            raise TTLCompileError(
                "ttl.DeviceRange takes two ttl.DeviceRef bounds",
                caller_loc(2),
                "write ttl.DeviceRange(ttl.DeviceRef(0), ttl.DeviceRef(2))",
            )
        self.lo, self.hi = lo, hi

    def __repr__(self) -> str:
        return f"ttl.DeviceRange({self.lo!r}, {self.hi!r})"


class DeviceDomain:
    """A rectangular logical device domain of named components (see the module)."""

    def __init__(self, extent: Sequence[int] | int, *, name: str = "device"):
        self.components: dict[str, tuple[int, ...]] = {name: _extent(extent, "the extent")}

    @classmethod
    def product(cls, **components: Any) -> DeviceDomain:
        """The product of named components: each a single-component domain or an extent."""
        if not components:
            raise TTLCompileError(
                "ttl.DeviceDomain.product() needs at least one named component",
                caller_loc(2),
                "write ttl.DeviceDomain.product(rows=2, cols=4)",
            )
        domain = cls.__new__(cls)
        domain.components = {}
        for name, value in components.items():
            if isinstance(value, DeviceDomain):
                if len(value.components) != 1:
                    raise TTLCompileError(
                        f"component '{name}' of ttl.DeviceDomain.product() is itself a product",
                        caller_loc(2),
                        "pass single-component domains or extents",
                    )
                (dims,) = value.components.values()
            else:
                dims = _extent(value, f"component '{name}'")
            domain.components[name] = dims
        return domain

    @property
    def dims(self) -> tuple[int, ...]:
        """Every component dimension, in order (the row-major order of the indices)."""
        return tuple(d for dims in self.components.values() for d in dims)

    @property
    def size(self) -> int:
        """The number of devices."""
        return math.prod(self.dims)

    def __repr__(self) -> str:
        parts = ", ".join(f"{n}={list(d)}" for n, d in self.components.items())
        return f"ttl.DeviceDomain({parts})"

    # ------------------------------------------------------------ references
    def coordinates(self, device: DeviceRef) -> tuple[int, ...]:
        """``device``'s coordinates over :attr:`dims`, checked against the domain."""
        if device.named:
            unknown = sorted(set(device.named) - set(self.components))
            if unknown or set(device.named) != set(self.components):
                raise TTLCompileError(
                    f"{device!r} does not name the components of {self!r}",
                    caller_loc(3),
                    "name every component once: " + ", ".join(f"{n}=..." for n in self.components),
                )
            coords: list[int] = []
            for name, dims in self.components.items():
                value = device.named[name]
                given = (value,) if isinstance(value, int) else tuple(value)
                if len(given) != len(dims):
                    raise TTLCompileError(
                        f"component '{name}' of {device!r} has {len(given)} coordinates but the "
                        f"domain's has {len(dims)}",
                        caller_loc(3),
                        f"give '{name}' {len(dims)} coordinates",
                    )
                coords += given
        else:
            coords = list(device.coordinates)
        if len(coords) != len(self.dims) or not all(
            isinstance(c, int) and 0 <= c < d for c, d in zip(coords, self.dims, strict=False)
        ):
            raise TTLCompileError(
                f"{device!r} is not a device of {self!r} (coordinates within {list(self.dims)})",
                caller_loc(3),
                "give one zero-based coordinate per domain dimension",
            )
        return tuple(coords)

    def index_order(self, device: DeviceRef) -> int:
        """``device``'s row-major index in the domain (at operation construction time)."""
        return self._flat(self.coordinates(device))

    def indices(self, devices: DeviceRef | DeviceRange) -> list[int]:
        """The row-major indices of a device or of the devices of a half-open range."""
        if isinstance(devices, DeviceRef):
            return [self.index_order(devices)]
        lo = self.coordinates(devices.lo)
        hi = _raw(devices.hi, self)
        if len(hi) != len(lo) or not all(
            isinstance(h, int) and a <= h <= d for a, h, d in zip(lo, hi, self.dims, strict=False)
        ):
            raise TTLCompileError(
                f"{devices!r} is not a range of {self!r}: its upper bound (exclusive) must be "
                f"at least its lower bound and at most {list(self.dims)}",
                caller_loc(3),
                "give the exclusive upper bound, e.g. ttl.DeviceRange(ttl.DeviceRef(0), "
                "ttl.DeviceRef(2))",
            )
        return [self._flat(point) for point in _box(lo, hi)]

    def _flat(self, coords: Sequence[int]) -> int:
        index = 0
        for c, d in zip(coords, self.dims, strict=True):
            index = index * d + c
        return index

    # ------------------------------------------------------------ in kernels
    @intrinsic("device.current_index")
    def current_index(self) -> int:
        """The running device's row-major index (kernel bodies only)."""
        raise AssertionError  # pragma: no cover (an intrinsic stub replaces it)

    @intrinsic("device.is_current")
    def is_current(self, device: DeviceRef | DeviceRange) -> bool:
        """Whether the kernel runs on ``device`` (or a device of a range; kernels only)."""
        raise AssertionError  # pragma: no cover


def _raw(device: DeviceRef, domain: DeviceDomain) -> list[int]:
    if not device.named:
        return list(device.coordinates)
    out: list[int] = []
    for name in domain.components:
        value = device.named.get(name, ())
        out += [value] if isinstance(value, int) else list(value)
    return out


def _box(lo: Sequence[int], hi: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """Every point of the half-open box [lo, hi), row-major."""
    if not lo:
        yield ()
        return
    for c in range(lo[0], hi[0]):
        for rest in _box(lo[1:], hi[1:]):
            yield (c, *rest)


def domain_of(value: Any, loc: SourceLoc) -> DeviceDomain | None:
    """``value`` as a device domain, None for None; an error at ``loc`` for anything else."""
    if value is None or isinstance(value, DeviceDomain):
        return value
    raise TTLCompileError(
        f"device_domain= takes a ttl.DeviceDomain, got {type(value).__name__}",
        loc,
        "write device_domain=ttl.DeviceDomain([4])",
    )


__all__ = ["DeviceDomain", "DeviceRange", "DeviceRef", "domain_of"]
