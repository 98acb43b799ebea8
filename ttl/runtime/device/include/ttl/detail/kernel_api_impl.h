// Device-side implementation of ttl/kernel_api.h for the emulated Tensix node.
//
// Header-only on purpose: every kernel ELF gets the implementation from the
// same `-I ttl/runtime/device/include` it already uses, so no extra source has
// to be compiled or linked by any toolchain. Included at the end of
// kernel_api.h; do not include directly.
//
// Structure: each API function is an always_inline forwarder to a `noinline`
// implementation in namespace ttl_impl, followed by an empty asm statement so
// the call is never a tail call. Inside the implementation the return address
// (TTL_CALL_SITE) is therefore the kernel's own call site: queued requests,
// waits and errors record it, and reports name that source line.
//
// DFB counters, pointers and semaphores are plain words in the node-shared
// register page and are updated by this RISC-V code directly. NOC requests and
// tile-math commands are appended to hart-private queues. Python runs only on
// writes to the MMIO page (queue flushes: NOC barrier or full queue; API
// misuse errors) and when a blocking call reaches __ttl_stop in crt0.S, the
// emulator's stop address.
#pragma once

#include "ttl/device_map.h"

#define TTL_IMPL inline __attribute__((noinline))
#define TTL_INLINE inline __attribute__((always_inline))
#define TTL_CALL_SITE reinterpret_cast<uint32_t>(__builtin_return_address(0))

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
TTL_INLINE void fail(uint32_t kind, uint32_t a, uint32_t b, uint32_t site) {
  volatile uint32_t* mb = mailbox();
  mb[TTL_MB_A] = a;
  mb[TTL_MB_B] = b;
  mb[TTL_MB_SITE] = site;
  doorbell(TTL_MMIO_ERROR, kind);
}

// Parks the hart until the emulator sees that the wait can be satisfied.
// __ttl_yield (crt0.S) ends in the emulator's stop address, so no hook runs.
TTL_INLINE void block(uint32_t kind, uint32_t a, uint32_t b, uint32_t site) {
  volatile uint32_t* mb = mailbox();
  mb[TTL_MB_A] = a;
  mb[TTL_MB_B] = b;
  mb[TTL_MB_KIND] = kind;
  mb[TTL_MB_SITE] = site;
  __ttl_yield();
}

TTL_INLINE volatile uint32_t* dfb(uint32_t cb_id, uint32_t site) {
  if (cb_id >= node_info()[TTL_INFO_DFB_COUNT]) fail(TTL_ERR_DFB_INDEX, cb_id, 0, site);
  volatile uint32_t* d =
      word(TTL_NODE_REGS_BASE + TTL_DFB_TABLE_OFFSET) + cb_id * TTL_DFB_WORDS;
  if (!d[TTL_DFB_CONFIGURED]) fail(TTL_ERR_DFB_UNCONFIGURED, cb_id, 0, site);
  return d;
}

TTL_INLINE uint32_t dfb_used(volatile uint32_t* d) { return d[TTL_DFB_RECEIVED] - d[TTL_DFB_ACKED]; }

TTL_INLINE uint32_t advance(volatile uint32_t* d, uint32_t ptr, uint32_t num_pages) {
  uint32_t next = ptr + num_pages * d[TTL_DFB_PAGE_SIZE];
  if (next >= d[TTL_DFB_BASE] + d[TTL_DFB_SIZE]) next -= d[TTL_DFB_SIZE];
  return next;
}

// Appends one 8-word entry (7 words + call site) to a queue whose word 0 is
// the entry count; a full queue is flushed through its doorbell first.
TTL_INLINE void enqueue(volatile uint32_t* q, uint32_t capacity, uint32_t doorbell_reg,
                        uint32_t w0, uint32_t w1, uint32_t w2, uint32_t w3, uint32_t w4,
                        uint32_t w5, uint32_t w6, uint32_t site) {
  uint32_t n = q[0];
  if (n >= capacity) {
    doorbell(doorbell_reg, 1);  // the emulator runs the queue and empties it
    n = 0;
  }
  volatile uint32_t* e = q + 8 + n * 8;  // 32-byte header, 8-word entries
  e[0] = w0;
  e[1] = w1;
  e[2] = w2;
  e[3] = w3;
  e[4] = w4;
  e[5] = w5;
  e[6] = w6;
  e[7] = site;
  q[0] = n + 1;  // publish last: a hart stopped mid-entry leaves no torn entry
}
static_assert(TTL_NOC_HEADER_BYTES == 32 && TTL_NOC_CMD_WORDS == 8, "queue layout");
static_assert(TTL_COP_HEADER_BYTES == 32 && TTL_COP_CMD_WORDS == 8, "queue layout");

TTL_INLINE volatile uint32_t* noc_queue() {
  return word(TTL_HART_ARGS_BASE + TTL_NOC_QUEUE_OFFSET);
}

TTL_INLINE void noc(uint32_t cmd, uint64_t src, uint64_t dst, uint32_t size, uint32_t extra,
                    uint32_t site) {
  enqueue(noc_queue(), TTL_NOC_CAPACITY, TTL_MMIO_NOC_FLUSH, cmd, static_cast<uint32_t>(src),
          static_cast<uint32_t>(src >> 32), static_cast<uint32_t>(dst),
          static_cast<uint32_t>(dst >> 32), size, extra, site);
}

// Completes every queued NOC request (what a barrier waits for).
TTL_INLINE void noc_flush() {
  if (noc_queue()[0]) doorbell(TTL_MMIO_NOC_FLUSH, 1);
}

