// Device-side implementation of ttl/kernel_api.h for the emulated Tensix node.
//
// Header-only on purpose: every kernel ELF gets the implementation from the
// same `-I ttl/runtime/device/include` it already uses, so no extra source has
// to be compiled or linked by any toolchain. Included at the end of
// kernel_api.h; do not include directly.
//
// Every public API function is `noinline` (internal helpers are always_inline):
// queued requests and waits record the function's return address, i.e. the
// kernel's call site, which is what error and deadlock reports name. Error
// doorbells are raised from leaf code, where the ra register is that call site.
//
// DFB counters, pointers and semaphores are plain words in the node-shared
// register page and are updated by this RISC-V code directly. NOC requests and
// tile-math commands are appended to hart-private queues. Only three things
// reach the emulator, through doorbell writes in the MMIO page: queue flushes
// (NOC barrier, full queue), blocking waits (the emulator parks the hart until
// the condition can hold) and API misuse errors.
#pragma once

#include "ttl/device_map.h"

#define TTL_API inline __attribute__((noinline))
#define TTL_INLINE inline __attribute__((always_inline))

extern "C" void __ttl_yield();

namespace ttl_detail {

TTL_INLINE volatile uint32_t* word(uint32_t addr) {
  return reinterpret_cast<volatile uint32_t*>(addr);
}
TTL_INLINE volatile uint32_t* node_info() {
  return word(TTL_NODE_REGS_BASE + TTL_NODE_INFO_OFFSET);
}
TTL_INLINE volatile uint32_t* hart_info() {
  return word(TTL_HART_ARGS_BASE + TTL_HART_INFO_OFFSET);
}
TTL_INLINE volatile uint32_t* mailbox() { return word(TTL_HART_ARGS_BASE + TTL_MAILBOX_OFFSET); }
TTL_INLINE void doorbell(uint32_t reg, uint32_t value) { *word(TTL_MMIO_BASE + reg) = value; }

// Reports a kernel error to the emulator, which stops the run with a message.
TTL_INLINE void fail(uint32_t kind, uint32_t a, uint32_t b) {
  volatile uint32_t* mb = mailbox();
  mb[TTL_MB_A] = a;
  mb[TTL_MB_B] = b;
  doorbell(TTL_MMIO_ERROR, kind);
}

// Parks the hart until the emulator sees that the wait can be satisfied.
// __ttl_yield (crt0.S) ends in the emulator's stop address, so no hook runs.
// `site` is the API call's return address, which deadlock reports name.
TTL_INLINE void block(uint32_t kind, uint32_t a, uint32_t b, uint32_t site) {
  volatile uint32_t* mb = mailbox();
  mb[TTL_MB_A] = a;
  mb[TTL_MB_B] = b;
  mb[TTL_MB_KIND] = kind;
  mb[TTL_MB_SITE] = site;
  __ttl_yield();
}

#define TTL_CALL_SITE reinterpret_cast<uint32_t>(__builtin_return_address(0))

TTL_INLINE volatile uint32_t* dfb(uint32_t cb_id) {
  if (cb_id >= node_info()[TTL_INFO_DFB_COUNT]) fail(TTL_ERR_DFB_INDEX, cb_id, 0);
  volatile uint32_t* d =
      word(TTL_NODE_REGS_BASE + TTL_DFB_TABLE_OFFSET) + cb_id * TTL_DFB_WORDS;
  if (!d[TTL_DFB_CONFIGURED]) fail(TTL_ERR_DFB_UNCONFIGURED, cb_id, 0);
  return d;
}

TTL_INLINE uint32_t dfb_used(volatile uint32_t* d) { return d[TTL_DFB_RECEIVED] - d[TTL_DFB_ACKED]; }

TTL_INLINE uint32_t advance(volatile uint32_t* d, uint32_t ptr, uint32_t num_pages) {
  uint32_t next = ptr + num_pages * d[TTL_DFB_PAGE_SIZE];
  if (next >= d[TTL_DFB_BASE] + d[TTL_DFB_SIZE]) next -= d[TTL_DFB_SIZE];
  return next;
}

// Queues one NOC request (executed by the emulator at the next flush point).
TTL_INLINE void noc(uint32_t cmd, uint64_t src, uint64_t dst, uint32_t size, uint32_t extra) {
  volatile uint32_t* q = word(TTL_HART_ARGS_BASE + TTL_NOC_QUEUE_OFFSET);
  uint32_t n = q[0];
  if (n >= TTL_NOC_CAPACITY) {
    doorbell(TTL_MMIO_NOC_FLUSH, 1);  // the emulator runs the queue and empties it
    n = 0;
  }
  volatile uint32_t* e = q + TTL_NOC_HEADER_BYTES / 4 + n * TTL_NOC_CMD_WORDS;
  e[0] = cmd;
  e[1] = static_cast<uint32_t>(src);
  e[2] = static_cast<uint32_t>(src >> 32);
  e[3] = static_cast<uint32_t>(dst);
  e[4] = static_cast<uint32_t>(dst >> 32);
  e[5] = size;
  e[6] = extra;
  e[7] = TTL_CALL_SITE;
  q[0] = n + 1;
}

// Completes every queued NOC request (what a barrier waits for).
TTL_INLINE void noc_flush() {
  if (*word(TTL_HART_ARGS_BASE + TTL_NOC_QUEUE_OFFSET)) doorbell(TTL_MMIO_NOC_FLUSH, 1);
}

TTL_INLINE uint64_t node_noc_addr(uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1,
                                  uint32_t addr) {
  uint32_t hi = (x0 & 0xff) | (y0 & 0xff) << 8 | (x1 & 0xff) << 16 | (y1 & 0xff) << 24;
  return static_cast<uint64_t>(hi) << 32 | addr;
}

TTL_INLINE uint64_t dram_noc_addr(uint32_t base, uint32_t page_size, uint32_t page_id,
                                  uint32_t offset) {
  uint32_t banks = node_info()[TTL_INFO_DRAM_BANKS];
  uint32_t addr = base + (page_id / banks) * page_size + offset;
  return static_cast<uint64_t>(TTL_NOC_DRAM_FLAG | (page_id % banks)) << 32 | addr;
}

// Appends one command to the coprocessor queue; a full queue is flushed first.
// Word 7 is the API call's return address, so errors can name the source line.
TTL_INLINE void cop(uint32_t op, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0, uint32_t d = 0,
                    uint32_t e = 0, uint32_t f = 0) {
  volatile uint32_t* q = word(TTL_COP_QUEUE_BASE);
  uint32_t n = q[0];
  if (n >= TTL_COP_CAPACITY) {
    doorbell(TTL_MMIO_COP_FLUSH, 1);  // the emulator runs the queue and empties it
    n = 0;
  }
  volatile uint32_t* cmd = q + TTL_COP_HEADER_BYTES / 4 + n * TTL_COP_CMD_WORDS;
  cmd[0] = op;
  cmd[1] = a;
  cmd[2] = b;
  cmd[3] = c;
  cmd[4] = d;
  cmd[5] = e;
  cmd[6] = f;
  cmd[7] = TTL_CALL_SITE;
  q[0] = n + 1;  // publish last: a hart stopped mid-command leaves no torn entry
}

// Address of tile `tile` of the front (read) or back (write) block of a DFB.
TTL_INLINE uint32_t front_tile(volatile uint32_t* d, uint32_t tile) {
  return d[TTL_DFB_RD_PTR] + tile * d[TTL_DFB_PAGE_SIZE];
}
TTL_INLINE uint32_t back_tile(volatile uint32_t* d, uint32_t tile) {
  return d[TTL_DFB_WR_PTR] + tile * d[TTL_DFB_PAGE_SIZE];
}

inline uint32_t pack_l1_acc = 0;

// Blocking slow paths, out of line so the API fast paths stay leaf functions
// without stack frames. Each re-checks its condition after every resume, so a
// spurious resume is harmless.
__attribute__((noinline, cold)) inline void reserve_slow(volatile uint32_t* d, uint32_t cb_id,
                                                         uint32_t num_pages, uint32_t site) {
  while (d[TTL_DFB_NUM_PAGES] - dfb_used(d) < num_pages) {
    block(TTL_WAIT_RESERVE_BACK, cb_id, num_pages, site);
  }
}

__attribute__((noinline, cold)) inline void wait_front_slow(volatile uint32_t* d, uint32_t cb_id,
                                                            uint32_t num_pages, uint32_t site) {
  while (dfb_used(d) < num_pages) block(TTL_WAIT_FRONT, cb_id, num_pages, site);
}

__attribute__((noinline, cold)) inline void sem_wait_slow(volatile uint32_t* sem, uint32_t val,
                                                          uint32_t site) {
  while (*sem != val) block(TTL_WAIT_SEM_EQ, reinterpret_cast<uint32_t>(sem), val, site);
}

}  // namespace ttl_detail

