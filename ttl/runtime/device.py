"""The emulated Tensix device: a grid of nodes, DRAM, the NOC and launches."""

from __future__ import annotations

import time
from typing import cast

import numpy as np

from ttl import targets as _targets
from ttl.runtime import memmap
from ttl.runtime.debug_print import PrintSink
from ttl.runtime.dfb import DFBConfig
from ttl.runtime.dram import DRAM_BANK_BYTES, DRAM_BANKS, Dram
from ttl.runtime.elfinfo import ElfImage
from ttl.runtime.engine import Engine
from ttl.runtime.errors import DeviceError, LaunchError
from ttl.runtime.hart import Hart, HartState
from ttl.runtime.noc import Noc
from ttl.runtime.node import Node
from ttl.runtime.program import Coord, Program
from ttl.runtime.scheduler import KernelStats, RunReport, run_harts
from ttl.runtime.sharding import ShardedTensor, ShardLayout, check_cores, place_in_l1
from ttl.runtime.tensors import DramTensor, like_input, tensor_format, to_numpy
from ttl.runtime.tiles import DataFormat, decode, encode, num_tiles, tilize, untilize
from ttl.runtime.waits import Wait
from ttl.specs import ROW_MAJOR

DFB_ALIGNMENT = 32


class Device:
    """An emulated device of ``target`` with a ``grid`` of (x, y) nodes.

    ``instruction_budget`` bounds each kernel's instructions (RunawayKernelError
    past it). ``livelock_budget`` bounds the instructions all kernels together may
    execute without progress (LivelockError past it; None: no bound), so kernels
    spinning on a condition nothing will change are reported in a few seconds.
    By default a hart runs until it blocks or finishes, and only a
    hart that runs for long without blocking is switched to counted quanta;
    ``quantum`` forces counted quanta of that many instructions on every run
    (deterministic preemption points, slower). A blocking stop is charged
    ``yield_charge`` instructions (docs/runtime.md explains the accounting).

    ``profile`` (settable between launches) measures every kernel's executed
    instructions exactly and, per wait, the cycles it waited under the
    profile's timing model (``KernelStats.instructions``/``waited``; see
    ``Hart.clock``); it costs emulation speed (a Python call per executed
    block), so it is off by default.

    ``prints`` is where kernel ``print`` lines go: None (standard output), a
    file path or a text stream (settable between launches). ``trace`` (settable;
    implies ``profile``) records every signpost zone and blocking wait with its
    cycles in the report, for :mod:`ttl.runtime.trace`.
    """

    def __init__(
        self,
        target: str = _targets.DEFAULT_TARGET,
        grid=(1, 1),
        *,
        instruction_budget: int = 500_000_000,
        livelock_budget: int | None = 200_000_000,
        quantum: int | None = None,
        yield_charge: int = 100,
        profile: bool = False,
        prints=None,
        trace: bool = False,
    ):
        if target not in _targets.TARGETS:
            raise LaunchError(f"unknown target {target!r}: use one of {sorted(_targets.TARGETS)}")
        self.target = _targets.TARGETS[target]
        full = self.target.full_grid
        grid = full if grid == "full" else tuple(int(g) for g in grid)
        if len(grid) != 2 or not (1 <= grid[0] <= full[0] and 1 <= grid[1] <= full[1]):
            raise LaunchError(f"grid {grid} does not fit {target}'s {full[0]}x{full[1]} nodes")
        self.grid = grid
        for name, value, optional in (
            ("quantum", quantum, True),
            ("instruction_budget", instruction_budget, False),
            ("livelock_budget", livelock_budget, True),
        ):
            if value is None and optional:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise LaunchError(
                    f"{name} must be a positive integer{' or None' if optional else ''}, got "
                    f"{value!r}"
                )
        self.instruction_budget = instruction_budget
        self.livelock_budget = livelock_budget
        self.quantum = quantum
        self._running: list[Hart] = []  # the harts of the launch that runs (progress)
        self.yield_charge = yield_charge
        self.profile = profile
        self.trace = trace
        self.prints = prints
        self.dram = Dram(DRAM_BANKS[target], DRAM_BANK_BYTES[target])
        self.slots = sorted({s for slots in self.target.slots.values() for s in slots})
        self.memory = memmap.DeviceMemory(grid[0] * grid[1], len(self.slots), self.target.l1_bytes)
        self.nodes = {
            (x, y): Node(
                (x, y),
                grid,
                self.target.l1_bytes,
                self.target.dfb_count,
                self.dram.num_banks,
                self.memory,
                self.target.noc_coord((x, y)),
            )
            for y in range(grid[1])
            for x in range(grid[0])
        }
        self.noc = Noc(self.nodes, self.dram, grid)
        self.dst_tiles = self.target.max_dst_tiles
        self._images: dict[str, ElfImage] = {}
        self._machines: dict[tuple[tuple[int, int], str], Hart] = {}  # reused across launches
        self._engines: dict[str, Engine] = {}  # image sha256 -> its CPU
        self._staging_buffer = np.empty(0, dtype=np.uint8)
        self.last_report: RunReport | None = None

    @property
    def prints(self) -> PrintSink:
        """The sink of kernel print lines."""
        return self._prints

    @prints.setter
    def prints(self, target) -> None:
        old = getattr(self, "_prints", None)
        if old is not None and old is not target:
            old.close()  # a file sink this device opened
        self._prints = target if isinstance(target, PrintSink) else PrintSink(target)

    # -------------------------------------------------------------- tensors
    def allocate_tensor(self, shape, dtype="bf16", layout="tile") -> DramTensor:
        """Reserves an interleaved DRAM tensor of ``shape`` and ``dtype``: tile-aligned with
        one page per tile, or (``layout="row_major"``) one page per innermost row."""
        fmt = tensor_format(np.empty(0), dtype)
        shape = tuple(int(s) for s in shape)
        if layout == ROW_MAJOR:
            if not shape or min(shape) <= 0:
                raise LaunchError(f"a row-major tensor needs positive dimensions, got {shape}")
            if fmt.packed:
                raise LaunchError(f"{fmt.name} tensors are tiled; a row-major one is bf16 or f32")
            t = DramTensor(0, shape, fmt, layout)
            return DramTensor(self.dram.allocate(t.num_pages, t.page_size), shape, fmt, layout)
        try:
            pages = num_tiles(shape)
        except ValueError as e:
            raise LaunchError(str(e)) from None
        return DramTensor(self.dram.allocate(pages, fmt.tile_bytes), shape, fmt)

    def write_tensor(
        self, array, dtype=None, into: DramTensor | None = None, layout="tile"
    ) -> DramTensor:
        """Tilizes ``array`` (NumPy or torch) into DRAM, or stores it row by row for
        ``layout="row_major"`` (or a row-major ``into``); returns its handle."""
        arr = to_numpy(array)
        fmt = into.format if into is not None else tensor_format(array, dtype)
        if into is not None and tuple(arr.shape) != into.shape:
            raise LaunchError(f"tensor shape {tuple(arr.shape)} does not match {into.shape}")
        t = into or self.allocate_tensor(arr.shape, fmt, layout)
        if t.is_row_major:
            arr = arr.astype(fmt.dtype, copy=False)
            self.dram.write_pages(t.address, t.page_size, self._row_pages(arr, t))
            return t
        pages = self.dram.pages_view(t.address, t.page_size, t.num_pages)
        if pages is not None:  # contiguous in DRAM's host memory: tilize straight into it
            _encode_tiles(arr, fmt, pages)
            return t
        staging = self._staging(t.num_pages * t.page_size).reshape(t.num_pages, t.page_size)
        _encode_tiles(arr, fmt, staging)
        self.dram.write_pages(t.address, t.page_size, staging)
        return t

    def write_sharded(
        self, array, dtype, layout: ShardLayout, descriptor: int, what: str = "tensor"
    ) -> ShardedTensor:
        """Tilizes ``array`` for an L1-sharded tensor (placed into L1 by the launch that
        gets it in ``Program.sharded``); ``descriptor`` is its descriptor's address."""
        arr = to_numpy(array)
        fmt = tensor_format(arr, dtype)
        try:
            pages = num_tiles(arr.shape)
        except ValueError as e:
            raise LaunchError(str(e)) from None
        shape = tuple(int(s) for s in arr.shape)
        layout.shard_grid(shape)  # the shards tile the tensor
        check_cores(layout, self.grid, what)
        tiles = np.empty((pages, fmt.tile_bytes), np.uint8)
        _encode_tiles(arr, fmt, tiles)
        return ShardedTensor(shape, fmt, layout, descriptor, tiles)

    def read_tensor(
        self, tensor: DramTensor | ShardedTensor, like=None, out: np.ndarray | None = None
    ):
        """Reads ``tensor`` back row-major (torch if ``like`` is a torch tensor).

        ``out``: a C-contiguous NumPy array of the tensor's shape and dtype to read
        into (and return), such as a view of the caller's own output tensor.
        """
        raw: np.ndarray | None
        if isinstance(tensor, ShardedTensor):  # gathered from L1 by its launch
            raw = tensor.pages
        else:
            raw = self.dram.pages_view(tensor.address, tensor.page_size, tensor.num_pages)
            if raw is None:
                staging = self._staging(tensor.num_pages * tensor.page_size)
                raw = self.dram.read_pages(
                    tensor.address, tensor.page_size, tensor.num_pages, staging
                )
            if tensor.is_row_major:
                rows = raw[:, : tensor.row_bytes].view(tensor.format.dtype).reshape(tensor.shape)
                if out is not None:
                    out[...] = rows
                    return out
                return like_input(rows.copy(), like)
        arr = untilize(decode(raw, tensor.format), tensor.shape, out=out)
        return arr if out is not None else like_input(arr, like)

    def _row_pages(self, arr: np.ndarray, t: DramTensor) -> np.ndarray:
        """``arr``'s rows as (pages, page size) bytes, each row padded to its page."""
        rows = np.ascontiguousarray(arr).reshape(t.num_pages, -1).view(np.uint8)
        if t.page_size == t.row_bytes:
            return rows
        pages = self._staging(t.num_pages * t.page_size).reshape(t.num_pages, t.page_size)
        pages[:, : t.row_bytes] = rows
        pages[:, t.row_bytes :] = 0
        return pages

    def _staging(self, nbytes: int) -> np.ndarray:
        """A reused host buffer for tilizing (fresh memory costs a page fault per 4 KiB)."""
        if self._staging_buffer.size < nbytes:
            self._staging_buffer = np.empty(nbytes, dtype=np.uint8)
        return self._staging_buffer[:nbytes]

    # --------------------------------------------------------------- launch
    def launch(self, program: Program) -> RunReport:
        """Runs ``program`` on every node to completion; returns the run's statistics."""
        bases, l1_end = self._place_dfbs(program.dfbs, set(program.backed))
        sharded = list(program.sharded)
        place_in_l1(sharded, l1_end, self.target.l1_bytes, self.target.name)
        bases.update(_backed_bases(program))
        sems = list(program.semaphores)
        if len(sems) > memmap.SEM_MAX:
            raise LaunchError(f"{len(sems)} semaphores requested; a node has {memmap.SEM_MAX}")
        for node in self.nodes.values():
            node.reset(program.dfbs, bases, sems)
            node.semaphore_names = program.semaphore_names
            if self.trace:
                node.start_counting()
        for t in sharded:
            t.place(self.nodes)
        start = time.perf_counter()
        read0, written0 = self.noc.bytes_read, self.noc.bytes_written
        self.noc.per_node = {}
        harts = self._make_harts(program)
        for engine in {h.engine for h in harts}:
            engine.begin_launch(self.profile or self.trace)
        self._running = harts
        try:
            with np.errstate(all="ignore"):  # inf/nan tile results are data, as on hardware
                rounds = run_harts(harts, self.quantum, self.livelock_budget)
        except DeviceError as error:  # the kernels' state so far: the failed call's profile
            error.report = self._report(program, harts, start, read0, written0, rounds=0)
            raise
        finally:
            self._running = []
        for t in sharded:
            t.gather(self.nodes)
        self.last_report = self._report(program, harts, start, read0, written0, rounds)
        return self.last_report

    def progress(self) -> str | None:
        """How far the running launch is, for a progress line read from another thread:
        tile operations issued and nodes finished; None when no launch runs."""
        harts = self._running
        if not harts:
            return None
        tiles = sum({id(h.cop): h.cop.commands for h in harts}.values())
        unfinished = {h.node.coord for h in harts if h.state is not HartState.DONE}
        nodes = {h.node.coord for h in harts}
        return (
            f"{tiles:,} tile operations, {len(nodes) - len(unfinished)} of {len(nodes)} "
            "nodes finished"
        )

    def _report(
        self,
        program: Program,
        harts: list[Hart],
        start: float,
        read0: int,
        written0: int,
        rounds: int,
    ) -> RunReport:
        """The launch's report from its harts' state and the NOC counters since it began."""
        pages = {cfg.page_size for cfg in program.dfbs}
        profiled = self.profile or self.trace
        return RunReport(
            kernels=[
                KernelStats(
                    h.kernel,
                    h.node.coord,
                    h.slot,
                    h.turns,
                    h.budget_used,
                    h.cop.commands,
                    h.stall_counts(),
                    h.instructions if profiled else None,
                    h.waited_cycles() if profiled else {},
                    h.zones.summary(),
                    h.clock if profiled else None,
                    list(h.zones.zones) if self.trace else [],
                    [(a, b, Wait(*key, 0).describe()) for a, b, key in h.wait_spans],
                    list(h.transfers),
                )
                for h in harts
            ],
            noc_bytes_read=self.noc.bytes_read - read0,
            noc_bytes_written=self.noc.bytes_written - written0,
            rounds=rounds,
            seconds=time.perf_counter() - start,
            page_size=pages.pop() if len(pages) == 1 else None,
            profiled=profiled,
            dfb_counts=[c for n in self.nodes.values() for c in n.dfb_counts or ()],
            noc_traffic=dict(sorted(self.noc.per_node.items())),
        )

    def _place_dfbs(self, dfbs: list[DFBConfig], backed: set[int]) -> tuple[dict[int, int], int]:
        """Checks the DFB table and assigns each DFB but the ``backed`` ones (their pages
        are a sharded tensor's) an L1 address; returns them and the end of the DFBs
        (where L1-sharded tensors go)."""
        bases, addr = {}, memmap.L1_BASE
        for cfg in dfbs:
            if not 0 <= cfg.index < self.target.dfb_count:
                raise LaunchError(
                    f"DFB index {cfg.index} is outside 0..{self.target.dfb_count - 1}"
                )
            if cfg.index in bases:
                raise LaunchError(f"DFB index {cfg.index} is configured twice")
            if min(cfg.page_size, cfg.pages_per_block, cfg.block_count) <= 0:
                raise LaunchError(
                    f"DFB {cfg.index}: page size, pages per block and block count "
                    f"must be positive ({cfg})"
                )
            try:
                _ = cfg.format
            except ValueError as e:
                raise LaunchError(f"DFB {cfg.index}: {e}") from None
            if cfg.index in backed:
                bases[cfg.index] = -1  # placed with its tensor (_backed_bases)
                continue
            bases[cfg.index] = addr
            addr = -(-(addr + cfg.size) // DFB_ALIGNMENT) * DFB_ALIGNMENT
        if addr > self.target.l1_bytes:
            raise LaunchError(
                f"the DFBs need {addr} bytes of L1 but a {self.target.name} node "
                f"has {self.target.l1_bytes}: use fewer or smaller blocks"
            )
        return bases, addr

    def _image(self, elf) -> ElfImage:
        if isinstance(elf, ElfImage):
            return elf
        key = str(elf)
        image = ElfImage.load(key)
        cached = self._images.get(key)
        if cached is not None and cached.sha256 == image.sha256:
            return cached  # keeps the parsed line table
        self._images[key] = image
        return image

    def _make_harts(self, program: Program) -> list[Hart]:
        harts: list[Hart] = []
        taken: dict[tuple[Coord, str], str] = {}  # (node, slot) -> kernel
        for spec in program.kernels:
            if spec.slot not in self.slots:
                raise LaunchError(
                    f"kernel '{spec.name}': unknown processor slot {spec.slot!r}; "
                    f"{self.target.name} has {self.slots}"
                )
            image = self._image(spec.elf)
            engine = self._engines.get(image.sha256)
            if engine is None:
                engine = self._engines[image.sha256] = Engine(image, self.memory)
            coords = list(spec.nodes) if spec.nodes is not None else sorted(self.nodes)
            common = [int(v) for v in spec.common_args]
            for coord in coords:
                # Callers may give lists; a coord of any other length is not in self.nodes.
                coord = cast(Coord, tuple(coord))
                if coord not in self.nodes:
                    raise LaunchError(
                        f"kernel '{spec.name}': node {coord} is outside the "
                        f"{self.grid[0]}x{self.grid[1]} grid"
                    )
                if (coord, spec.slot) in taken:
                    raise LaunchError(
                        f"kernels '{taken[coord, spec.slot]}' and '{spec.name}' "
                        f"both use slot {spec.slot} on node {coord}"
                    )
                taken[coord, spec.slot] = spec.name
                args = spec.args_for(coord)
                for what, values in (("runtime", args), ("common", common)):
                    if len(values) > memmap.ARGS_MAX:
                        raise LaunchError(
                            f"kernel '{spec.name}': {len(values)} {what} args "
                            f"(at most {memmap.ARGS_MAX})"
                        )
                    bad = [v for v in values if not -(2**31) <= v < 2**32]
                    if bad:
                        raise LaunchError(
                            f"kernel '{spec.name}': {what} arg {bad[0]} does not fit in 32 bits"
                        )
                node = self.nodes[coord]
                hart = self._machines.get((coord, spec.slot))
                if hart is None:
                    index = node.index * len(self.slots) + self.slots.index(spec.slot)
                    hart = Hart(node, spec.slot, index, self.memory, self.noc, self.dst_tiles)
                    self._machines[coord, spec.slot] = hart
                hart.load(
                    spec.name,
                    image,
                    engine,
                    args,
                    common,
                    self.instruction_budget,
                    self.yield_charge,
                    self.profile or self.trace,
                    spec.dst,
                    self._prints,
                    self.trace,
                )
                node.harts[spec.slot] = hart
                harts.append(hart)
        return harts

    # -------------------------------------------------------------- display
    def describe(self) -> str:
        head = f"Device({self.target.name}, grid {self.grid[0]}x{self.grid[1]}, {self.dram!r})"
        return "\n".join([head] + [n.describe() for _, n in sorted(self.nodes.items())])

    __str__ = describe


def _encode_tiles(arr: np.ndarray, fmt: DataFormat, out: np.ndarray) -> None:
    """``arr`` tilized as ``fmt``'s tile bytes into ``out`` (pages x tile bytes, uint8):
    bf16/f32 tilized in place, a block-float format quantized from float32."""
    if fmt.packed:
        out[...] = encode(tilize(arr.astype(np.float32, copy=False)), fmt)
    else:
        tilize(arr.astype(fmt.dtype, copy=False), out=out.reshape(-1).view(fmt.dtype))


def _backed_bases(program: Program) -> dict[int, int]:
    """The L1 address of each tensor-backed DFB: its tensor's shard base plus its offset,
    once the launch placed the shards; a LaunchError if it overruns the shard."""
    configs = {cfg.index: cfg for cfg in program.dfbs}
    out = {}
    for index, tensor in program.backed.items():
        cfg = configs[index]
        shard = tensor.layout.shard_bytes(tensor.page_size)
        if cfg.byte_offset + cfg.size > shard:
            raise LaunchError(
                f"tensor-backed DFB '{cfg.name or index}' needs bytes {cfg.byte_offset}.."
                f"{cfg.byte_offset + cfg.size} of the shard of tensor '{cfg.backing}', which "
                f"has {shard} bytes per node: use a smaller block_count or shape, a smaller "
                "byte_offset, or larger shards"
            )
        out[index] = tensor.l1_base + cfg.byte_offset
    return out
