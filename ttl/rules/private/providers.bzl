"""Providers of the ttl rules, declared in one place."""

DeviceToolchainInfo = provider(
    doc = "A C++ toolchain that builds Tensix device kernels (RISC-V ELFs).",
    fields = {
        "cxx": "String: path of the C++ compiler driver (also used to link).",
        "cxx_version": "String: the compiler's `--version` line; part of every compile " +
                       "action's key, so a compiler change invalidates cached outputs.",
        "copts": "List of strings: flags for every device compilation " +
                 "(architecture, ABI, freestanding, no exceptions/RTTI, optimisation).",
        "linkopts": "List of strings: flags for every device link.",
        "linker_script": "File: the linker script placing kernels in hart-local memory.",
        "crt0": "File: startup code that calls `kernel_main` and stops the hart.",
        "headers": "Depset of Files: the device kernel API and freestanding C++ headers.",
        "include_dirs": "List of strings: exec-root relative directories holding `headers`.",
    },
)