// ---------------------------------------------------------------- arguments
TTL_API uint32_t ttl_get_arg(uint32_t index) {
  volatile uint32_t* hi = ttl_detail::hart_info();
  if (index >= hi[TTL_HINFO_NUM_ARGS]) {
    ttl_detail::fail(TTL_ERR_ARG_INDEX, index, hi[TTL_HINFO_NUM_ARGS]);
  }
  return ttl_detail::word(TTL_HART_ARGS_BASE + TTL_ARGS_OFFSET)[index];
}

TTL_API uint32_t ttl_get_common_arg(uint32_t index) {
  volatile uint32_t* hi = ttl_detail::hart_info();
  if (index >= hi[TTL_HINFO_NUM_COMMON_ARGS]) {
    ttl_detail::fail(TTL_ERR_COMMON_ARG_INDEX, index, hi[TTL_HINFO_NUM_COMMON_ARGS]);
  }
  return ttl_detail::word(TTL_HART_ARGS_BASE + TTL_COMMON_ARGS_OFFSET)[index];
}

TTL_API uint32_t ttl_node_x() { return ttl_detail::node_info()[TTL_INFO_NODE_X]; }
TTL_API uint32_t ttl_node_y() { return ttl_detail::node_info()[TTL_INFO_NODE_Y]; }
TTL_API uint32_t ttl_grid_x() { return ttl_detail::node_info()[TTL_INFO_GRID_X]; }
TTL_API uint32_t ttl_grid_y() { return ttl_detail::node_info()[TTL_INFO_GRID_Y]; }

