"""C++ for copies that convert between bf16 and f32 (``ttl-stage-converting-copies``).

A NOC transfer moves bytes, and TT-Metal's format conversion lives in the
compute core's unpacker and packer, which a copy never passes through. So a
data-movement kernel converts in software, one tensor page at a time, through
the staging page the pass gave it:

* a read lands the page in the staging page, waits for it, and widens or
  narrows it into the block;
* a write converts the block's tile (or row segment) into the staging page,
  sends it, and waits before the page is reused.

Each page waits for its own barrier, so the copy has finished when the
statement has; the copy's ``wait()`` then costs nothing. The kernel defines the
converters it uses (plain C++ over L1 words, the same text for the emulator and
for TT-Metal's toolchain).
"""

from __future__ import annotations

from dataclasses import dataclass

_BF16_TO_F32 = """\
// bf16 -> f32 is exact: a bf16 value is the upper half of the f32 one.
inline void ttl_bf16_to_f32(uint32_t dst, uint32_t src, uint32_t count) {
  volatile uint16_t* in = reinterpret_cast<volatile uint16_t*>(src);
  volatile uint32_t* out = reinterpret_cast<volatile uint32_t*>(dst);
  for (uint32_t i = 0; i < count; ++i) {
    out[i] = static_cast<uint32_t>(in[i]) << 16;
  }
}
"""

_F32_TO_BF16 = """\
// f32 -> bf16 rounds to nearest, ties to even, as the packer does; a NaN stays a NaN.
inline void ttl_f32_to_bf16(uint32_t dst, uint32_t src, uint32_t count) {
  volatile uint32_t* in = reinterpret_cast<volatile uint32_t*>(src);
  volatile uint16_t* out = reinterpret_cast<volatile uint16_t*>(dst);
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t bits = in[i];
    if ((bits & 0x7fffffffu) > 0x7f800000u) {
      out[i] = static_cast<uint16_t>((bits >> 16) | 0x40u);
    } else {
      out[i] = static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
    }
  }
}
"""

CONVERTERS = {
    ("bf16", "f32"): ("ttl_bf16_to_f32", _BF16_TO_F32),
    ("f32", "bf16"): ("ttl_f32_to_bf16", _F32_TO_BF16),
}
"""(from dtype, to dtype) -> (C++ function, its definition)."""


@dataclass(frozen=True)
class Conversion:
    """How one converting copy moves its pages: through the staging page at L1
    address ``staged`` (a C++ expression), between ``tensor_dtype`` in DRAM and
    ``block_dtype`` in the block."""

    is_read: bool
    staged: str
    tensor_dtype: str
    block_dtype: str

    @property
    def function(self) -> str:
        """The C++ converter this copy calls."""
        pair = (
            (self.tensor_dtype, self.block_dtype)
            if self.is_read
            else (self.block_dtype, self.tensor_dtype)
        )
        return CONVERTERS[pair][0]

    def around(self, transfer: str, block_addr: str, count: int) -> list[str]:
        """The statements that move one page of ``count`` elements: ``transfer`` (the NOC
        read into, or write from, the staging page) and its conversion."""
        if self.is_read:
            return [
                transfer,
                "noc_async_read_barrier();",
                f"{self.function}({block_addr}, {self.staged}, {count});",
            ]
        return [
            f"{self.function}({self.staged}, {block_addr}, {count});",
            transfer,
            "noc_async_write_barrier();  // before the staging page is reused",
        ]


def converter_definitions(functions: set[str]) -> str:
    """The definitions of the converters ``functions`` names, in a fixed order."""
    return "\n".join(text for name, text in CONVERTERS.values() if name in functions)
