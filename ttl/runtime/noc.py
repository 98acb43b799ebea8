"""The NOC: reads, writes, multicast writes and semaphore increments.

Kernels queue requests in a hart-private page (memmap.NOC_QUEUE_OFFSET); the
emulator runs a queue, in order, at a barrier, when it is full, on
cb_push_back/cb_pop_front and whenever the hart stops, which is a legal
schedule of the asynchronous hardware NOC (a barrier is the only guarantee).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ttl.runtime import memmap
from ttl.runtime.dram import DRAM_FIRST_ADDRESS, STRIPE, STRIPE_SHIFT, Dram, DramAccessError
from ttl.runtime.errors import DeviceFault

_READ, _WRITE, _DRAM = memmap.NOC_READ, memmap.NOC_WRITE, memmap.NOC_DRAM_FLAG
_SHARD = memmap.NOC_SHARD_PAGE
_WORDS = memmap.NOC_CMD_WORDS
_STRIPE_MASK = STRIPE - 1


@dataclass
class NodeTraffic:
    """The NOC requests one node issued during a launch."""

    dram_bytes_read: int = 0  # bytes read from DRAM
    bytes_written: int = 0  # bytes delivered (a multicast counts once per destination)
    multicasts: int = 0  # multicast writes issued (data and semaphore sets)
    # Tensor copies by kind: interleaved pages in DRAM, and L1-sharded pages in the
    # issuing node's own L1 (local) or another node's (remote).
    dram_bytes_written: int = 0
    local_l1_bytes_read: int = 0
    local_l1_bytes_written: int = 0
    remote_l1_bytes_read: int = 0
    remote_l1_bytes_written: int = 0

    def add_shard_bytes(self, local: bool, reading: bool, size: int) -> None:
        """Counts an L1-sharded tensor page copied from (``reading``) or to the L1 of
        this node itself (``local``) or of another node."""
        name = f"{'local' if local else 'remote'}_l1_bytes_{'read' if reading else 'written'}"
        setattr(self, name, getattr(self, name) + size)


class Noc:
    """Moves bytes between nodes' L1 and DRAM banks, and counts traffic."""

    def __init__(self, nodes: dict, dram: Dram, grid: tuple[int, int]):
        self.nodes = nodes
        # NOC addresses name nodes by NOC coordinates, not logical ones.
        self.by_noc = {node.noc_coord: node for node in nodes.values()}
        self.dram = dram
        self.grid = grid
        self.bytes_read = 0
        self.bytes_written = 0
        self.per_node: dict[tuple[int, int], NodeTraffic] = {}  # reset per launch by Device
        # Nodes whose memory a slow-path request wrote (semaphores, DFB words may have
        # changed there); the issuing hart checks their waiting harts and clears it.
        self.signalled: set = set()
        # Tracing: a list to which drain() appends each request it runs, as
        # (command, source, destination, size, extra); None (the default) records nothing.
        self.log: list[tuple[int, int, int, int, int]] | None = None

    def drain(self, node, queue) -> None:
        """Runs and empties the request queue mapped at ``queue`` (uint32 words) for ``node``."""
        words = memmap.take_queue(
            queue, memmap.NOC_HEADER_BYTES, _WORDS, memmap.NOC_CAPACITY, "NOC"
        )
        if not words:  # the common case: drained on every hart stop
            return
        dram = self.dram
        host, dram_end, num_banks, l1 = dram.host_view, dram.end, dram.num_banks, node.l1_view
        l1_size = len(l1)
        read = written = 0
        fast_read = fast_written = 0  # flushed into `read`/`written` totals before slow paths
        log = self.log
        try:
            for i in range(0, len(words), _WORDS):
                cmd, src_lo, src_hi, dst_lo, dst_hi, size = words[i : i + 6]
                if log is not None:
                    log.append(
                        (cmd, src_lo | src_hi << 32, dst_lo | dst_hi << 32, size, words[i + 6])
                    )
                # Fast path for the DRAM <-> own-L1 tile traffic of every data-movement
                # kernel: one DRAM stripe (dram.py). `hi ^ DRAM flag` is the bank for a
                # DRAM address, huge otherwise.
                reading = cmd == _READ
                if reading or cmd == _WRITE:
                    dram_lo, bank, l1_lo = (
                        (src_lo, src_hi ^ _DRAM, dst_lo)
                        if reading
                        else (dst_lo, dst_hi ^ _DRAM, src_lo)
                    )
                    if (
                        bank < num_banks
                        and dram_lo >= DRAM_FIRST_ADDRESS
                        and dram_lo + size <= dram_end
                        and l1_lo + size <= l1_size
                        and (dram_lo & _STRIPE_MASK) + size <= STRIPE
                    ):
                        at = ((dram_lo >> STRIPE_SHIFT) * num_banks + bank) << STRIPE_SHIFT | (
                            dram_lo & _STRIPE_MASK
                        )
                        if reading:
                            l1[l1_lo : l1_lo + size] = host[at : at + size]
                            read += size
                        else:
                            host[at : at + size] = l1[l1_lo : l1_lo + size]
                            written += size
                        continue
                    if words[i + 6] == _SHARD and self._shard_page(node, reading, words[i : i + 6]):
                        continue
                self.bytes_read += read
                self.bytes_written += written
                fast_read, fast_written = fast_read + read, fast_written + written
                read = written = 0
                try:
                    self.execute(
                        node, cmd, src_lo | src_hi << 32, dst_lo | dst_hi << 32, size, words[i + 6]
                    )
                except DeviceFault as e:
                    raise DeviceFault(str(e), ra=words[i + 7]) from None
        finally:
            self.bytes_read += read
            self.bytes_written += written
            traffic = self.traffic(node)
            traffic.dram_bytes_read += fast_read + read
            traffic.bytes_written += fast_written + written
            traffic.dram_bytes_written += fast_written + written

    def _shard_page(self, node, reading: bool, request) -> bool:
        """Fast path for an L1-sharded tensor page between ``node``'s L1 and the L1 of the
        node owning it (one slice copy; only L1 data changes, so no wait can be satisfied
        and nobody is signalled). False: not a plain in-range copy, for :meth:`execute`."""
        _, src_lo, src_hi, dst_lo, dst_hi, size = request
        hi, far_lo, near_lo = (src_hi, src_lo, dst_lo) if reading else (dst_hi, dst_lo, src_lo)
        if hi >> 16 != hi & 0xFFFF:  # a multicast rectangle
            return False
        owner = self.by_noc.get((hi & 0xFF, hi >> 8 & 0xFF))
        if owner is None:
            return False
        near, far = node.l1_view, owner.l1_view
        if near_lo + size > len(near) or far_lo + size > len(far):
            return False
        traffic = self.traffic(node)
        if reading:
            near[near_lo : near_lo + size] = far[far_lo : far_lo + size]
            self.bytes_read += size
        else:
            far[far_lo : far_lo + size] = near[near_lo : near_lo + size]
            self.bytes_written += size
            traffic.bytes_written += size
        traffic.add_shard_bytes(owner is node, reading, size)
        return True

    def execute(self, node, cmd: int, src: int, dst: int, size: int, extra: int) -> None:
        """Runs one NOC request issued by ``node``."""
        traffic = self.traffic(node)
        if cmd == memmap.NOC_READ:
            node.resolve(dst & 0xFFFFFFFF, size)[:] = self._load(src, size, "read from")
            self.signalled.add(node)
            self.bytes_read += size
            if src >> 32 & memmap.NOC_DRAM_FLAG:
                traffic.dram_bytes_read += size
            elif extra & memmap.NOC_SHARD_PAGE:
                traffic.add_shard_bytes(self._is_local(node, src), True, size)
        elif cmd == memmap.NOC_WRITE:
            self._store(dst, node.resolve(src & 0xFFFFFFFF, size), "write to")
            self.bytes_written += size
            traffic.bytes_written += size
            if dst >> 32 & memmap.NOC_DRAM_FLAG:
                traffic.dram_bytes_written += size
            elif extra & memmap.NOC_SHARD_PAGE:
                traffic.add_shard_bytes(self._is_local(node, dst), False, size)
        elif cmd == memmap.NOC_WRITE_MCAST:
            loopback = bool(extra & memmap.NOC_MCAST_LOOPBACK)
            reached = self._multicast(
                node, src & 0xFFFFFFFF, dst, size, extra & ~memmap.NOC_MCAST_LOOPBACK, loopback
            )
            traffic.multicasts += 1
            traffic.bytes_written += size * reached
        elif cmd == memmap.NOC_SEM_INC:
            what = "semaphore increment at"
            value = int(self._load(dst, 4, what).view(np.uint32)[0])
            self._store(
                dst, np.array([(value + extra) & 0xFFFFFFFF], np.uint32).view(np.uint8), what
            )
        else:
            raise DeviceFault(f"unknown NOC command {cmd}")

    def traffic(self, node) -> NodeTraffic:
        """The traffic counters of ``node`` in this launch (created on first use)."""
        t = self.per_node.get(node.coord)
        if t is None:
            t = self.per_node[node.coord] = NodeTraffic()
        return t

    @staticmethod
    def _is_local(node, noc_addr: int) -> bool:
        """Whether a unicast node address names ``node`` itself."""
        hi = noc_addr >> 32
        return (hi & 0xFF, hi >> 8 & 0xFF) == node.noc_coord

    def _node(self, x: int, y: int, what: str):
        node = self.by_noc.get((x, y))
        if node is None:
            gx, gy = self.grid
            raise DeviceFault(
                f"NOC {what} NOC coordinates ({x},{y}), which are no node of the {gx}x{gy} grid "
                "(NOC coordinates come from the host: worker_core_from_logical_core)"
            )
        return node

    def _load(self, noc_addr: int, size: int, what: str) -> np.ndarray:
        """The bytes at a unicast NOC address (a node's memory or DRAM)."""
        hi, addr = noc_addr >> 32, noc_addr & 0xFFFFFFFF
        if hi & memmap.NOC_DRAM_FLAG:
            try:
                return self.dram.read(hi & 0xFFFF, addr, size)
            except DramAccessError as e:
                raise DeviceFault(f"NOC {what} DRAM: {e}") from None
        return self._unicast_node(hi, what).resolve(addr, size)

    def _store(self, noc_addr: int, data: np.ndarray, what: str) -> None:
        """Writes ``data`` (bytes) at a unicast NOC address."""
        hi, addr = noc_addr >> 32, noc_addr & 0xFFFFFFFF
        if hi & memmap.NOC_DRAM_FLAG:
            try:
                self.dram.write(hi & 0xFFFF, addr, data)
            except DramAccessError as e:
                raise DeviceFault(f"NOC {what} DRAM: {e}") from None
            return
        target = self._unicast_node(hi, what)
        target.resolve(addr, data.size)[:] = data
        self.signalled.add(target)

    def _unicast_node(self, hi: int, what: str):
        """The node a NOC address's high word names (no multicast rectangle)."""
        x0, y0, x1, y1 = hi & 0xFF, hi >> 8 & 0xFF, hi >> 16 & 0xFF, hi >> 24 & 0xFF
        if (x0, y0) != (x1, y1):
            raise DeviceFault(f"NOC {what} a multicast address (use noc_async_write_multicast)")
        return self._node(x0, y0, what)

    def _multicast(
        self, node, src: int, noc_addr: int, size: int, num_dests: int, loopback: bool
    ) -> int:
        """Writes to every node of the rectangle (the sender only with ``loopback``)."""
        hi, addr = noc_addr >> 32, noc_addr & 0xFFFFFFFF
        x0, y0, x1, y1 = hi & 0xFF, hi >> 8 & 0xFF, hi >> 16 & 0xFF, hi >> 24 & 0xFF
        if hi & memmap.NOC_DRAM_FLAG or x1 < x0 or y1 < y0:
            raise DeviceFault(
                f"bad multicast destination ({x0},{y0})-({x1},{y1}): build it with "
                "get_noc_multicast_addr(x_start, y_start, x_end, y_end, addr), start <= end"
            )
        data = node.resolve(src, size).copy()
        # The grid's nodes inside the rectangle (on Blackhole it spans columns that
        # hold no worker nodes; a rectangle past the grid shows in num_dests).
        dests = [
            (x, y)
            for y in range(y0, y1 + 1)
            for x in range(x0, x1 + 1)
            if (x, y) in self.by_noc and (loopback or (x, y) != node.noc_coord)
        ]
        if num_dests != len(dests):
            sender = "included (loopback)" if loopback else "excluded"
            raise DeviceFault(
                f"multicast to ({x0},{y0})-({x1},{y1}) reaches {len(dests)} nodes (the sender "
                f"is {sender}) but num_dests is {num_dests}"
            )
        for x, y in dests:
            target = self._node(x, y, "multicast to")
            target.resolve(addr, size)[:] = data
            self.signalled.add(target)
        self.bytes_written += size * len(dests)
        return len(dests)
