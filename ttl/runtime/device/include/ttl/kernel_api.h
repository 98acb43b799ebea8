// TT-Metal-style kernel API for ttl-bazel device kernels.
//
// This header is the contract between the compiler (which emits calls to these
// functions) and the runtime (which implements them for the emulated Tensix
// node in ttl/runtime/device/src and the emulator). Signatures follow
// TT-Metal's dataflow_api.h / compute_kernel_api.h so generated kernels read
// like hand-written TT-Metal kernels.
//
// Every generated kernel defines `void kernel_main()`; the runtime's crt0
// calls it and the hart stops when it returns.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ttl/detail/processor.h"

// ---------------------------------------------------------------- arguments
// Runtime arguments (per node), common runtime arguments (same on every node)
// and compile-time arguments. Compile-time argument N is the preprocessor
// define KERNEL_COMPILE_TIME_ARG_N, supplied by the build from the manifest.
uint32_t ttl_get_arg(uint32_t index);
uint32_t ttl_get_common_arg(uint32_t index);

template <typename T>
inline T get_arg_val(int arg_idx) {
  return static_cast<T>(ttl_get_arg(static_cast<uint32_t>(arg_idx)));
}

template <typename T>
inline T get_common_arg_val(int arg_idx) {
  return static_cast<T>(ttl_get_common_arg(static_cast<uint32_t>(arg_idx)));
}

#include "api/compile_time_args.h"

// The logical coordinates of this node: absolute (in the device's worker grid)
// and relative to the operation's grid, which the emulator places at the origin.
uint8_t get_absolute_logical_x();
uint8_t get_absolute_logical_y();
uint8_t get_relative_logical_x();
uint8_t get_relative_logical_y();

// The NOC this kernel's requests use (TT-Metal: NOC_INDEX, 0 for BRISC, 1 for NCRISC).
#ifndef NOC_INDEX
#define NOC_INDEX 0
#endif
constexpr uint8_t noc_index = NOC_INDEX;

// ------------------------------------------------------- dataflow buffers
// TT-Metal calls DFBs "circular buffers" (cb); the API keeps those names.
void cb_reserve_back(uint32_t cb_id, uint32_t num_pages);
void cb_push_back(uint32_t cb_id, uint32_t num_pages);
void cb_wait_front(uint32_t cb_id, uint32_t num_pages);
void cb_pop_front(uint32_t cb_id, uint32_t num_pages);

// This processor's view of a CB, as TT-Metal's internal/circular_buffer_interface.h
// lays it out: addresses and sizes in bytes on a data-movement processor and in
// 16-byte units (cb_addr_shift) on a compute one; the 16-bit page counters are
// this processor's. The reference stays current through this processor's own
// cb_* calls (the other side's pushes and pops show after its next cb_* call
// on that CB, as TT-Metal's copy refreshes on cb_wait_front/cb_reserve_back).
struct LocalCBInterface {
  uint32_t fifo_size;
  uint32_t fifo_limit;  // fifo start + fifo_size
  uint32_t fifo_page_size;
  uint32_t fifo_num_pages;
  uint32_t fifo_rd_ptr;
  uint32_t fifo_wr_ptr;
  union {
    uint32_t tiles_acked_received_init;
    struct {
      uint16_t tiles_acked;
      uint16_t tiles_received;
    };
  };
  uint32_t fifo_wr_tile_ptr;  // the packer's in-order pointer (0: pack_tile writes in order)
};
#if defined(TTL_COMPUTE_KERNEL)
constexpr uint32_t cb_addr_shift = 4;
#else
constexpr uint32_t cb_addr_shift = 0;
#endif
LocalCBInterface& get_local_cb_interface(uint32_t cb_id);

#if !defined(TTL_COMPUTE_KERNEL)  // the data-movement API (api/dataflow/dataflow_api.h)
uint32_t get_write_ptr(uint32_t cb_id);
uint32_t get_read_ptr(uint32_t cb_id);

// -------------------------------------------------------------------- NOC
// A NOC address packs a node's NOC coordinates (x, y) and a local address.
// NOC coordinates are not logical ones: the host translates logical nodes and
// passes the results as runtime args (docs/manifest.md).
uint64_t get_noc_addr(uint32_t x, uint32_t y, uint32_t addr, uint8_t noc = noc_index);
// This node's own address `addr`.
uint64_t get_noc_addr(uint32_t addr, uint8_t noc = noc_index);
// Multicast address for the rectangle of nodes [x_start..x_end] x [y_start..y_end].
// noc_async_write_multicast writes to every node in it except the sender.
uint64_t get_noc_multicast_addr(uint32_t x_start, uint32_t y_start, uint32_t x_end,
                                uint32_t y_end, uint32_t addr, uint8_t noc = noc_index);