TTL_INLINE void cop(uint32_t site, uint32_t op, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0,
                    uint32_t d = 0, uint32_t e = 0, uint32_t f = 0) {
  enqueue(word(TTL_COP_QUEUE_BASE), TTL_COP_CAPACITY, TTL_MMIO_COP_FLUSH, op, a, b, c, d, e, f,
          site);
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

// A tensor's runtime arg is a DRAM base (interleaved) or, for an L1-sharded
// tensor, the address of its descriptor in the node register page.
TTL_INLINE bool is_sharded(uint32_t base) { return base >= TTL_NODE_REGS_BASE; }

// NOC address of page `page_id` of an L1-sharded tensor: its shard's node and the
// page's place in that node's shard (device_map.h describes the descriptor).
TTL_INLINE uint64_t shard_noc_addr(uint32_t desc, uint32_t page_size, uint32_t page_id,
                                   uint32_t offset, uint32_t site) {
  volatile uint32_t* d = word(desc);
  uint32_t width = d[TTL_SHARD_WIDTH_PAGES], rows = d[TTL_SHARD_ROWS], cols = d[TTL_SHARD_COLS];
  uint32_t row = page_id / width, col = page_id % width;
  uint32_t shard = (row / rows) * d[TTL_SHARD_GRID_COLS] + col / cols;
  if (shard >= d[TTL_SHARD_COUNT]) {
    fail(TTL_ERR_SHARD_PAGE, page_id, d[TTL_SHARD_COUNT] * rows * cols, site);
  }
  uint32_t core = d[TTL_SHARD_HEADER_WORDS + shard];
  uint32_t x = core & 0xff, y = core >> 8 & 0xff;
  uint32_t addr = d[TTL_SHARD_L1_BASE] + ((row % rows) * cols + col % cols) * page_size + offset;
  return node_noc_addr(x, y, x, y, addr);
}

TTL_INLINE uint64_t tensor_noc_addr(uint32_t base, uint32_t page_size, uint32_t page_id,
                                    uint32_t offset, uint32_t site) {
  if (is_sharded(base)) return shard_noc_addr(base, page_size, page_id, offset, site);
  return dram_noc_addr(base, page_size, page_id, offset);
}

// Address of tile `tile` of the front (read) or back (write) block of a DFB.
TTL_INLINE uint32_t front_tile(volatile uint32_t* d, uint32_t tile) {
  return d[TTL_DFB_RD_PTR] + tile * d[TTL_DFB_PAGE_SIZE];
}
TTL_INLINE uint32_t back_tile(volatile uint32_t* d, uint32_t tile) {
  return d[TTL_DFB_WR_PTR] + tile * d[TTL_DFB_PAGE_SIZE];
}

inline uint32_t pack_l1_acc = 0;

// This hart's LocalCBInterface of each CB (get_local_cb_interface): filled from
// the DFB table when first asked for, then kept current by this hart's cb_* calls.
inline LocalCBInterface local_cb_interfaces[TTL_DFB_MAX];
inline uint64_t local_cb_interfaces_shown = 0;  // bit i: CB i's view was handed out

TTL_INLINE void show_local_cb_interface(uint32_t cb_id, volatile uint32_t* d) {
  LocalCBInterface& v = local_cb_interfaces[cb_id];
  v.fifo_size = d[TTL_DFB_SIZE] >> cb_addr_shift;
  v.fifo_limit = (d[TTL_DFB_BASE] + d[TTL_DFB_SIZE]) >> cb_addr_shift;
  v.fifo_page_size = d[TTL_DFB_PAGE_SIZE] >> cb_addr_shift;
  v.fifo_num_pages = d[TTL_DFB_NUM_PAGES];
  v.fifo_rd_ptr = d[TTL_DFB_RD_PTR] >> cb_addr_shift;
  v.fifo_wr_ptr = d[TTL_DFB_WR_PTR] >> cb_addr_shift;
  v.tiles_acked = static_cast<uint16_t>(d[TTL_DFB_ACKED]);
  v.tiles_received = static_cast<uint16_t>(d[TTL_DFB_RECEIVED]);
  v.fifo_wr_tile_ptr = 0;
}

// After a cb_* call: the CB's view, if one was handed out, shows the call's result.
TTL_INLINE void update_local_cb_interface(uint32_t cb_id, volatile uint32_t* d) {
  if (local_cb_interfaces_shown >> cb_id & 1) show_local_cb_interface(cb_id, d);
}

// Blocking slow paths, out of line so the fast paths need no stack frame.
// Each re-checks its condition after every resume (a resume may be spurious).
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

__attribute__((noinline, cold)) inline void sem_wait_min_slow(volatile uint32_t* sem,
                                                              uint32_t val, uint32_t site) {
  while (*sem < val) block(TTL_WAIT_SEM_GE, reinterpret_cast<uint32_t>(sem), val, site);
}

TTL_INLINE void binary(uint32_t site, uint32_t op, uint32_t cb_a, uint32_t cb_b, uint32_t tile_a,
                       uint32_t tile_b, uint32_t dst_index) {
  volatile uint32_t* a = dfb(cb_a, site);
  volatile uint32_t* b = dfb(cb_b, site);
  cop(site, TTL_COP_BINARY, op, front_tile(a, tile_a), a[TTL_DFB_FORMAT], front_tile(b, tile_b),
      b[TTL_DFB_FORMAT], dst_index);
}

}  // namespace ttl_detail

