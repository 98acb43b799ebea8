// Our declarations of SFPI's replay-buffer interface (lltt.h), for the hardware check.
//
// SFPI's headers ship with the SFPI compiler, not in the ttnn wheel; TT-Metal's
// LLK headers include this one. These declarations let the LLK code parse and
// type-check; they generate nothing (the check compiles with -fsyntax-only).
#pragma once

#include <cstdint>

namespace lltt {
enum ExecBool : bool { NoExec = false, Exec = true };

template <ExecBool exec = NoExec>
inline void record(uint32_t start, uint32_t length) {
  (void)start;
  (void)length;
}
inline void replay(uint32_t start, uint32_t length) {
  (void)start;
  (void)length;
}
constexpr uint32_t replay_insn(uint32_t start, uint32_t length) { return start ^ length; }
}  // namespace lltt