void noc_async_read(uint64_t src_noc_addr, uint32_t dst_local_l1_addr, uint32_t size);
void noc_async_write(uint32_t src_local_l1_addr, uint64_t dst_noc_addr, uint32_t size);
void noc_async_write_multicast(uint32_t src_local_l1_addr, uint64_t dst_noc_addr_multicast,
                               uint32_t size, uint32_t num_dests);
// The _loopback_src variant also writes to the sender when it is in the rectangle
// (num_dests counts it).
void noc_async_write_multicast_loopback_src(uint32_t src_local_l1_addr,
                                            uint64_t dst_noc_addr_multicast, uint32_t size,
                                            uint32_t num_dests);
void noc_async_read_barrier();
void noc_async_write_barrier();
// Before re-reading L1 words another node writes (a polling loop): TT-Metal
// invalidates the data cache of processors that have one; the emulator's L1 is
// coherent, and a polling hart is preempted like any other.
void invalidate_l1_cache();

// Tensor pages: TensorAccessor and noc_async_read_page / write_page are in
// api/tensor/tensor_accessor.h.

#endif  // !TTL_COMPUTE_KERNEL

// Stops the run unless the `size`-tile slice at tile offset `index` lies within
// [0, extent) of a tensor dimension; `what` names the dimension ("dimension 1 of
// tensor 'a'"). The compiler emits it for slice offsets it cannot check itself.
void ttl_check_slice(int32_t index, uint32_t size, uint32_t extent, const char* what);
// Stops the run if `divisor` is zero: the compiler emits it before a `//` or `%`
// of kernel integers whose divisor is not a constant (RISC-V division by zero
// does not trap: it would give -1 silently).
void ttl_check_divisor(int32_t dividend, int32_t divisor);

#if !defined(TTL_COMPUTE_KERNEL)
// Semaphores live in L1; get_semaphore returns the local address of one.
uint32_t get_semaphore(uint32_t semaphore_id);
void noc_semaphore_wait(volatile uint32_t* sem_addr, uint32_t val);
// Waits until the semaphore is at least `val`.
void noc_semaphore_wait_min(volatile uint32_t* sem_addr, uint32_t val);
void noc_semaphore_set(volatile uint32_t* sem_addr, uint32_t val);
void noc_semaphore_inc(uint64_t sem_noc_addr, uint32_t incr);
// Copy the word at local L1 (or semaphore) address `src_local_l1_addr` into a remote
// semaphore, or into the semaphore of every node of a multicast rectangle except the
// sender (`num_dests` nodes; the `_loopback_src` variant includes the sender).
// Asynchronous: the source word must stay unchanged until a noc_async_write_barrier().
void noc_semaphore_set_remote(uint32_t src_local_l1_addr, uint64_t dst_noc_addr);
void noc_semaphore_set_multicast(uint32_t src_local_l1_addr, uint64_t dst_noc_addr_multicast,
                                 uint32_t num_dests);
void noc_semaphore_set_multicast_loopback_src(uint32_t src_local_l1_addr,
                                              uint64_t dst_noc_addr_multicast, uint32_t num_dests);

#endif  // !TTL_COMPUTE_KERNEL

#if !defined(TTL_DATA_MOVEMENT_KERNEL)  // the compute API (api/compute/*.h)
// ----------------------------------------------------------------- compute
// Tile math runs on the modelled coprocessor, not on the RISC-V hart: these
// calls enqueue commands. DST is the tile register file. Names, signatures and
// template forms are TT-Metal 0.81.1's.

// TT-Metal's DataFormat (tensix_types.h), for the API calls that take one.
enum class DataFormat : uint8_t {
  Float32 = 0,
  Float16 = 1,
  Bfp8 = 2,
  Bfp4 = 3,
  Tf32 = 4,
  Float16_b = 5,
  Bfp8_b = 6,
  Bfp4_b = 7,
  Int32 = 8,
  UInt16 = 9,
  Int8 = 14,
  UInt32 = 24,
  UInt8 = 30,
  Invalid = 0xff,
};

// Once, at the start of a compute kernel, before any other compute call: the
// hardware's unpack, math and pack configuration for these CBs (matmul: Reverse).
enum class SrcOrder : uint8_t { Regular = 0, Reverse = 1 };
template <SrcOrder src_order = SrcOrder::Regular>
void compute_kernel_hw_startup(uint32_t icb0, uint32_t icb1, uint32_t ocb);
void compute_kernel_hw_startup(uint32_t icb0, uint32_t ocb);
void tile_regs_acquire();
void tile_regs_commit();
void tile_regs_wait();
void tile_regs_release();

