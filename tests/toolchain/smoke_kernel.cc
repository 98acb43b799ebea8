// Smoke kernel for the device toolchain: freestanding C++ using the
// freestanding headers, a template and a constexpr table, no runtime calls.
#include <cstddef>
#include <cstdint>

namespace {

template <std::size_t N>
constexpr std::uint32_t checksum(const std::uint32_t (&values)[N]) {
  std::uint32_t sum = 0;
  for (std::size_t i = 0; i < N; ++i) sum = sum * 31u + values[i];
  return sum;
}

constexpr std::uint32_t kTable[] = {1, 2, 3, 5, 8, 13};
static_assert(checksum(kTable) != 0, "constexpr evaluation works");

}  // namespace

volatile std::uint32_t smoke_result;

void kernel_main() { smoke_result = checksum(kTable) * 7u; }
