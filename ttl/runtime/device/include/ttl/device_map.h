// Address map and register layout of an emulated ttl-bazel Tensix node, as
// seen by one RISC-V hart. The host side mirrors these numbers in
// ttl/runtime/memmap.py; tests/runtime/test_memmap_tiles.py checks they agree.
//
//   0x00000000  L1            node-shared, target size (DFB pages live here)
//   0x10000000  LOCAL         hart-private 1 MiB: code, data, stack (kernel.ld);
//                             the top 64 KiB are the stack, the page below unmapped
//   0xF0000000  NODE_REGS     node-shared 16 KiB: node info, DFB table, semaphores
//   0xF0010000  HART_ARGS     hart-private 16 KiB: runtime args, common args, NOC queue, mailbox
//   0xF0020000  COP_QUEUE     hart-private 64 KiB: coprocessor command queue
//   0xF0100000  MMIO          doorbells handled by the emulator (4 KiB)
#pragma once

#define TTL_L1_BASE 0x00000000u

#define TTL_NODE_REGS_BASE 0xF0000000u
#define TTL_NODE_INFO_OFFSET 0x0000u
#define TTL_DFB_TABLE_OFFSET 0x1000u
#define TTL_SEM_OFFSET 0x2000u
#define TTL_NODE_REGS_SIZE 0x4000u

// Node info words (index into NODE_REGS + NODE_INFO_OFFSET).
#define TTL_INFO_NODE_X 0
#define TTL_INFO_NODE_Y 1
#define TTL_INFO_GRID_X 2
#define TTL_INFO_GRID_Y 3
#define TTL_INFO_DRAM_BANKS 4
#define TTL_INFO_L1_SIZE 5
#define TTL_INFO_DFB_COUNT 6
#define TTL_INFO_SEM_COUNT 7
#define TTL_INFO_NOC_X 8  // this node's NOC coordinates
#define TTL_INFO_NOC_Y 9

// One DFB table entry: 16 words. Producer owns RECEIVED/WR_PTR, consumer owns
// ACKED/RD_PTR, so each word has exactly one writer (as TT-Metal's CB registers).
#define TTL_DFB_WORDS 16
#define TTL_DFB_MAX 64
#define TTL_DFB_BASE 0
#define TTL_DFB_SIZE 1
#define TTL_DFB_PAGE_SIZE 2
#define TTL_DFB_NUM_PAGES 3
#define TTL_DFB_FORMAT 4
#define TTL_DFB_RECEIVED 5
#define TTL_DFB_ACKED 6
#define TTL_DFB_WR_PTR 7
#define TTL_DFB_RD_PTR 8
#define TTL_DFB_CONFIGURED 9

#define TTL_SEM_MAX 1024

// L1-sharded tensor descriptors (docs/runtime.md, "L1-sharded tensors"). The
// runtime arg of a sharded tensor is the address of its descriptor in this area
// of the node register page instead of a DRAM base; the launch writes the same
// descriptors on every node. Pages are numbered row-major over the tensor's 2-D
// page grid (outer dimensions folded into rows); shard k (row-major over the
// shard grid) lives on node CORES[k] at L1_BASE, its pages row-major.
#define TTL_SHARD_DESC_OFFSET 0x3000u
#define TTL_SHARD_DESC_SIZE 0x1000u
#define TTL_SHARD_L1_BASE 0      // L1 address of every node's shard
#define TTL_SHARD_WIDTH_PAGES 1  // pages per row of the tensor
#define TTL_SHARD_ROWS 2         // pages per shard, down
#define TTL_SHARD_COLS 3         // pages per shard, across
#define TTL_SHARD_GRID_COLS 4    // shards per row of the shard grid
#define TTL_SHARD_COUNT 5        // shards (the words after the header)
#define TTL_SHARD_HEADER_WORDS 8
// Then one word per shard: its node, x | y << 8.

