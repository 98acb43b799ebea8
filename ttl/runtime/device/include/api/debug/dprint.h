// TT-Metal's api/debug/dprint.h for the emulator: DPRINT(format, ...).
//
// DPRINT("k = {}, x = {:.3f}\n", k, x) takes an fmt-style format string
// literal and its arguments, checked at compile time as TT-Metal checks them
// (valid placeholders, one argument per placeholder). Tiles of a CB print
// through TSLICE (TileSlice): a numpy-style SliceRange of tile `tile_idx`
// at the CB's read or write pointer, sampled when it is built.
//
// On the emulator each call appends a FORMAT item and one item per argument
// to the hart's print buffer and rings the print doorbell; the emulator formats
// the call (ttl/runtime/debug_print.py) and writes each completed line prefixed
// with the node and kernel. Prints are always on (TT-Metal's need
// DEBUG_PRINT_ENABLED and a host print server).
//
// Processors, as on TT-Metal: DPRINT_DATA0 / DPRINT_DATA1 print from the
// data-movement kernel on NOC 0 / 1; DPRINT_UNPACK, DPRINT_MATH and
// DPRINT_PACK from that thread of a compute kernel, and nothing elsewhere. The
// emulator runs a compute kernel's three threads as one hart, so a plain
// DPRINT in a compute kernel prints once (TT-Metal: once per thread). A TSLICE
// in DPRINT_PACK samples the write pointer (the packer's side), in
// DPRINT_MATH nothing (the math thread has no CBs), elsewhere in a compute
// kernel the read pointer (the unpacker's side).
#pragma once

#include "ttl/kernel_api.h"

// (kernel_api_impl.h undefines its own TTL_IMPL and TTL_INLINE.)
#define TTL_DPRINT_IMPL inline __attribute__((noinline))
#define TTL_DPRINT_INLINE inline __attribute__((always_inline))
// The caller's address, which the emulator maps to a kernel source line.
#define TTL_DPRINT_CALL_SITE reinterpret_cast<uint32_t>(__builtin_return_address(0))

// hostdevcommon/dprint_common.h: np.slice(h0:h1:hs, w0:w1:ws) of a tile.
struct SliceRange {
  uint8_t h0, h1, hs, w0, w1, ws;
  static SliceRange hw0_32_16() { return SliceRange{0, 32, 16, 0, 32, 16}; }
  static SliceRange hw0_32_8() { return SliceRange{0, 32, 8, 0, 32, 8}; }
  static SliceRange hw0_32_4() { return SliceRange{0, 32, 4, 0, 32, 4}; }
  static SliceRange h0_w0_32() { return SliceRange{0, 1, 1, 0, 32, 1}; }
  static SliceRange h0_32_w0() { return SliceRange{0, 32, 1, 0, 1, 1}; }
  static SliceRange h0_32_w1() { return SliceRange{0, 32, 1, 1, 2, 1}; }
  static SliceRange hw041() { return SliceRange{0, 4, 1, 0, 4, 1}; }
};

using dprint_tslice_ptr_t = bool;
#define TSLICE_RD_PTR true
#define TSLICE_WR_PTR false
using dprint_tslice_cb_t = bool;
#define TSLICE_INPUT_CB true
#define TSLICE_OUTPUT_CB false

// A bfloat16 value to print (its bits).
struct bf16_t {
  uint16_t val;
  bf16_t(uint16_t v) : val(v) {}
};

namespace ttl_detail {
// The compute thread a DPRINT_UNPACK / DPRINT_MATH / DPRINT_PACK runs on.
enum class PrintThread : uint32_t { Any, Unpack, Math, Pack };
inline PrintThread print_thread = PrintThread::Any;
struct PrintThreadScope {
  PrintThread saved;
  explicit PrintThreadScope(PrintThread t) : saved(print_thread) { print_thread = t; }
  ~PrintThreadScope() { print_thread = saved; }
};

// The TTL_PRINT_TSLICE item of a slice of tile `tile_idx` of `cb_id`.
TTL_DPRINT_IMPL void tile_slice_words(uint32_t words[3], uint8_t cb_id, int tile_idx,
                               const SliceRange& s, bool read_side, bool endl_rows,
                               bool untilize, uint32_t max_bytes) {
  uint32_t flags = (endl_rows ? TTL_TSLICE_ENDL_ROWS : 0) | (untilize ? TTL_TSLICE_UNTILIZE : 0);
  uint32_t addr = 0, format = 0;
  if (print_thread == PrintThread::Math) {
    flags |= TTL_TSLICE_NO_CB_ACCESS;
  } else {
    volatile uint32_t* d = dfb(cb_id, TTL_DPRINT_CALL_SITE);
    addr = (read_side ? d[TTL_DFB_RD_PTR] : d[TTL_DFB_WR_PTR]) +
           static_cast<uint32_t>(tile_idx) * d[TTL_DFB_PAGE_SIZE];
    format = d[TTL_DFB_FORMAT];
  }
  words[0] = addr;
  words[1] = s.h0 | s.h1 << 8 | s.hs << 16 | static_cast<uint32_t>(s.w0) << 24;
  words[2] = s.w1 | s.ws << 8 | max_bytes << 16 | (format & 0xF) << 24 | flags << 28;
}
}  // namespace ttl_detail