// ===================================================== implementations
namespace ttl_impl {
using namespace ttl_detail;

// ---------------------------------------------------------------- arguments
TTL_IMPL uint32_t ttl_get_arg(uint32_t index) {
  uint32_t count = hart_info()[TTL_HINFO_NUM_ARGS];
  if (index >= count) fail(TTL_ERR_ARG_INDEX, index, count, TTL_CALL_SITE);
  return word(TTL_HART_ARGS_BASE + TTL_ARGS_OFFSET)[index];
}

TTL_IMPL uint32_t ttl_get_common_arg(uint32_t index) {
  uint32_t count = hart_info()[TTL_HINFO_NUM_COMMON_ARGS];
  if (index >= count) fail(TTL_ERR_COMMON_ARG_INDEX, index, count, TTL_CALL_SITE);
  return word(TTL_HART_ARGS_BASE + TTL_COMMON_ARGS_OFFSET)[index];
}

TTL_IMPL uint8_t get_relative_logical_x() { return node_info()[TTL_INFO_NODE_X]; }
TTL_IMPL uint8_t get_relative_logical_y() { return node_info()[TTL_INFO_NODE_Y]; }

// ------------------------------------------------------- dataflow buffers
TTL_IMPL void cb_reserve_back(uint32_t cb_id, uint32_t num_pages) {
  volatile uint32_t* d = dfb(cb_id, TTL_CALL_SITE);
  if (d[TTL_DFB_NUM_PAGES] - dfb_used(d) < num_pages) {
    reserve_slow(d, cb_id, num_pages, TTL_CALL_SITE);
  }
  update_local_cb_interface(cb_id, d);
}

TTL_IMPL void cb_push_back(uint32_t cb_id, uint32_t num_pages) {
  volatile uint32_t* d = dfb(cb_id, TTL_CALL_SITE);
  if (dfb_used(d) + num_pages > d[TTL_DFB_NUM_PAGES]) {
    fail(TTL_ERR_DFB_PUSH_OVERFLOW, cb_id, num_pages, TTL_CALL_SITE);
  }
  // Incoming data must have landed before the consumer can see the pages.
  // (Packed tiles need no flush: the emulator drains the coprocessor queue
  // whenever this hart stops, before any other hart runs.)
  noc_flush();
  d[TTL_DFB_WR_PTR] = advance(d, d[TTL_DFB_WR_PTR], num_pages);
  d[TTL_DFB_RECEIVED] = d[TTL_DFB_RECEIVED] + num_pages;
  update_local_cb_interface(cb_id, d);
}

TTL_IMPL void cb_wait_front(uint32_t cb_id, uint32_t num_pages) {
  volatile uint32_t* d = dfb(cb_id, TTL_CALL_SITE);
  if (dfb_used(d) < num_pages) wait_front_slow(d, cb_id, num_pages, TTL_CALL_SITE);
  update_local_cb_interface(cb_id, d);
}

TTL_IMPL void cb_pop_front(uint32_t cb_id, uint32_t num_pages) {
  volatile uint32_t* d = dfb(cb_id, TTL_CALL_SITE);
  if (dfb_used(d) < num_pages) fail(TTL_ERR_DFB_POP_UNDERFLOW, cb_id, num_pages, TTL_CALL_SITE);
  noc_flush();  // outgoing writes must have read the pages before they are reused
  d[TTL_DFB_RD_PTR] = advance(d, d[TTL_DFB_RD_PTR], num_pages);
  d[TTL_DFB_ACKED] = d[TTL_DFB_ACKED] + num_pages;
  update_local_cb_interface(cb_id, d);
}

TTL_IMPL LocalCBInterface& get_local_cb_interface(uint32_t cb_id) {
  volatile uint32_t* d = dfb(cb_id, TTL_CALL_SITE);
  show_local_cb_interface(cb_id, d);
  local_cb_interfaces_shown |= uint64_t{1} << cb_id;
  return local_cb_interfaces[cb_id];
}

#if !defined(TTL_COMPUTE_KERNEL)  // the data-movement API's implementation
TTL_IMPL uint32_t get_write_ptr(uint32_t cb_id) { return dfb(cb_id, TTL_CALL_SITE)[TTL_DFB_WR_PTR]; }
TTL_IMPL uint32_t get_read_ptr(uint32_t cb_id) { return dfb(cb_id, TTL_CALL_SITE)[TTL_DFB_RD_PTR]; }

// -------------------------------------------------------------------- NOC
TTL_IMPL uint64_t get_noc_addr(uint32_t x, uint32_t y, uint32_t addr, uint8_t) {
  return node_noc_addr(x, y, x, y, addr);
}

TTL_IMPL uint64_t get_noc_addr(uint32_t addr, uint8_t) {
  uint32_t x = node_info()[TTL_INFO_NOC_X], y = node_info()[TTL_INFO_NOC_Y];
  return node_noc_addr(x, y, x, y, addr);
}

TTL_IMPL uint64_t get_noc_multicast_addr(uint32_t x_start, uint32_t y_start, uint32_t x_end,
                                         uint32_t y_end, uint32_t addr, uint8_t) {
  return node_noc_addr(x_start, y_start, x_end, y_end, addr);
}

TTL_IMPL void noc_async_read(uint64_t src_noc_addr, uint32_t dst_local_l1_addr, uint32_t size) {
  noc(TTL_NOC_READ, src_noc_addr, dst_local_l1_addr, size, 0, TTL_CALL_SITE);
}

TTL_IMPL void noc_async_write(uint32_t src_local_l1_addr, uint64_t dst_noc_addr, uint32_t size) {
  noc(TTL_NOC_WRITE, src_local_l1_addr, dst_noc_addr, size, 0, TTL_CALL_SITE);
}

TTL_IMPL void noc_async_write_multicast(uint32_t src_local_l1_addr,
                                        uint64_t dst_noc_addr_multicast, uint32_t size,
                                        uint32_t num_dests) {
  noc(TTL_NOC_WRITE_MCAST, src_local_l1_addr, dst_noc_addr_multicast, size, num_dests,
      TTL_CALL_SITE);
}

TTL_IMPL void noc_async_write_multicast_loopback_src(uint32_t src_local_l1_addr,
                                                     uint64_t dst_noc_addr_multicast,
                                                     uint32_t size, uint32_t num_dests) {
  noc(TTL_NOC_WRITE_MCAST, src_local_l1_addr, dst_noc_addr_multicast, size,
      num_dests | TTL_NOC_MCAST_LOOPBACK, TTL_CALL_SITE);
}

TTL_IMPL void noc_async_read_barrier() { noc_flush(); }
TTL_IMPL void noc_async_write_barrier() { noc_flush(); }

TTL_IMPL uint64_t accessor_noc_addr(uint32_t base, uint32_t page_size, uint32_t page_id,
                                    uint32_t offset) {
  return tensor_noc_addr(base, page_size, page_id, offset, TTL_CALL_SITE);
}

#endif  // !TTL_COMPUTE_KERNEL

// An API use the emulator does not model: the run stops naming it.
TTL_IMPL void unsupported(const char* what) {
  mailbox()[TTL_MB_C] = reinterpret_cast<uint32_t>(what);
  fail(TTL_ERR_UNSUPPORTED, 0, 0, TTL_CALL_SITE);
}

// ASSERT(condition) failed (api/debug/assert.h): the run stops naming the condition.
TTL_IMPL void assert_failed(const char* condition) {
  mailbox()[TTL_MB_C] = reinterpret_cast<uint32_t>(condition);
  fail(TTL_ERR_ASSERT, 0, 0, TTL_CALL_SITE);
}

TTL_IMPL void division_by_zero(int32_t dividend) {
  fail(TTL_ERR_DIVISION_BY_ZERO, static_cast<uint32_t>(dividend), 0, TTL_CALL_SITE);
}

TTL_IMPL void slice_error(int32_t index, uint32_t size, uint32_t extent, const char* what) {
  mailbox()[TTL_MB_C] = reinterpret_cast<uint32_t>(what);
  fail(TTL_ERR_SLICE_BOUNDS, static_cast<uint32_t>(index), size << 16 | extent, TTL_CALL_SITE);
}

#if !defined(TTL_COMPUTE_KERNEL)
// A tensor page read or write moves the whole page unless `size` says less.
TTL_IMPL void ttl_tensor_read_page(uint32_t base, uint32_t page, uint32_t page_id,
                               uint32_t dst_local_l1_addr, uint32_t offset) {
  uint64_t src = tensor_noc_addr(base, page, page_id, offset, TTL_CALL_SITE);
  noc(TTL_NOC_READ, src, dst_local_l1_addr, page - offset,
      is_sharded(base) ? TTL_NOC_SHARD_PAGE : 0, TTL_CALL_SITE);
}

TTL_IMPL void ttl_tensor_write_page(uint32_t base, uint32_t page, uint32_t page_id,
                                uint32_t src_local_l1_addr, uint32_t size, uint32_t offset) {
  uint64_t dst = tensor_noc_addr(base, page, page_id, offset, TTL_CALL_SITE);
  noc(TTL_NOC_WRITE, src_local_l1_addr, dst, size ? size : page - offset,
      is_sharded(base) ? TTL_NOC_SHARD_PAGE : 0, TTL_CALL_SITE);
}

TTL_IMPL uint32_t get_semaphore(uint32_t semaphore_id) {
  uint32_t count = node_info()[TTL_INFO_SEM_COUNT];
  if (semaphore_id >= count) fail(TTL_ERR_SEM_INDEX, semaphore_id, count, TTL_CALL_SITE);
  return TTL_NODE_REGS_BASE + TTL_SEM_OFFSET + semaphore_id * 4;
}

TTL_IMPL void noc_semaphore_wait(volatile uint32_t* sem_addr, uint32_t val) {
  if (*sem_addr != val) sem_wait_slow(sem_addr, val, TTL_CALL_SITE);
}

TTL_IMPL void noc_semaphore_wait_min(volatile uint32_t* sem_addr, uint32_t val) {
  if (*sem_addr < val) sem_wait_min_slow(sem_addr, val, TTL_CALL_SITE);
}

TTL_IMPL void noc_semaphore_set(volatile uint32_t* sem_addr, uint32_t val) { *sem_addr = val; }

TTL_IMPL void noc_semaphore_set_remote(uint32_t src_local_l1_addr, uint64_t dst_noc_addr) {
  noc(TTL_NOC_WRITE, src_local_l1_addr, dst_noc_addr, 4, 0, TTL_CALL_SITE);
}

TTL_IMPL void noc_semaphore_inc(uint64_t sem_noc_addr, uint32_t incr) {
  noc(TTL_NOC_SEM_INC, 0, sem_noc_addr, 4, incr, TTL_CALL_SITE);
}

// A semaphore set to many nodes is a 4-byte multicast write, as on TT-Metal.
TTL_IMPL void noc_semaphore_set_multicast(uint32_t src_local_l1_addr,
                                          uint64_t dst_noc_addr_multicast, uint32_t num_dests) {
  noc(TTL_NOC_WRITE_MCAST, src_local_l1_addr, dst_noc_addr_multicast, 4, num_dests,
      TTL_CALL_SITE);
}

TTL_IMPL void noc_semaphore_set_multicast_loopback_src(uint32_t src_local_l1_addr,
                                                       uint64_t dst_noc_addr_multicast,
                                                       uint32_t num_dests) {
  noc(TTL_NOC_WRITE_MCAST, src_local_l1_addr, dst_noc_addr_multicast, 4,
      num_dests | TTL_NOC_MCAST_LOOPBACK, TTL_CALL_SITE);
}

#endif  // !TTL_COMPUTE_KERNEL

#if !defined(TTL_DATA_MOVEMENT_KERNEL)  // the compute API's implementation
// ----------------------------------------------------------------- compute
// DST is zeroed on acquire (the hardware packer clears it on release), so
// matmul accumulation starts from zero in every acquire/release section;
// release itself has nothing left to do (see TTL_NOTHING below).
TTL_IMPL void tile_regs_acquire() { cop(TTL_CALL_SITE, TTL_COP_ACQUIRE); }

TTL_IMPL void copy_tile(uint32_t cb_id, uint32_t tile_index, uint32_t dst_index) {
  volatile uint32_t* d = dfb(cb_id, TTL_CALL_SITE);
  cop(TTL_CALL_SITE, TTL_COP_UNPACK, front_tile(d, tile_index), d[TTL_DFB_FORMAT], dst_index);
}

TTL_IMPL void add_tiles(uint32_t cb_a, uint32_t cb_b, uint32_t tile_a, uint32_t tile_b,
                        uint32_t dst_index) {
  binary(TTL_CALL_SITE, TTL_BINOP_ADD, cb_a, cb_b, tile_a, tile_b, dst_index);
}
TTL_IMPL void sub_tiles(uint32_t cb_a, uint32_t cb_b, uint32_t tile_a, uint32_t tile_b,
                        uint32_t dst_index) {
  binary(TTL_CALL_SITE, TTL_BINOP_SUB, cb_a, cb_b, tile_a, tile_b, dst_index);
}
TTL_IMPL void mul_tiles(uint32_t cb_a, uint32_t cb_b, uint32_t tile_a, uint32_t tile_b,
                        uint32_t dst_index) {
  binary(TTL_CALL_SITE, TTL_BINOP_MUL, cb_a, cb_b, tile_a, tile_b, dst_index);
}

TTL_IMPL void binary_dst(uint32_t op, uint32_t dst_a, uint32_t dst_b, uint32_t dst_out) {
  cop(TTL_CALL_SITE, TTL_COP_BINARY_DST, op, dst_a, dst_b, dst_out);
}

TTL_IMPL void matmul_tiles(uint32_t cb_a, uint32_t cb_b, uint32_t tile_a, uint32_t tile_b,
                           uint32_t dst_index) {
  volatile uint32_t* a = dfb(cb_a, TTL_CALL_SITE);
  volatile uint32_t* b = dfb(cb_b, TTL_CALL_SITE);
  cop(TTL_CALL_SITE, TTL_COP_MATMUL, front_tile(a, tile_a), a[TTL_DFB_FORMAT],
      front_tile(b, tile_b), b[TTL_DFB_FORMAT], dst_index);
}

TTL_IMPL void unary(uint32_t op, uint32_t dst_index) {
  cop(TTL_CALL_SITE, TTL_COP_UNARY, op, dst_index);
}

TTL_IMPL void unary_param(uint32_t op, uint32_t dst_index, uint32_t p0, uint32_t p1, uint32_t p2) {
  cop(TTL_CALL_SITE, TTL_COP_UNARY_PARAM, op, dst_index, p0, p1, p2);
}

TTL_IMPL void compare_zero(uint32_t kind, uint32_t dst_index) {
  cop(TTL_CALL_SITE, TTL_COP_COMPARE_ZERO, kind, dst_index);
}

TTL_IMPL void scalar(uint32_t op, uint32_t dst_index, uint32_t value_bits) {
  cop(TTL_CALL_SITE, TTL_COP_SCALAR, op, dst_index, value_bits);
}

TTL_IMPL void fill_tile_bitcast(uint32_t dst_index, uint32_t value_bits) {
  cop(TTL_CALL_SITE, TTL_COP_FILL, dst_index, value_bits);
}

TTL_IMPL void unary_bcast(uint32_t cb_id, uint32_t tile_index, uint32_t dst_index,
                          BroadcastType kind) {
  volatile uint32_t* d = dfb(cb_id, TTL_CALL_SITE);
  cop(TTL_CALL_SITE, TTL_COP_BCAST, front_tile(d, tile_index), d[TTL_DFB_FORMAT], dst_index,
      static_cast<uint32_t>(kind));
}

TTL_IMPL void pack_tile(uint32_t dst_index, uint32_t cb_out, uint32_t out_tile) {
  volatile uint32_t* d = dfb(cb_out, TTL_CALL_SITE);
  cop(TTL_CALL_SITE, TTL_COP_PACK, dst_index, back_tile(d, out_tile), d[TTL_DFB_FORMAT],
      pack_l1_acc);
}

TTL_IMPL void reduce_tile(uint32_t mode, uint32_t icb, uint32_t icb_scaler, uint32_t itile,
                          uint32_t itile_scaler, uint32_t idst) {
  volatile uint32_t* d = dfb(icb, TTL_CALL_SITE);
  volatile uint32_t* s = dfb(icb_scaler, TTL_CALL_SITE);
  cop(TTL_CALL_SITE, TTL_COP_REDUCE, front_tile(d, itile), d[TTL_DFB_FORMAT],
      front_tile(s, itile_scaler), s[TTL_DFB_FORMAT], idst, mode);
}

TTL_IMPL void transpose_tile(uint32_t icb, uint32_t itile, uint32_t idst) {
  volatile uint32_t* d = dfb(icb, TTL_CALL_SITE);
  cop(TTL_CALL_SITE, TTL_COP_TRANSPOSE, front_tile(d, itile), d[TTL_DFB_FORMAT], idst);
}

TTL_IMPL void where_tile(uint32_t idst0, uint32_t idst1, uint32_t idst2, uint32_t odst) {
  cop(TTL_CALL_SITE, TTL_COP_WHERE, idst0, idst1, idst2, odst);
}

TTL_IMPL void mask(uint32_t dst_data, uint32_t dst_mask, uint32_t posinf) {
  cop(TTL_CALL_SITE, TTL_COP_MASK, dst_data, dst_mask, posinf);
}

#endif  // !TTL_DATA_MOVEMENT_KERNEL
}  // namespace ttl_impl

