"""ttnn memory configs: interleaved DRAM/L1, and L1-sharded tensors (spec Appendix D).

The names and constructor forms are ttnn's (tt-metal's tensor sharding tech
report) and tt-lang-sim 1.1.6's: ``MemoryConfig(TensorMemoryLayout, BufferType,
ShardSpec)`` positionally or by keyword (``memory_layout=``, ``buffer_type=``,
``shard_spec=``; the simulator's ``strategy=`` and ``tensor_memory_layout=``),
``ShardSpec(CoreRangeSet, shard_shape, ShardOrientation)`` (or ``grid=``,
``shard_shape=``, ``shard_orientation=``/``orientation=``, or the simulator's
``shard_grid=``), ``CoreCoord``/``CoreRange``/``CoreRangeSet``/``CoreGrid``,
``create_sharded_memory_config`` and ``num_cores_to_corerangeset``.

A sharded tensor's shard shape is in elements; which node holds which shard
is :func:`shard_layout`'s job (TT-Metal's rules: height and width shards go to
the cores of the range set in order, row by row for ``ROW_MAJOR``, column by
column for ``COL_MAJOR``; block shard (i, j) goes to core (x0 + j, y0 + i), or
(x0 + i, y0 + j) for ``COL_MAJOR``). The runtime keeps each shard in its
node's L1 (``ttl.runtime.sharding``). ND sharding and DRAM sharding are not
provided: using them is a located error.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Sequence
from typing import Any

from ttl.host.ttnn.errors import ttnn_error
from ttl.host.ttnn.types import TILE, BufferType, Layout, TensorMemoryLayout
from ttl.runtime.sharding import ShardLayout
from ttl.targets import DEFAULT_TARGET, get_target

Coord = tuple[int, int]


class ShardOrientation(enum.Enum):
    """ttnn.ShardOrientation: the order shards are given to cores."""

    ROW_MAJOR = "ROW_MAJOR"
    COL_MAJOR = "COL_MAJOR"


class ShardStrategy(enum.Enum):
    """ttnn.ShardStrategy, for :func:`create_sharded_memory_config`."""

    HEIGHT = "HEIGHT"
    WIDTH = "WIDTH"
    BLOCK = "BLOCK"


class ShardingStrategy(enum.Enum):
    """tt-lang-sim's name for a memory layout (``MemoryConfig(strategy=...)``)."""

    INTERLEAVED = "INTERLEAVED"
    HEIGHT_SHARDED = "HEIGHT_SHARDED"
    WIDTH_SHARDED = "WIDTH_SHARDED"
    BLOCK_SHARDED = "BLOCK_SHARDED"
    ND_SHARDED = "ND_SHARDED"


ROW = ShardOrientation.ROW_MAJOR

_SHARDED = {
    TensorMemoryLayout.HEIGHT_SHARDED,
    TensorMemoryLayout.WIDTH_SHARDED,
    TensorMemoryLayout.BLOCK_SHARDED,
}


class CoreCoord:
    """ttnn.CoreCoord(x, y): a node, x the column and y the row."""

    __slots__ = ("x", "y")

    def __init__(self, x: int, y: int):
        if not all(isinstance(v, int) and v >= 0 for v in (x, y)):
            raise ttnn_error(
                f"ttnn.CoreCoord takes two non-negative integers (x, y), got ({x!r}, {y!r})",
                "write e.g. ttnn.CoreCoord(0, 0)",
            )
        self.x, self.y = x, y

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CoreCoord) and (self.x, self.y) == (other.x, other.y)

    def __hash__(self) -> int:
        return hash((self.x, self.y))

    def __repr__(self) -> str:
        return f"CoreCoord({self.x}, {self.y})"


class CoreRange:
    """ttnn.CoreRange(start, end): the rectangle of nodes between two corners, inclusive."""

    __slots__ = ("end", "start")

    def __init__(self, start: CoreCoord, end: CoreCoord):
        if not (isinstance(start, CoreCoord) and isinstance(end, CoreCoord)):
            raise ttnn_error(
                f"ttnn.CoreRange takes two ttnn.CoreCoord, got ({start!r}, {end!r})",
                "write e.g. ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(3, 0))",
            )
        if end.x < start.x or end.y < start.y:
            raise ttnn_error(
                f"ttnn.CoreRange({start!r}, {end!r}): the end is before the start",
                "give the top-left node first: end.x >= start.x and end.y >= start.y",
            )
        self.start, self.end = start, end

    def num_cores(self) -> int:
        return (self.end.x - self.start.x + 1) * (self.end.y - self.start.y + 1)

    def grid_size(self) -> CoreCoord:
        return CoreCoord(self.end.x - self.start.x + 1, self.end.y - self.start.y + 1)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CoreRange) and (self.start, self.end) == (other.start, other.end)

    def __hash__(self) -> int:
        return hash((self.start, self.end))

    def __repr__(self) -> str:
        return f"CoreRange({self.start!r}, {self.end!r})"


