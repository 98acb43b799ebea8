"""C++ for semaphores, group waits and per-node tables (mixed into ``KernelEmitter``).

Each semaphore a kernel uses is declared once at its entry, as TT-Metal kernels
do::

    const uint32_t sem_ready = get_semaphore(0);
    volatile uint32_t* const sem_ready_ptr = reinterpret_cast<volatile uint32_t*>(sem_ready);

A remote or multicast ``set`` copies the value from the kernel's staging
semaphore word (NOC writes read L1) and waits for the write before the word
can be reused; a multicast set includes the sender when it lies in the range
(spec "Semaphore": the range is a set of nodes), which TT-Metal's multicast
excludes, so the sender sets its own word.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from xdsl.dialects import arith
from xdsl.ir import SSAValue

from ttl.compiler import dialect as d


class _Namer(Protocol):
    def fresh(self, hint: str | None, default: str = "v") -> str: ...


def semaphore_symbols(kernel: d.KernelOp) -> list[str]:
    """The semaphores (user and staging) a kernel names, in first-use order."""
    out: list[str] = []
    for op in kernel.walk():
        if isinstance(op, d.SemaphoreWaitOp | d.SemaphoreSetOp):
            names = [op.semaphore.root_reference.data]
        elif isinstance(op, d.SemaphoreRemoteOp | d.SemaphoreMulticastOp):
            names = [op.semaphore.root_reference.data]
            if op.staging is not None:
                names.append(op.staging.root_reference.data)
        else:
            continue
        out.extend(n for n in names if n not in out)
    return out


class SyncEmitMixin:
    """``op_*`` handlers for the semaphore ops, ``ttl.group_wait`` and ``ttl.node_table``."""

    # Provided by KernelEmitter (which overrides these declarations).
    kernel: d.KernelOp
    namer: _Namer
    grid: tuple[int, int]

    if TYPE_CHECKING:

        def line(self, text: str) -> None: ...

        def val(self, value: SSAValue) -> str: ...

        def define(self, value: SSAValue, hint: str | None = None) -> str: ...

        def let(self, value: SSAValue, ctype: str, expr: str, hint: str | None = None) -> str: ...

        def noc_x(self, column: str) -> str: ...

        def noc_y(self, row: str) -> str: ...

    def declare_semaphores(self, semaphores: dict[str, d.SemaphoreOp]) -> None:
        """Names and declarations of the semaphores this kernel uses, at its entry."""
        self.sem_names: dict[str, tuple[str, str]] = {}
        for name in semaphore_symbols(self.kernel):
            var = self.namer.fresh("sem_" + name)
            ptr = self.namer.fresh(var + "_ptr")
            self.sem_names[name] = (var, ptr)
            index = semaphores[name].index.value.data
            self.line(f"const uint32_t {var} = get_semaphore({index});")
            self.line(
                f"volatile uint32_t* const {ptr} = reinterpret_cast<volatile uint32_t*>({var});"
            )

    def _sem(self, ref: object) -> str:
        """The semaphore's address variable."""
        assert hasattr(ref, "root_reference")
        return self.sem_names[ref.root_reference.data][0]

    def _ptr(self, ref: object) -> str:
        """The semaphore's pointer variable."""
        assert hasattr(ref, "root_reference")
        return self.sem_names[ref.root_reference.data][1]

    def op_SemaphoreWaitOp(self, op: d.SemaphoreWaitOp) -> None:
        fn = "noc_semaphore_wait_min" if op.minimum is not None else "noc_semaphore_wait"
        self.line(f"{fn}({self._ptr(op.semaphore)}, {self.val(op.value)});")

    def op_SemaphoreSetOp(self, op: d.SemaphoreSetOp) -> None:
        self.line(f"noc_semaphore_set({self._ptr(op.semaphore)}, {self.val(op.value)});")

    def op_SemaphoreRemoteOp(self, op: d.SemaphoreRemoteOp) -> None:
        sem, x, y, value = (
            self._sem(op.semaphore),
            self.val(op.x),
            self.val(op.y),
            self.val(op.value),
        )
        x, y = self.noc_x(x), self.noc_y(y)
        if op.action.data == "inc":
            self.line(f"noc_semaphore_inc(get_noc_addr({x}, {y}, {sem}), {value});")
            return
        assert op.staging is not None
        staging = self._sem(op.staging)
        self.line(f"noc_semaphore_set({self._ptr(op.staging)}, {value});")
        self.line(f"noc_semaphore_set_remote({staging}, get_noc_addr({x}, {y}, {sem}));")
        self.line("noc_async_write_barrier();  // the staging word is reused")

    def op_SemaphoreMulticastOp(self, op: d.SemaphoreMulticastOp) -> None:
        sem, staging, value = self._sem(op.semaphore), self._sem(op.staging), self.val(op.value)
        rect = [op.x0, op.y0, op.x1, op.y1]
        x0, y0, x1, y1 = (self.val(v) for v in rect)
        consts = [_const(v) for v in rect]
        gx, gy = self.grid
        whole = consts == [0, 0, gx - 1, gy - 1]
        if all(c is not None for c in consts):
            cx0, cy0, cx1, cy1 = (c for c in consts if c is not None)
            count = str((cx1 - cx0 + 1) * (cy1 - cy0 + 1))
        else:
            count = f"({x1} - {x0} + 1) * ({y1} - {y0} + 1)"
        self.line(f"noc_semaphore_set({self._ptr(op.staging)}, {value});")
        rect_noc = f"{self.noc_x(x0)}, {self.noc_y(y0)}, {self.noc_x(x1)}, {self.noc_y(y1)}, {sem}"
        if whole:  # the sender is always in the range
            self.line(
                f"noc_semaphore_set_multicast({staging}, get_noc_multicast_addr({rect_noc}), "
                f"{count} - 1);"
            )
            self.line("noc_async_write_barrier();  // the staging word is reused")
            self.line(f"noc_semaphore_set({self._ptr(op.semaphore)}, {value});  // the sender too")
            return
        inside = self.namer.fresh("sender_in_range")
        self.line(
            f"const bool {inside} = {x0} <= static_cast<int32_t>(get_relative_logical_x()) && "
            f"static_cast<int32_t>(get_relative_logical_x()) <= {x1} && "
            f"{y0} <= static_cast<int32_t>(get_relative_logical_y()) && "
            f"static_cast<int32_t>(get_relative_logical_y()) <= {y1};"
        )
        self.line(
            f"noc_semaphore_set_multicast({staging}, get_noc_multicast_addr({rect_noc}), "
            f"{count} - ({inside} ? 1 : 0));"
        )
        self.line("noc_async_write_barrier();  // the staging word is reused")
        self.line(f"if ({inside}) noc_semaphore_set({self._ptr(op.semaphore)}, {value});")

    def op_GroupWaitOp(self, op: d.GroupWaitOp) -> None:
        if op.reads is not None:
            self.line("noc_async_read_barrier();")
        if op.writes is not None:
            self.line("noc_async_write_barrier();")

    def op_NodeTableOp(self, op: d.NodeTableOp) -> None:
        r = op.results[0]
        table = self.namer.fresh((r.name_hint or "v") + "_by_node")
        values = op.values.get_values()
        gx = self.grid[0]
        self.line(
            f"static const int32_t {table}[{len(values)}] = "
            f"{{{', '.join(str(v) for v in values)}}};"
        )
        node = f"get_relative_logical_y() * {gx} + get_relative_logical_x()"
        self.let(r, "int32_t", f"{table}[{node}]")


def _const(v: SSAValue) -> int | None:
    op = v.owner
    if isinstance(op, arith.ConstantOp):
        attr = op.value
        assert hasattr(attr, "value")
        return int(attr.value.data)
    return None
