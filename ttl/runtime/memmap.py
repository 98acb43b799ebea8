"""Address map and register layout of an emulated node, as one hart sees it.

Mirrors ``device/include/ttl/device_map.h`` (the device-side half of the same
contract); ``tests/runtime/test_memmap_tiles.py`` checks the two agree.
"""

from __future__ import annotations

import functools

from ttl.runtime.errors import DeviceFault

L1_BASE = 0x00000000

LOCAL_BASE = 0x10000000
LOCAL_SIZE = 0x00100000
# The top of LOCAL is the stack; the page below it is left unmapped so that a
# stack overflow faults instead of silently overwriting the kernel's data.
STACK_SIZE = 0x10000
STACK_GUARD = LOCAL_BASE + LOCAL_SIZE - STACK_SIZE - 0x1000

NODE_REGS_BASE = 0xF0000000
NODE_INFO_OFFSET = 0x0000
DFB_TABLE_OFFSET = 0x1000
SEM_OFFSET = 0x2000
NODE_REGS_SIZE = 0x4000

INFO_NODE_X = 0
INFO_NODE_Y = 1
INFO_GRID_X = 2
INFO_GRID_Y = 3
INFO_DRAM_BANKS = 4
INFO_L1_SIZE = 5
INFO_DFB_COUNT = 6
INFO_SEM_COUNT = 7
INFO_NOC_X = 8  # this node's NOC coordinates (targets.Target.noc_coord)
INFO_NOC_Y = 9

DFB_WORDS = 16
DFB_MAX = 64
DFB_BASE = 0
DFB_SIZE = 1
DFB_PAGE_SIZE = 2
DFB_NUM_PAGES = 3
DFB_FORMAT = 4
DFB_RECEIVED = 5
DFB_ACKED = 6
DFB_WR_PTR = 7
DFB_RD_PTR = 8
DFB_CONFIGURED = 9

SEM_MAX = 1024

# L1-sharded tensor descriptors (device_map.h; ttl/runtime/sharding.py writes them).
SHARD_DESC_OFFSET = 0x3000
SHARD_DESC_SIZE = 0x1000
SHARD_L1_BASE = 0
SHARD_WIDTH_PAGES = 1
SHARD_ROWS = 2
SHARD_COLS = 3
SHARD_GRID_COLS = 4
SHARD_COUNT = 5
SHARD_HEADER_WORDS = 8

HART_ARGS_BASE = 0xF0010000
ARGS_OFFSET = 0x0000
COMMON_ARGS_OFFSET = 0x1000
NOC_QUEUE_OFFSET = 0x2000
NOC_QUEUE_SIZE = 0x1000
MAILBOX_OFFSET = 0x3000
HART_INFO_OFFSET = 0x3100
PRINT_OFFSET = 0x3200
PRINT_SIZE = 0x0E00
HART_ARGS_SIZE = 0x4000
ARGS_MAX = 1024
MB_A = 0
MB_B = 1
MB_KIND = 2
MB_SITE = 3
MB_RESUME = 4
MB_C = 5
HINFO_NUM_ARGS = 0
HINFO_NUM_COMMON_ARGS = 1

COP_QUEUE_BASE = 0xF0020000
COP_QUEUE_SIZE = 0x10000
COP_HEADER_BYTES = 32
COP_CMD_WORDS = 8
COP_CAPACITY = (COP_QUEUE_SIZE - COP_HEADER_BYTES) // (COP_CMD_WORDS * 4)

MMIO_BASE = 0xF0100000
MMIO_SIZE = 0x1000
MMIO_NOC_FLUSH = 0x0
MMIO_COP_FLUSH = 0x8
MMIO_ERROR = 0xC
MMIO_PRINT = 0x10
MMIO_SIGNPOST_BEGIN = 0x14
MMIO_SIGNPOST_END = 0x18

PRINT_HEADER_BYTES = 16
PRINT_ITEM_WORDS = 4
PRINT_CAPACITY = (PRINT_SIZE - PRINT_HEADER_BYTES) // (PRINT_ITEM_WORDS * 4)
# One DPRINT call: a FORMAT item, then its argument items (api/debug/dprint.h).
PRINT_FORMAT = 1
PRINT_STR = 2
PRINT_INT = 3
PRINT_UINT = 4
PRINT_INT64 = 5
PRINT_UINT64 = 6
PRINT_FLOAT = 7
PRINT_BOOL = 8
PRINT_BF16 = 9
PRINT_TSLICE = 10
PRINT_CHAR = 11
TSLICE_ENDL_ROWS = 1
TSLICE_UNTILIZE = 2
TSLICE_NO_CB_ACCESS = 4