class CoreRangeSet:
    """ttnn.CoreRangeSet(ranges): a list or set of :class:`CoreRange` (a set is ordered by
    each range's start, row by row, so the order is deterministic)."""

    __slots__ = ("_ranges",)

    def __init__(self, ranges: Iterable[CoreRange] | CoreRange):
        if isinstance(ranges, CoreRange):
            ranges = [ranges]
        items = list(ranges) if isinstance(ranges, (list, tuple)) else None
        if items is None:
            items = sorted(ranges, key=lambda r: (r.start.y, r.start.x, r.end.y, r.end.x))
        if not items or not all(isinstance(r, CoreRange) for r in items):
            raise ttnn_error(
                "ttnn.CoreRangeSet takes a non-empty set or list of ttnn.CoreRange, got "
                f"{ranges!r}",
                "write e.g. ttnn.CoreRangeSet({ttnn.CoreRange(ttnn.CoreCoord(0, 0), "
                "ttnn.CoreCoord(3, 0))})",
            )
        cores = [c for r in items for c in _cores(r, ShardOrientation.ROW_MAJOR)]
        if len(set(cores)) != len(cores):
            raise ttnn_error(
                f"ttnn.CoreRangeSet: the ranges {items!r} overlap",
                "give ranges that share no node",
            )
        self._ranges = items

    def ranges(self) -> list[CoreRange]:
        return list(self._ranges)

    def num_cores(self) -> int:
        return sum(r.num_cores() for r in self._ranges)

    def bounding_box(self) -> CoreRange:
        return CoreRange(
            CoreCoord(min(r.start.x for r in self._ranges), min(r.start.y for r in self._ranges)),
            CoreCoord(max(r.end.x for r in self._ranges), max(r.end.y for r in self._ranges)),
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CoreRangeSet) and self._ranges == other._ranges

    def __hash__(self) -> int:
        return hash(tuple(self._ranges))

    def __repr__(self) -> str:
        return f"CoreRangeSet({self._ranges!r})"


class CoreGrid:
    """ttnn.CoreGrid(y=rows, x=columns): the nodes (0, 0)..(x - 1, y - 1)."""

    def __init__(self, y: int, x: int):
        if not all(isinstance(v, int) and v >= 1 for v in (x, y)):
            raise ttnn_error(
                f"ttnn.CoreGrid takes two positive integers, got y={y!r}, x={x!r}",
                "write e.g. ttnn.CoreGrid(y=2, x=4)",
            )
        self.y, self.x = y, x

    @property
    def num_cores(self) -> int:
        return self.x * self.y

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CoreGrid) and (self.x, self.y) == (other.x, other.y)

    def __hash__(self) -> int:
        return hash((self.x, self.y))

    def __repr__(self) -> str:
        return f"CoreGrid(y={self.y}, x={self.x})"


def _cores(r: CoreRange, orientation: ShardOrientation) -> list[Coord]:
    xs = range(r.start.x, r.end.x + 1)
    ys = range(r.start.y, r.end.y + 1)
    if orientation is ShardOrientation.ROW_MAJOR:
        return [(x, y) for y in ys for x in xs]
    return [(x, y) for x in xs for y in ys]