void copy_init(uint32_t cbid, uint32_t transpose = 0, uint32_t transpose_within_16x16_face = false);
[[deprecated("Renamed to copy_init().")]] void copy_tile_init(uint32_t cbid);
void copy_tile(uint32_t cb_id, uint32_t tile_index, uint32_t dst_index);

// Binary ops reading two DFB tiles into DST[dst_index].
// acc_to_dest (DST[idst] += A op B) is not modelled: the emulator stops the run
// when it is set (note mul_init's TT-Metal default is true).
void add_init(uint32_t icb0, uint32_t icb1, bool acc_to_dest = false);
void sub_init(uint32_t icb0, uint32_t icb1, bool acc_to_dest = false);
void mul_init(uint32_t icb0, uint32_t icb1, bool acc_to_dest = true);
void add_tiles(uint32_t cb_a, uint32_t cb_b, uint32_t tile_a, uint32_t tile_b, uint32_t dst_index);
void sub_tiles(uint32_t cb_a, uint32_t cb_b, uint32_t tile_a, uint32_t tile_b, uint32_t dst_index);
void mul_tiles(uint32_t cb_a, uint32_t cb_b, uint32_t tile_a, uint32_t tile_b, uint32_t dst_index);

// Binary ops between DST registers: DST[odst] = DST[a] op DST[b].
void add_binary_tile_init();
void sub_binary_tile_init();
void mul_binary_tile_init();
void div_binary_tile_init();
void add_binary_tile(uint32_t dst_a, uint32_t dst_b, uint32_t dst_out);
void sub_binary_tile(uint32_t dst_a, uint32_t dst_b, uint32_t dst_out);
void mul_binary_tile(uint32_t dst_a, uint32_t dst_b, uint32_t dst_out);
void div_binary_tile(uint32_t dst_a, uint32_t dst_b, uint32_t dst_out);

// SFPU binary functions between DST registers: DST[odst] = f(DST[a], DST[b]).
// remainder is Python's floor modulo (torch.remainder).
#define TTL_DECLARE_BINARY_DST_OP(name) \
  void name##_init();                   \
  void name(uint32_t dst_a, uint32_t dst_b, uint32_t dst_out);
TTL_DECLARE_BINARY_DST_OP(binary_max_tile)
TTL_DECLARE_BINARY_DST_OP(binary_min_tile)
TTL_DECLARE_BINARY_DST_OP(remainder_binary_tile)
#undef TTL_DECLARE_BINARY_DST_OP

// Comparisons with zero in place on DST[dst_index]: 1.0 where x > 0 (gtz), x < 0
// (ltz), x >= 0 (gez), x <= 0 (lez), x == 0 (eqz), x != 0 (nez); else 0.0.
#define TTL_DECLARE_COMPARE_ZERO_OP(name) \
  void name##_tile_init();                \
  void name##_tile(uint32_t dst_index);
TTL_DECLARE_COMPARE_ZERO_OP(gtz)
TTL_DECLARE_COMPARE_ZERO_OP(ltz)
TTL_DECLARE_COMPARE_ZERO_OP(gez)
TTL_DECLARE_COMPARE_ZERO_OP(lez)
TTL_DECLARE_COMPARE_ZERO_OP(eqz)
TTL_DECLARE_COMPARE_ZERO_OP(nez)
#undef TTL_DECLARE_COMPARE_ZERO_OP

// Scalar operations in place on DST[dst_index] (value as binary32 bit pattern):
// x + v, x - v, x * v, x / v, v - x.
void binop_with_scalar_tile_init();
void add_unary_tile(uint32_t dst_index, uint32_t value_bits);
void sub_unary_tile(uint32_t dst_index, uint32_t value_bits);
void mul_unary_tile(uint32_t dst_index, uint32_t value_bits);
void div_unary_tile(uint32_t dst_index, uint32_t value_bits);
void rsub_unary_tile(uint32_t dst_index, uint32_t value_bits);

// Matmul: DST[dst_index] += A[tile_a] @ B[tile_b].
void matmul_init(uint32_t in0_cb_id, uint32_t in1_cb_id, uint32_t transpose = 0);
void matmul_tiles(uint32_t cb_a, uint32_t cb_b, uint32_t tile_a, uint32_t tile_b,
                  uint32_t dst_index);

// Unary (SFPU) ops in place on DST[dst_index].
#define TTL_DECLARE_UNARY_TILE_OP(name) \
  void name##_tile_init();              \
  void name##_tile(uint32_t dst_index);
