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

TtlOperationInfo = provider(
    doc = "A compiled TT-Lang operation: what `ttl_operation` produced, for tests, " +
          "packaging rules and aspects. Every File is a build output of the operation's " +
          "target; none of them contains an absolute path or a timestamp.",
    fields = {
        "operation": "String: the operation's name (the Python function compiled).",
        "target": "String: the device target the operation was compiled for " +
                  "(a key of the slot table, e.g. `wormhole_b0`).",
        "grid": "String: the grid override requested at compile time (`XxY`, `full`, or empty for " +
                "the operation's own; the manifest has the resolved grid).",
        "manifest": "File: the compiler's `manifest.json` (docs/manifest.md): logical " +
                    "kernels, DFB table, runtime-argument layout, tensor signatures.",
        "kernel_sources": "File (tree artifact): one generated C++ source per logical " +
                          "kernel, named as in the manifest.",
        "ir": "File: the `ttl` dialect IR text the kernels were emitted from.",
        "elfs": "File (tree artifact): one linked RV32 ELF per logical kernel, " +
                "`<kernel source stem>.elf`.",
        "bundle": "File (tree artifact): the dispatchable bundle: `manifest.json` (the " +
                  "compiler's manifest plus a `bundle` section with the SHA-256 of every " +
                  "file), `kernels/*.cpp`, `elf/*.elf`, `operation.mlir`. The runtime " +
                  "loads this directory.",
        "headers": "Depset of Files: the external headers the kernels were compiled " +
                   "against (from `hdrs` and the CcInfo of `deps`).",
        "include_dirs": "List of strings: exec-root relative include directories, in " +
                        "the order passed to the compiler and the device compiler.",
    },
)

TtlOperationSetInfo = provider(
    doc = "One TT-Lang operation built for several device targets " +
          "(`ttl_operation(targets = [...])`).",
    fields = {
        "operations": "Dict: device target (`wormhole_b0`, `blackhole`) -> the " +
                      "`TtlOperationInfo` of the operation built for that target's platform, " +
                      "in the order of `targets`.",
    },
)
