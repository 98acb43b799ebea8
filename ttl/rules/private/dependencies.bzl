"""`ttl_bazel_dependencies()`: every repository the ttl rules need (WORKSPACE, Bazel 4).

As rules_go's `go_rules_dependencies()`: one call after loading it declares
what the rules use and registers their toolchains. A repository the consumer
declared before the call is kept (`maybe`), so any of them can be replaced.
"""

load("@bazel_tools//tools/build_defs/repo:utils.bzl", "maybe")
load("//toolchains/device:repositories.bzl", "ttl_device_cxx_repository")
load("//toolchains/python:repositories.bzl", "ttl_python_repository")
load("//toolchains/tt_metal:repositories.bzl", "ttl_tt_metal_repository")

# Debian's bazel-rules-java and bazel-platforms packages (tools/setup.sh installs them).
_DEBIAN_RULES_JAVA = "/usr/share/bazel/rules/java"
_DEBIAN_PLATFORMS = "/usr/share/bazel/platforms"

def _ttl_vendored_repository_impl(rctx):
    directory = rctx.path(rctx.attr._root_marker).dirname
    for part in rctx.attr.path.split("/"):
        directory = directory.get_child(part)
    for entry in directory.readdir():
        rctx.symlink(entry, entry.basename)

_ttl_vendored_repository = repository_rule(
    implementation = _ttl_vendored_repository_impl,
    doc = "A repository made of a directory of ttl_bazel (its entries symlinked), " +
          "wherever ttl_bazel itself lives.",
    attrs = {
        "path": attr.string(
            mandatory = True,
            doc = "The directory to expose, relative to the root of ttl_bazel.",
        ),
        "_root_marker": attr.label(default = Label("//:WORKSPACE"), allow_single_file = True),
    },
    local = True,
)

# buildifier: disable=unnamed-macro
def ttl_bazel_dependencies(
        python_hub = "ttl_pip",
        requirements_lock = "@ttl_bazel//:requirements.lock",
        rules_java_path = _DEBIAN_RULES_JAVA,
        platforms_path = _DEBIAN_PLATFORMS,
        register_toolchains = True):
    """Declares the repositories of the ttl rules and registers their toolchains.

    Declares `rules_java` and `platforms` (Debian's offline copies), offline
    stand-ins for `rules_cc` and `remote_coverage_tools` (which Bazel 4 would
    download), the locked Python environment (`@<python_hub>`) and the device
    compiler repository (`@ttl_device_cxx`) and TT-Metal's pinned kernel API
    headers (`@tt_metal`, fetched only when used). A repository with one of these
    names declared before this call is kept.

    Args:
      python_hub: name of the Python environment repository (`@ttl_pip//numpy`
        labels). Another name needs `repo_mapping = {"@ttl_pip": "@<name>"}` on
        the `ttl_bazel` repository, since the rules refer to `@ttl_pip`.
      requirements_lock: the hash-locked requirements file the environment is
        installed from; yours must pin what `@ttl_bazel//:requirements.lock` pins.
      rules_java_path: directory of an offline rules_java.
      platforms_path: directory of an offline `platforms` repository.
      register_toolchains: register the Python toolchain, the RISC-V device
        toolchain and the fallback that says what to register; False to
        register your own.
    """
    maybe(native.local_repository, name = "rules_java", path = rules_java_path)
    maybe(native.local_repository, name = "platforms", path = platforms_path)
    maybe(
        _ttl_vendored_repository,
        name = "rules_cc",
        path = "third_party/rules_cc",
    )
    maybe(
        _ttl_vendored_repository,
        name = "remote_coverage_tools",
        path = "third_party/remote_coverage_tools",
    )
    maybe(ttl_python_repository, name = python_hub, requirements_lock = requirements_lock)
    maybe(ttl_device_cxx_repository, name = "ttl_device_cxx")
    maybe(ttl_tt_metal_repository, name = "tt_metal")
    if register_toolchains:
        native.register_toolchains(
            "@%s//:python_toolchain" % python_hub,
            "@ttl_bazel//toolchains/device:riscv_gcc_toolchain",
            # Last: when no device toolchain matches a platform, say what to register.
            "@ttl_bazel//toolchains/device:no_device_toolchain",
        )
