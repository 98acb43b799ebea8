"""Semaphores, group transfers and per-node top-level values in kernel bodies.

``ttl.Semaphore`` methods lower to the ``ttl.semaphore_*`` ops (TT-Metal's
``noc_semaphore_*`` calls in C++); ``ttl.GroupTransfer`` to one ``ttl.group_wait``
(NOC barriers) that completes every transfer added to it; a top-level value
that differs between nodes (``ttl.node()`` at operation scope) to arithmetic on
the node's coordinates or a per-node table.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects import arith

from ttl.compiler import dialect as d
from ttl.compiler.frontend.protocol import MixinBase
from ttl.compiler.frontend.values import Affine, BoundMethod, Dyn, PySlice, TransferHandle
from ttl.compiler.per_node import PerNode
from ttl.semaphore import (
    MulticastRemoteSemaphore,
    Semaphore,
    UnicastRemoteSemaphore,
    check_count,
    node_coord,
    node_rect,
)
from ttl.source import node_loc


@dataclass
class RemoteSem:
    """A remote semaphore obtained in a kernel: one node (x, y) or a rectangle
    (x0, y0, x1, y1), each coordinate an int or a runtime value."""

    semaphore: Semaphore
    coords: tuple[Any, ...]
    multicast: bool


@dataclass
class GroupHandle:
    """A ``ttl.GroupTransfer()`` of this kernel and the transfers added to it."""

    node: ast.AST
    loop_depth: int
    transfers: list[TransferHandle] = field(default_factory=list)
    waited_line: int | None = None


SYNC_VALUES = (Semaphore, UnicastRemoteSemaphore, MulticastRemoteSemaphore, RemoteSem, GroupHandle)
_METHODS = {
    Semaphore: ("wait_eq", "wait_ge", "set", "get_remote", "get_remote_multicast"),
    UnicastRemoteSemaphore: ("set", "inc"),
    MulticastRemoteSemaphore: ("set",),
    GroupHandle: ("add", "wait_all"),
}


class SyncMixin(MixinBase):
    """Semaphore and group-transfer calls (mixed into KernelCompiler)."""

    # ------------------------------------------------------------ per-node values
    def per_node(self, v: Any) -> Any:
        """``v`` with every :class:`PerNode` inside it made a runtime value of this kernel."""
        if isinstance(v, PerNode):
            return self._per_node_value(v)
        if isinstance(v, tuple | list):
            return type(v)(self.per_node(e) for e in v)
        return v

    def _per_node_value(self, v: PerNode) -> Dyn:
        form = v.affine() if v.kind == "int" else None
        if form is None:  # a table indexed by y * grid_x + x
            value = self.emit(d.NodeTableOp(v.values)).results[0]
            dyn = Dyn(value, "int")
        else:  # c + a * x + b * y: keeps the affine form slice extents are proved with
            c, a, b = form
            dyn_any: Any = c
            for dim, coef in ((0, a), (1, b)):
                if coef:
                    coord = self.emit(d.NodeOp(dim)).results[0]
                    coord.name_hint = ("node_x", "node_y")[dim]
                    term: Any = Dyn(coord, "int", Affine.var(coord))
                    if coef != 1:
                        term = self.int_binop(ast.Mult(), term, coef, self.stmt)
                    no_sum_yet = isinstance(dyn_any, int) and dyn_any == 0
                    dyn_any = (
                        term if no_sum_yet else self.int_binop(ast.Add(), dyn_any, term, self.stmt)
                    )
            dyn = (
                dyn_any if isinstance(dyn_any, Dyn) else Dyn(self.to_ssa(dyn_any, self.stmt), "int")
            )
        if v.kind == "bool":
            zero = self.to_ssa(0, self.stmt)
            return Dyn(self.emit(arith.CmpiOp(dyn.value, zero, "ne")).results[0], "bool")
        return dyn

    # ------------------------------------------------------------ attributes
    def sync_attribute(self, base: Any, node: ast.Attribute) -> Any:
        """``sem.wait_eq`` and friends as bound methods; a located error otherwise."""
        kind = (
            type(base)
            if not isinstance(base, RemoteSem)
            else (MulticastRemoteSemaphore if base.multicast else UnicastRemoteSemaphore)
        )
        methods = _METHODS[kind]
        if node.attr in methods:
            return BoundMethod(base, node.attr)
        self.fail(
            f"{_describe(base)} has no method '{node.attr}' in a kernel",
            node,
            f"its methods are: {', '.join(methods)}",
        )

    # ------------------------------------------------------------ calls
    def call_group_transfer(self, node: ast.Call) -> GroupHandle:
        self._data_movement_only("ttl.GroupTransfer()", node)
        self.args(node, [], 0)
        return GroupHandle(node, self.loop_depth)

    def call_sync_method(self, obj: Any, method: str, node: ast.Call) -> Any:
        """A method of a semaphore, remote semaphore or group transfer."""
        self._data_movement_only(f"{_describe(obj)}.{method}()", node)
        if isinstance(obj, GroupHandle):
            return self._group_method(obj, method, node)
        if isinstance(obj, Semaphore):
            sem = self._own(obj, node)
            if method == "get_remote":
                a = self.args(node, ["node"], 1)
                return RemoteSem(sem, self._node(a["node"], node), False)
            if method == "get_remote_multicast":
                a = self.args(node, ["node_range"], 0)
                return RemoteSem(sem, self._rect(a.get("node_range"), node), True)
            value = self._count(node)
            if method == "set":
                self.emit(d.SemaphoreSetOp(self._symbol(sem), value))
            else:
                self.emit(d.SemaphoreWaitOp(self._symbol(sem), value, method == "wait_ge"))
            return None
        remote = self._remote(obj, node)
        sym = self._symbol(remote.semaphore)
        value = self._count(node)
        coords = [self.to_ssa(c, node) for c in remote.coords]
        if remote.multicast:
            staging = self.symbols.staging_semaphore(self.thread.name)
            self.emit(d.SemaphoreMulticastOp(sym, coords, value, staging))
        elif method == "inc":
            self.emit(d.SemaphoreRemoteOp(sym, "inc", coords, value))
        else:
            staging = self.symbols.staging_semaphore(self.thread.name)
            self.emit(d.SemaphoreRemoteOp(sym, "set", coords, value, staging))
        return None

    def _group_method(self, g: GroupHandle, method: str, node: ast.Call) -> None:
        if g.waited_line is not None:
            self.fail(
                f"this group transfer was already waited with wait_all() on line "
                f"{g.waited_line}; a group cannot be used after wait_all()",
                node,
                "create a new ttl.GroupTransfer() for the next transfers",
            )
        if method == "add":
            a = self.args(node, ["xf"], 1)
            xf = a["xf"]
            if not isinstance(xf, TransferHandle):
                self.fail(
                    f"GroupTransfer.add() takes a transfer handle, got {self.describe(xf)}",
                    node,
                    "add the handle ttl.copy returns: gxf.add(ttl.copy(src, dst))",
                )
            if xf.waited:
                self.fail(
                    "this transfer was already waited on; add it to the group instead of "
                    "waiting on it",
                    node,
                    "add the handle before any wait, and wait with gxf.wait_all()",
                )
            if any(t is xf for t in g.transfers):
                self.fail("this transfer is already in the group", node, "add each handle once")
            g.transfers.append(xf)
            return None
        self.args(node, [], 0)
        if not g.transfers:
            self.fail(
                "wait_all() on a group transfer with no transfers added",
                node,
                "add transfers with gxf.add(ttl.copy(...)) before gxf.wait_all()",
            )
        if self.loop_depth > g.loop_depth:
            self.fail(
                "wait_all() inside a loop on a group created outside it: the second "
                "iteration would use the group after wait_all()",
                node,
                "create the ttl.GroupTransfer() in the same loop body as its wait_all()",
            )
        self.emit(
            d.GroupWaitOp(
                reads=any(t.is_read for t in g.transfers),
                writes=any(not t.is_read for t in g.transfers),
            )
        )
        for t in g.transfers:
            t.waited = True
            t.block.pending = [p for p in t.block.pending if p is not t]
        g.waited_line = getattr(node, "lineno", 0)
        return None

    # ------------------------------------------------------------ helpers
    def _data_movement_only(self, what: str, node: ast.AST) -> None:
        if self.is_compute:
            self.fail(
                f"{what} is used in compute kernel '{self.thread.name}'; semaphores and "
                "transfers are for data-movement kernels only",
                node,
                "move the synchronisation into a @ttl.datamovement() kernel and hand data to "
                "compute through a DFB",
            )

    def _own(self, sem: Semaphore, node: ast.AST) -> Semaphore:
        if not any(sem is s for s in self.model.semaphores):
            self.fail(
                f"semaphore '{sem.name}' does not belong to operation '{self.model.name}'",
                node,
                "declare the ttl.Semaphore() in this operation's body",
            )
        return sem

    def _symbol(self, sem: Semaphore) -> str:
        return self.symbols.semaphore_symbol(sem)

    def _count(self, node: ast.Call) -> Any:
        a = self.args(node, ["value"], 1)
        value = self.per_node(a["value"])
        where = node.args[0] if node.args else node
        if isinstance(value, int):
            check_count(value, node_loc(self.filename, where), "the semaphore value")
            if value >= 2**31:  # the same 32 bits as an i32 constant (uint32_t in C++)
                value -= 2**32
        elif not isinstance(value, Dyn) or value.kind != "int":
            self.fail(
                f"a semaphore value must be an integer, got {self.describe(value)}",
                where,
                "pass an int (ttl.Count), e.g. sem.set(1)",
            )
        return self.to_ssa(value, where)

    def _remote(self, obj: Any, node: ast.AST) -> RemoteSem:
        """A remote semaphore from the top level as a kernel value."""
        if isinstance(obj, RemoteSem):
            return obj
        sem = self._own(obj.semaphore, node)
        multicast = isinstance(obj, MulticastRemoteSemaphore)
        coords = tuple(self.per_node(obj.rect if multicast else obj.node))
        names = ("x0", "y0", "x1", "y1") if multicast else ("x", "y")
        for c, name in zip(coords, names, strict=True):
            if isinstance(c, Dyn) and c.value.name_hint is None:
                c.value.name_hint = f"{sem.name}_{name}"  # a per-node coordinate
        return RemoteSem(sem, coords, multicast)

    def _node(self, coord: Any, node: ast.Call) -> tuple[Any, ...]:
        """(x, y) of a ``get_remote`` argument in a kernel (ints are checked now)."""
        coord = self.per_node(coord)
        where = node.args[0] if node.args else node
        grid = self.model.grid
        if _static(coord):
            return node_coord(
                tuple(coord) if isinstance(coord, list) else coord, grid, self._at(where)
            )
        if isinstance(coord, Dyn):  # a flattened index (dsl.node_at_index)
            return (
                self.int_binop(ast.FloorDiv(), coord, grid[1], where),
                self.int_binop(ast.Mod(), coord, grid[1], where),
            )
        if isinstance(coord, tuple | list) and len(coord) >= 2:
            return (coord[0], coord[1])
        self.fail(
            f"a node is an index or an (x, y) tuple, got {self.describe(coord)}",
            where,
            "write e.g. sem.get_remote((0, 0))",
        )

    def _rect(self, rng: Any, node: ast.Call) -> tuple[Any, ...]:
        """(x0, y0, x1, y1) of a ``get_remote_multicast`` argument in a kernel."""
        where = node.args[0] if node.args else node
        grid = self.model.grid
        rng = self.per_node(rng)
        static = None if rng is None else _static_range(rng)
        if rng is None or static is not None:
            return node_rect(static, grid, self._at(where))
        if not isinstance(rng, tuple | list) or len(rng) != 2:
            self.fail(
                f"a node range is an (x, y) tuple of indices and slices, got {self.describe(rng)}",
                where,
                "write e.g. (slice(0, 4), 0), or omit it for the whole grid",
            )
        lo: list[Any] = []
        hi: list[Any] = []
        for r, extent in zip(rng, grid, strict=True):
            if isinstance(r, PySlice):
                lo.append(0 if r.lower is None else r.lower)
                hi.append(
                    extent - 1 if r.upper is None else self.binop(ast.Sub(), r.upper, 1, where)
                )
            else:
                lo.append(r)
                hi.append(r)
        return (lo[0], lo[1], hi[0], hi[1])

    def _at(self, where: ast.AST) -> Any:
        return node_loc(self.filename, where)


def _static_range(rng: Any) -> Any:
    """A node range of compile-time ints and slices as Python values, else None."""
    if not isinstance(rng, tuple | list):
        return rng if _static(rng) else None
    out: list[Any] = []
    for r in rng:
        if isinstance(r, PySlice) and _static((r.lower, r.upper)):
            out.append(slice(r.lower, r.upper))
        elif _static(r):
            out.append(r)
        else:
            return None
    return tuple(out)


def _static(v: Any) -> bool:
    if isinstance(v, tuple | list):
        return all(_static(e) for e in v)
    return not isinstance(v, Dyn | PySlice) and (v is None or isinstance(v, int))


def _describe(v: Any) -> str:
    if isinstance(v, Semaphore):
        return f"semaphore '{v.name}'"
    if isinstance(v, GroupHandle):
        return "ttl.GroupTransfer"
    if isinstance(v, RemoteSem):
        kind = "multicast" if v.multicast else "unicast"
        return f"remote {kind} semaphore of '{v.semaphore.name}'"
    kind = "multicast" if isinstance(v, MulticastRemoteSemaphore) else "unicast"
    return f"remote {kind} semaphore of '{v.semaphore.name}'"
