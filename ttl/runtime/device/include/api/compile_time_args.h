// TT-Metal's compile-time arguments (api/compile_time_args.h) for the emulator.
//
// As on TT-Metal, the build passes a kernel's compile-time arguments as
// -DKERNEL_COMPILE_TIME_ARGS=a,b,c (the manifest's `compile_time_args`), and
// get_compile_time_arg_val(i) is a constant expression; an index past the end
// fails to compile.
#pragma once

#include <cstdint>

#ifndef KERNEL_COMPILE_TIME_ARGS
#define KERNEL_COMPILE_TIME_ARGS
#endif

namespace ttl_detail {
template <uint32_t... Values>
struct CompileTimeArgs {
  static constexpr uint32_t size = sizeof...(Values);
  static constexpr uint32_t values[sizeof...(Values) + 1] = {Values..., 0};
};
using KernelCompileTimeArgs = CompileTimeArgs<KERNEL_COMPILE_TIME_ARGS>;
}  // namespace ttl_detail

template <uint32_t Idx>
constexpr uint32_t get_ct_arg() {
  static_assert(Idx < ttl_detail::KernelCompileTimeArgs::size,
                "compile-time argument index out of range: the kernel has fewer "
                "compile-time args (KERNEL_COMPILE_TIME_ARGS)");
  return ttl_detail::KernelCompileTimeArgs::values[Idx];
}

#define get_compile_time_arg_val(arg_idx) get_ct_arg<arg_idx>()
