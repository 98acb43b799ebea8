// TT-Metal's TensorAccessorArgs (api/tensor/tensor_accessor_args.h) for the emulator.
//
// The host appends each tensor's accessor arguments to a kernel's compile-time
// args, at CTA_OFFSET: an ArgsConfig word (hostdevcommon's tensor_accessor
// ArgConfig bits: Sharded 1, IsDram 2, ...) then, for an interleaved tensor,
// its aligned page size. The emulator reads the same words. An L1-sharded
// tensor's placement comes from its runtime address (a descriptor the
// emulator's runtime writes, docs/runtime.md), so only the config word and
// page size are read here.
#pragma once

#include <cstddef>
#include <cstdint>

#include "api/compile_time_args.h"

namespace tensor_accessor {
// hostdevcommon/tensor_accessor/arg_config.hpp
enum class ArgConfig : uint8_t {
  None = 0,
  Sharded = 1 << 0,
  IsDram = 1 << 1,
  RuntimeRank = 1 << 2,
  RuntimeNumBanks = 1 << 3,
  RuntimeTensorShape = 1 << 4,
  RuntimeShardShape = 1 << 5,
  RuntimeBankCoords = 1 << 6,
  RuntimePageSize = 1 << 7,
};
constexpr std::size_t UNKNOWN = static_cast<std::size_t>(-1);
}  // namespace tensor_accessor

template <std::size_t CTA_OFFSET, std::size_t CRTA_OFFSET = tensor_accessor::UNKNOWN>
struct TensorAccessorArgs {
  static constexpr uint32_t config = get_compile_time_arg_val(CTA_OFFSET);
  static constexpr bool is_sharded =
      config & static_cast<uint32_t>(tensor_accessor::ArgConfig::Sharded);
  static constexpr bool is_dram = config & static_cast<uint32_t>(tensor_accessor::ArgConfig::IsDram);
  static_assert(!(config & static_cast<uint32_t>(tensor_accessor::ArgConfig::RuntimePageSize)),
                "the emulator reads the page size from the compile-time args only");
  static_assert(!is_sharded,
                "the emulator takes interleaved TensorAccessorArgs: it places an L1-sharded "
                "tensor itself and passes its shard descriptor as the tensor's address");
  static constexpr uint32_t AlignedPageSize = get_compile_time_arg_val(CTA_OFFSET + 1);
  static constexpr uint32_t NumArgsCT = 2;

  constexpr TensorAccessorArgs() = default;
  constexpr uint32_t get_aligned_page_size() const { return AlignedPageSize; }
  static constexpr uint32_t next_compile_time_args_offset() { return CTA_OFFSET + NumArgsCT; }
  static constexpr uint32_t num_compile_time_args() { return NumArgsCT; }
};
