"""Kernel prints: the device's print buffer turned into prefixed text lines.

A kernel that prints (``DPRINT << ... << ENDL();``, from TT-Lang ``print``)
appends typed items to its hart's print buffer (``memmap.PRINT_*``) and rings
the print doorbell at the end of each print call; :class:`HartPrinter` then
formats the items with the device state of that moment (a DFB's counters, a
block's tiles in L1, tensor pages in DRAM) and writes every completed line,
prefixed ``[(x,y) kernel] ``, to the device's :class:`PrintSink`. Lines of one
hart keep their program order; harts interleave as the scheduler runs them.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

import numpy as np

from ttl.runtime import memmap
from ttl.runtime.errors import DeviceFault
from ttl.runtime.sharding import read_pages
from ttl.runtime.tiles import TILE, decode, format_from_code, untilize

if TYPE_CHECKING:
    from ttl.runtime.dram import Dram
    from ttl.runtime.node import Node

LAST_LINES = 5  # kept per hart for deadlock and fault reports
_MAX_STRING = 4096


class PrintSink:
    """Where kernel print lines go: standard output (looked up at each write, so
    pytest's capture and redirections work), an open text stream, or a file path
    (created, truncated, and flushed after each line)."""

    def __init__(self, target: str | IO[str] | None = None):
        self.target = target
        self._file: IO[str] | None = None
        if isinstance(target, str):
            try:
                self._file = open(target, "w", encoding="utf-8")  # noqa: SIM115 (kept open)
            except OSError as e:
                raise OSError(f"cannot write kernel prints to {target}: {e.strerror}") from None

    def write(self, line: str) -> None:
        out = self._file or (self.target if self.target is not None else sys.stdout)
        assert not isinstance(out, str)
        out.write(line + "\n")
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class HartPrinter:
    """One hart's print state: the partial line and the last lines printed."""

    def __init__(
        self,
        node: Node,
        dram: Dram,
        read_local: Callable[[int, int], bytes],
        print_area: np.ndarray,
        nodes: dict | None = None,
    ):
        self.node, self.dram, self.read_local = node, dram, read_local
        # NOC coordinates -> node: where L1-sharded tensor pages live.
        self.nodes = nodes or {node.noc_coord: node}
        # The hart's print buffer (uint32); NumPy arrays are buffers, typeshed disagrees.
        self.words = memoryview(print_area)  # type: ignore[arg-type]
        self.sink = PrintSink()
        self.prefix = ""
        self.partial = ""
        self.last_lines: deque[str] = deque(maxlen=LAST_LINES)
        self._strings: dict[int, str] = {}

    def reset(self, prefix: str, sink: PrintSink) -> None:
        """A new launch: the line prefix (node and kernel) and the sink."""
        self.prefix, self.sink = prefix, sink
        self.partial = ""
        self.last_lines.clear()
        self._strings.clear()  # a new kernel image: string addresses mean other strings

    def drain(self) -> None:
        """Formats the buffered items now and writes every completed line."""
        words = self.words
        count = words[0]
        if count > memmap.PRINT_CAPACITY:
            raise DeviceFault(f"print buffer count {count} is corrupt")
        start = memmap.PRINT_HEADER_BYTES // 4
        flat = words[start : start + count * memmap.PRINT_ITEM_WORDS].tolist()
        words[0] = 0
        text = [self.partial]
        for i in range(0, len(flat), memmap.PRINT_ITEM_WORDS):
            text.append(self._item(*flat[i : i + memmap.PRINT_ITEM_WORDS]))
        *lines, self.partial = "".join(text).split("\n")
        for line in lines:
            self.last_lines.append(line)
            self.sink.write(self.prefix + line)

    def flush_partial(self) -> None:
        """The kernel ended with an unterminated line (print(..., end="")): write it."""
        if self.partial:
            self.last_lines.append(self.partial)
            self.sink.write(self.prefix + self.partial)
            self.partial = ""

    # ------------------------------------------------------------ items
    def _item(self, tag: int, a: int, b: int, c: int) -> str:
        if tag == memmap.PRINT_STR:
            return self.string(a)
        if tag == memmap.PRINT_INT:
            return str(a - (1 << 32) if a & 0x80000000 else a)
        if tag == memmap.PRINT_UINT:
            return str(a)
        if tag == memmap.PRINT_INT64:
            v = a | b << 32
            return str(v - (1 << 64) if v & (1 << 63) else v)
        if tag == memmap.PRINT_DFB:
            return _lines(dfb_state(self.node, a))
        if tag == memmap.PRINT_BLOCK:
            return _lines(block_tiles(self.node, a, b, c & 0x7FFFFFFF, bool(c >> 31)))
        if tag == memmap.PRINT_TENSOR:
            return _lines(self.tensor_pages(a, b, c & 0xFF, c >> 8))
        raise DeviceFault(f"unknown print item tag {tag}")

    def tensor_pages(self, base: int, pages: int, fmt_code: int, cols: int) -> list[str]:
        """The first pages of the tensor whose runtime arg is ``base``: an interleaved DRAM
        base, or an L1-sharded tensor's descriptor address (its pages in nodes' L1)."""
        if base >= memmap.NODE_REGS_BASE:
            return _format_pages(
                lambda size: read_pages(self.node.regs32, base, size, pages, self.nodes),
                pages,
                fmt_code,
                cols,
            )
        return _format_pages(
            lambda size: self.dram.read_pages(base, size, pages), pages, fmt_code, cols
        )

    def string(self, addr: int) -> str:
        """The NUL-terminated string at ``addr`` in the kernel's LOCAL memory (cached)."""
        text = self._strings.get(addr)
        if text is None:
            if not 0 <= addr - memmap.LOCAL_BASE < memmap.LOCAL_SIZE:
                raise DeviceFault(f"print of a string at {addr:#x}, outside kernel memory")
            raw = self.read_local(addr, _MAX_STRING)
            text = self._strings[addr] = raw.split(b"\0", 1)[0].decode("utf-8", "replace")
        return text


def _lines(lines: list[str]) -> str:
    """An object's contents: each line on a line of its own, indented two spaces."""
    return "".join("\n  " + line for line in lines)


def dfb_state(node: Node, cb: int) -> list[str]:
    """The spec's DFB state: size, page size, pointers (and the counters behind them)."""
    if not 0 <= cb < node.dfb_count or not node.dfbs[cb].configured:
        raise DeviceFault(f"print of DFB {cb}, which is not configured for this launch")
    s = node.dfbs[cb]
    w = s.words
    base, page = int(w[memmap.DFB_BASE]), int(w[memmap.DFB_PAGE_SIZE])
    rd, wr = int(w[memmap.DFB_RD_PTR]), int(w[memmap.DFB_WR_PTR])
    return [
        f"size: {int(w[memmap.DFB_SIZE])} bytes ({s.capacity} pages), page_size: {page} bytes",
        f"rd_ptr: {rd:#x} (page {(rd - base) // page}), wr_ptr: {wr:#x}, "
        f"wr_tile_ptr: {(wr - base) // page}",
        f"pages received: {s.received}, popped: {s.acked}, filled: {s.used}, "
        f"free: {s.capacity - s.used}",
    ]


def block_tiles(node: Node, cb: int, tiles: int, cols: int, reserved: bool) -> list[str]:
    """The block at the front of DFB ``cb`` (the back if ``reserved``), tile by tile."""
    if not 0 <= cb < node.dfb_count or not node.dfbs[cb].configured:
        raise DeviceFault(f"print of a block of DFB {cb}, which is not configured")
    w = node.dfbs[cb].words
    fmt = format_from_code(int(w[memmap.DFB_FORMAT]))
    assert fmt is not None  # configure() wrote a known format
    base, size, page = (int(w[i]) for i in (memmap.DFB_BASE, memmap.DFB_SIZE, memmap.DFB_PAGE_SIZE))
    ptr = int(w[memmap.DFB_WR_PTR if reserved else memmap.DFB_RD_PTR])
    out = []
    for t in range(tiles):
        addr = base + (ptr - base + t * page) % size
        raw = node.resolve(addr, page)
        out.append(f"tile ({t // max(cols, 1)}, {t % max(cols, 1)}):")
        out += _tile_rows(raw, fmt)
    return out


def _format_pages(raw_pages, pages: int, fmt_code: int, cols: int) -> list[str]:
    """Pages 0..pages-1 (tiles) of a tensor; ``raw_pages(page_size)`` reads their bytes."""
    fmt = format_from_code(fmt_code)
    if fmt is None:
        raise DeviceFault(f"print of a tensor of unknown data format {fmt_code}")
    raw = raw_pages(fmt.tile_bytes)
    out = [f"Printing first {pages} page(s):"]
    for i in range(pages):
        out.append(f"page {i} (tile ({i // max(cols, 1)}, {i % max(cols, 1)})):")
        out += _tile_rows(raw[i], fmt)
    return out


def _tile_rows(raw: np.ndarray, fmt) -> list[str]:
    """One tile (face layout) as 32 rows of right-aligned values."""
    values = untilize(decode(raw, fmt), (TILE, TILE)).astype(np.float32)
    digits = 4 if fmt.itemsize == 2 else 7  # bf16 holds about 3 significant digits
    text = [[f"{v:.{digits}g}" for v in row] for row in values.tolist()]
    width = max(len(s) for row in text for s in row)
    return ["  " + " ".join(s.rjust(width) for s in row) for row in text]
