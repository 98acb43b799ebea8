"""Module extension (Bazel 7+): TT-Metal's pinned kernel API headers for MODULE.bazel."""

load(":repositories.bzl", "ttl_tt_metal_repository")

def _tt_metal_impl(_module_ctx):
    ttl_tt_metal_repository(name = "tt_metal")

tt_metal = module_extension(
    implementation = _tt_metal_impl,
    doc = "Creates @tt_metal: TT-Metal's kernel API headers from the pinned ttnn wheel.",
)
