// Operating-system configuration of libstdc++ for a bare-metal Tensix core.
//
// The hardware check (ttl/device_build/hardware_check.py) compiles kernels with
// the host's GCC 12 libstdc++ headers, as the SFPI toolchain compiles them with
// its own. The host's bits/os_defines.h is glibc's; this one, found first,
// describes no operating system at all.
#pragma once
#define _GLIBCXX_GTHREAD_USE_WEAK 0