#define TTL_HART_ARGS_BASE 0xF0010000u
#define TTL_ARGS_OFFSET 0x0000u
#define TTL_COMMON_ARGS_OFFSET 0x1000u
#define TTL_NOC_QUEUE_OFFSET 0x2000u
#define TTL_NOC_QUEUE_SIZE 0x1000u
#define TTL_MAILBOX_OFFSET 0x3000u
#define TTL_HART_INFO_OFFSET 0x3100u
#define TTL_PRINT_OFFSET 0x3200u
#define TTL_PRINT_SIZE 0x0E00u
#define TTL_HART_ARGS_SIZE 0x4000u
#define TTL_ARGS_MAX 1024
// Mailbox words (blocking waits, errors); __ttl_yield in crt0.S writes RESUME.
#define TTL_MB_A 0
#define TTL_MB_B 1
#define TTL_MB_KIND 2
#define TTL_MB_SITE 3
#define TTL_MB_RESUME 4
#define TTL_MB_C 5  // third error word
// Hart info words.
#define TTL_HINFO_NUM_ARGS 0
#define TTL_HINFO_NUM_COMMON_ARGS 1

#define TTL_COP_QUEUE_BASE 0xF0020000u
#define TTL_COP_QUEUE_SIZE 0x10000u
// Word 0 holds the number of queued commands; commands start at byte 32.
#define TTL_COP_HEADER_BYTES 32
#define TTL_COP_CMD_WORDS 8
#define TTL_COP_CAPACITY ((TTL_COP_QUEUE_SIZE - TTL_COP_HEADER_BYTES) / (TTL_COP_CMD_WORDS * 4))

#define TTL_MMIO_BASE 0xF0100000u
#define TTL_MMIO_SIZE 0x1000u
// Doorbell registers (byte offsets). Wait/error arguments go in the mailbox first.
#define TTL_MMIO_NOC_FLUSH 0x0u
#define TTL_MMIO_COP_FLUSH 0x8u
#define TTL_MMIO_ERROR 0xCu
// Debugging (written only by kernels that print or have signposts).
#define TTL_MMIO_PRINT 0x10u           // value 1: the print call ended; 0: the buffer is full
#define TTL_MMIO_SIGNPOST_BEGIN 0x14u  // value: address of the signpost's name (NUL-terminated)
#define TTL_MMIO_SIGNPOST_END 0x18u    // value: the same address

// Print buffer (hart-private, in HART_ARGS): word 0 counts the items, which start
// at byte 16 and are 4 words each: tag, a, b, c. The emulator formats and empties
// it when the print doorbell rings. Strings are read from kernel memory.
#define TTL_PRINT_HEADER_BYTES 16
#define TTL_PRINT_ITEM_WORDS 4
#define TTL_PRINT_CAPACITY \
  ((TTL_PRINT_SIZE - TTL_PRINT_HEADER_BYTES) / (TTL_PRINT_ITEM_WORDS * 4))
// One DPRINT call is a FORMAT item followed by its argument items (api/debug/dprint.h).
#define TTL_PRINT_FORMAT 1  // a: format string address, b: argument items that follow
#define TTL_PRINT_STR 2     // a: address of a NUL-terminated string
#define TTL_PRINT_INT 3     // a: int32
#define TTL_PRINT_UINT 4    // a: uint32
#define TTL_PRINT_INT64 5   // a: low word, b: high word
#define TTL_PRINT_UINT64 6  // a: low word, b: high word
#define TTL_PRINT_FLOAT 7   // a: float32 bits
#define TTL_PRINT_BOOL 8    // a: 0 or 1
#define TTL_PRINT_BF16 9    // a: bfloat16 bits
#define TTL_PRINT_CHAR 11   // a: the character
// a: L1 address of the tile, b: h0 | h1 << 8 | hs << 16 | w0 << 24,
// c: w1 | ws << 8 | MAX_BYTES << 16 | TTL_FMT_* << 24 | TTL_TSLICE_* flags << 28
#define TTL_PRINT_TSLICE 10
#define TTL_TSLICE_ENDL_ROWS 1u
#define TTL_TSLICE_UNTILIZE 2u
#define TTL_TSLICE_NO_CB_ACCESS 4u  // built on the math thread, which has no CBs

