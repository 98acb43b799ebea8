"""`ttl_device_kernel`: one hand-written C++ device kernel linked into an ELF."""

load(":device_compile.bzl", "DEVICE_TOOLCHAIN_TYPE", "device_link_elf", "device_toolchain")

def _ttl_device_kernel_impl(ctx):
    elf = ctx.actions.declare_file(ctx.label.name + ".elf")
    device_link_elf(
        ctx,
        ctx.executable._device_builder,
        device_toolchain(ctx),
        srcs = ctx.files.srcs,
        hdrs = ctx.files.hdrs,
        output = elf,
        defines = ctx.attr.defines,
        copts = ctx.attr.copts,
        progress_message = "Linking device kernel %s" % ctx.label,
    )
    return [DefaultInfo(files = depset([elf]), runfiles = ctx.runfiles([elf]))]

ttl_device_kernel = rule(
    implementation = _ttl_device_kernel_impl,
    doc = "Compiles and links C++ sources defining `kernel_main` into a device ELF " +
          "with the registered device toolchain.",
    attrs = {
        "srcs": attr.label_list(
            allow_files = [".cc", ".cpp", ".S"],
            mandatory = True,
            doc = "C++ sources; one of them defines `void kernel_main()`.",
        ),
        "hdrs": attr.label_list(allow_files = True, doc = "Headers the sources include."),
        "defines": attr.string_list(doc = "Preprocessor defines, `NAME=VALUE`."),
        "copts": attr.string_list(doc = "Extra compile flags."),
        "_device_builder": attr.label(
            default = Label("//ttl/rules/private/tools:build_kernels"),
            executable = True,
            cfg = "exec",
        ),
    },
    toolchains = [DEVICE_TOOLCHAIN_TYPE],
    fragments = ["platform"],
)
