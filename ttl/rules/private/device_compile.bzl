"""Compiling and linking device kernels with the resolved device toolchain."""

DEVICE_TOOLCHAIN_TYPE = str(Label("//toolchains:device_toolchain_type"))

# The compiler runs in a sandbox whose absolute path differs per action and
# per output base; mapping it to "." keeps paths out of the ELF's debug info,
# so outputs are byte-identical across machines and output bases. gcc does not
# forward the map to the assembler, which records it for crt0.S: pass it too.
_COMPILE_SCRIPT = """\
set -eu
cxx="$1"; shift
exec "$cxx" -ffile-prefix-map="$PWD"=. -Wa,--debug-prefix-map="$PWD"=. "$@"
"""

def device_toolchain(ctx):
    """The DeviceToolchainInfo resolved for this target's platform."""
    return ctx.toolchains[DEVICE_TOOLCHAIN_TYPE].device

def device_link_elf(ctx, toolchain, srcs, hdrs, output, defines = [], include_dirs = [],
                    copts = [], mnemonic = "TtlDeviceLink", progress_message = None):
    """Compiles `srcs` with the device toolchain and links them into the ELF `output`.

    One action: kernel ELFs are small, and one action per kernel keeps the
    action graph (and the remote-cache traffic) proportional to kernels.

    Args:
      ctx: the rule context.
      toolchain: a DeviceToolchainInfo.
      srcs: list of C++ (and assembly) Files of this kernel.
      hdrs: depset or list of header Files the sources may include.
      output: the ELF File to declare as output.
      defines: list of `NAME=VALUE` preprocessor defines.
      include_dirs: extra exec-root relative include directories.
      copts: extra compile flags.
      mnemonic: the action mnemonic.
      progress_message: the action's progress message.
    """
    args = ctx.actions.args()
    args.add(toolchain.cxx)
    args.add_all(toolchain.copts)
    args.add_all(copts)
    args.add_all(include_dirs + toolchain.include_dirs, before_each = "-I")
    args.add_all(defines, format_each = "-D%s")
    args.add("-frandom-seed=" + output.short_path)
    args.add_all(toolchain.linkopts)
    args.add("-T", toolchain.linker_script)
    args.add(toolchain.crt0)
    args.add_all(srcs)
    args.add("-lgcc")
    args.add("-o", output)
    hdr_depset = hdrs if type(hdrs) == "depset" else depset(hdrs)
    ctx.actions.run_shell(
        command = _COMPILE_SCRIPT,
        arguments = [args],
        inputs = depset(
            srcs + [toolchain.linker_script, toolchain.crt0],
            transitive = [hdr_depset, toolchain.headers],
        ),
        outputs = [output],
        mnemonic = mnemonic,
        progress_message = progress_message or "Linking device kernel %s" % output.short_path,
        env = {"TTL_DEVICE_CXX_VERSION": toolchain.cxx_version},
    )