// NOC requests are queued like coprocessor commands (word 0 = count, 8-word
// entries from byte 32): cmd, src lo, src hi, dst lo, dst hi, size, extra,
// return address of the API call. The emulator runs the queue on a barrier,
// when it is full, on cb_push_back/cb_pop_front and whenever the hart stops.
#define TTL_NOC_HEADER_BYTES 32
#define TTL_NOC_CMD_WORDS 8
#define TTL_NOC_CAPACITY ((TTL_NOC_QUEUE_SIZE - TTL_NOC_HEADER_BYTES) / (TTL_NOC_CMD_WORDS * 4))
#define TTL_NOC_READ 1
#define TTL_NOC_WRITE 2
#define TTL_NOC_WRITE_MCAST 3
#define TTL_NOC_SEM_INC 4
// In a multicast request's extra word (num_dests): the sender is a destination too.
#define TTL_NOC_MCAST_LOOPBACK 0x80000000u
// In a read/write request's extra word: a tensor page in a node's L1 (the profile
// counts these as local or remote L1 copies, the others as DRAM or node traffic).
#define TTL_NOC_SHARD_PAGE 1u

// Wait kinds. Mailbox: [0] a, [1] b, [2] kind, [3] call site; then call __ttl_yield.
#define TTL_WAIT_RESERVE_BACK 1
#define TTL_WAIT_FRONT 2
#define TTL_WAIT_SEM_EQ 3
#define TTL_WAIT_SEM_GE 4

// Error doorbell kinds. Mailbox: [0] a, [1] b.
#define TTL_ERR_ARG_INDEX 1
#define TTL_ERR_COMMON_ARG_INDEX 2
#define TTL_ERR_DFB_INDEX 3
#define TTL_ERR_DFB_UNCONFIGURED 4
#define TTL_ERR_SEM_INDEX 5
#define TTL_ERR_DFB_PUSH_OVERFLOW 6
#define TTL_ERR_DFB_POP_UNDERFLOW 7
#define TTL_ERR_SLICE_BOUNDS 8  // A: offset, B: size << 16 | extent, C: what (C string)
#define TTL_ERR_DIVISION_BY_ZERO 9  // A: the dividend
#define TTL_ERR_SHARD_PAGE 10  // A: page, B: pages of the sharded tensor
#define TTL_ERR_UNSUPPORTED 11  // C: what (C string): an API use the emulator does not model
#define TTL_ERR_ASSERT 12  // C: the condition (C string): ASSERT(condition) failed

// NOC address: low 32 bits = address on the target. High 32 bits: for nodes
// x0 | y0 << 8 | x1 << 16 | y1 << 24 (a unicast has x1 == x0, y1 == y0); for
// DRAM, TTL_NOC_DRAM_FLAG | bank.
#define TTL_NOC_DRAM_FLAG 0x80000000u

// Coprocessor opcodes (command word 0).
#define TTL_COP_ACQUIRE 1
// 2 was TTL_COP_RELEASE: DST is cleared on acquire, release sends nothing.
#define TTL_COP_UNPACK 3        // addr, fmt, dst
#define TTL_COP_BINARY 4        // op, addr_a, fmt_a, addr_b, fmt_b, dst
#define TTL_COP_BINARY_DST 5    // op, dst_a, dst_b, dst_out
#define TTL_COP_MATMUL 6        // addr_a, fmt_a, addr_b, fmt_b, dst
#define TTL_COP_UNARY 7         // op, dst
#define TTL_COP_FILL 8          // dst, value bits
#define TTL_COP_BCAST 9         // addr, fmt, dst, kind
#define TTL_COP_PACK 10         // dst, addr, fmt, l1_acc
#define TTL_COP_UNARY_PARAM 11  // op, dst, param0, param1, param2 (float bits or ints)
// Reductions, transpose, where and mask own opcodes 15..20.
#define TTL_COP_REDUCE 15       // addr, fmt, scaler_addr, scaler_fmt, dst, pool | dim << 4
#define TTL_COP_TRANSPOSE 16    // addr, fmt, dst
#define TTL_COP_WHERE 17        // dst_cond, dst_true, dst_false, dst_out
#define TTL_COP_MASK 18         // dst_data, dst_mask, posinf
#define TTL_COP_COMPARE_ZERO 12 // kind, dst
#define TTL_COP_SCALAR 13       // op (TTL_BINOP_*), dst, value bits: DST[dst] = DST[dst] op value
#define TTL_COP_DST_MODE 14     // fp32: 1 = DST keeps fp32 between ops, 0 = bf16-rounded

