/* Hart entry: set up stack and global pointer, run C++ `void kernel_main()`, then stop.
 * The runtime treats `ebreak` after kernel_main returns as normal completion. */
  .section .text.start, "ax"
  .globl _start
_start:
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  la sp, __stack_top
  /* `void kernel_main()` is a C++ function: call its Itanium-mangled name. */
  call _Z11kernel_mainv
  ebreak
1:
  j 1b
