"""DFB allocation groups (spec v0.21): proving that members may share one index.

"An allocation group is an immutable compile-time identity that requests one
physical index and backing storage for all member logical DFBs. Members must use
compatible element and page formats and storage kinds [...]. Their accesses must
not overlap on any node, each access must complete before another member uses the
allocation, and queue transactions must preserve compatible read and write pointer
positions at every handoff. Scratch members may have different block shapes and
counts; their shared allocation uses the greatest required byte capacity."

Pass ``ttl-check-allocation-groups`` (:class:`CheckAllocationGroupsPass`), after
``ttl-compute-lifetimes``, accepts a group when

* every member has one element type and page size, a protocol proven balanced
  with one static total of pages, and no opaque access (``lifetime``);
* the members are ordered so that every access of one *happens before* every
  access of the next, on every node. Happens-before is program order between the
  top-level statements of a kernel (an access inside a loop or branch is the whole
  loop or branch) and, across kernels, a DFB one kernel pushes into and one other
  waits on: what the producer did before its last push (and its own accesses of
  that DFB) completes before the consumer's last wait returns (the DFBs' protocols
  are balanced, so that wait returns the last pushed block). The spec's example
  hands off through such a DFB;
* the shared ring (the largest member's pages) holds a whole number of each
  member's blocks, and each member starts where the one before left the pointers,
  on a block boundary of its own: the ring is empty at every handoff (balanced),
  so the read and write pointers agree there.

Otherwise it is a located error at the member. ``ttl-allocate-dfbs`` then puts
the members on one index, and the manifest configures it with the largest
member's capacity.
"""

from __future__ import annotations

from collections import defaultdict, deque
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from ttl.compiler import dialect as d
from ttl.compiler.passes.common import TTLPassError, ttl_operations
from ttl.compiler.passes.dfb_protocol import block_dfb, dependencies, dfb_name
from ttl.compiler.passes.lifetimes import Lifetime

Point = tuple[str, int]  # (logical kernel, index of a top-level statement of its body)

_NAME = "ttl-check-allocation-groups"


def _touched(op: Operation) -> list[str]:
    """The DFBs one op accesses: protocol ops and external calls' dependencies."""
    if isinstance(op, d.ReserveOp | d.WaitOp):
        return [n for n in [dfb_name(op.dfb)] if n]
    if isinstance(op, d.PushOp | d.PopOp):
        return [n for n in [block_dfb(op.block)[0]] if n]
    deps = dependencies(op)
    return [n for n in (dfb_name(v) for v in deps or ()) if n]


@dataclass(frozen=True)
class _Flow:
    """A DFB one kernel pushes into and another waits on: its last push happens before
    the consumer's last wait returns, so before the consumer's statement holding it ends."""

    producer: str
    last_push: int  # the producer's statement holding its last push
    push_is_statement: bool  # that statement is the push itself (not a loop or branch)
    consumer: str
    last_use: int  # the consumer's statement holding its last access


@dataclass
class _Program:
    """Where each DFB is accessed, and what happens before what (nodes: a kernel's
    top-level statement ``(kernel, i)``, standing for the moment it has completed)."""

    accesses: dict[str, list[Point]]
    flows: dict[str, _Flow]
    length: dict[str, int]  # top-level statements per kernel

    @staticmethod
    def of(operation: d.OperationOp) -> _Program:
        accesses: dict[str, list[Point]] = defaultdict(list)
        pushes: dict[str, list[tuple[Point, bool]]] = defaultdict(list)
        waits: dict[str, set[str]] = defaultdict(set)  # kernels that wait on each DFB
        length: dict[str, int] = {}
        for kernel in (k for k in operation.body.ops if isinstance(k, d.KernelOp)):
            name = kernel.logical_kernel.data
            tops = list(kernel.body.block.ops)
            length[name] = len(tops)
            for index, top in enumerate(tops):
                for inner in top.walk():
                    for touched in _touched(inner):
                        accesses[touched].append((name, index))
                    if isinstance(inner, d.PushOp) and (pushed := block_dfb(inner.block)[0]):
                        pushes[pushed].append(((name, index), inner is top))
                    elif isinstance(inner, d.WaitOp) and (waited := dfb_name(inner.dfb)):
                        waits[waited].add(name)
        flows: dict[str, _Flow] = {}
        for dfb, sent in pushes.items():
            producers = {point[0] for point, _ in sent}
            consumers = waits.get(dfb, set())
            if len(producers) != 1 or len(consumers) != 1 or producers == consumers:
                continue
            (producer,), (consumer,) = producers, consumers
            if any(k not in (producer, consumer) for k, _ in accesses[dfb]):
                continue  # a third kernel touches it (an external call)
            (_, last), is_statement = max(sent)
            use = max(i for k, i in accesses[dfb] if k == consumer)
            flows[dfb] = _Flow(producer, last, is_statement, consumer, use)
        return _Program(dict(accesses), flows, length)

    def _edges(self, point: Point) -> list[Point]:
        kernel, index = point
        out = [(kernel, index + 1)] if index + 1 < self.length[kernel] else []
        for f in self.flows.values():
            if kernel == f.producer and (
                index == f.last_push - 1 or (index == f.last_push and f.push_is_statement)
            ):
                out.append((f.consumer, f.last_use))
        return out

    def _reached(self, dfb: str, start: Point) -> set[Point]:
        """What happens after the access of ``dfb`` at ``start``: its statement's end,
        and, for an access by the producer of a flow, the consumer's last use of it."""
        todo = deque([start])
        flow = self.flows.get(dfb)
        if flow is not None and start[0] == flow.producer:
            todo.append((flow.consumer, flow.last_use))
        seen = set(todo)
        while todo:
            for succ in self._edges(todo.popleft()):
                if succ not in seen:
                    seen.add(succ)
                    todo.append(succ)
        return seen

    def precedes(self, first: str, second: str) -> bool:
        """Every access of ``first`` completes before any access of ``second`` starts:
        the statement before each of the latter is reached."""
        for a in set(self.accesses.get(first, [])):
            reached = self._reached(first, a)
            for kernel, index in set(self.accesses.get(second, [])):
                if (kernel, index - 1) not in reached:
                    return False
        return True