class ShardSpec:
    """ttnn.ShardSpec: the nodes a tensor is sharded over, its shard shape (elements), and
    the orientation.

    ``ShardSpec(grid, shard_shape, shard_orientation)``, by keyword too; tt-lang-sim's
    ``orientation=`` and ``shard_grid=`` (a shard count ``(n,)`` or a block grid
    ``(rows, cols)``: the nodes are the first ones of the device's grid, row by row)."""

    def __init__(
        self,
        grid: CoreRangeSet | None = None,
        shard_shape: Sequence[int] | None = None,
        shard_orientation: ShardOrientation | None = None,
        *,
        orientation: ShardOrientation | None = None,
        shard_grid: Sequence[int] | None = None,
        **options: Any,
    ):
        if options:
            raise ttnn_error(
                f"ttnn.ShardSpec has no option {', '.join(sorted(options))}",
                "write ttnn.ShardSpec(grid, shard_shape, shard_orientation)",
            )
        if grid is not None and not isinstance(grid, CoreRangeSet):
            raise ttnn_error(
                f"ttnn.ShardSpec: grid must be a ttnn.CoreRangeSet, got {grid!r}",
                "write e.g. ttnn.CoreRangeSet({ttnn.CoreRange(ttnn.CoreCoord(0, 0), "
                "ttnn.CoreCoord(3, 0))})",
            )
        if grid is None and shard_grid is None:
            raise ttnn_error(
                "ttnn.ShardSpec needs the nodes to shard over",
                "pass grid=ttnn.CoreRangeSet({...}) as the first argument",
            )
        self.grid = grid
        self.shard_grid = _positive_ints(shard_grid, "shard_grid", (1, 2))
        self.shard_shape = _positive_ints(shard_shape, "shard_shape", (2,))
        ori = shard_orientation if shard_orientation is not None else orientation
        ori = ori if ori is not None else ShardOrientation.ROW_MAJOR
        if not isinstance(ori, ShardOrientation):
            raise ttnn_error(
                f"ttnn.ShardSpec: orientation {ori!r} is not a ttnn.ShardOrientation",
                "use ttnn.ShardOrientation.ROW_MAJOR or ttnn.ShardOrientation.COL_MAJOR",
            )
        self.orientation = ori

    @property
    def shape(self) -> tuple[int, ...] | None:
        return self.shard_shape

    def num_cores(self) -> int:
        if self.grid is not None:
            return self.grid.num_cores()
        return math.prod(self.shard_grid or ())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ShardSpec) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple:
        return (self.grid, self.shard_grid, self.shard_shape, self.orientation)

    def __repr__(self) -> str:
        where = f"grid={self.grid!r}" if self.grid is not None else f"shard_grid={self.shard_grid}"
        return (
            f"ShardSpec({where}, shard_shape={list(self.shard_shape or ())}, "
            f"orientation={self.orientation.name})"
        )


def _positive_ints(
    value: Sequence[int] | None, name: str, lengths: tuple[int, ...]
) -> tuple[int, ...] | None:
    if value is None:
        if name == "shard_shape":
            raise ttnn_error(
                "ttnn.ShardSpec needs shard_shape (the shard's [height, width] in elements)",
                "write e.g. ttnn.ShardSpec(grid, [64, 128], ttnn.ShardOrientation.ROW_MAJOR)",
            )
        return None
    try:
        dims = tuple(value)
    except TypeError:
        dims = ()
    if len(dims) not in lengths or not all(isinstance(d, int) and d >= 1 for d in dims):
        sizes = " or ".join(str(n) for n in lengths)
        raise ttnn_error(
            f"ttnn.ShardSpec: {name} {value!r} is not {sizes} positive integers",
            f"write e.g. {name}=[64, 128]",
        )
    return dims


_BY_STRATEGY = {
    ShardingStrategy.INTERLEAVED: TensorMemoryLayout.INTERLEAVED,
    ShardingStrategy.HEIGHT_SHARDED: TensorMemoryLayout.HEIGHT_SHARDED,
    ShardingStrategy.WIDTH_SHARDED: TensorMemoryLayout.WIDTH_SHARDED,
    ShardingStrategy.BLOCK_SHARDED: TensorMemoryLayout.BLOCK_SHARDED,
    ShardingStrategy.ND_SHARDED: TensorMemoryLayout.ND_SHARDED,
}


