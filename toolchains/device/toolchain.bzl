"""The `ttl_device_toolchain` rule: a RISC-V C++ compiler for device kernels."""

load("//ttl/rules:defs.bzl", "DeviceToolchainInfo")

def _include_dir(label, include_prefix):
    parts = [p for p in [label.workspace_root, label.package, include_prefix] if p]
    return "/".join(parts)

def _ttl_device_toolchain_impl(ctx):
    info = DeviceToolchainInfo(
        cxx = ctx.attr.cxx,
        cxx_version = ctx.attr.cxx_version,
        copts = ctx.attr.copts,
        linkopts = ctx.attr.linkopts,
        linker_script = ctx.file.linker_script,
        crt0 = ctx.file.crt0,
        headers = depset(ctx.files.headers),
        include_dirs = [_include_dir(ctx.attr.headers.label, ctx.attr.include_prefix)],
    )
    return [platform_common.ToolchainInfo(device = info), info]

ttl_device_toolchain = rule(
    implementation = _ttl_device_toolchain_impl,
    doc = "Declares a device C++ toolchain. Register it with `toolchain(toolchain_type = " +
          "\"@ttl_bazel//toolchains:device_toolchain_type\")` and `register_toolchains`.",
    attrs = {
        "cxx": attr.string(mandatory = True, doc = "Path of the C++ compiler driver."),
        "cxx_version": attr.string(
            mandatory = True,
            doc = "The compiler's version string; recorded in every compile action.",
        ),
        "copts": attr.string_list(
            doc = "Flags of this toolchain for every device compilation, after the standard " +
                  "ones (ttl/device_build/flags.py).",
        ),
        "linkopts": attr.string_list(
            doc = "Flags of this toolchain for every device link, after the standard ones.",
        ),
        "linker_script": attr.label(mandatory = True, allow_single_file = True, doc = "Linker script."),
        "crt0": attr.label(mandatory = True, allow_single_file = True, doc = "Startup code."),
        "headers": attr.label(mandatory = True, doc = "Device headers (kernel API, <cstdint>...)."),
        "include_prefix": attr.string(
            default = "include",
            doc = "Directory of `headers`, relative to the package of the `headers` target.",
        ),
    },
    provides = [DeviceToolchainInfo],
)

def _ttl_no_device_toolchain_impl(_ctx):
    return [platform_common.ToolchainInfo(device = None)]

ttl_no_device_toolchain = rule(
    implementation = _ttl_no_device_toolchain_impl,
    doc = "The fallback registered after every real device toolchain: it matches any " +
          "platform and makes rules fail saying which toolchain to register.",
)