def _pages(f: d.DFBOp) -> tuple[int, int]:
    """(pages per block, pages of the ring) of a DFB."""
    per_block = f.dfb_type.num_tiles
    return per_block, per_block * f.block_count.value.data


def _fail(member: d.DFBOp, message: str, hint: str) -> TTLPassError:
    return TTLPassError(_NAME, member, message, hint)


def _check_member(f: d.DFBOp, first: d.DFBOp) -> int:
    """The member's static total of pages; errors for what makes it unshareable."""
    name = f.sym_name.data
    if (f.dfb_type.element_type, f.page_size.value.data) != (
        first.dfb_type.element_type,
        first.page_size.value.data,
    ) or f.dfb_type.layout != first.dfb_type.layout:
        raise _fail(
            f,
            f"DFB '{name}' cannot share an allocation with '{first.sym_name.data}': members "
            "of an allocation group use one element type, layout and page size",
            "group DFBs made like tensors of the same dtype, or with the same ttl.make_dfb dtype",
        )
    lt = Lifetime.of(f)
    if lt.opaque:
        raise _fail(
            f,
            f"DFB '{name}' cannot join an allocation group: {lt.opaque[0]}",
            "declare the external call's dfb_effects or dfb_accesses for it",
        )
    proto = lt.protocol
    if proto is None or not proto.balanced or len(proto.tiles) != 1:
        why = (
            "its pages pushed and popped differ between paths"
            if proto and proto.balanced
            else (proto.reason if proto else "its protocol is unchecked")
        )
        raise _fail(
            f,
            f"DFB '{name}' cannot join an allocation group: the compiler must know that every "
            f"block pushed into it is popped, and how many, and {why}",
            "push and pop its blocks the same number of times on every path",
        )
    return proto.tiles[0]


def _order(members: list[d.DFBOp], program: _Program) -> list[d.DFBOp]:
    """The members in the order their accesses happen, or a located error."""
    rest, ordered = list(members), []
    while rest:
        head = next(
            (
                m
                for m in rest
                if all(
                    program.precedes(m.sym_name.data, o.sym_name.data) for o in rest if o is not m
                )
            ),
            None,
        )
        if head is None:
            a, b = rest[0], rest[1]
            raise _fail(
                b,
                f"DFBs '{a.sym_name.data}' and '{b.sym_name.data}' share an allocation group, but "
                "the compiler cannot prove that every access of one completes before the other's "
                "first access on every node (the spec requires it)",
                "finish with one DFB before the first reserve() of the other in the same kernel, "
                "or hand off through a DFB both kernels use once (the consumer pushes a block the "
                "producer waits for before it reserves the next member); or drop "
                "allocation_group=",
            )
        ordered.append(head)
        rest.remove(head)
    return ordered


def check_allocation_groups(operation: d.OperationOp) -> None:
    """Raise TTLPassError unless every allocation group of ``operation`` is proven safe."""
    groups: dict[int, list[d.DFBOp]] = defaultdict(list)
    for f in operation.body.ops:
        if isinstance(f, d.DFBOp) and f.allocation_group is not None:
            groups[f.allocation_group.value.data].append(f)
    program = _Program.of(operation)
    for members in groups.values():
        if len(members) < 2:
            continue
        totals = {m.sym_name.data: _check_member(m, members[0]) for m in members}
        ring = max(_pages(m)[1] for m in members)
        position = 0
        for m in _order(members, program):
            per_block, _ = _pages(m)
            name = m.sym_name.data
            if ring % per_block or position % per_block:
                where = (
                    f"a ring of {ring} pages holds no whole number of its {per_block}-page blocks"
                    if ring % per_block
                    else f"its {per_block}-page blocks would start at page {position} of the "
                    f"ring of {ring} pages, where the member before left the pointers: not on "
                    "a block boundary"
                )
                raise _fail(
                    m,
                    f"DFB '{name}' cannot take over the allocation it shares: {where} (the spec "
                    "requires compatible read and write pointer positions at every handoff)",
                    "give the members block sizes that divide the ring and each other's totals, "
                    "e.g. equal pages per block",
                )
            position = (position + totals[name]) % ring


@dataclass(frozen=True)
class CheckAllocationGroupsPass(ModulePass):
    """Proves each DFB allocation group's members may share one index and allocation."""

    name = _NAME

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for operation in ttl_operations(op):
            check_allocation_groups(operation)