#define TTL_BINOP_ADD 0
#define TTL_BINOP_SUB 1
#define TTL_BINOP_MUL 2
#define TTL_BINOP_DIV 3
// Binary functions (BINOP 4..31): also the op of TTL_COP_SCALAR.
#define TTL_BINOP_MAX 4
#define TTL_BINOP_MIN 5
#define TTL_BINOP_RSUB 6        // b - a
#define TTL_BINOP_MOD 8         // Python floor modulo (torch.remainder)

// Comparisons with zero (TTL_COP_COMPARE_ZERO kinds): DST = 1.0 where it holds, else 0.0.
#define TTL_CMPZ_GT 0
#define TTL_CMPZ_LT 1
#define TTL_CMPZ_GE 2
#define TTL_CMPZ_LE 3
#define TTL_CMPZ_EQ 4
#define TTL_CMPZ_NE 5

#define TTL_UNOP_EXP 0
#define TTL_UNOP_LOG 1
#define TTL_UNOP_SQRT 2
#define TTL_UNOP_RSQRT 3
#define TTL_UNOP_RECIP 4
#define TTL_UNOP_RELU 5
#define TTL_UNOP_SIGMOID 6
#define TTL_UNOP_TANH 7
#define TTL_UNOP_ABS 8
#define TTL_UNOP_NEGATIVE 9
// 10..79: Appendix B unary functions; 40.. take parameters (TTL_COP_UNARY_PARAM).
#define TTL_UNOP_EXP2 10
#define TTL_UNOP_EXPM1 11
#define TTL_UNOP_LOG1P 12
#define TTL_UNOP_SQUARE 13
#define TTL_UNOP_TAN 14
#define TTL_UNOP_ATAN 15
#define TTL_UNOP_ATANH 16
#define TTL_UNOP_SIN 17
#define TTL_UNOP_ASIN 18
#define TTL_UNOP_ASINH 19
#define TTL_UNOP_COS 20
#define TTL_UNOP_ACOS 21
#define TTL_UNOP_ACOSH 22
#define TTL_UNOP_SILU 23
#define TTL_UNOP_SOFTSIGN 24
#define TTL_UNOP_HARDSIGMOID 25
#define TTL_UNOP_SIGN 26
#define TTL_UNOP_SIGNBIT 27
#define TTL_UNOP_FLOOR 28
#define TTL_UNOP_CEIL 29
#define TTL_UNOP_TRUNC 30
#define TTL_UNOP_FRAC 31
#define TTL_UNOP_GELU 32
#define TTL_UNOP_GELU_APPROX 33
#define TTL_UNOP_POWER 40
#define TTL_UNOP_RELU_MAX 41
#define TTL_UNOP_RELU_MIN 42
#define TTL_UNOP_LEAKY_RELU 43
#define TTL_UNOP_ELU 44
#define TTL_UNOP_CELU 45
#define TTL_UNOP_PRELU 46
#define TTL_UNOP_SOFTPLUS 47
#define TTL_UNOP_HARDTANH 48
#define TTL_UNOP_SELU 49
#define TTL_UNOP_ROUND 50
#define TTL_UNOP_CLAMP 51
#define TTL_UNOP_THRESHOLD 52
#define TTL_UNOP_EXP_OPTIONS 53  // A: scale (f32 bits), B: iterations per face

// Data formats (TT-Metal DataFormat values).
#define TTL_FMT_FLOAT32 0
#define TTL_FMT_FLOAT16_B 5
#define TTL_FMT_BFP8_B 6