// TT-Metal's TileSlice: at most MAX_BYTES bytes of data (TSLICE: 64, 32 bf16 values).
template <int MAX_BYTES = 64>
struct TileSlice {
  static_assert(MAX_BYTES > 0 && MAX_BYTES < 256, "MAX_BYTES must be less than 256");
  uint32_t words[3];
#if defined(TTL_COMPUTE_KERNEL)
  // The unpacker reads a CB's front, the packer writes its back.
  TileSlice(uint8_t cb, int tile_idx, const SliceRange& slice_range, bool endl_rows = true,
            bool print_untilized = true) {
    bool read_side = ttl_detail::print_thread != ttl_detail::PrintThread::Pack;
    ttl_detail::tile_slice_words(words, cb, tile_idx, slice_range, read_side, endl_rows,
                                 print_untilized, MAX_BYTES);
  }
#else
  // cb_type says which data format a data-movement kernel reads the CB with (one
  // per CB on the emulator); ptr_type which pointer the slice is relative to.
  TileSlice(uint8_t cb, int tile_idx, const SliceRange& slice_range, dprint_tslice_cb_t cb_type,
#if defined(COMPILE_FOR_NCRISC)
            dprint_tslice_ptr_t ptr_type = TSLICE_WR_PTR,
#else
            dprint_tslice_ptr_t ptr_type = TSLICE_RD_PTR,
#endif
            bool endl_rows = true, bool print_untilized = true) {
    (void)cb_type;
    ttl_detail::tile_slice_words(words, cb, tile_idx, slice_range, ptr_type == TSLICE_RD_PTR,
                                 endl_rows, print_untilized, MAX_BYTES);
  }
#endif
};
using TSLICE = TileSlice<64>;

