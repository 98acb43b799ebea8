"""C++ for pipe copies: NOC writes into receivers' landing buffers, and semaphores.

The protocol of one pipe (slot ``s``, see ``analysis/pipes.py``), as TT-Metal's
multicast kernels do it:

* sender, ``ttl.copy(blk, pipe)``: wait until its ``pending`` semaphore is 0
  (every receiver took the previous message), set it to the receiver count,
  write the block into the receivers' landing buffer (``noc_async_write`` for
  one node, ``noc_async_write_multicast`` for a range, the ``_loopback_src``
  variant when the sender is in its own range), then set ``valid`` on the
  receivers (the NOC delivers in order: the data lands first). ``wait()`` is
  a write barrier.
* receiver, ``wait()`` on ``ttl.copy(pipe, blk)``: wait for ``valid``, copy
  the landing buffer into ``blk``, clear ``valid``, decrement the sender's
  ``pending`` (a NOC increment by 2^32 - 1).

The landing buffer decouples sender and receiver, so a node may send before it
receives (the spec's scatter-gather and forward-to-neighbour nets) without a
handshake that would deadlock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from ttl.compiler import dialect as d
from ttl.compiler.analysis.pipes import ONE_SEMAPHORE, PipeTables
from ttl.targets import tile_bytes


class NocCoordinates(Protocol):
    """Translates logical grid coordinates into NOC coordinates (C++ expressions)."""

    def noc_x(self, column: str) -> str: ...

    def noc_y(self, row: str) -> str: ...


def _sem(sem_id: int) -> str:
    return f"reinterpret_cast<volatile uint32_t*>(get_semaphore({sem_id}))"


def _describe(op: d._PipeCopyOp) -> str:
    sx, sy = (int(v) for v in op.src.get_values())
    x0, y0, x1, y1 = (int(v) for v in op.rect.get_values())
    dst = f"({x0}, {y0})" if (x0, y0) == (x1, y1) else f"({x0}..{x1}, {y0}..{y1})"
    return f"net {op.net.value.data} pipe {op.index.value.data}: ({sx}, {sy}) -> {dst}"


def block_bytes(op: d._PipeCopyOp) -> int:
    # (ignore: operand_def fields are SSAValue[Attribute]; the verifier checked the types)
    tiles = op.block.type.num_tiles  # type: ignore[attr-defined]
    page = tile_bytes(op.block.type.dtype)  # type: ignore[attr-defined]
    return tiles * page


def send_lines(op: d.PipeSendOp, blk: str, landing_cb: str, noc: NocCoordinates) -> list[str]:
    """``ttl.copy(blk, pipe)``: the sender's half of the protocol."""
    slot = op.slot.value.data
    sx, sy = (int(v) for v in op.src.get_values())
    x0, y0, x1, y1 = (int(v) for v in op.rect.get_values())
    receivers = op.receivers
    n, size = len(receivers), block_bytes(op)
    pending = _sem(PipeTables.pending_semaphore(slot))
    valid = f"get_semaphore({PipeTables.valid_semaphore(slot)})"
    lines = [
        f"// send: {_describe(op)}",
        f"noc_semaphore_wait({pending}, 0);  // every receiver took the last message",
        f"noc_semaphore_set({pending}, {n});",
    ]
    landing = f"get_write_ptr({landing_cb})"
    if n == 1:
        x, y = noc.noc_x(str(x0)), noc.noc_y(str(y0))
        lines += [
            f"noc_async_write({blk}, get_noc_addr({x}, {y}, {landing}), {size});",
            f"noc_semaphore_inc(get_noc_addr({x}, {y}, {valid}), 1);  // data valid",
        ]
        return lines
    loopback = (sx, sy) in receivers
    sfx = "_loopback_src" if loopback else ""

    def mcast(addr: str) -> str:
        start = f"{noc.noc_x(str(x0))}, {noc.noc_y(str(y0))}"
        end = f"{noc.noc_x(str(x1))}, {noc.noc_y(str(y1))}"
        return f"get_noc_multicast_addr({start}, {end}, {addr})"

    lines += [
        f"noc_async_write_multicast{sfx}({blk}, {mcast(landing)}, {size}, {n});",
        f"noc_semaphore_set_multicast{sfx}(get_semaphore({ONE_SEMAPHORE}), {mcast(valid)}, "
        f"{n});  // data valid",
    ]
    return lines


def valid_word(op: d.PipeRecvOp) -> str:
    """The receiver's ``valid`` semaphore of ``op``'s pipe, as a pointer expression."""
    return _sem(PipeTables.valid_semaphore(op.slot.value.data))


def receive_lines(
    op: d.PipeRecvOp,
    blk: str,
    landing_cb: str,
    fresh: Callable[[str], str],
    noc: NocCoordinates,
) -> list[str]:
    """``wait()`` on ``ttl.copy(pipe, blk)``: the receiver's half of the protocol."""
    slot = op.slot.value.data
    sx, sy = (int(v) for v in op.src.get_values())
    valid = fresh("pipe_valid")
    pending = f"get_semaphore({PipeTables.pending_semaphore(slot)})"
    return [
        f"// receive: {_describe(op)}",
        f"volatile uint32_t* {valid} = {_sem(PipeTables.valid_semaphore(slot))};",
        f"noc_semaphore_wait({valid}, 1);",
        f"noc_async_read(get_noc_addr(get_write_ptr({landing_cb})), {blk}, {block_bytes(op)});",
        "noc_async_read_barrier();",
        f"noc_semaphore_set({valid}, 0);",
        f"noc_semaphore_inc(get_noc_addr({noc.noc_x(str(sx))}, {noc.noc_y(str(sy))}, "
        f"{pending}), 0xFFFFFFFFu);  "
        "// one receiver fewer pending",
    ]