class MemoryConfig:
    """ttnn.MemoryConfig: where a tensor lives (DRAM or L1) and how (interleaved or sharded).

    ``MemoryConfig(memory_layout, buffer_type, shard_spec)`` by position or keyword;
    tt-lang-sim's ``MemoryConfig(strategy=ShardingStrategy.X, shard_spec=...)`` and
    ``tensor_memory_layout=`` too. A sharded config lives in L1 (its default buffer
    type when none is given)."""

    def __init__(
        self,
        memory_layout: TensorMemoryLayout | ShardingStrategy | None = None,
        buffer_type: BufferType | None = None,
        shard_spec: ShardSpec | None = None,
        *,
        strategy: ShardingStrategy | None = None,
        tensor_memory_layout: TensorMemoryLayout | None = None,
        **options: Any,
    ):
        if "nd_shard_spec" in options:
            raise ttnn_error(
                "ttnn.MemoryConfig: ND sharding (nd_shard_spec) is not provided by the emulator",
                "use HEIGHT_, WIDTH_ or BLOCK_SHARDED with a ttnn.ShardSpec (docs/ttnn.md)",
            )
        if options:
            raise ttnn_error(
                f"ttnn.MemoryConfig has no option {', '.join(sorted(options))}",
                "write ttnn.MemoryConfig(memory_layout, buffer_type, shard_spec)",
            )
        layout = _memory_layout(memory_layout or tensor_memory_layout or strategy)
        sharded = layout in _SHARDED
        if buffer_type is None:
            buffer_type = BufferType.L1 if sharded else BufferType.DRAM
        if not isinstance(buffer_type, BufferType):
            raise ttnn_error(
                f"ttnn.MemoryConfig: buffer_type {buffer_type!r} is not a ttnn.BufferType",
                "use ttnn.BufferType.DRAM or ttnn.BufferType.L1",
            )
        if shard_spec is not None and not isinstance(shard_spec, ShardSpec):
            raise ttnn_error(
                f"ttnn.MemoryConfig: shard_spec must be a ttnn.ShardSpec, got "
                f"{type(shard_spec).__name__}",
                "ND sharding (ttnn.NdShardSpec) is not provided; use a ttnn.ShardSpec",
            )
        if sharded and shard_spec is None:
            raise ttnn_error(
                f"ttnn.MemoryConfig: a {layout.name} tensor needs a shard_spec",
                f"write ttnn.MemoryConfig(ttnn.TensorMemoryLayout.{layout.name}, "
                "ttnn.BufferType.L1, ttnn.ShardSpec(grid, shard_shape, orientation))",
            )
        if not sharded and shard_spec is not None:
            raise ttnn_error(
                "ttnn.MemoryConfig: an INTERLEAVED tensor takes no shard_spec",
                "use TensorMemoryLayout.HEIGHT_SHARDED, WIDTH_SHARDED or BLOCK_SHARDED with it",
            )
        if sharded and buffer_type is not BufferType.L1:
            raise ttnn_error(
                f"ttnn.MemoryConfig: a {layout.name} tensor in {buffer_type.name} is not "
                "provided (only L1 sharding is)",
                "use ttnn.BufferType.L1 for sharded tensors, or an interleaved DRAM tensor",
            )
        self.memory_layout = layout
        self.buffer_type = buffer_type
        self.shard_spec = shard_spec

    @property
    def tensor_memory_layout(self) -> TensorMemoryLayout:
        return self.memory_layout

    @property
    def strategy(self) -> ShardingStrategy:
        """tt-lang-sim's name of the layout."""
        return ShardingStrategy[self.memory_layout.name]

    def is_sharded(self) -> bool:
        return self.memory_layout in _SHARDED

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MemoryConfig) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def _key(self) -> tuple:
        return (self.memory_layout, self.buffer_type, self.shard_spec)

    def __repr__(self) -> str:
        spec = f", shard_spec={self.shard_spec!r}" if self.shard_spec is not None else ""
        return (
            f"MemoryConfig(memory_layout={self.memory_layout.name}, "
            f"buffer_type={self.buffer_type.name}{spec})"
        )


def _memory_layout(value: Any) -> TensorMemoryLayout:
    if value is None:
        return TensorMemoryLayout.INTERLEAVED
    if isinstance(value, ShardingStrategy):
        value = _BY_STRATEGY[value]
    if not isinstance(value, TensorMemoryLayout):
        raise ttnn_error(
            f"ttnn.MemoryConfig: memory layout {value!r} is not a ttnn.TensorMemoryLayout",
            "use ttnn.TensorMemoryLayout.INTERLEAVED, HEIGHT_SHARDED, WIDTH_SHARDED or "
            "BLOCK_SHARDED",
        )
    if value is TensorMemoryLayout.ND_SHARDED:
        raise ttnn_error(
            "ttnn.MemoryConfig: ND_SHARDED tensors are not provided by the emulator",
            "use HEIGHT_, WIDTH_ or BLOCK_SHARDED with a ttnn.ShardSpec (docs/ttnn.md)",
        )
    return value