// ------------------------------------------------------- dataflow buffers
TTL_API void cb_reserve_back(uint32_t cb_id, uint32_t num_pages) {
  volatile uint32_t* d = ttl_detail::dfb(cb_id);
  if (d[TTL_DFB_NUM_PAGES] - ttl_detail::dfb_used(d) < num_pages) {
    ttl_detail::reserve_slow(d, cb_id, num_pages, TTL_CALL_SITE);
  }
}

TTL_API void cb_push_back(uint32_t cb_id, uint32_t num_pages) {
  volatile uint32_t* d = ttl_detail::dfb(cb_id);
  if (ttl_detail::dfb_used(d) + num_pages > d[TTL_DFB_NUM_PAGES]) {
    ttl_detail::fail(TTL_ERR_DFB_PUSH_OVERFLOW, cb_id, num_pages);
  }
  // Data must have landed before the consumer can see the pages. (Packed
  // tiles need no flush here: the emulator drains the coprocessor queue
  // whenever this hart stops, before any other hart runs.)
  ttl_detail::noc_flush();
  d[TTL_DFB_WR_PTR] = ttl_detail::advance(d, d[TTL_DFB_WR_PTR], num_pages);
  d[TTL_DFB_RECEIVED] = d[TTL_DFB_RECEIVED] + num_pages;
}

TTL_API void cb_wait_front(uint32_t cb_id, uint32_t num_pages) {
  volatile uint32_t* d = ttl_detail::dfb(cb_id);
  if (ttl_detail::dfb_used(d) < num_pages) {
    ttl_detail::wait_front_slow(d, cb_id, num_pages, TTL_CALL_SITE);
  }
}