namespace ttl_detail {
TTL_DPRINT_INLINE void print_arg(const char* text) {
  ttl_impl::print_item(TTL_PRINT_STR, reinterpret_cast<uint32_t>(text), 0, 0);
}
TTL_DPRINT_INLINE void print_arg(bool value) { ttl_impl::print_item(TTL_PRINT_BOOL, value ? 1 : 0, 0, 0); }
TTL_DPRINT_INLINE void print_arg(char value) {
  ttl_impl::print_item(TTL_PRINT_CHAR, static_cast<uint8_t>(value), 0, 0);
}
TTL_DPRINT_INLINE void print_arg(int64_t value) {
  uint64_t bits = static_cast<uint64_t>(value);
  ttl_impl::print_item(TTL_PRINT_INT64, static_cast<uint32_t>(bits),
                       static_cast<uint32_t>(bits >> 32), 0);
}
TTL_DPRINT_INLINE void print_arg(uint64_t value) {
  ttl_impl::print_item(TTL_PRINT_UINT64, static_cast<uint32_t>(value),
                       static_cast<uint32_t>(value >> 32), 0);
}
TTL_DPRINT_INLINE void print_arg(long value) {
  ttl_impl::print_item(TTL_PRINT_INT, static_cast<uint32_t>(value), 0, 0);
}
TTL_DPRINT_INLINE void print_arg(unsigned long value) {
  ttl_impl::print_item(TTL_PRINT_UINT, static_cast<uint32_t>(value), 0, 0);
}
TTL_DPRINT_INLINE void print_arg(int value) { print_arg(static_cast<long>(value)); }
TTL_DPRINT_INLINE void print_arg(unsigned value) { print_arg(static_cast<unsigned long>(value)); }
TTL_DPRINT_INLINE void print_arg(short value) { print_arg(static_cast<long>(value)); }
TTL_DPRINT_INLINE void print_arg(unsigned short value) { print_arg(static_cast<unsigned long>(value)); }
TTL_DPRINT_INLINE void print_arg(signed char value) { print_arg(static_cast<long>(value)); }
TTL_DPRINT_INLINE void print_arg(unsigned char value) { print_arg(static_cast<unsigned long>(value)); }
TTL_DPRINT_INLINE void print_arg(float value) {
  ttl_impl::print_item(TTL_PRINT_FLOAT, __builtin_bit_cast(uint32_t, value), 0, 0);
}
TTL_DPRINT_INLINE void print_arg(double value) { print_arg(static_cast<float>(value)); }
TTL_DPRINT_INLINE void print_arg(bf16_t value) { ttl_impl::print_item(TTL_PRINT_BF16, value.val, 0, 0); }
template <int MAX_BYTES>
TTL_DPRINT_INLINE void print_arg(const TileSlice<MAX_BYTES>& slice) {
  ttl_impl::print_item(TTL_PRINT_TSLICE, slice.words[0], slice.words[1], slice.words[2]);
}

// Whether `format` is a valid format string for `args` arguments: every '{' not
// doubled opens a placeholder ("{}", "{:spec}", "{N}", "{N:spec}") that a '}'
// closes; indexed and automatic placeholders do not mix; automatic ones are one
// per argument, indexed ones each name an argument and use them all.
constexpr bool print_format_ok(const char* format, unsigned args) {
  unsigned automatic = 0, used = 0;  // used: bit i = argument i named (indexed)
  bool indexed = false;
  for (unsigned i = 0; format[i] != '\0'; ++i) {
    if (format[i] == '}') {
      if (format[i + 1] != '}') return false;
      ++i;
      continue;
    }
    if (format[i] != '{') continue;
    if (format[i + 1] == '{') {
      ++i;
      continue;
    }
    unsigned j = i + 1;
    if (format[j] >= '0' && format[j] <= '9') {
      unsigned n = 0;
      while (format[j] >= '0' && format[j] <= '9') n = n * 10 + (format[j++] - '0');
      if (n >= args || n >= 32) return false;
      used |= 1u << n;
      indexed = true;
    } else {
      ++automatic;
    }
    while (format[j] != '}') {
      if (format[j] == '\0' || format[j] == '{') return false;
      ++j;
    }
    i = j;
  }
  if (indexed) return automatic == 0 && used == (args >= 32 ? ~0u : (1u << args) - 1);
  return automatic == args;
}

template <unsigned N>
struct PrintArgCount {
  static constexpr unsigned value = N;
};
template <typename... A>
PrintArgCount<sizeof...(A)> print_arg_count(const A&...);

template <typename... A>
TTL_DPRINT_IMPL void device_print(const char* format, const A&... args) {
  ttl_impl::print_begin(1 + sizeof...(A));
  ttl_impl::print_item(TTL_PRINT_FORMAT, reinterpret_cast<uint32_t>(format), sizeof...(A), 0);
  (print_arg(args), ...);
  doorbell(TTL_MMIO_PRINT, 1);
}
}  // namespace ttl_detail

#define DPRINT(format, ...)                                                               \
  do {                                                                                    \
    static_assert(::ttl_detail::print_format_ok(                                          \
                      format, decltype(::ttl_detail::print_arg_count(__VA_ARGS__))::value), \
                  "DPRINT: invalid format string, or its {} placeholders do not match "   \
                  "the arguments");                                                       \
    ::ttl_detail::device_print(format, ##__VA_ARGS__);                                    \
  } while (0)

#if defined(TTL_COMPUTE_KERNEL)
#define TTL_DPRINT_ON(thread, format, ...)                                        \
  do {                                                                            \
    ::ttl_detail::PrintThreadScope ttl_print_thread_(::ttl_detail::PrintThread::thread); \
    DPRINT(format, ##__VA_ARGS__);                                                \
  } while (0)
#define DPRINT_UNPACK(format, ...) TTL_DPRINT_ON(Unpack, format, ##__VA_ARGS__)
#define DPRINT_MATH(format, ...) TTL_DPRINT_ON(Math, format, ##__VA_ARGS__)
#define DPRINT_PACK(format, ...) TTL_DPRINT_ON(Pack, format, ##__VA_ARGS__)
#define DPRINT_DATA0(format, ...)
#define DPRINT_DATA1(format, ...)
#else
#define DPRINT_UNPACK(format, ...)
#define DPRINT_MATH(format, ...)
#define DPRINT_PACK(format, ...)
#define DPRINT_DATA0(format, ...) \
  if (noc_index == 0) {           \
    DPRINT(format, ##__VA_ARGS__); \
  }
#define DPRINT_DATA1(format, ...) \
  if (noc_index == 1) {           \
    DPRINT(format, ##__VA_ARGS__); \
  }
#endif