// ===================================================== public API
// Forwarders: the empty asm after the call keeps it from being a tail call,
// so the implementation's return address is always inside the kernel.
#define TTL_NO_TAIL() __asm__ volatile("")
#define TTL_FORWARD(ret, name, params, args) \
  TTL_INLINE ret name params {               \
    ret r = ttl_impl::name args;             \
    TTL_NO_TAIL();                           \
    return r;                                \
  }
#define TTL_FORWARD_VOID(name, params, args) \
  TTL_INLINE void name params {              \
    ttl_impl::name args;                     \
    TTL_NO_TAIL();                           \
  }
#define TTL_NOTHING(name, params) \
  TTL_INLINE void name params {}

TTL_FORWARD(uint32_t, ttl_get_arg, (uint32_t index), (index))
TTL_FORWARD(uint32_t, ttl_get_common_arg, (uint32_t index), (index))
TTL_FORWARD(uint8_t, get_relative_logical_x, (), ())
TTL_FORWARD(uint8_t, get_relative_logical_y, (), ())
// The operation's grid is placed at the worker grid's origin.
TTL_INLINE uint8_t get_absolute_logical_x() { return get_relative_logical_x(); }
TTL_INLINE uint8_t get_absolute_logical_y() { return get_relative_logical_y(); }