TTL_API void cb_pop_front(uint32_t cb_id, uint32_t num_pages) {
  volatile uint32_t* d = ttl_detail::dfb(cb_id);
  if (ttl_detail::dfb_used(d) < num_pages) {
    ttl_detail::fail(TTL_ERR_DFB_POP_UNDERFLOW, cb_id, num_pages);
  }
  ttl_detail::noc_flush();  // outgoing writes must have read the pages before they are reused
  d[TTL_DFB_RD_PTR] = ttl_detail::advance(d, d[TTL_DFB_RD_PTR], num_pages);
  d[TTL_DFB_ACKED] = d[TTL_DFB_ACKED] + num_pages;
}

TTL_API uint32_t get_write_ptr(uint32_t cb_id) { return ttl_detail::dfb(cb_id)[TTL_DFB_WR_PTR]; }
TTL_API uint32_t get_read_ptr(uint32_t cb_id) { return ttl_detail::dfb(cb_id)[TTL_DFB_RD_PTR]; }

// -------------------------------------------------------------------- NOC
TTL_API uint64_t get_noc_addr(uint32_t x, uint32_t y, uint32_t addr) {
  return ttl_detail::node_noc_addr(x, y, x, y, addr);
}

TTL_API uint64_t get_noc_multicast_addr(uint32_t x_start, uint32_t y_start, uint32_t x_end,
                                        uint32_t y_end, uint32_t addr) {
  return ttl_detail::node_noc_addr(x_start, y_start, x_end, y_end, addr);
}

TTL_API void noc_async_read(uint64_t src_noc_addr, uint32_t dst_local_l1_addr, uint32_t size) {
  ttl_detail::noc(TTL_NOC_READ, src_noc_addr, dst_local_l1_addr, size, 0);
}

TTL_API void noc_async_write(uint32_t src_local_l1_addr, uint64_t dst_noc_addr, uint32_t size) {
  ttl_detail::noc(TTL_NOC_WRITE, src_local_l1_addr, dst_noc_addr, size, 0);
}

TTL_API void noc_async_write_multicast(uint32_t src_local_l1_addr, uint64_t dst_noc_addr_multicast,
                                       uint32_t size, uint32_t num_dests) {
  ttl_detail::noc(TTL_NOC_WRITE_MCAST, src_local_l1_addr, dst_noc_addr_multicast, size, num_dests);
}

TTL_API void noc_async_read_barrier() { ttl_detail::noc_flush(); }
TTL_API void noc_async_write_barrier() { ttl_detail::noc_flush(); }

TTL_API uint64_t TensorAccessor::get_noc_addr(uint32_t page_id, uint32_t offset) const {
  return ttl_detail::dram_noc_addr(bank_base_address_, page_size_, page_id, offset);
}

TTL_API void noc_async_read_tile(uint32_t page_id, const TensorAccessor& accessor,
                                 uint32_t dst_local_l1_addr) {
  uint64_t src = ttl_detail::dram_noc_addr(accessor.bank_base_address(), accessor.page_size(),
                                           page_id, 0);
  ttl_detail::noc(TTL_NOC_READ, src, dst_local_l1_addr, accessor.page_size(), 0);
}

TTL_API void noc_async_write_tile(uint32_t page_id, const TensorAccessor& accessor,
                                  uint32_t src_local_l1_addr) {
  uint64_t dst = ttl_detail::dram_noc_addr(accessor.bank_base_address(), accessor.page_size(),
                                           page_id, 0);
  ttl_detail::noc(TTL_NOC_WRITE, src_local_l1_addr, dst, accessor.page_size(), 0);
}

TTL_API uint32_t get_semaphore(uint32_t semaphore_id) {
  if (semaphore_id >= ttl_detail::node_info()[TTL_INFO_SEM_COUNT]) {
    ttl_detail::fail(TTL_ERR_SEM_INDEX, semaphore_id, ttl_detail::node_info()[TTL_INFO_SEM_COUNT]);
  }
  return TTL_NODE_REGS_BASE + TTL_SEM_OFFSET + semaphore_id * 4;
}