NOC_HEADER_BYTES = 32
NOC_CMD_WORDS = 8
NOC_CAPACITY = (NOC_QUEUE_SIZE - NOC_HEADER_BYTES) // (NOC_CMD_WORDS * 4)
NOC_READ = 1
NOC_WRITE = 2
NOC_WRITE_MCAST = 3
NOC_SEM_INC = 4
# In a multicast request's extra word (num_dests): the sender is a destination too.
NOC_MCAST_LOOPBACK = 0x80000000
# In a read/write request's extra word: a tensor page in a node's L1 (L1-sharded tensor).
NOC_SHARD_PAGE = 1

WAIT_RESERVE_BACK = 1
WAIT_FRONT = 2
WAIT_SEM_EQ = 3
WAIT_SEM_GE = 4

ERR_ARG_INDEX = 1
ERR_COMMON_ARG_INDEX = 2
ERR_DFB_INDEX = 3
ERR_DFB_UNCONFIGURED = 4
ERR_SEM_INDEX = 5
ERR_DFB_PUSH_OVERFLOW = 6
ERR_DFB_POP_UNDERFLOW = 7
ERR_SLICE_BOUNDS = 8
ERR_DIVISION_BY_ZERO = 9
ERR_SHARD_PAGE = 10
ERR_UNSUPPORTED = 11
ERR_ASSERT = 12

NOC_DRAM_FLAG = 0x80000000

COP_ACQUIRE = 1
# 2 was COP_RELEASE: DST is cleared on acquire, release sends nothing.
COP_UNPACK = 3
COP_BINARY = 4
COP_BINARY_DST = 5
COP_MATMUL = 6
COP_UNARY = 7
COP_FILL = 8
COP_BCAST = 9
COP_PACK = 10
COP_UNARY_PARAM = 11
# Reductions, transpose, where and mask own opcodes 15..20.
COP_REDUCE = 15
COP_TRANSPOSE = 16
COP_WHERE = 17
COP_MASK = 18
COP_COMPARE_ZERO = 12
COP_SCALAR = 13
COP_DST_MODE = 14

BINOP_ADD = 0
BINOP_SUB = 1
BINOP_MUL = 2
BINOP_DIV = 3
BINOP_MAX = 4
BINOP_MIN = 5
BINOP_RSUB = 6
BINOP_MOD = 8

CMPZ_GT = 0
CMPZ_LT = 1
CMPZ_GE = 2
CMPZ_LE = 3
CMPZ_EQ = 4
CMPZ_NE = 5

UNOP_EXP = 0
UNOP_LOG = 1
UNOP_SQRT = 2
UNOP_RSQRT = 3
UNOP_RECIP = 4
UNOP_RELU = 5
UNOP_SIGMOID = 6
UNOP_TANH = 7
UNOP_ABS = 8
UNOP_NEGATIVE = 9
UNOP_EXP2 = 10
UNOP_EXPM1 = 11
UNOP_LOG1P = 12
UNOP_SQUARE = 13
UNOP_TAN = 14
UNOP_ATAN = 15
UNOP_ATANH = 16
UNOP_SIN = 17
UNOP_ASIN = 18
UNOP_ASINH = 19
UNOP_COS = 20
UNOP_ACOS = 21
UNOP_ACOSH = 22
UNOP_SILU = 23
UNOP_SOFTSIGN = 24
UNOP_HARDSIGMOID = 25
UNOP_SIGN = 26
UNOP_SIGNBIT = 27
UNOP_FLOOR = 28
UNOP_CEIL = 29
UNOP_TRUNC = 30
UNOP_FRAC = 31
UNOP_GELU = 32
UNOP_GELU_APPROX = 33
UNOP_POWER = 40
UNOP_RELU_MAX = 41
UNOP_RELU_MIN = 42
UNOP_LEAKY_RELU = 43
UNOP_ELU = 44
UNOP_CELU = 45
UNOP_PRELU = 46
UNOP_SOFTPLUS = 47
UNOP_HARDTANH = 48
UNOP_SELU = 49
UNOP_ROUND = 50
UNOP_CLAMP = 51
UNOP_THRESHOLD = 52
UNOP_EXP_OPTIONS = 53  # exp_tile<..., scale_en, ..., iterations>: scale bits, iterations

FMT_FLOAT32 = 0
FMT_FLOAT16_B = 5
FMT_BFP8_B = 6  # block-float, ttl/runtime/bfp8.py


