// TT-Metal's TensorAccessor (api/tensor/tensor_accessor.h) for the emulator.
//
// A tensor's pages. Interleaved DRAM tensor (the address is its bank base
// address): page i lives in bank i % num_banks. L1-sharded tensor (the address
// is the emulator's shard descriptor): page i lives in the L1 of the node that
// owns its shard. Build one as TT-Metal kernels do:
//   constexpr auto args = TensorAccessorArgs<0>();
//   const auto accessor = TensorAccessor(args, get_arg_val<uint32_t>(0), page_size);
#pragma once

#include <cstddef>
#include <cstdint>

#include "api/tensor/tensor_accessor_args.h"
#include "ttl/kernel_api.h"

template <typename DSpecT>
struct TensorAccessor {
  TensorAccessor(const size_t bank_base_address_in = 0, uint32_t page_size_in = 0)
      : bank_base_address(static_cast<uint32_t>(bank_base_address_in)),
        aligned_page_size(page_size_in) {}
  TensorAccessor(const DSpecT&, const size_t bank_base_address_in, uint32_t page_size_in)
      : TensorAccessor(bank_base_address_in, page_size_in) {}
  // The page size from the accessor args (their aligned page size).
  TensorAccessor(const DSpecT& args, const size_t bank_base_address_in)
      : TensorAccessor(bank_base_address_in, args.get_aligned_page_size()) {}

  uint32_t get_aligned_page_size() const { return aligned_page_size; }
  constexpr uint32_t get_bank_base_address() const { return bank_base_address; }
  // The NOC address of byte `offset` of page `page_id`.
  uint64_t get_noc_addr(const uint32_t page_id, const uint32_t offset = 0,
                        uint8_t noc = noc_index) const {
    (void)noc;
    return ttl_tensor_page_noc_addr(bank_base_address, aligned_page_size, page_id, offset);
  }

  uint32_t bank_base_address;
  uint32_t aligned_page_size;
};

template <std::size_t CTA_OFFSET, std::size_t CRTA_OFFSET>
TensorAccessor(const TensorAccessorArgs<CTA_OFFSET, CRTA_OFFSET>&, size_t, uint32_t)
    -> TensorAccessor<TensorAccessorArgs<CTA_OFFSET, CRTA_OFFSET>>;
template <std::size_t CTA_OFFSET, std::size_t CRTA_OFFSET>
TensorAccessor(const TensorAccessorArgs<CTA_OFFSET, CRTA_OFFSET>&, size_t)
    -> TensorAccessor<TensorAccessorArgs<CTA_OFFSET, CRTA_OFFSET>>;

// Reads page `id` of `addrgen` into local L1 (`offset` bytes into the page).
template <typename AddrGen, bool enable_noc_tracing = true>
inline __attribute__((always_inline)) void noc_async_read_page(const uint32_t id,
                                                               const AddrGen& addrgen,
                                                               uint32_t dst_local_l1_addr,
                                                               uint32_t offset = 0,
                                                               uint8_t noc = noc_index) {
  (void)noc;
  ttl_tensor_read_page(addrgen.get_bank_base_address(), addrgen.get_aligned_page_size(), id,
                       dst_local_l1_addr, offset);
}

// Writes local L1 into page `id` of `addrgen`.
template <typename AddrGen, bool enable_noc_tracing = true>
inline __attribute__((always_inline)) void noc_async_write_page(const uint32_t id,
                                                                const AddrGen& addrgen,
                                                                uint32_t src_local_l1_addr,
                                                                uint32_t write_size_bytes = 0,
                                                                uint32_t offset = 0,
                                                                uint8_t noc = noc_index) {
  (void)noc;
  ttl_tensor_write_page(addrgen.get_bank_base_address(), addrgen.get_aligned_page_size(), id,
                        src_local_l1_addr, write_size_bytes, offset);
}

template <typename DSpec>
[[deprecated("Use <typename AddrGen> noc_async_read_page instead.")]] inline void
noc_async_read_tile(const uint32_t id, const TensorAccessor<DSpec>& addrgen,
                    uint32_t dst_local_l1_addr, uint32_t offset = 0, uint8_t noc = noc_index) {
  noc_async_read_page(id, addrgen, dst_local_l1_addr, offset, noc);
}

template <typename DSpec>
[[deprecated("Use <typename AddrGen> noc_async_write_page instead.")]] inline void
noc_async_write_tile(const uint32_t id, const TensorAccessor<DSpec>& addrgen,
                     uint32_t src_local_l1_addr, uint8_t noc = noc_index) {
  noc_async_write_page(id, addrgen, src_local_l1_addr, 0, 0, noc);
}
