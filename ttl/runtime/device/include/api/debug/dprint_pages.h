// TT-Metal's api/debug/dprint_pages.h for the emulator: DPRINT helpers for a
// CB's state, pages in L1 (data-movement kernels) and whole tiles (compute).
#pragma once

#include "api/debug/dprint.h"

// One line with the CB's interface: sizes and pointers. As on TT-Metal, a
// compute kernel's values are in 16-byte units (its cb_addr_shift), a
// data-movement kernel's in bytes; num_pages counts pages, wr_tile_ptr is the
// page index of the write pointer.
TTL_DPRINT_IMPL void print_cb_details(uint32_t cb_id) {
#if defined(TTL_COMPUTE_KERNEL)
  constexpr uint32_t shift = 4;
#else
  constexpr uint32_t shift = 0;
#endif
  volatile uint32_t* d = ttl_detail::dfb(cb_id, TTL_DPRINT_CALL_SITE);
  uint32_t base = d[TTL_DFB_BASE], size = d[TTL_DFB_SIZE], page = d[TTL_DFB_PAGE_SIZE];
  DPRINT(
      "cb_id {}: {{ size: {}, limit: {}, page_size: {}, num_pages: {}, rd_ptr: {}, wr_ptr: {}, "
      "wr_tile_ptr: {} }}\n",
      cb_id, size >> shift, (base + size) >> shift, page >> shift, d[TTL_DFB_NUM_PAGES],
      d[TTL_DFB_RD_PTR] >> shift, d[TTL_DFB_WR_PTR] >> shift, (d[TTL_DFB_WR_PTR] - base) / page);
}

#if !defined(TTL_COMPUTE_KERNEL)
namespace tt::data_movement::common {

// `npages` pages of `per_page` values each from L1 address `l1_addr`, starting at
// page `start`: a line "page: v v v ..." per page.
template <typename T, typename Printed>
inline void ttl_print_pages(uint32_t l1_addr, uint32_t per_page, uint32_t npages, uint32_t start) {
  volatile T* ptr = reinterpret_cast<volatile T*>(l1_addr) + start * per_page;
  for (uint32_t page = 0; page < npages; ++page) {
    DPRINT("{}: ", start + page);
    for (uint32_t j = 0; j < per_page; ++j, ++ptr) DPRINT("{} ", Printed(*ptr));
    DPRINT("\n");
  }
}

inline void print_bf16_pages(uint32_t l1_addr, uint32_t elts_per_page, uint32_t npages,
                             uint32_t start = 0) {
  ttl_print_pages<uint16_t, bf16_t>(l1_addr, elts_per_page, npages, start);
}
inline void print_f32_pages(uint32_t l1_addr, uint32_t elts_per_page, uint32_t npages,
                            uint32_t start = 0) {
  ttl_print_pages<float, float>(l1_addr, elts_per_page, npages, start);
}
inline void print_u8_pages(uint32_t l1_addr, uint32_t bytes_per_page, uint32_t npages,
                           uint32_t start = 0) {
  volatile uint8_t* ptr = reinterpret_cast<volatile uint8_t*>(l1_addr) + start * bytes_per_page;
  for (uint32_t page = 0; page < npages; ++page) {
    DPRINT("{}: ", start + page);
    for (uint32_t j = 0; j < bytes_per_page; ++j, ++ptr) DPRINT("0x{:02X} ", uint32_t{*ptr});
    DPRINT("\n");
  }
}
inline void print_u16_pages(uint32_t l1_addr, uint32_t elts_per_page, uint32_t npages,
                            uint32_t start = 0) {
  ttl_print_pages<uint16_t, uint32_t>(l1_addr, elts_per_page, npages, start);
}
inline void print_u32_pages(uint32_t l1_addr, uint32_t elts_per_page, uint32_t npages,
                            uint32_t start = 0) {
  ttl_print_pages<uint32_t, uint32_t>(l1_addr, elts_per_page, npages, start);
}

}  // namespace tt::data_movement::common
#else
namespace tt::compute::common {

// Rows start_row..end_row-1 (columns start_col..end_col-1) of tile `tile_idx`
// at the front of `cb_idx`, a line each, between a header and a footer line.
inline void print_tile_rows(uint32_t cb_idx, uint32_t tile_idx, bool untilize = false,
                            uint16_t start_row = 0, uint16_t end_row = 32, uint8_t start_col = 0,
                            uint8_t end_col = 32) {
  DPRINT("cb_idx: {} tile_idx: {}\n", cb_idx, tile_idx);
  DPRINT("======\n");
  for (uint16_t r = start_row; r < end_row; ++r) {
    SliceRange row{static_cast<uint8_t>(r), static_cast<uint8_t>(r + 1), 1, start_col, end_col, 1};
    DPRINT("{}: {}\n", r, TileSlice<128>(static_cast<uint8_t>(cb_idx), static_cast<int>(tile_idx),
                                          row, true, untilize));
  }
  DPRINT("++++++\n");
}

inline void print_full_tile(uint32_t cb_id, uint32_t tile_id = 0, bool untilize = false) {
  print_tile_rows(cb_id, tile_id, untilize);
}

}  // namespace tt::compute::common
#endif