TTL_FORWARD_VOID(cb_reserve_back, (uint32_t cb_id, uint32_t num_pages), (cb_id, num_pages))
TTL_FORWARD_VOID(cb_push_back, (uint32_t cb_id, uint32_t num_pages), (cb_id, num_pages))
TTL_FORWARD_VOID(cb_wait_front, (uint32_t cb_id, uint32_t num_pages), (cb_id, num_pages))
TTL_FORWARD_VOID(cb_pop_front, (uint32_t cb_id, uint32_t num_pages), (cb_id, num_pages))
TTL_FORWARD(LocalCBInterface&, get_local_cb_interface, (uint32_t cb_id), (cb_id))
// Inline: the checks cost one compare; only a failure calls out.
TTL_INLINE void ttl_assert(bool condition, const char* text) {
  if (!condition) {
    ttl_impl::assert_failed(text);
    TTL_NO_TAIL();
  }
}

TTL_INLINE void ttl_check_divisor(int32_t dividend, int32_t divisor) {
  if (divisor == 0) {
    ttl_impl::division_by_zero(dividend);
    TTL_NO_TAIL();
  }
}

TTL_INLINE void ttl_check_slice(int32_t index, uint32_t size, uint32_t extent, const char* what) {
  if (static_cast<uint32_t>(index) > extent - size) {
    ttl_impl::slice_error(index, size, extent, what);
    TTL_NO_TAIL();
  }
}

#if !defined(TTL_COMPUTE_KERNEL)  // the data-movement API
TTL_FORWARD(uint32_t, get_write_ptr, (uint32_t cb_id), (cb_id))
TTL_FORWARD(uint32_t, get_read_ptr, (uint32_t cb_id), (cb_id))
TTL_NOTHING(invalidate_l1_cache, ())

TTL_FORWARD(uint64_t, get_noc_addr, (uint32_t x, uint32_t y, uint32_t addr, uint8_t noc),
            (x, y, addr, noc))
TTL_FORWARD(uint64_t, get_noc_addr, (uint32_t addr, uint8_t noc), (addr, noc))
TTL_FORWARD(uint64_t, get_noc_multicast_addr,
            (uint32_t x_start, uint32_t y_start, uint32_t x_end, uint32_t y_end, uint32_t addr,
             uint8_t noc),
            (x_start, y_start, x_end, y_end, addr, noc))
TTL_FORWARD_VOID(noc_async_read, (uint64_t src, uint32_t dst, uint32_t size), (src, dst, size))
TTL_FORWARD_VOID(noc_async_write, (uint32_t src, uint64_t dst, uint32_t size), (src, dst, size))
TTL_FORWARD_VOID(noc_async_write_multicast,
                 (uint32_t src, uint64_t dst, uint32_t size, uint32_t num_dests),
                 (src, dst, size, num_dests))
TTL_FORWARD_VOID(noc_async_write_multicast_loopback_src,
                 (uint32_t src, uint64_t dst, uint32_t size, uint32_t num_dests),
                 (src, dst, size, num_dests))
TTL_FORWARD_VOID(noc_async_read_barrier, (), ())
TTL_FORWARD_VOID(noc_async_write_barrier, (), ())

// For api/tensor/tensor_accessor.h: a tensor page's NOC address, read and write.
TTL_INLINE uint64_t ttl_tensor_page_noc_addr(uint32_t base, uint32_t page_size, uint32_t page_id,
                                             uint32_t offset) {
  uint64_t r = ttl_impl::accessor_noc_addr(base, page_size, page_id, offset);
  TTL_NO_TAIL();
  return r;
}
TTL_FORWARD_VOID(ttl_tensor_read_page,
                 (uint32_t base, uint32_t page, uint32_t id, uint32_t dst, uint32_t offset),
                 (base, page, id, dst, offset))
TTL_FORWARD_VOID(ttl_tensor_write_page,
                 (uint32_t base, uint32_t page, uint32_t id, uint32_t src, uint32_t size,
                  uint32_t offset),
                 (base, page, id, src, size, offset))