TTL_API void noc_semaphore_wait(volatile uint32_t* sem_addr, uint32_t val) {
  if (*sem_addr != val) ttl_detail::sem_wait_slow(sem_addr, val, TTL_CALL_SITE);
}

TTL_API void noc_semaphore_set(volatile uint32_t* sem_addr, uint32_t val) { *sem_addr = val; }

TTL_API void noc_semaphore_inc(uint64_t sem_noc_addr, uint32_t incr) {
  ttl_detail::noc(TTL_NOC_SEM_INC, 0, sem_noc_addr, 4, incr);
}

// ----------------------------------------------------------------- compute
// DST is zeroed on acquire (the hardware packer clears it on release), so
// matmul accumulation starts from zero in every acquire/release section.
TTL_API void tile_regs_acquire() { ttl_detail::cop(TTL_COP_ACQUIRE); }
TTL_API void tile_regs_commit() {}
TTL_API void tile_regs_wait() {}
TTL_API void tile_regs_release() { ttl_detail::cop(TTL_COP_RELEASE); }

// The *_init calls configure unpacker/math state on silicon; the coprocessor
// model takes every operand's format from its DFB, so they have nothing to do.
TTL_API void copy_tile_init(uint32_t) {}
TTL_API void binary_op_init_common(uint32_t, uint32_t, uint32_t) {}
TTL_API void add_tiles_init(uint32_t, uint32_t) {}
TTL_API void sub_tiles_init(uint32_t, uint32_t) {}
TTL_API void mul_tiles_init(uint32_t, uint32_t) {}
TTL_API void add_binary_tile_init() {}
TTL_API void sub_binary_tile_init() {}
TTL_API void mul_binary_tile_init() {}
TTL_API void div_binary_tile_init() {}
TTL_API void mm_init(uint32_t, uint32_t, uint32_t) {}
TTL_API void fill_tile_init() {}
TTL_API void unary_bcast_init(uint32_t, BroadcastType) {}

TTL_API void copy_tile(uint32_t cb_id, uint32_t tile_index, uint32_t dst_index) {
  volatile uint32_t* d = ttl_detail::dfb(cb_id);
  ttl_detail::cop(TTL_COP_UNPACK, ttl_detail::front_tile(d, tile_index), d[TTL_DFB_FORMAT],
                  dst_index);
}

namespace ttl_detail {
TTL_INLINE void binary(uint32_t op, uint32_t cb_a, uint32_t cb_b, uint32_t tile_a,
                       uint32_t tile_b, uint32_t dst_index) {
  volatile uint32_t* a = dfb(cb_a);
  volatile uint32_t* b = dfb(cb_b);
  cop(TTL_COP_BINARY, op, front_tile(a, tile_a), a[TTL_DFB_FORMAT], front_tile(b, tile_b),
      b[TTL_DFB_FORMAT], dst_index);
}
}  // namespace ttl_detail

TTL_API void add_tiles(uint32_t cb_a, uint32_t cb_b, uint32_t tile_a, uint32_t tile_b,
                       uint32_t dst_index) {
  ttl_detail::binary(TTL_BINOP_ADD, cb_a, cb_b, tile_a, tile_b, dst_index);
}
TTL_API void sub_tiles(uint32_t cb_a, uint32_t cb_b, uint32_t tile_a, uint32_t tile_b,
                       uint32_t dst_index) {
  ttl_detail::binary(TTL_BINOP_SUB, cb_a, cb_b, tile_a, tile_b, dst_index);
}
TTL_API void mul_tiles(uint32_t cb_a, uint32_t cb_b, uint32_t tile_a, uint32_t tile_b,
                       uint32_t dst_index) {
  ttl_detail::binary(TTL_BINOP_MUL, cb_a, cb_b, tile_a, tile_b, dst_index);
}