DRAM_MEMORY_CONFIG = MemoryConfig(TensorMemoryLayout.INTERLEAVED, BufferType.DRAM)
L1_MEMORY_CONFIG = MemoryConfig(TensorMemoryLayout.INTERLEAVED, BufferType.L1)


def create_sharded_memory_config(
    shape: Sequence[int],
    core_grid: CoreGrid | CoreRangeSet,
    strategy: ShardStrategy,
    orientation: ShardOrientation | None = None,
    use_height_and_width_as_shard_shape: bool = False,
    **_options: Any,
) -> MemoryConfig:
    """ttnn.create_sharded_memory_config: an L1-sharded config of ``shape`` over
    ``core_grid`` (the nodes (0, 0)..(x - 1, y - 1) of a CoreGrid, or a CoreRangeSet).

    ``shape`` is the tensor's (outer dimensions fold into the height), or with
    ``use_height_and_width_as_shard_shape`` its last two are the shard's."""
    if not isinstance(strategy, ShardStrategy):
        raise ttnn_error(
            f"ttnn.create_sharded_memory_config: strategy {strategy!r} is not a ttnn.ShardStrategy",
            "use ttnn.ShardStrategy.HEIGHT, WIDTH or BLOCK",
        )
    if isinstance(core_grid, CoreGrid):
        grid = CoreRangeSet(
            {CoreRange(CoreCoord(0, 0), CoreCoord(core_grid.x - 1, core_grid.y - 1))}
        )
    elif isinstance(core_grid, CoreRangeSet):
        grid = core_grid
    else:
        raise ttnn_error(
            f"ttnn.create_sharded_memory_config: core_grid {core_grid!r} is not a "
            "ttnn.CoreGrid or ttnn.CoreRangeSet",
            "write e.g. ttnn.CoreGrid(y=2, x=4)",
        )
    dims = tuple(int(d) for d in shape)
    if len(dims) < 2:
        raise ttnn_error(
            f"ttnn.create_sharded_memory_config: shape {dims} needs at least 2 dimensions",
            "give the tensor's shape, e.g. (256, 512)",
        )
    ori = orientation or ShardOrientation.ROW_MAJOR
    if use_height_and_width_as_shard_shape:
        shard = dims[-2:]
    else:
        height, width = math.prod(dims[:-1]), dims[-1]
        box = grid.bounding_box().grid_size()
        rows, cols = (box.y, box.x) if ori is ShardOrientation.ROW_MAJOR else (box.x, box.y)
        split = {
            ShardStrategy.HEIGHT: (grid.num_cores(), 1),
            ShardStrategy.WIDTH: (1, grid.num_cores()),
            ShardStrategy.BLOCK: (rows, cols),
        }[strategy]
        if height % split[0] or width % split[1]:
            raise ttnn_error(
                f"ttnn.create_sharded_memory_config: a {height}x{width} tensor does not "
                f"divide into {split[0]}x{split[1]} {strategy.name.lower()} shards",
                "choose a core grid whose size divides the tensor, or give the shard shape "
                "(use_height_and_width_as_shard_shape=True)",
            )
        shard = (height // split[0], width // split[1])
    layout = TensorMemoryLayout[f"{strategy.name}_SHARDED"]
    return MemoryConfig(layout, BufferType.L1, ShardSpec(grid, list(shard), ori))


def num_cores_to_corerangeset(
    target_num_cores: int, grid_size: Any, row_wise: bool = False
) -> CoreRangeSet:
    """ttnn.num_cores_to_corerangeset: the first ``target_num_cores`` nodes of a grid
    (``grid_size``: a CoreCoord (x, y) or [x, y]), row by row (``row_wise``) or column by
    column, as whole rows (columns) plus the remainder."""
    if isinstance(grid_size, CoreCoord):
        gx, gy = grid_size.x, grid_size.y
    else:
        gx, gy = (int(v) for v in grid_size)
    if not isinstance(target_num_cores, int) or not 1 <= target_num_cores <= gx * gy:
        raise ttnn_error(
            f"ttnn.num_cores_to_corerangeset: {target_num_cores!r} cores do not fit a "
            f"{gx}x{gy} grid",
            f"ask for 1..{gx * gy} cores",
        )
    along = gx if row_wise else gy
    full, rest = divmod(target_num_cores, along)

    def rect(a0: int, a1: int, b0: int, b1: int) -> CoreRange:
        if row_wise:  # a is x, b is y
            return CoreRange(CoreCoord(a0, b0), CoreCoord(a1, b1))
        return CoreRange(CoreCoord(b0, a0), CoreCoord(b1, a1))

    ranges = [rect(0, along - 1, 0, full - 1)] if full else []
    if rest:
        ranges.append(rect(0, rest - 1, full, full))
    return CoreRangeSet(ranges)


def split_work_to_cores(
    grid: Any, units_to_divide: int, row_wise: bool = False
) -> tuple[int, CoreRangeSet, CoreRangeSet, CoreRangeSet, int, int]:
    """ttnn.split_work_to_cores: ``units_to_divide`` units of work over the nodes of
    ``grid`` (a CoreCoord or [x, y] grid size, or a CoreRangeSet), as TT-Metal splits it.

    Returns ``(num_cores, all_cores, core_group_1, core_group_2, units_per_core_group_1,
    units_per_core_group_2)``: one unit or more per node on at most every node, the
    first ``units % num_cores`` nodes (group 1) taking one unit more than the others
    (group 2, empty when the units divide evenly), nodes taken row by row
    (``row_wise``) or column by column.
    """
    if not isinstance(units_to_divide, int) or units_to_divide < 1:
        raise ttnn_error(
            f"ttnn.split_work_to_cores: {units_to_divide!r} units of work cannot be split",
            "give a positive number of units (tiles, rows, ...)",
        )
    order = ShardOrientation.ROW_MAJOR if row_wise else ShardOrientation.COL_MAJOR
    if isinstance(grid, CoreRangeSet):
        cores = [c for r in grid.ranges() for c in _cores(r, order)]
    else:
        gx, gy = (grid.x, grid.y) if isinstance(grid, CoreCoord) else (int(v) for v in grid)
        cores = _cores(CoreRange(CoreCoord(0, 0), CoreCoord(gx - 1, gy - 1)), order)
    num_cores = min(units_to_divide, len(cores))
    per, more = divmod(units_to_divide, num_cores)

    def nodes(first: int, last: int) -> CoreRangeSet:
        if not isinstance(grid, CoreRangeSet) and first == 0:
            return _first(grid, last, row_wise)  # whole rows or columns, as TT-Metal groups
        return CoreRangeSet([CoreRange(CoreCoord(*c), CoreCoord(*c)) for c in cores[first:last]])

    all_cores = nodes(0, num_cores)
    if not more:
        return num_cores, all_cores, all_cores, _no_cores(), per, 0
    return num_cores, all_cores, nodes(0, more), nodes(more, num_cores), per + 1, per


def _no_cores() -> CoreRangeSet:
    """The empty CoreRangeSet TT-Metal returns for a group with no node (a program may
    only build non-empty ones)."""
    empty = object.__new__(CoreRangeSet)
    empty._ranges = []
    return empty


def _first(grid: Any, count: int, row_wise: bool) -> CoreRangeSet:
    """The first ``count`` nodes of a grid size, as TT-Metal's num_cores_to_corerangeset."""
    size = [grid.x, grid.y] if isinstance(grid, CoreCoord) else list(grid)
    return num_cores_to_corerangeset(count, size, row_wise)


def _target_grid(device: Any) -> tuple[int, int]:
    if device is not None:
        return get_target(device.target).full_grid
    from ttl.host import jit

    return get_target(jit.SETTINGS.target or DEFAULT_TARGET).full_grid


def shard_layout(
    config: MemoryConfig, shape: Sequence[int], layout: Layout, device: Any
) -> ShardLayout | None:
    """Which node holds which page of a tensor of (stored) ``shape`` under ``config``
    (None: interleaved); a located error when the config cannot hold such a tensor."""
    if not isinstance(config, MemoryConfig):
        raise ttnn_error(
            f"memory_config {config!r} is not a ttnn.MemoryConfig",
            "use ttnn.DRAM_MEMORY_CONFIG, ttnn.L1_MEMORY_CONFIG or a sharded ttnn.MemoryConfig",
        )
    if not config.is_sharded():
        return None
    spec = config.shard_spec
    assert spec is not None and spec.shard_shape is not None  # MemoryConfig checks
    kind = config.memory_layout.name
    if layout is not Layout.TILE:
        raise ttnn_error(
            f"a {kind} tensor in ROW_MAJOR layout is not provided (only tiled tensors are sharded)",
            "create it with layout=ttnn.TILE_LAYOUT",
        )
    dims = tuple(shape)
    height, width = math.prod(dims[:-1]), dims[-1]
    sh, sw = spec.shard_shape
    if sh % TILE or sw % TILE:
        raise ttnn_error(
            f"shard shape [{sh}, {sw}] is not a whole number of {TILE}x{TILE} tiles",
            f"make both multiples of {TILE} for a TILE_LAYOUT tensor",
        )
    if height % sh or width % sw:
        raise ttnn_error(
            f"shard shape [{sh}, {sw}] does not divide the tensor's {height}x{width} "
            f"(shape {dims}, outer dimensions folded into the height)",
            "choose a shard shape that divides the height and width (uneven last shards "
            "are not provided)",
        )
    rows, cols = height // sh, width // sw
    if config.memory_layout is TensorMemoryLayout.HEIGHT_SHARDED and cols != 1:
        raise ttnn_error(
            f"a HEIGHT_SHARDED shard must be the tensor's full width {width}, not {sw}",
            f"write shard_shape=[{sh}, {width}], or use BLOCK_SHARDED",
        )
    if config.memory_layout is TensorMemoryLayout.WIDTH_SHARDED and rows != 1:
        raise ttnn_error(
            f"a WIDTH_SHARDED shard must be the tensor's full height {height}, not {sh}",
            f"write shard_shape=[{height}, {sw}], or use BLOCK_SHARDED",
        )
    cores = _shard_cores(config.memory_layout, spec, rows, cols, device)
    gx, gy = _target_grid(device)
    named = [c for r in spec.grid.ranges() for c in _cores(r, ROW)] if spec.grid else []
    for x, y in named + cores:
        if x >= gx or y >= gy:
            raise ttnn_error(
                f"{kind} shard grid has node ({x},{y}), outside the device's {gx}x{gy} grid",
                f"use nodes CoreCoord(0, 0)..CoreCoord({gx - 1}, {gy - 1})",
            )
    return ShardLayout((sh // TILE, sw // TILE), tuple(cores))


def _shard_cores(
    memory_layout: TensorMemoryLayout, spec: ShardSpec, rows: int, cols: int, device: Any
) -> list[Coord]:
    """The node of each shard, shards row-major over the (rows x cols) shard grid."""
    count = rows * cols
    kind = memory_layout.name
    if spec.grid is None:  # tt-lang-sim's shard_grid: the device's first nodes, row by row
        gx = _target_grid(device)[0]
        want = tuple(spec.shard_grid or ())
        if math.prod(want) != count:
            raise ttnn_error(
                f"shard_grid {want} holds {math.prod(want)} shards but the tensor has {count}",
                f"write shard_grid=({count},) or a shard shape giving {math.prod(want)} shards",
            )
        if memory_layout is TensorMemoryLayout.BLOCK_SHARDED and len(want) == 2:
            return [(j, i) for i in range(rows) for j in range(cols)]
        return [(k % gx, k // gx) for k in range(count)]
    if memory_layout is TensorMemoryLayout.BLOCK_SHARDED:
        box = spec.grid.bounding_box()
        if box.num_cores() != spec.grid.num_cores():
            raise ttnn_error(
                f"a BLOCK_SHARDED grid must be one rectangle of nodes, got {spec.grid!r}",
                "give one ttnn.CoreRange",
            )
        size = box.grid_size()
        row_major = spec.orientation is ShardOrientation.ROW_MAJOR
        have = (size.y, size.x) if row_major else (size.x, size.y)
        if rows > have[0] or cols > have[1]:
            raise ttnn_error(
                f"{rows}x{cols} BLOCK_SHARDED shards do not fit the {have[0]}x{have[1]} "
                f"nodes of {spec.grid!r} ({spec.orientation.name})",
                "use larger shards or more nodes",
            )
        x0, y0 = box.start.x, box.start.y
        if row_major:
            return [(x0 + j, y0 + i) for i in range(rows) for j in range(cols)]
        return [(x0 + i, y0 + j) for i in range(rows) for j in range(cols)]
    nodes = [c for r in spec.grid.ranges() for c in _cores(r, spec.orientation)]
    if count > len(nodes):
        raise ttnn_error(
            f"{count} {kind} shards need {count} nodes but the core range set has {len(nodes)}",
            f"use larger shards or a core range set of at least {count} nodes",
        )
    return nodes[:count]