// exp's options (api/compute/eltwise_unary/exp.h). The emulator computes e^(scale * x)
// with the bfloat16 scale exp_tile receives when scale_en, in the first `iterations`
// x 32 elements of each face (8: all 256), over all four faces (VectorMode::RC only);
// approx and input_clamping select TT-Metal's approximation, not modelled.
enum class VectorMode : uint8_t { None = 0, R = 1, C = 2, RC = 4, RC_custom = 6, Invalid = 0xFF };
enum class InputClamping : uint8_t { ClampToNegative = 1, None = 0 };
template <bool approx = false, uint32_t scale = 0x3F800000,
          InputClamping input_clamping = InputClamping::ClampToNegative>
void exp_tile_init();
template <bool approx = false, bool scale_en = false,
          InputClamping input_clamping = InputClamping::ClampToNegative, int iterations = 8>
void exp_tile(uint32_t dst_index, VectorMode vector_mode = VectorMode::RC,
              uint16_t scale = 0x3F80);
TTL_DECLARE_UNARY_TILE_OP(log)
TTL_DECLARE_UNARY_TILE_OP(sqrt)
TTL_DECLARE_UNARY_TILE_OP(rsqrt)
TTL_DECLARE_UNARY_TILE_OP(recip)
TTL_DECLARE_UNARY_TILE_OP(relu)
TTL_DECLARE_UNARY_TILE_OP(sigmoid)
TTL_DECLARE_UNARY_TILE_OP(tanh)
TTL_DECLARE_UNARY_TILE_OP(abs)
TTL_DECLARE_UNARY_TILE_OP(negative)
TTL_DECLARE_UNARY_TILE_OP(exp2)
TTL_DECLARE_UNARY_TILE_OP(expm1)
TTL_DECLARE_UNARY_TILE_OP(log1p)
TTL_DECLARE_UNARY_TILE_OP(square)
TTL_DECLARE_UNARY_TILE_OP(tan)
TTL_DECLARE_UNARY_TILE_OP(atan)
TTL_DECLARE_UNARY_TILE_OP(atanh)
TTL_DECLARE_UNARY_TILE_OP(sin)
TTL_DECLARE_UNARY_TILE_OP(asin)
TTL_DECLARE_UNARY_TILE_OP(asinh)
TTL_DECLARE_UNARY_TILE_OP(cos)
TTL_DECLARE_UNARY_TILE_OP(acos)
TTL_DECLARE_UNARY_TILE_OP(acosh)
TTL_DECLARE_UNARY_TILE_OP(silu)
TTL_DECLARE_UNARY_TILE_OP(softsign)
TTL_DECLARE_UNARY_TILE_OP(hardsigmoid)
TTL_DECLARE_UNARY_TILE_OP(sign)
TTL_DECLARE_UNARY_TILE_OP(signbit)
#undef TTL_DECLARE_UNARY_TILE_OP

// Rounding (TT-Metal: one init for floor, ceil, trunc, frac and round).
void rounding_op_tile_init();
void floor_tile(uint32_t dst_index);
void ceil_tile(uint32_t dst_index);
void trunc_tile(uint32_t dst_index);
void frac_tile(uint32_t dst_index);
void round_tile(uint32_t dst_index, int32_t decimals);

// GELU: fast_and_approx = true is the tanh approximation, false the erf form.
// (Templates: test_api_contract.py takes their addresses in tests/runtime/math.)
template <bool fast_and_approx = true> void gelu_tile_init();
template <bool fast_and_approx = true> void gelu_tile(uint32_t dst_index);

// Parameterised SFPU ops: float parameters are binary32 bit patterns.
void power_tile_init();
void power_tile(uint32_t dst_index, uint32_t exponent);
void relu_max_tile_init();
void relu_max_tile(uint32_t dst_index, uint32_t upper_limit);
void relu_min_tile_init();
void relu_min_tile(uint32_t dst_index, uint32_t lower_limit);
void leaky_relu_tile_init();
void leaky_relu_tile(uint32_t dst_index, uint32_t slope);
void elu_tile_init();
void elu_tile(uint32_t dst_index, uint32_t alpha);
void celu_tile_init();
void celu_tile(uint32_t dst_index, uint32_t alpha, uint32_t alpha_recip);
void prelu_tile_init();
void prelu_tile(uint32_t dst_index, uint32_t alpha);
void softplus_tile_init();
void softplus_tile(uint32_t dst_index, uint32_t beta, uint32_t beta_reciprocal, uint32_t threshold);
void hardtanh_tile_init();
void hardtanh_tile(uint32_t dst_index, uint32_t min, uint32_t max);
void selu_tile_init();
void selu_tile(uint32_t dst_index, uint32_t scale, uint32_t alpha);
void clamp_tile_init();
void clamp_tile(uint32_t dst_index, uint32_t min, uint32_t max);
void threshold_tile_init();
void threshold_tile(uint32_t dst_index, uint32_t threshold, uint32_t value);