TTL_FORWARD(uint32_t, get_semaphore, (uint32_t semaphore_id), (semaphore_id))
TTL_FORWARD_VOID(noc_semaphore_wait, (volatile uint32_t* sem_addr, uint32_t val), (sem_addr, val))
TTL_FORWARD_VOID(noc_semaphore_wait_min, (volatile uint32_t* sem_addr, uint32_t val),
                 (sem_addr, val))
TTL_FORWARD_VOID(noc_semaphore_set, (volatile uint32_t* sem_addr, uint32_t val), (sem_addr, val))
TTL_FORWARD_VOID(noc_semaphore_set_remote, (uint32_t src, uint64_t dst), (src, dst))
TTL_FORWARD_VOID(noc_semaphore_set_multicast, (uint32_t src, uint64_t dst, uint32_t num_dests),
                 (src, dst, num_dests))
TTL_FORWARD_VOID(noc_semaphore_inc, (uint64_t sem_noc_addr, uint32_t incr), (sem_noc_addr, incr))
TTL_FORWARD_VOID(noc_semaphore_set_multicast_loopback_src,
                 (uint32_t src, uint64_t dst, uint32_t num_dests), (src, dst, num_dests))
#endif  // !TTL_COMPUTE_KERNEL

#if !defined(TTL_DATA_MOVEMENT_KERNEL)  // the compute API
// Configuration the coprocessor model does not have: every operand's format
// comes from its DFB.
template <SrcOrder src_order>
TTL_INLINE void compute_kernel_hw_startup(uint32_t, uint32_t, uint32_t) {}
TTL_NOTHING(compute_kernel_hw_startup, (uint32_t, uint32_t))

TTL_FORWARD_VOID(tile_regs_acquire, (), ())
TTL_NOTHING(tile_regs_release, ())
// Math and pack run in order on one coprocessor queue: nothing to hand over.
TTL_NOTHING(tile_regs_commit, ())
TTL_NOTHING(tile_regs_wait, ())

// The *_init calls configure unpacker/math state on silicon; the coprocessor
// model takes every operand's format from its DFB, so they have nothing to do.
TTL_NOTHING(copy_init, (uint32_t, uint32_t, uint32_t))
TTL_NOTHING(copy_tile_init, (uint32_t))
// DST accumulation (acc_to_dest) is not modelled: a run that asks for it stops.
TTL_INLINE void add_init(uint32_t, uint32_t, bool acc_to_dest) {
  if (acc_to_dest) ttl_impl::unsupported("add_init with acc_to_dest = true");
}
TTL_INLINE void sub_init(uint32_t, uint32_t, bool acc_to_dest) {
  if (acc_to_dest) ttl_impl::unsupported("sub_init with acc_to_dest = true");
}
TTL_INLINE void mul_init(uint32_t, uint32_t, bool acc_to_dest) {
  if (acc_to_dest) {
    ttl_impl::unsupported("mul_init with acc_to_dest = true (TT-Metal's default: pass false)");
  }
}
TTL_NOTHING(add_binary_tile_init, ())
TTL_NOTHING(sub_binary_tile_init, ())
TTL_NOTHING(mul_binary_tile_init, ())
TTL_NOTHING(div_binary_tile_init, ())
TTL_NOTHING(matmul_init, (uint32_t, uint32_t, uint32_t))
TTL_NOTHING(fill_tile_init, ())
template <BroadcastType bcast_type>
TTL_INLINE void unary_bcast_init(uint32_t) {}

TTL_FORWARD_VOID(copy_tile, (uint32_t cb_id, uint32_t tile_index, uint32_t dst_index),
                 (cb_id, tile_index, dst_index))

#define TTL_BINARY_TILES(name)                                                               \
  TTL_FORWARD_VOID(name,                                                                     \
                   (uint32_t cb_a, uint32_t cb_b, uint32_t tile_a, uint32_t tile_b, uint32_t d), \
                   (cb_a, cb_b, tile_a, tile_b, d))
TTL_BINARY_TILES(add_tiles)
TTL_BINARY_TILES(sub_tiles)
TTL_BINARY_TILES(mul_tiles)
TTL_BINARY_TILES(matmul_tiles)
#undef TTL_BINARY_TILES

#define TTL_BINARY_DST(name, code)                                     \
  TTL_INLINE void name(uint32_t dst_a, uint32_t dst_b, uint32_t dst_out) { \
    ttl_impl::binary_dst(code, dst_a, dst_b, dst_out);                 \
    TTL_NO_TAIL();                                                     \
  }
TTL_BINARY_DST(add_binary_tile, TTL_BINOP_ADD)
TTL_BINARY_DST(sub_binary_tile, TTL_BINOP_SUB)
TTL_BINARY_DST(mul_binary_tile, TTL_BINOP_MUL)
TTL_BINARY_DST(div_binary_tile, TTL_BINOP_DIV)

TTL_BINARY_DST(binary_max_tile, TTL_BINOP_MAX)
TTL_BINARY_DST(binary_min_tile, TTL_BINOP_MIN)
TTL_BINARY_DST(remainder_binary_tile, TTL_BINOP_MOD)
#undef TTL_BINARY_DST
TTL_NOTHING(binary_max_tile_init, ())
TTL_NOTHING(binary_min_tile_init, ())
TTL_NOTHING(remainder_binary_tile_init, ())

#define TTL_COMPARE_ZERO_TILE(name, kind)               \
  TTL_NOTHING(name##_tile_init, ())                     \
  TTL_INLINE void name##_tile(uint32_t dst_index) {     \
    ttl_impl::compare_zero(kind, dst_index);            \
    TTL_NO_TAIL();                                      \
  }
TTL_COMPARE_ZERO_TILE(gtz, TTL_CMPZ_GT)
TTL_COMPARE_ZERO_TILE(ltz, TTL_CMPZ_LT)
TTL_COMPARE_ZERO_TILE(gez, TTL_CMPZ_GE)
TTL_COMPARE_ZERO_TILE(lez, TTL_CMPZ_LE)
TTL_COMPARE_ZERO_TILE(eqz, TTL_CMPZ_EQ)
TTL_COMPARE_ZERO_TILE(nez, TTL_CMPZ_NE)
#undef TTL_COMPARE_ZERO_TILE

TTL_NOTHING(binop_with_scalar_tile_init, ())
#define TTL_SCALAR_TILE(name, code)                                      \
  TTL_INLINE void name(uint32_t dst_index, uint32_t value_bits) {        \
    ttl_impl::scalar(code, dst_index, value_bits);                       \
    TTL_NO_TAIL();                                                       \
  }
