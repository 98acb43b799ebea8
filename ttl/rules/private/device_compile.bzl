"""Compiling and linking device kernels with the resolved device toolchain.

Every device build goes through one tool, tools/build_kernels.py, which runs
`ttl.device_build` (the code the JIT runs too): the device flags are written
down only there (ttl/device_build/flags.py); a toolchain's `copts` and
`linkopts` come after them. Debug paths are mapped to fixed names, so ELFs are
byte-identical across output bases, machines and the JIT.
"""

DEVICE_TOOLCHAIN_TYPE = str(Label("//toolchains:device_toolchain_type"))

_NO_DEVICE_TOOLCHAIN = """\
{label}: no device toolchain matches the target platform {platform}.
Register one that does, in WORKSPACE or MODULE.bazel:
    register_toolchains("@ttl_bazel//toolchains/device:riscv_gcc_toolchain")
(the default RISC-V GCC; it matches every platform), or declare your own
`toolchain(toolchain_type = "@ttl_bazel//toolchains:device_toolchain_type", ...)`
compatible with {platform}; or build for another platform with --platforms."""

def device_toolchain(ctx):
    """The DeviceToolchainInfo resolved for this target's platform.

    Fails with what to register when only the fallback toolchain matched.
    Rules calling this must declare `fragments = ["platform"]`.

    Args:
      ctx: the rule context.

    Returns:
      The `DeviceToolchainInfo` of the resolved device toolchain.
    """
    info = ctx.toolchains[DEVICE_TOOLCHAIN_TYPE].device
    if info == None:
        fail(_NO_DEVICE_TOOLCHAIN.format(label = ctx.label, platform = ctx.fragments.platform.platform))
    return info

def device_builder_args(ctx, label, toolchain, include_dirs = [], copts = [], defines = []):
    """The device builder's toolchain arguments; callers add the mode arguments.

    Args:
      ctx: the rule context.
      label: the target, named in error messages.
      toolchain: a DeviceToolchainInfo.
      include_dirs: exec-root relative include directories, searched before the toolchain's.
      copts: extra compile flags.
      defines: `NAME=VALUE` preprocessor defines for every source.

    Returns:
      An Args object.
    """
    args = ctx.actions.args()
    args.add("--label", str(label))
    args.add("--cxx", toolchain.cxx)
    args.add_all(toolchain.copts + copts, format_each = "--copt=%s")
    args.add_all(toolchain.linkopts, format_each = "--linkopt=%s")
    args.add_all(include_dirs, format_each = "--include_dir=%s")
    args.add_all(toolchain.include_dirs, format_each = "--device_include_dir=%s")
    args.add_all(defines, format_each = "--define=%s")
    args.add("--linker_script", toolchain.linker_script)
    args.add("--crt0", toolchain.crt0)
    args.add("--confine_includes")  # only declared (exec-root relative) headers
    return args

def device_builder_inputs(toolchain, inputs, headers):
    """The inputs of a device build: `inputs`, `headers` and the toolchain's files."""
    return depset(
        inputs + [toolchain.linker_script, toolchain.crt0],
        transitive = [headers, toolchain.headers],
    )

def device_link_elf(
        ctx,
        builder,
        toolchain,
        srcs,
        hdrs,
        output,
        defines = [],
        copts = [],
        progress_message = None):
    """Compiles `srcs` with the device toolchain and links them into the ELF `output`.

    Args:
      ctx: the rule context.
      builder: the device builder executable (tools:build_kernels, exec configuration).
      toolchain: a DeviceToolchainInfo.
      srcs: list of C++ (and assembly) Files of this kernel.
      hdrs: list of header Files the sources may include.
      output: the ELF File to declare as output; its name must end in `.elf`.
      defines: `NAME=VALUE` preprocessor defines.
      copts: extra compile flags.
      progress_message: the action's progress message.
    """
    args = device_builder_args(ctx, ctx.label, toolchain, copts = copts, defines = defines)
    args.add("--out", output.dirname)
    args.add("--stem", output.basename[:-len(".elf")])
    args.add_all(srcs, format_each = "--source=%s")
    ctx.actions.run(
        executable = builder,
        arguments = [args],
        inputs = device_builder_inputs(toolchain, srcs, depset(hdrs)),
        outputs = [output],
        mnemonic = "TtlDeviceLink",
        progress_message = progress_message or "Linking device kernel %s" % output.short_path,
        env = {"TTL_DEVICE_CXX_VERSION": toolchain.cxx_version},
    )