// Fill DST[dst_index] with a constant (value as binary32 bit pattern).
void fill_tile_init();
void fill_tile_bitcast(uint32_t dst_index, uint32_t value_bits);

// Broadcast a tile from a DFB into DST[dst_index]: kind 0 = none, 1 = row
// (row 0 replicated down), 2 = column (column 0 replicated across), 3 = scalar.
enum class BroadcastType : uint8_t { NONE = 0, ROW = 1, COL = 2, SCALAR = 3 };
template <BroadcastType bcast_type> void unary_bcast_init(uint32_t icb);
template <BroadcastType bcast_type> void unary_bcast(uint32_t icb, uint32_t in_tile_index,
                                                     uint32_t dst_tile_index);

// Pack DST[dst_index] into the DFB's reserved block at tile position out_tile.
// With L1 accumulation enabled, pack adds to the tile already in L1.
void pack_tile(uint32_t dst_index, uint32_t cb_out, uint32_t out_tile = 0);
void pack_reconfig_l1_acc(uint32_t enable);

// Point the unpacker's srcA/srcB or the packer at CBs of another data format
// (api/compute/reconfig_data_format.h): a kernel whose CBs differ in format calls
// them before each op that unpacks or packs them.
template <SrcOrder src_order = SrcOrder::Regular>
void reconfig_data_format(uint32_t icb0_new_operand, uint32_t icb1_new_operand);
void reconfig_data_format_srca(uint32_t srca_new_operand);
void pack_reconfig_data_format(uint32_t new_cb_id);

// Reductions (TT-Metal's compute_kernel_api/reduce.h). reduce_tile reduces tile
// `itile` of cb `icb`, each element multiplied by the scaler tile's value at
// the first row of its face (fill the scaler tile with one value s to scale
// the result by s), into DST[idst]: REDUCE_ROW into column 0, REDUCE_COL into
// row 0, REDUCE_SCALAR into element (0, 0); SUM adds to and MAX takes the
// maximum with what DST holds there; the rest of the tile becomes 0 (as
// hardware's reduce pack mask leaves it).
enum class PoolType : uint32_t { SUM = 0, AVG = 1, MAX = 2 };
enum class ReduceDim : uint32_t { REDUCE_ROW = 0, REDUCE_COL = 1, REDUCE_SCALAR = 2 };
// (Templates: each declaration starts with `template`, so the API contract test,
// which takes every plain function's address, leaves them to the reduce tests.)
template <PoolType reduce_type, ReduceDim reduce_dim> void reduce_init(
    uint32_t icb, uint32_t icb_scaler, uint32_t ocb);
template <PoolType reduce_type, ReduceDim reduce_dim> void reduce_tile(
    uint32_t icb, uint32_t icb_scaler, uint32_t itile, uint32_t itile_scaler, uint32_t idst);
void reduce_uninit(uint32_t icb = 0);

// Transpose tile `itile` of cb `icb` (rows <-> columns) into DST[idst].
void transpose_init(uint32_t icb);
void transpose_tile(uint32_t icb, uint32_t itile, uint32_t idst);

// DST[odst] = DST[idst0] == 1 ? DST[idst1] : DST[idst2], element-wise (the spec's 1 = true).
// (data_format: the format of the DST tiles; the emulator computes in fp32.)
void where_tile_init();
template <DataFormat data_format> void where_tile(uint32_t idst0, uint32_t idst1, uint32_t idst2,
                                                  uint32_t odst);

// DST[dst_data] = 0 (mask_tile) or +inf (mask_posinf_tile) where DST[dst_mask] == 1.
void mask_tile_init();
void mask_tile(uint32_t dst_data, uint32_t dst_mask, DataFormat data_format = DataFormat::Float16_b);
void mask_posinf_tile(uint32_t dst_data, uint32_t dst_mask);

#endif  // !TTL_DATA_MOVEMENT_KERNEL

// ------------------------------------------------------------- debugging
// Printing: TT-Metal's DPRINT(format, ...), api/debug/dprint.h.

// Profiling zones: TT-Metal's DeviceZoneScopedN(name), api/debug/kernel_profiler.hpp.

// New declarations go above this line; the emulated device implements every
// declaration in ttl/detail/kernel_api_impl.h (header-only; see its comment).
#include "ttl/detail/kernel_api_impl.h"
