/* Hart entry: set up stack and global pointer, run C++ `void kernel_main()`, then stop.
 * The emulator starts every hart at _start and treats reaching `__ttl_exit`
 * (the ebreak after kernel_main returns) as normal completion. LOCAL memory is
 * zero-filled by the emulator before loading, so .bss needs no clearing here. */
  .section .text.start, "ax"
  .globl _start
  .globl __ttl_exit
_start:
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  la sp, __stack_top
  /* `void kernel_main()` is a C++ function: call its Itanium-mangled name. */
  call _Z11kernel_mainv
__ttl_exit:
  ebreak
1:
  j 1b
