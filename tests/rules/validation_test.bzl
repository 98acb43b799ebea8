"""Unit tests of //ttl/rules/private:validation.bzl, run at analysis (skylib's unittest shape).

bazel-skylib is not available offline here; this rule checks every case when
it is analysed and fails the build listing the wrong ones, else it yields a
test that passes.
"""

# buildifier: disable=bzl-visibility
load(
    "//ttl/rules/private:validation.bzl",
    "TARGET_GRIDS",
    "closest_target",
    "grid_error",
    "spec_error",
    "target_error",
    "tolerance_error",
)

_GOOD_TOLERANCES = ["0", "0.01", "0.0078125", "1e-3", "2.5E+2", ".5", "5."]
_BAD_TOLERANCES = ["", "abc", "1/128", "-0.1", "1e", "1e-", "0.1.2", "1e2e3", " 0.1"]
_GOOD_GRIDS = ["", "full", "auto", "1", "2x4", "8x8", "8X8"]
_BAD_GRIDS = ["2by2", "0x1", "x", "2x", "1x2x3", "9x1", "-1x2", "2x 4"]
_GOOD_SPECS = [
    "bf16[64,64]",
    "bf16[64, 64]",
    "bf16[64,64]:tile",
    "bf16[2,128,32]:row_major",
    "f32[7]:row_major",
    "f32[2,3,5]:row_major",
    "bfp8[64,64]",
    "bfloat8_b[32,32]",
    "bf16[1,1]:tile",  # a logical shape, stored padded to whole tiles
    "f32[60,64]:tile",
    "bf16[40]:tile",
    "bf16[]:tile",
    "const:(2, 2)",
    "const:4",
]
_BAD_SPECS = [
    "bf16",
    "bf16[64,sixty]",
    "int8[32,32]",
    "bf16[0,32]",
    "bf16[64,]",
    "[64]",
    "bf16[2,3]:rowmajor",
    "bf16[2,3]:",
    "f32[32]",
    "bf16[60,64]",
    "bf16[64,48]",
    "bf16[]",
    "bf16[]:row_major",
    "bf16[0,1]:tile",
    "bfp8[2,32]:row_major",
    "const:",
]

def _validation_test_impl(ctx):
    wrong = []
    for value in _GOOD_TOLERANCES:
        if tolerance_error(value):
            wrong.append("tolerance %r rejected: %s" % (value, tolerance_error(value)))
    for value in _BAD_TOLERANCES:
        if not tolerance_error(value):
            wrong.append("tolerance %r accepted" % value)
    for value in _GOOD_GRIDS:
        if grid_error(value, "wormhole_b0"):
            wrong.append("grid %r rejected: %s" % (value, grid_error(value, "wormhole_b0")))
    for value in _BAD_GRIDS:
        if not grid_error(value, "wormhole_b0"):
            wrong.append("grid %r accepted" % value)
    if grid_error("13x10", "blackhole") or not grid_error("13x10", "wormhole_b0"):
        wrong.append("grid bounds do not follow the target")
    for value in _GOOD_SPECS:
        if spec_error(value):
            wrong.append("spec %r rejected: %s" % (value, spec_error(value)))
    for value in _BAD_SPECS:
        if not spec_error(value):
            wrong.append("spec %r accepted" % value)
    for target in TARGET_GRIDS:
        if target_error(target):
            wrong.append("target %r rejected" % target)
    for typo, want in [("blackhol", "blackhole"), ("wormhole", "wormhole_b0"), ("grayskull", "wormhole_b0")]:
        if closest_target(typo, "wormhole_b0") != want:
            wrong.append("closest_target(%r) is %r, not %r" % (typo, closest_target(typo, "wormhole_b0"), want))
    if not target_error("grayskull"):
        wrong.append("target grayskull accepted")
    if wrong:
        fail("%s: %d wrong:\n  %s" % (ctx.label, len(wrong), "\n  ".join(wrong)))
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(script, "#!/bin/sh\necho 'validation.bzl: every case checked at analysis'\n", is_executable = True)
    return [DefaultInfo(executable = script)]

validation_test = rule(
    implementation = _validation_test_impl,
    doc = "Checks validation.bzl's functions on good and bad values at analysis.",
    test = True,
)