TTL_SCALAR_TILE(add_unary_tile, TTL_BINOP_ADD)
TTL_SCALAR_TILE(sub_unary_tile, TTL_BINOP_SUB)
TTL_SCALAR_TILE(mul_unary_tile, TTL_BINOP_MUL)
TTL_SCALAR_TILE(div_unary_tile, TTL_BINOP_DIV)
TTL_SCALAR_TILE(rsub_unary_tile, TTL_BINOP_RSUB)
#undef TTL_SCALAR_TILE

#define TTL_UNARY_TILE(name, code)             \
  TTL_NOTHING(name##_tile_init, ())            \
  TTL_INLINE void name##_tile(uint32_t dst_index) { \
    ttl_impl::unary(code, dst_index);          \
    TTL_NO_TAIL();                             \
  }
template <bool approx, uint32_t scale, InputClamping input_clamping>
TTL_INLINE void exp_tile_init() {}
template <bool approx, bool scale_en, InputClamping input_clamping, int iterations>
TTL_INLINE void exp_tile(uint32_t dst_index, VectorMode vector_mode, uint16_t scale) {
  static_assert(iterations >= 1 && iterations <= 8,
                "the emulator models 1 to 8 exp iterations per face");
  if (vector_mode != VectorMode::RC) {
    ttl_impl::unsupported("exp_tile with a VectorMode other than RC");
  } else if (!scale_en && iterations == 8) {
    ttl_impl::unary(TTL_UNOP_EXP, dst_index);
  } else {
    const uint32_t scale_bits = scale_en ? static_cast<uint32_t>(scale) << 16 : 0x3F800000u;
    ttl_impl::unary_param(TTL_UNOP_EXP_OPTIONS, dst_index, scale_bits,
                          static_cast<uint32_t>(iterations), 0);
  }
  TTL_NO_TAIL();
}
TTL_UNARY_TILE(log, TTL_UNOP_LOG)
TTL_UNARY_TILE(sqrt, TTL_UNOP_SQRT)
TTL_UNARY_TILE(rsqrt, TTL_UNOP_RSQRT)
TTL_UNARY_TILE(recip, TTL_UNOP_RECIP)
TTL_UNARY_TILE(relu, TTL_UNOP_RELU)
TTL_UNARY_TILE(sigmoid, TTL_UNOP_SIGMOID)
TTL_UNARY_TILE(tanh, TTL_UNOP_TANH)
TTL_UNARY_TILE(abs, TTL_UNOP_ABS)
TTL_UNARY_TILE(negative, TTL_UNOP_NEGATIVE)
TTL_UNARY_TILE(exp2, TTL_UNOP_EXP2)
TTL_UNARY_TILE(expm1, TTL_UNOP_EXPM1)
TTL_UNARY_TILE(log1p, TTL_UNOP_LOG1P)
TTL_UNARY_TILE(square, TTL_UNOP_SQUARE)
TTL_UNARY_TILE(tan, TTL_UNOP_TAN)
TTL_UNARY_TILE(atan, TTL_UNOP_ATAN)
TTL_UNARY_TILE(atanh, TTL_UNOP_ATANH)
TTL_UNARY_TILE(sin, TTL_UNOP_SIN)
TTL_UNARY_TILE(asin, TTL_UNOP_ASIN)
TTL_UNARY_TILE(asinh, TTL_UNOP_ASINH)
TTL_UNARY_TILE(cos, TTL_UNOP_COS)
TTL_UNARY_TILE(acos, TTL_UNOP_ACOS)
TTL_UNARY_TILE(acosh, TTL_UNOP_ACOSH)
TTL_UNARY_TILE(silu, TTL_UNOP_SILU)
TTL_UNARY_TILE(softsign, TTL_UNOP_SOFTSIGN)
TTL_UNARY_TILE(hardsigmoid, TTL_UNOP_HARDSIGMOID)
TTL_UNARY_TILE(sign, TTL_UNOP_SIGN)
TTL_UNARY_TILE(signbit, TTL_UNOP_SIGNBIT)
#undef TTL_UNARY_TILE

// floor, ceil, trunc, frac share TT-Metal's rounding_op_tile_init().
TTL_NOTHING(rounding_op_tile_init, ())
#define TTL_ROUNDING_TILE(name, code)                \
  TTL_INLINE void name##_tile(uint32_t dst_index) { \
    ttl_impl::unary(code, dst_index);               \
    TTL_NO_TAIL();                                  \
  }
TTL_ROUNDING_TILE(floor, TTL_UNOP_FLOOR)
TTL_ROUNDING_TILE(ceil, TTL_UNOP_CEIL)
TTL_ROUNDING_TILE(trunc, TTL_UNOP_TRUNC)
TTL_ROUNDING_TILE(frac, TTL_UNOP_FRAC)
#undef TTL_ROUNDING_TILE

template <bool fast_and_approx>
TTL_INLINE void gelu_tile_init() {}
template <bool fast_and_approx>
TTL_INLINE void gelu_tile(uint32_t dst_index) {
  ttl_impl::unary(fast_and_approx ? TTL_UNOP_GELU_APPROX : TTL_UNOP_GELU, dst_index);
  TTL_NO_TAIL();
}

// Parameterised unary ops: one TTL_COP_UNARY_PARAM command (up to three parameters).
TTL_INLINE void round_tile(uint32_t dst_index, int32_t decimals) {
  ttl_impl::unary_param(TTL_UNOP_ROUND, dst_index, static_cast<uint32_t>(decimals), 0, 0);
  TTL_NO_TAIL();
}
// Parameter words p0..p2 of TTL_COP_UNARY_PARAM (float parameters as bit patterns).
#define TTL_UNARY_PARAM_TILE(name, code, params, p0, p1, p2) \
  TTL_NOTHING(name##_tile_init, ())                           \
  TTL_INLINE void name##_tile params {                        \
    ttl_impl::unary_param(code, dst_index, p0, p1, p2);       \
    TTL_NO_TAIL();                                            \
  }
TTL_UNARY_PARAM_TILE(power, TTL_UNOP_POWER, (uint32_t dst_index, uint32_t exponent), exponent, 0, 0)
TTL_UNARY_PARAM_TILE(relu_max, TTL_UNOP_RELU_MAX,
                     (uint32_t dst_index, uint32_t upper_limit),
                     upper_limit, 0, 0)
TTL_UNARY_PARAM_TILE(relu_min, TTL_UNOP_RELU_MIN,
                     (uint32_t dst_index, uint32_t lower_limit),
                     lower_limit, 0, 0)
TTL_UNARY_PARAM_TILE(leaky_relu, TTL_UNOP_LEAKY_RELU,
                     (uint32_t dst_index, uint32_t slope),
                     slope, 0, 0)
TTL_UNARY_PARAM_TILE(elu, TTL_UNOP_ELU, (uint32_t dst_index, uint32_t alpha), alpha, 0, 0)
TTL_UNARY_PARAM_TILE(celu, TTL_UNOP_CELU,
                     (uint32_t dst_index, uint32_t alpha, uint32_t alpha_recip),
                     alpha, alpha_recip, 0)