TTL_API void add_binary_tile(uint32_t dst_a, uint32_t dst_b, uint32_t dst_out) {
  ttl_detail::cop(TTL_COP_BINARY_DST, TTL_BINOP_ADD, dst_a, dst_b, dst_out);
}
TTL_API void sub_binary_tile(uint32_t dst_a, uint32_t dst_b, uint32_t dst_out) {
  ttl_detail::cop(TTL_COP_BINARY_DST, TTL_BINOP_SUB, dst_a, dst_b, dst_out);
}
TTL_API void mul_binary_tile(uint32_t dst_a, uint32_t dst_b, uint32_t dst_out) {
  ttl_detail::cop(TTL_COP_BINARY_DST, TTL_BINOP_MUL, dst_a, dst_b, dst_out);
}
TTL_API void div_binary_tile(uint32_t dst_a, uint32_t dst_b, uint32_t dst_out) {
  ttl_detail::cop(TTL_COP_BINARY_DST, TTL_BINOP_DIV, dst_a, dst_b, dst_out);
}

TTL_API void matmul_tiles(uint32_t cb_a, uint32_t cb_b, uint32_t tile_a, uint32_t tile_b,
                          uint32_t dst_index) {
  volatile uint32_t* a = ttl_detail::dfb(cb_a);
  volatile uint32_t* b = ttl_detail::dfb(cb_b);
  ttl_detail::cop(TTL_COP_MATMUL, ttl_detail::front_tile(a, tile_a), a[TTL_DFB_FORMAT],
                  ttl_detail::front_tile(b, tile_b), b[TTL_DFB_FORMAT], dst_index);
}

#define TTL_DEFINE_UNARY_TILE_OP(name, code) \
  TTL_API void name##_tile_init() {}         \
  TTL_API void name##_tile(uint32_t dst_index) { ttl_detail::cop(TTL_COP_UNARY, code, dst_index); }
TTL_DEFINE_UNARY_TILE_OP(exp, TTL_UNOP_EXP)
TTL_DEFINE_UNARY_TILE_OP(log, TTL_UNOP_LOG)
TTL_DEFINE_UNARY_TILE_OP(sqrt, TTL_UNOP_SQRT)
TTL_DEFINE_UNARY_TILE_OP(rsqrt, TTL_UNOP_RSQRT)
TTL_DEFINE_UNARY_TILE_OP(recip, TTL_UNOP_RECIP)
TTL_DEFINE_UNARY_TILE_OP(relu, TTL_UNOP_RELU)
TTL_DEFINE_UNARY_TILE_OP(sigmoid, TTL_UNOP_SIGMOID)
TTL_DEFINE_UNARY_TILE_OP(tanh, TTL_UNOP_TANH)
TTL_DEFINE_UNARY_TILE_OP(abs, TTL_UNOP_ABS)
TTL_DEFINE_UNARY_TILE_OP(negative, TTL_UNOP_NEGATIVE)
#undef TTL_DEFINE_UNARY_TILE_OP

TTL_API void fill_tile_bitcast(uint32_t dst_index, uint32_t value_bits) {
  ttl_detail::cop(TTL_COP_FILL, dst_index, value_bits);
}

TTL_API void unary_bcast(uint32_t cb_id, uint32_t tile_index, uint32_t dst_index,
                         BroadcastType kind) {
  volatile uint32_t* d = ttl_detail::dfb(cb_id);
  ttl_detail::cop(TTL_COP_BCAST, ttl_detail::front_tile(d, tile_index), d[TTL_DFB_FORMAT],
                  dst_index, static_cast<uint32_t>(kind));
}

TTL_API void pack_tile(uint32_t dst_index, uint32_t cb_out, uint32_t out_tile) {
  volatile uint32_t* d = ttl_detail::dfb(cb_out);
  ttl_detail::cop(TTL_COP_PACK, dst_index, ttl_detail::back_tile(d, out_tile), d[TTL_DFB_FORMAT],
                  ttl_detail::pack_l1_acc);
}

TTL_API void pack_reconfig_l1_acc(uint32_t enable) { ttl_detail::pack_l1_acc = enable ? 1 : 0; }

#undef TTL_API
#undef TTL_INLINE
#undef TTL_CALL_SITE
