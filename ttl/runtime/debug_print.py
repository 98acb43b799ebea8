"""Kernel prints: the device's print buffer turned into prefixed text lines.

A kernel that prints (TT-Metal's ``DPRINT("k = {}\\n", k)``, ``api/debug/dprint.h``;
TT-Lang ``print`` lowers to it) appends, per call, a FORMAT item and one typed
item per argument to its hart's print buffer (``memmap.PRINT_*``) and rings the
print doorbell; :class:`HartPrinter` then formats each call with Python's
``str.format`` (fmt's syntax, which DPRINT uses, is Python's), a ``TSLICE``
argument as the tile values it selects from L1 at that moment, and writes every
completed line, prefixed ``[(x,y) kernel] ``, to the device's
:class:`PrintSink`. Lines of one hart keep their program order; harts
interleave as the scheduler runs them.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

import numpy as np

from ttl.runtime import memmap
from ttl.runtime.errors import DeviceFault
from ttl.runtime.tiles import TILE, decode, format_from_code, untilize

if TYPE_CHECKING:
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
        try:
            out.write(line + "\n")
            if self._file is not None:
                self._file.flush()
        except OSError as e:  # a full disk: name the file
            if e.filename is not None or self._file is None:
                raise
            raise OSError(e.errno, e.strerror, self.target) from None

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


class HartPrinter:
    """One hart's print state: the partial line and the last lines printed."""

    def __init__(
        self,
        node: Node,
        read_local: Callable[[int, int], bytes],
        print_area: np.ndarray,
    ):
        self.node, self.read_local = node, read_local
        # The hart's print buffer (uint32); NumPy arrays are buffers, typeshed disagrees.
        self.words = memoryview(print_area)  # type: ignore[arg-type]
        self.sink = PrintSink()
        self.prefix = ""
        self.partial = ""
        self.last_lines: deque[str] = deque(maxlen=LAST_LINES)
        self._strings: dict[int, str] = {}
        self._tile_cache: tuple[tuple, list[list[str]]] | None = None

    def reset(self, prefix: str, sink: PrintSink) -> None:
        """A new launch: the line prefix (node and kernel) and the sink."""
        self.prefix, self.sink = prefix, sink
        self.partial = ""
        self.last_lines.clear()
        self._strings.clear()  # a new kernel image: string addresses mean other strings

    def drain(self) -> None:
        """Formats the buffered calls now and writes every completed line."""
        words = self.words
        count = words[0]
        if count > memmap.PRINT_CAPACITY:
            raise DeviceFault(f"print buffer count {count} is corrupt")
        start = memmap.PRINT_HEADER_BYTES // 4
        flat = words[start : start + count * memmap.PRINT_ITEM_WORDS].tolist()
        words[0] = 0
        n = memmap.PRINT_ITEM_WORDS
        items = [flat[i : i + n] for i in range(0, len(flat), n)]
        text = [self.partial]
        i = 0
        while i < len(items):
            tag, a, b, _ = items[i]
            if tag != memmap.PRINT_FORMAT or i + 1 + b > len(items):
                raise DeviceFault(f"print buffer item {i} (tag {tag}) starts no whole DPRINT call")
            args = [self._value(*item) for item in items[i + 1 : i + 1 + b]]
            text.append(_format(self.string(a), args))
            i += 1 + b
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
    def _value(self, tag: int, a: int, b: int, c: int) -> object:
        """The Python value of one DPRINT argument item."""
        if tag == memmap.PRINT_STR:
            return self.string(a)
        if tag == memmap.PRINT_CHAR:
            return chr(a)
        if tag == memmap.PRINT_INT:
            return a - (1 << 32) if a & 0x80000000 else a
        if tag == memmap.PRINT_UINT:
            return a
        if tag in (memmap.PRINT_INT64, memmap.PRINT_UINT64):
            v = a | b << 32
            return v - (1 << 64) if tag == memmap.PRINT_INT64 and v & (1 << 63) else v
        if tag == memmap.PRINT_FLOAT:
            return _Float(np.uint32(a).view(np.float32))
        if tag == memmap.PRINT_BF16:
            return _Float(np.uint32((a & 0xFFFF) << 16).view(np.float32))
        if tag == memmap.PRINT_BOOL:
            return _Bool(bool(a))
        if tag == memmap.PRINT_TSLICE:
            return self.tile_slice(a, b, c)
        raise DeviceFault(f"unknown print item tag {tag}")

    def tile_slice(self, addr: int, rng: int, c: int) -> str:
        """A TSLICE's text: the values it selects of the tile at L1 ``addr``, each
        right-aligned to the tile's widest value, rows ended by newlines (endl_rows)
        or separated by spaces; as on TT-Metal, at most ``MAX_BYTES`` of data."""
        flags = c >> 28
        if flags & memmap.TSLICE_NO_CB_ACCESS:
            return "<TSLICE: the math thread has no CBs; use DPRINT_UNPACK or DPRINT_PACK>"
        fmt = format_from_code((c >> 24) & 0xF)
        if fmt is None:
            raise DeviceFault(f"TSLICE of a tile in unknown data format {(c >> 24) & 0xF}")
        h0, h1, hs, w0 = rng & 0xFF, rng >> 8 & 0xFF, rng >> 16 & 0xFF, rng >> 24
        w1, ws, max_bytes = c & 0xFF, c >> 8 & 0xFF, c >> 16 & 0xFF
        if not (hs and ws and h1 <= TILE and w1 <= TILE):
            raise DeviceFault(f"TSLICE range [{h0}:{h1}:{hs}, {w0}:{w1}:{ws}] is not in a tile")
        texts = self._tile_texts(addr, fmt, bool(flags & memmap.TSLICE_UNTILIZE))
        budget = max_bytes // max(fmt.itemsize, 2)  # values the slice's buffer holds
        rows = []
        for row in texts[h0:h1:hs]:
            row = row[w0:w1:ws][: max(budget, 0)]
            budget -= len(row)
            rows.append(" ".join(row))
        if flags & memmap.TSLICE_ENDL_ROWS:
            return "".join(r + "\n" for r in rows)
        return " ".join(rows)

    def _tile_texts(self, addr: int, fmt, untilized: bool) -> list[list[str]]:
        """The tile at L1 ``addr`` as 32 rows of values, each right-aligned to the tile's
        widest; kept for the next call while the tile is unchanged (a tile prints as 32
        one-row TSLICEs)."""
        raw = self.node.resolve(addr, fmt.tile_bytes)
        key = (addr, fmt.name, untilized, raw.tobytes())
        if self._tile_cache is not None and self._tile_cache[0] == key:
            return self._tile_cache[1]
        values = decode(raw, fmt).astype(np.float32)
        grid = untilize(values, (TILE, TILE)) if untilized else values.reshape(TILE, TILE)
        digits = 4 if fmt.itemsize == 2 else 7  # bf16 holds about 3 significant digits
        text = [[f"{v:.{digits}g}" for v in row] for row in grid.tolist()]
        width = max(len(v) for row in text for v in row)
        texts = [[v.rjust(width) for v in row] for row in text]
        self._tile_cache = (key, texts)
        return texts

    def string(self, addr: int) -> str:
        """The NUL-terminated string at ``addr`` in the kernel's LOCAL memory (cached)."""
        text = self._strings.get(addr)
        if text is None:
            if not 0 <= addr - memmap.LOCAL_BASE < memmap.LOCAL_SIZE:
                raise DeviceFault(f"print of a string at {addr:#x}, outside kernel memory")
            raw = self.read_local(addr, _MAX_STRING)
            text = self._strings[addr] = raw.split(b"\0", 1)[0].decode("utf-8", "replace")
        return text


class _Bool:
    """A DPRINT bool: ``true``/``false`` as fmt prints it, a number under a numeric spec."""

    def __init__(self, value: bool):
        self.value = value

    def __format__(self, spec: str) -> str:
        if spec in ("", "s"):
            return "true" if self.value else "false"
        return format(int(self.value), spec)


class _Float:
    """A DPRINT float: fmt's shortest round-trip text (``3``, ``0.1``) under ``{}``."""

    def __init__(self, value: np.float32):
        self.value = value

    def __format__(self, spec: str) -> str:
        if spec:
            return format(float(self.value), spec)
        text = str(self.value)  # NumPy's shortest repr of the float32
        return text[:-2] if text.endswith(".0") else text


def _format(fmt: str, args: list) -> str:
    """One DPRINT call's text: ``fmt`` (fmt-style, as Python's ``str.format``) over ``args``."""
    try:
        return fmt.format(*args)
    except (ValueError, IndexError, KeyError, TypeError) as e:
        raise DeviceFault(f"DPRINT format {fmt!r} cannot format its arguments: {e}") from None