def page_aligned_buffer(nbytes: int):
    """A zeroed uint8 NumPy buffer over its own anonymous memory mapping (so it starts
    on a host page, and :func:`zero` can hand its pages back).

    Unicorn maps such buffers into guest memory with ``mem_map_ptr``; several
    harts mapping the same buffer see the same bytes.
    """
    import mmap

    import numpy as np

    # Private: MADV_DONTNEED zeroes private anonymous pages (shared ones keep their data).
    size = -(-nbytes // mmap.PAGESIZE) * mmap.PAGESIZE
    pages = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    return np.frombuffer(pages, dtype=np.uint8, count=nbytes)


def zero(buffer) -> None:
    """Zeroes a uint8 buffer, returning its whole pages to the OS (``MADV_DONTNEED``:
    they read as zeros and use no memory until written again), so clearing a
    mostly untouched buffer costs neither time nor RSS. The buffer must be
    private anonymous memory (a :func:`page_aligned_buffer`, an :class:`Arena`
    slot, or NumPy's own); only pages wholly inside it are handed back."""
    import mmap

    start = buffer.ctypes.data
    first = -(-start // mmap.PAGESIZE) * mmap.PAGESIZE
    end = (start + buffer.size) // mmap.PAGESIZE * mmap.PAGESIZE
    if end - first < mmap.PAGESIZE:
        buffer[:] = 0
        return
    if _madvise(first, end - first, mmap.MADV_DONTNEED):
        buffer[:] = 0  # (not expected: the range is mapped memory of ours)
        return
    buffer[: first - start] = 0
    buffer[end - start :] = 0


def _madvise(address: int, length: int, advice: int) -> int:
    return _libc_madvise()(address, length, advice)


@functools.cache
def _libc_madvise():
    """libc's ``madvise`` (Python's ``mmap.madvise`` needs the ``mmap`` object)."""
    import ctypes

    fn = ctypes.CDLL(None, use_errno=True).madvise
    fn.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    fn.restype = ctypes.c_int
    return fn


class Arena:
    """``count`` page-aligned slots of ``slot_bytes`` in one anonymous mapping.

    The device keeps every node's L1, every hart's LOCAL and so on in one arena
    each, so an engine maps each arena with one ``mem_map_ptr`` (mapping a
    region costs more the more regions an engine has). Unused slots cost
    address space only.
    """

    def __init__(self, count: int, slot_bytes: int):
        import mmap

        self.slot_bytes = slot_bytes
        self.stride = -(-slot_bytes // mmap.PAGESIZE) * mmap.PAGESIZE
        self.buffer = page_aligned_buffer(count * self.stride)

    def slot(self, index: int):
        """Slot ``index`` (a uint8 view of ``slot_bytes``)."""
        return self.buffer[index * self.stride : index * self.stride + self.slot_bytes]


class DeviceMemory:
    """Node and hart memory of a device, one :class:`Arena` per kind of buffer.

    Node ``n`` (``y * grid_x + x``) owns slot ``n`` of ``l1`` and ``regs``; hart
    ``n * slots + s`` (its node and processor slot) slot ``n * slots + s`` of
    ``local``, ``args`` and ``queue``.
    """

    def __init__(self, nodes: int, slots: int, l1_bytes: int):
        self.nodes, self.slots = nodes, slots
        self.l1 = Arena(nodes, l1_bytes)
        self.regs = Arena(nodes, NODE_REGS_SIZE)
        self.local = Arena(nodes * slots, LOCAL_SIZE)
        self.args = Arena(nodes * slots, HART_ARGS_SIZE)
        self.queue = Arena(nodes * slots, COP_QUEUE_SIZE)


def take_queue(queue, header_bytes: int, cmd_words: int, capacity: int, what: str) -> list[int]:
    """Empties a device command queue and returns its entries' words, flat.

    The NOC and coprocessor queues share one layout: word 0 counts the
    entries, which start at ``header_bytes`` and are ``cmd_words`` words each;
    entry ``i`` is ``words[i * cmd_words : (i + 1) * cmd_words]``. ``queue`` is
    the queue's mapped memory as 32-bit words: a uint32 memoryview (what the
    harts pass: cheapest to index) or NumPy array.
    """
    words = queue if isinstance(queue, memoryview) else memoryview(queue)
    count = _queue_count(words, capacity, what)
    if not count:
        return []
    start = header_bytes // 4
    flat = words[start : start + count * cmd_words].tolist()
    words[0] = 0
    return flat


def take_queue_array(queue, header_bytes: int, cmd_words: int, capacity: int, what: str):
    """:func:`take_queue` with the entries as a (count, cmd_words) uint32 NumPy array
    (a copy), for callers that look at all entries at once."""
    import numpy as np

    words = queue if isinstance(queue, memoryview) else memoryview(queue)
    count = _queue_count(words, capacity, what)
    start = header_bytes // 4
    entries = np.array(words[start : start + count * cmd_words], dtype=np.uint32)
    words[0] = 0
    return entries.reshape(count, cmd_words)


def _queue_count(words: memoryview, capacity: int, what: str) -> int:
    count = words[0]
    if count > capacity:
        raise DeviceFault(f"{what} queue count {count} is corrupt")
    return count
