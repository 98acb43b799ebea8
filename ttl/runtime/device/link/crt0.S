/* Hart entry: set up stack and global pointer, run C++ `void kernel_main()`, then stop.
 *
 * The emulator runs every hart with __ttl_stop (inside __ttl_yield) as
 * Unicorn's stop address, so reaching it leaves emulation natively, without a
 * Python hook; __ttl_yield first stores its return address in the mailbox:
 *  - a blocking API call (cb_wait_front, ...) writes its wait to the mailbox
 *    and calls __ttl_yield; the emulator parks the hart and later resumes it
 *    at the return address, as the `ret` would;
 *  - after kernel_main returns, crt0 calls __ttl_yield from __ttl_exit, and
 *    that return address (__ttl_exit + 4) means the kernel finished.
 * LOCAL memory is zero-filled by the emulator before loading, so .bss needs
 * no clearing here. */
  .section .text.start, "ax"
  .globl _start
  .globl __ttl_exit
  .globl __ttl_yield
_start:
  .option push
  .option norelax
  la gp, __global_pointer$
  .option pop
  la sp, __stack_top
  /* `void kernel_main()` is a C++ function: call its Itanium-mangled name. */
  call _Z11kernel_mainv
__ttl_exit:
  jal __ttl_yield
  ebreak
1:
  j 1b
__ttl_yield:
  /* mailbox[4] = resume address, so the emulator needs no register reads.
   * 0xF0013000 = TTL_HART_ARGS_BASE + TTL_MAILBOX_OFFSET; 16 = 4 * TTL_MB_RESUME
   * (ttl/device_map.h; tests/runtime/test_memmap_tiles.py checks they agree). */
  lui t0, 0xF0013
  sw ra, 16(t0)
  /* Reach the stop address by a jump, past a word nothing executes: after
   * every run Unicorn invalidates the translated block holding the byte
   * before its stop address, and that must not be this hot block. */
  j __ttl_stop
  unimp
  .globl __ttl_stop
__ttl_stop:
  ret
