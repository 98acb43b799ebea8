"""`ttl_operation(targets = [...])`: one operation built for several device architectures.

A split transition sets `--platforms` to each `//toolchains/platforms:<target>`
platform, so the same unpinned operation target is analysed once per
architecture (its `target` follows the platform's `tensix_arch` constraint)
and lands in a configuration directory of its own.
"""

load(":providers.bzl", "TtlOperationInfo", "TtlOperationSetInfo")
load(":validation.bzl", "target_error")

def _platform(target):
    return str(Label("//toolchains/platforms:" + target))

def _targets_transition_impl(_settings, attr):
    for target in attr.targets:
        why = target_error(target)
        if why:
            fail("attribute `targets` of the ttl_operation building %s: %s" % (attr.operation, why))
    return {target: {"//command_line_option:platforms": _platform(target)} for target in attr.targets}

_targets_transition = transition(
    implementation = _targets_transition_impl,
    inputs = [],
    outputs = ["//command_line_option:platforms"],
)

def _ttl_multi_target_operation_impl(ctx):
    if not ctx.attr.targets:
        fail("attribute `targets` of %s is empty: list device targets, e.g. " % ctx.label +
             "targets = [\"wormhole_b0\", \"blackhole\"]", attr = "targets")
    seen = {}
    for target in ctx.attr.targets:
        if target in seen:
            fail("attribute `targets` of %s names `%s` twice" % (ctx.label, target), attr = "targets")
        seen[target] = None
    infos = {}
    for target, built in ctx.split_attr.operation.items():
        info = built[TtlOperationInfo]
        if info.target != target:
            fail("%s: the operation built for the %s platform compiled for %s" % (ctx.label, target, info.target))
        infos[target] = info
    bundles = {t: infos[t].bundle for t in infos}
    ordered = [bundles[t] for t in ctx.attr.targets]
    return [
        DefaultInfo(files = depset(ordered), runfiles = ctx.runfiles(ordered)),
        OutputGroupInfo(**{t: depset([bundles[t]]) for t in ctx.attr.targets}),
        TtlOperationSetInfo(operations = {t: infos[t] for t in ctx.attr.targets}),
    ]

ttl_multi_target_operation = rule(
    implementation = _ttl_multi_target_operation_impl,
    doc = "One `ttl_operation` built for every device target in `targets` (a split " +
          "transition over `--platforms`). Default outputs: one bundle per target, in " +
          "`targets` order; output group `<target>`: that target's bundle. Made by " +
          "`ttl_operation(targets = [...])`.",
    provides = [TtlOperationSetInfo],
    attrs = {
        "operation": attr.label(
            mandatory = True,
            cfg = _targets_transition,
            providers = [TtlOperationInfo],
            doc = "A `ttl_operation` with no pinned `target`.",
        ),
        "targets": attr.string_list(doc = "Device targets to build for (`wormhole_b0`, `blackhole`)."),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
)
