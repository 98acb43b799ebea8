"""Module extension (Bazel 7+): the device compiler repository for MODULE.bazel."""

load(":repositories.bzl", "ttl_device_cxx_repository")

def _device_impl(_module_ctx):
    ttl_device_cxx_repository(name = "ttl_device_cxx")

device = module_extension(
    implementation = _device_impl,
    doc = "Creates @ttl_device_cxx: the device compiler found on this machine.",
)