TTL_UNARY_PARAM_TILE(prelu, TTL_UNOP_PRELU, (uint32_t dst_index, uint32_t alpha), alpha, 0, 0)
TTL_UNARY_PARAM_TILE(softplus, TTL_UNOP_SOFTPLUS,
                     (uint32_t dst_index, uint32_t beta, uint32_t beta_reciprocal, uint32_t threshold),
                     beta, beta_reciprocal, threshold)
TTL_UNARY_PARAM_TILE(hardtanh, TTL_UNOP_HARDTANH,
                     (uint32_t dst_index, uint32_t min, uint32_t max),
                     min, max, 0)
TTL_UNARY_PARAM_TILE(selu, TTL_UNOP_SELU,
                     (uint32_t dst_index, uint32_t scale, uint32_t alpha),
                     scale, alpha, 0)
TTL_UNARY_PARAM_TILE(clamp, TTL_UNOP_CLAMP,
                     (uint32_t dst_index, uint32_t min, uint32_t max),
                     min, max, 0)
TTL_UNARY_PARAM_TILE(threshold, TTL_UNOP_THRESHOLD,
                     (uint32_t dst_index, uint32_t threshold, uint32_t value),
                     threshold, value, 0)
#undef TTL_UNARY_PARAM_TILE

TTL_FORWARD_VOID(fill_tile_bitcast, (uint32_t dst_index, uint32_t value_bits),
                 (dst_index, value_bits))
template <BroadcastType bcast_type>
TTL_INLINE void unary_bcast(uint32_t icb, uint32_t in_tile_index, uint32_t dst_tile_index) {
  ttl_impl::unary_bcast(icb, in_tile_index, dst_tile_index, bcast_type);
  TTL_NO_TAIL();
}
TTL_FORWARD_VOID(pack_tile, (uint32_t dst_index, uint32_t cb_out, uint32_t out_tile),
                 (dst_index, cb_out, out_tile))

TTL_INLINE void pack_reconfig_l1_acc(uint32_t enable) {
  ttl_detail::pack_l1_acc = enable ? 1 : 0;
}

// As compute_kernel_hw_startup: the coprocessor model reads and writes each CB in
// its own format, so there is no unpacker or packer format to point elsewhere.
template <SrcOrder src_order>
TTL_INLINE void reconfig_data_format(uint32_t, uint32_t) {}
TTL_NOTHING(reconfig_data_format_srca, (uint32_t))
TTL_NOTHING(pack_reconfig_data_format, (uint32_t))

// Reductions, transpose, where, mask. The *_init calls configure hardware
// state the coprocessor model does not have.
template <PoolType reduce_type, ReduceDim reduce_dim>
TTL_INLINE void reduce_init(uint32_t, uint32_t, uint32_t) {}
template <PoolType reduce_type, ReduceDim reduce_dim>
TTL_INLINE void reduce_tile(uint32_t icb, uint32_t icb_scaler, uint32_t itile,
                            uint32_t itile_scaler, uint32_t idst) {
  ttl_impl::reduce_tile(static_cast<uint32_t>(reduce_type) | static_cast<uint32_t>(reduce_dim) << 4,
                        icb, icb_scaler, itile, itile_scaler, idst);
  TTL_NO_TAIL();
}
TTL_NOTHING(reduce_uninit, (uint32_t))
TTL_NOTHING(transpose_init, (uint32_t))
TTL_FORWARD_VOID(transpose_tile, (uint32_t icb, uint32_t itile, uint32_t idst),
                 (icb, itile, idst))
TTL_NOTHING(where_tile_init, ())
template <DataFormat data_format>
TTL_INLINE void where_tile(uint32_t idst0, uint32_t idst1, uint32_t idst2, uint32_t odst) {
  ttl_impl::where_tile(idst0, idst1, idst2, odst);
  TTL_NO_TAIL();
}
TTL_NOTHING(mask_tile_init, ())
TTL_INLINE void mask_tile(uint32_t dst_data, uint32_t dst_mask, DataFormat) {
  ttl_impl::mask(dst_data, dst_mask, 0);
  TTL_NO_TAIL();
}
TTL_INLINE void mask_posinf_tile(uint32_t dst_data, uint32_t dst_mask) {
  ttl_impl::mask(dst_data, dst_mask, 1);
  TTL_NO_TAIL();
}
#endif  // !TTL_DATA_MOVEMENT_KERNEL

// ------------------------------------------------------------- debugging
namespace ttl_detail {
TTL_INLINE volatile uint32_t* print_buffer() {
  return word(TTL_HART_ARGS_BASE + TTL_PRINT_OFFSET);
}
}  // namespace ttl_detail

namespace ttl_impl {
// Makes room for the `items` items of one DPRINT call: a buffer without it is
// handed to the emulator first (value 0: the print continues), so a call's
// format and arguments are formatted together.
TTL_IMPL void print_begin(uint32_t items) {
  if (print_buffer()[0] + items > TTL_PRINT_CAPACITY) doorbell(TTL_MMIO_PRINT, 0);
}
// Appends one item (after print_begin made room for it).
TTL_IMPL void print_item(uint32_t tag, uint32_t a, uint32_t b, uint32_t c) {
  volatile uint32_t* q = print_buffer();
  uint32_t n = q[0];
  volatile uint32_t* e = q + TTL_PRINT_HEADER_BYTES / 4 + n * TTL_PRINT_ITEM_WORDS;
  e[0] = tag;
  e[1] = a;
  e[2] = b;
  e[3] = c;
  q[0] = n + 1;
}
static_assert(TTL_PRINT_ITEM_WORDS == 4, "print item layout");
}  // namespace ttl_impl

namespace ttl_detail {
// The zone of DeviceZoneScopedN (api/debug/kernel_profiler.hpp): its construction
// and destruction ring the signpost doorbells with the name's address, one store
// each, so the emulator records the zone's entry and exit; zones nest.
class ProfileZone {
 public:
  explicit ProfileZone(const char* name) : name_(name) {
    doorbell(TTL_MMIO_SIGNPOST_BEGIN, reinterpret_cast<uint32_t>(name));
  }
  ~ProfileZone() { doorbell(TTL_MMIO_SIGNPOST_END, reinterpret_cast<uint32_t>(name_)); }
  ProfileZone(const ProfileZone&) = delete;
  ProfileZone& operator=(const ProfileZone&) = delete;

 private:
  const char* name_;
};
}  // namespace ttl_detail

#undef TTL_FORWARD
#undef TTL_FORWARD_VOID
#undef TTL_NOTHING
#undef TTL_IMPL
#undef TTL_INLINE
#undef TTL_CALL_SITE
#undef TTL_NO_TAIL
