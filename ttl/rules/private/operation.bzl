"""`ttl_operation`: compile a TT-Lang operation and build its dispatchable bundle.

Three actions per operation, each with only declared inputs:

1. `TtlCompile`: the compiler (`ttlc`, a py_binary in the exec configuration,
   run as a persistent worker when the strategy allows) turns the operation's
   Python source into IR text, one C++ source per logical kernel (a tree
   artifact) and `manifest.json`.
2. `TtlDeviceBuild`: the device toolchain compiles and links every kernel of
   the manifest into an RV32 ELF (one action: Starlark cannot fan out over a
   tree artifact in Bazel 4).
3. `TtlBundle`: the manifest, ELFs, kernel sources and IR in one directory,
   with the SHA-256 of every file recorded in the bundle's manifest.
"""

load(
    ":device_compile.bzl",
    "DEVICE_TOOLCHAIN_TYPE",
    "device_builder_args",
    "device_builder_inputs",
    "device_toolchain",
)
load(":multi_target.bzl", "ttl_multi_target_operation")
load(":providers.bzl", "TtlOperationInfo", "TtlOperationSetInfo")
load(":validation.bzl", "TARGET_GRIDS", "closest_target", "grid_error", "spec_error", "target_error", "tolerance_error")

DEFAULT_TARGET = "wormhole_b0"

_DIGITS = "0123456789"

def _is_identifier(name):
    if not name or name[0] in _DIGITS:
        return False
    return not [c for c in name.elems() if not (c.isalnum() or c == "_")]

def _python_roots(ctx, sources):
    roots = {".": None}
    for f in sources:
        if f.owner and f.owner.workspace_root:
            roots[f.owner.workspace_root] = None
    for dep in ctx.attr.deps:
        if PyInfo in dep:
            for entry in dep[PyInfo].imports.to_list():
                head, _, rest = entry.partition("/")
                if head == ctx.workspace_name:
                    roots[rest or "."] = None
                else:
                    roots["external/" + entry] = None
    return list(roots.keys())

def _include_dirs_and_headers(ctx):
    """Include directories (ordered, deduplicated) and headers from `hdrs` and CcInfo deps."""
    dirs = {}
    for f in ctx.files.hdrs:
        dirs[f.dirname] = None
    header_sets = [depset(ctx.files.hdrs)]
    for dep in ctx.attr.deps:
        if CcInfo in dep:
            cc = dep[CcInfo].compilation_context
            header_sets.append(cc.headers)
            for d in cc.quote_includes.to_list() + cc.includes.to_list() + cc.system_includes.to_list():
                dirs[d] = None
    return list(dirs.keys()), depset(transitive = header_sets)

def _platform_target(ctx):
    """The device target the target platform's `tensix_arch` constraint names, or None."""
    for target in sorted(TARGET_GRIDS):
        arch = getattr(ctx.attr, "_%s_arch" % target)[platform_common.ConstraintValueInfo]
        if ctx.target_platform_has_constraint(arch):
            return target
    return None

def _resolve_target(ctx):
    """`target` if pinned (it must agree with the platform), else the platform's, else the default."""
    pinned = ctx.attr.target
    from_platform = _platform_target(ctx)
    if pinned:
        why = target_error(pinned)
        if why:
            fail("attribute `target` of %s: %s; write target = \"%s\", or leave `target` out " % (
                ctx.label,
                why,
                closest_target(pinned, DEFAULT_TARGET),
            ) + "to take the architecture from --platforms", attr = "target")
        if from_platform and from_platform != pinned:
            fail(("attribute `target` of %s is \"%s\" but the target platform %s is %s " +
                  "(its `tensix_arch` constraint): leave `target` out to follow --platforms, " +
                  "or build it with --platforms=@ttl_bazel//toolchains/platforms:%s") % (
                ctx.label,
                pinned,
                ctx.fragments.platform.platform,
                from_platform,
                pinned,
            ), attr = "target")
        return pinned
    return from_platform or DEFAULT_TARGET

def _check_attributes(ctx, target):
    for entry in ctx.attr.tensor_args:
        name, sep, spec = entry.partition("=")
        why = spec_error(spec if sep else name)
        if why:
            fail("malformed tensor spec `%s` in `args` of %s: %s" % (entry, ctx.label, why), attr = "args")
        if sep and not _is_identifier(name):
            fail("tensor spec `%s` in `args` of %s: `%s` is not a parameter name" % (
                entry,
                ctx.label,
                name,
            ), attr = "args")
    if not _is_identifier(ctx.attr.operation):
        fail("`operation` must be a Python function name, got `%s`" % ctx.attr.operation, attr = "operation")
    why = grid_error(ctx.attr.grid, target)
    if why:
        fail("attribute `grid` of %s (for %s): %s" % (ctx.label, target, why), attr = "grid")

def _ttl_operation_impl(ctx):
    target = _resolve_target(ctx)
    _check_attributes(ctx, target)

    toolchain = device_toolchain(ctx)

    # Built for several platforms (`targets`): names that differ per target, so
    # the bundles of one test's runfiles do not collide.
    prefix = ctx.label.name + ("." + target if ctx.attr.target_in_output_names else "")
    kernels = ctx.actions.declare_directory(prefix + ".ttl/kernels")
    manifest = ctx.actions.declare_file(prefix + ".ttl/manifest.json")
    ir = ctx.actions.declare_file(prefix + ".ttl/operation.mlir")
    plan = ctx.actions.declare_file(prefix + ".ttl/plan.json")
    elfs = ctx.actions.declare_directory(prefix + ".ttl/elf")
    bundle = ctx.actions.declare_directory(prefix + ".bundle")

    py_sources = depset(
        [ctx.file.src],
        transitive = [d[PyInfo].transitive_sources for d in ctx.attr.deps if PyInfo in d],
    )
    include_dirs, headers = _include_dirs_and_headers(ctx)
    user_inputs = depset(transitive = [py_sources, headers])

    # 1. The compiler. The flagfile is the worker request; everything in it
    # is exec-root relative, so the action key is the same in every output base.
    compile_args = ctx.actions.args()
    compile_args.set_param_file_format("multiline")
    compile_args.use_param_file("@%s", use_always = True)
    compile_args.add(ctx.file.src, format = "--src=%s")
    compile_args.add(ctx.attr.operation, format = "--operation=%s")
    compile_args.add_all(ctx.attr.tensor_args, format_each = "--arg=%s")
    compile_args.add(target, format = "--target=%s")
    if ctx.attr.grid:
        compile_args.add(ctx.attr.grid, format = "--grid=%s")
    if ctx.attr.compiler_options:
        compile_args.add(" ".join(ctx.attr.compiler_options), format = "--options=%s")
    compile_args.add_all(include_dirs, format_each = "--include_dir=%s")
    compile_args.add("--emit=all")
    compile_args.add_all(_python_roots(ctx, py_sources.to_list()), format_each = "--action_python_root=%s")
    compile_args.add_all(user_inputs, format_each = "--action_input=%s")
    compile_args.add(kernels.path, format = "--action_out_kernels=%s")
    compile_args.add(manifest, format = "--action_out_manifest=%s")
    compile_args.add(ir, format = "--action_out_ir=%s")
    compile_args.add(plan, format = "--action_out_plan=%s")
    compile_args.add(str(ctx.label), format = "--action_label=%s")
    ctx.actions.run(
        executable = ctx.executable._compiler,
        arguments = [compile_args],
        inputs = user_inputs,
        outputs = [kernels, manifest, ir, plan],
        mnemonic = "TtlCompile",
        progress_message = "Compiling TT-Lang operation %s (%s) for %s" % (
            ctx.attr.operation,
            ctx.label,
            target,
        ),
        execution_requirements = {"supports-workers": "1"},
    )

    # 2. The device toolchain: every kernel of the manifest -> one ELF.
    build_args = device_builder_args(
        ctx,
        ctx.label,
        toolchain,
        include_dirs = include_dirs,
        copts = ctx.attr.copts,
        defines = ctx.attr.defines,
    )
    build_args.add("--manifest", manifest)
    build_args.add("--kernels", kernels.path)
    build_args.add("--out", elfs.path)
    ctx.actions.run(
        executable = ctx.executable._device_builder,
        arguments = [build_args],
        inputs = device_builder_inputs(toolchain, [manifest, kernels], headers),
        outputs = [elfs],
        mnemonic = "TtlDeviceBuild",
        progress_message = "Building device kernels of TT-Lang operation %s (%s)" % (
            ctx.attr.operation,
            ctx.label,
        ),
        env = {"TTL_DEVICE_CXX_VERSION": toolchain.cxx_version},
    )

    # For IDEs (output group `compile_commands`, built only when asked): the
    # compilation database of the kernels, from the manifest alone. Its
    # `directory` is a placeholder for the execution root, which differs per
    # output base; refresh_compile_commands fills it in.
    compile_commands = ctx.actions.declare_file(prefix + ".ttl/compile_commands.json")
    db_args = device_builder_args(
        ctx,
        ctx.label,
        toolchain,
        include_dirs = include_dirs,
        copts = ctx.attr.copts,
        defines = ctx.attr.defines,
    )
    db_args.add("--manifest", manifest)
    db_args.add("--kernels", kernels.path)
    db_args.add("--compile_commands", compile_commands)
    db_args.add("--directory", "__EXEC_ROOT__")
    ctx.actions.run(
        executable = ctx.executable._device_builder,
        arguments = [db_args],
        inputs = [manifest],
        outputs = [compile_commands],
        mnemonic = "TtlCompileCommands",
        progress_message = "Writing the compilation database of TT-Lang operation %s (%s)" % (
            ctx.attr.operation,
            ctx.label,
        ),
    )

    # 3. The bundle.
    bundle_args = ctx.actions.args()
    bundle_args.add("--manifest", manifest)
    bundle_args.add("--kernels", kernels.path)
    bundle_args.add("--elfs", elfs.path)
    bundle_args.add("--ir", ir)
    bundle_args.add("--out", bundle.path)
    ctx.actions.run(
        executable = ctx.executable._bundler,
        arguments = [bundle_args],
        inputs = [manifest, kernels, elfs, ir],
        outputs = [bundle],
        mnemonic = "TtlBundle",
        progress_message = "Bundling TT-Lang operation %s (%s)" % (ctx.attr.operation, ctx.label),
    )

    return [
        DefaultInfo(files = depset([bundle]), runfiles = ctx.runfiles([bundle])),
        OutputGroupInfo(
            ir = depset([ir]),
            kernel_sources = depset([kernels]),
            manifest = depset([manifest]),
            plan = depset([plan]),
            elfs = depset([elfs]),
            compile_commands = depset([compile_commands]),
        ),
        TtlOperationInfo(
            operation = ctx.attr.operation,
            target = target,
            grid = ctx.attr.grid,
            manifest = manifest,
            kernel_sources = kernels,
            ir = ir,
            elfs = elfs,
            bundle = bundle,
            headers = headers,
            include_dirs = include_dirs,
        ),
    ]

ttl_operation_rule = rule(
    implementation = _ttl_operation_impl,
    doc = "Compiles one TT-Lang operation with `ttlc` and builds its dispatchable bundle " +
          "(manifest, kernel sources, IR, one device ELF per logical kernel). Use the " +
          "`ttl_operation` macro from //ttl/rules:defs.bzl, which also accepts `args` as a dict.",
    attrs = {
        "src": attr.label(
            mandatory = True,
            allow_single_file = [".py"],
            doc = "The Python file defining the operation.",
        ),
        "operation": attr.string(
            mandatory = True,
            doc = "Name of the `@ttl.operation` function in `src`.",
        ),
        "tensor_args": attr.string_list(
            doc = "Tensor specs in signature order, `name=dtype[dims]` or `dtype[dims]` " +
                  "(e.g. `a=bf16[64,64]`); a compile-time parameter is `name=const:` and " +
                  "a Python literal (e.g. `scale=const:(2, 2)`).",
        ),
        "deps": attr.label_list(
            providers = [[PyInfo], [CcInfo]],
            doc = "Python libraries `src` imports (PyInfo) and `cc_library` targets whose " +
                  "headers and include directories (CcInfo) `ttl.call_extern_func` uses.",
        ),
        "hdrs": attr.label_list(
            allow_files = True,
            doc = "Extra header files for `ttl.call_extern_func`; their directories become " +
                  "include directories.",
        ),
        "target": attr.string(
            doc = "Device target pinned by the rule (`wormhole_b0`, `blackhole`). Empty " +
                  "(the default): the target platform's `tensix_arch` constraint " +
                  "(`--platforms=@ttl_bazel//toolchains/platforms:blackhole`), else `wormhole_b0`. " +
                  "A pinned target that disagrees with the platform's constraint is an error.",
        ),
        "grid": attr.string(
            doc = "Override of the operation's grid: `XxY` (columns x rows, e.g. `2x4`) or `full` (the " +
                  "target's whole grid). Empty (the default): the `@ttl.operation(grid=...)` one.",
        ),
        "compiler_options": attr.string_list(
            doc = "TT-Lang compiler options (`ttl.CompilerOptions` flags such as " +
                  "`--no-ttl-maximize-dst`, `--ttl-l1-budget=65536`), overriding the " +
                  "operation's `options=` field by field.",
        ),
        "defines": attr.string_list(
            doc = "Extra preprocessor defines (`NAME=VALUE`) for every kernel's device compile.",
        ),
        "copts": attr.string_list(doc = "Extra device compiler flags for every kernel."),
        "target_in_output_names": attr.bool(
            doc = "Name the outputs `<name>.<target>.bundle` (and so on) instead of " +
                  "`<name>.bundle`: set by `ttl_operation(targets = ...)`, which builds this " +
                  "target for several platforms.",
        ),
        "_compiler": attr.label(
            default = Label("//ttl/rules/private/tools:ttlc"),
            executable = True,
            cfg = "exec",
        ),
        "_device_builder": attr.label(
            default = Label("//ttl/rules/private/tools:build_kernels"),
            executable = True,
            cfg = "exec",
        ),
        "_bundler": attr.label(
            default = Label("//ttl/rules/private/tools:bundle"),
            executable = True,
            cfg = "exec",
        ),
        "_blackhole_arch": attr.label(default = Label("//toolchains/platforms:blackhole_arch")),
        "_wormhole_b0_arch": attr.label(default = Label("//toolchains/platforms:wormhole_b0_arch")),
    },
    provides = [TtlOperationInfo],
    toolchains = [DEVICE_TOOLCHAIN_TYPE],
    fragments = ["platform"],
)

def ttl_operation(
        name,
        src,
        operation,
        args = None,
        deps = [],
        hdrs = [],
        target = "",
        targets = [],
        grid = "",
        compiler_options = [],
        defines = [],
        copts = [],
        **kwargs):
    """Compiles a TT-Lang operation into a dispatchable bundle (`<name>.bundle/`).

    Args:
      name: target name.
      src: the Python file defining the operation.
      operation: the `@ttl.operation` function's name.
      args: tensor specs: a dict `{"a": "bf16[64,64]"}` or a list in signature order.
      deps: Python libraries `src` imports and `cc_library` targets for external calls.
      hdrs: extra headers for external calls.
      target: the device target (`wormhole_b0` or `blackhole`); empty: the target
        platform's `tensix_arch` constraint, else `wormhole_b0`.
      targets: build the operation for each of these device targets (a transition
        over `--platforms`); `<name>` then gives one bundle per target (output
        group `<target>` for one). Excludes `target`.
      grid: `XxY` (columns x rows) or `full` to override the operation's own grid; empty keeps it.
      compiler_options: `ttl.CompilerOptions` flags (`--no-ttl-maximize-dst`, ...).
      defines: extra `NAME=VALUE` defines for the device compiles.
      copts: extra device compiler flags.
      **kwargs: common attributes (visibility, tags, testonly...).
    """
    if args == None:
        tensor_args = []
    elif type(args) == "dict":
        tensor_args = ["%s=%s" % (k, v) for k, v in args.items()]
    elif type(args) == "list":
        tensor_args = list(args)
    else:
        fail("ttl_operation(name = %r): `args` must be a dict or a list of tensor specs" % name)
    if targets:
        if target:
            fail("ttl_operation(name = %r): give `target` or `targets`, not both" % name)
        ttl_operation_rule(
            name = name + "_unpinned",
            src = src,
            operation = operation,
            tensor_args = tensor_args,
            deps = deps,
            hdrs = hdrs,
            grid = grid,
            compiler_options = compiler_options,
            defines = defines,
            copts = copts,
            target_in_output_names = True,
            tags = ["manual"],
            visibility = ["//visibility:private"],
            testonly = kwargs.get("testonly", False),
        )
        ttl_multi_target_operation(
            name = name,
            operation = ":%s_unpinned" % name,
            targets = targets,
            **kwargs
        )
        return
    ttl_operation_rule(
        name = name,
        src = src,
        operation = operation,
        tensor_args = tensor_args,
        deps = deps,
        hdrs = hdrs,
        target = target,
        grid = grid,
        compiler_options = compiler_options,
        defines = defines,
        copts = copts,
        **kwargs
    )

def ttl_bundle_test(name, operation, size = "small", **kwargs):
    """A py_test checking the bundle of `operation` (a `ttl_operation` target).

    Checks the SHA-256 of every file against the bundle's manifest, that every
    logical kernel has its C++ source and an RV32 RISC-V ELF, and that no file
    embeds an absolute build path.

    Args:
      name: test name.
      operation: label of a `ttl_operation`.
      size: test size.
      **kwargs: common test attributes.
    """
    checker = Label("//ttl/rules/private/tools:check_bundle.py")
    native.py_test(
        name = name,
        size = size,
        srcs = [checker],
        main = checker,
        args = ["$(rootpaths %s)" % operation],
        data = [operation],
        deps = [Label("//ttl/rules/private/tools:check_bundle_lib")],
        python_version = "PY3",
        **kwargs
    )

def ttl_hardware_check_test(
        name,
        operations,
        require = ["data_movement", "compute"],
        hdrs = [],
        includes = [],
        size = "medium",
        **kwargs):
    """A py_test compiling every kernel of `operations`' bundles against TT-Metal's kernel API.

    Each kernel is wrapped as TT-Metal's JIT build wraps it (`brisck.cc` /
    `ncrisck.cc`, or `trisck.cc` for each TRISC) and compiled with
    `-fsyntax-only` by the device compiler against the pinned TT-Metal headers
    (`@tt_metal`), so `bazel test` catches a kernel or an extern header that
    would not build for hardware (docs/tt-metal.md). Needs Debian's
    `libstdc++-12-dev` and `picolibc-riscv64-unknown-elf`.

    Args:
      name: test name.
      operations: labels of `ttl_operation` targets.
      require: kernel kinds that must compile (`data_movement`, `compute`); the
        others are compiled and reported only.
      hdrs: the external headers the operations' kernels include (their `hdrs`).
      includes: directories holding `hdrs`, relative to the workspace root, searched
        after each kernel's `include_paths`.
      size: test size.
      **kwargs: common test attributes.
    """
    if not operations:
        fail("ttl_hardware_check_test(name = %r): `operations` is empty: list the " % name +
             "ttl_operation targets to check, e.g. operations = [\":my_op\"]")
    for kind in require:
        if kind not in ("data_movement", "compute"):
            fail("ttl_hardware_check_test(name = %r): `require` lists kernel kinds, " % name +
                 "\"data_movement\" or \"compute\"; got %r" % kind)
    tool = Label("//ttl/rules/private/tools:hardware_check.py")
    native.py_test(
        name = name,
        size = size,
        srcs = [tool],
        main = tool,
        args = ["--tt_metal_version", "$(rootpath @tt_metal//:VERSION)"] +
               ["--require=%s" % kind for kind in require] +
               ["--include_dir=%s" % directory for directory in includes] +
               ["$(rootpaths %s)" % operation for operation in operations],
        data = operations + hdrs + ["@tt_metal//:VERSION", "@tt_metal//:headers"],
        deps = [Label("//ttl/rules/private/tools:hardware_check_lib")],
        python_version = "PY3",
        **kwargs
    )

_MAX_SEED = 2147483647  # the runner seeds NumPy, which takes 0 .. 2^32 - 1; Starlark ints here are 32-bit

def _ttl_operation_test_check_impl(ctx):
    label = "%s//%s:%s" % (
        "@" + ctx.label.workspace_name if ctx.label.workspace_name else "",
        ctx.label.package,
        ctx.attr.test,
    )
    for attribute in ("rtol", "atol"):
        why = tolerance_error(getattr(ctx.attr, attribute))
        if why:
            fail("attribute `%s` of ttl_operation_test %s: %s; write a decimal string, e.g. %s = \"0.01\"" % (
                attribute,
                label,
                why,
                attribute,
            ), attr = attribute)
    if ctx.attr.seed < 0 or ctx.attr.seed > _MAX_SEED:
        fail("attribute `seed` of ttl_operation_test %s: %d is not a seed of the random " % (
            label,
            ctx.attr.seed,
        ) + "inputs: write an integer from 0 to %d, e.g. seed = 0" % _MAX_SEED, attr = "seed")
    if not ctx.files.srcs:
        fail("attribute `srcs` of ttl_operation_test %s is empty: list the Python file defining " % label +
             "the reference function `%s` first" % ctx.attr.reference, attr = "srcs")
    if not _is_identifier(ctx.attr.reference):
        fail("attribute `reference` of ttl_operation_test %s: `%s` is not a Python function name" % (
            label,
            ctx.attr.reference,
        ), attr = "reference")
    return [DefaultInfo()]

_ttl_operation_test_check = rule(
    implementation = _ttl_operation_test_check_impl,
    doc = "Checks the attributes of a `ttl_operation_test` at analysis (Starlark " +
          "cannot validate a native py_test's arguments).",
    attrs = {
        "test": attr.string(mandatory = True, doc = "Name of the checked test."),
        "reference": attr.string(doc = "The reference function's name."),
        "rtol": attr.string(doc = "Relative tolerance, a decimal string."),
        "atol": attr.string(doc = "Tolerance relative to max|reference|, a decimal string."),
        "seed": attr.int(doc = "Seed of the random inputs."),
        "srcs": attr.label_list(allow_files = [".py"], doc = "The test's Python sources."),
        "operation": attr.label(
            mandatory = True,
            providers = [[TtlOperationInfo], [TtlOperationSetInfo]],
            doc = "The `ttl_operation` the test runs.",
        ),
    },
)

def ttl_operation_test(
        name,
        operation,
        srcs,
        reference = "reference",
        seed = 0,
        rtol = "0.0078125",
        atol = "0.0078125",
        deps = [],
        size = "small",
        trace = False,
        **kwargs):
    """A py_test that dispatches `operation`'s bundle on the emulator and checks it against NumPy.

    The inputs are seeded random tensors (uniform in [-1, 1), rounded to each
    tensor's dtype). `reference` in `srcs[0]` takes the first N tensors (N =
    its parameter count) and returns the expected next tensor (or a tuple of
    the next ones). Each output must satisfy, elementwise,
    |got - want| <= atol * max|want| + rtol * |want|: atol scales with the
    output's range because bf16 roundings of partial sums do. The default
    tolerances (2^-7) allow the bf16 rounding of the output (relative error
    <= 2^-9) plus fp32 accumulation-order differences.
    `bazel run` prints the comparison and the per-kernel emulator profile.
    With `trace` (or `bazel test --test_arg=--trace`, or
    `--test_env=TTL_TRACE=1`) the run's timeline is written to
    `$TEST_UNDECLARED_OUTPUTS_DIR/<operation>.trace.json` (Chrome Trace Event
    Format; open it in Perfetto).

    Args:
      name: test name.
      operation: label of a `ttl_operation`.
      srcs: Python files; the first defines the reference function.
      reference: name of the reference function in `srcs[0]`.
      seed: seed of the random inputs.
      rtol: relative tolerance (a string: Starlark in Bazel 4 has no floats).
      atol: tolerance relative to the largest |reference| value (a string).
      deps: Python libraries the reference imports.
      size: test size.
      trace: write the run's timeline to the test's undeclared outputs.
      **kwargs: common test attributes.
    """
    if type(seed) != "int":
        fail("ttl_operation_test(name = %r): `seed` is an integer, e.g. seed = 0; got %r" % (
            name,
            seed,
        ))
    if type(rtol) != "string" or type(atol) != "string":
        fail("ttl_operation_test(name = %r): `rtol` and `atol` are strings " % name +
             "(Bazel 4's Starlark has no floats), e.g. rtol = \"0.01\"")
    check = name + "_attributes"
    _ttl_operation_test_check(
        name = check,
        test = name,
        reference = reference,
        rtol = rtol,
        atol = atol,
        seed = seed,
        srcs = srcs,
        operation = operation,
        testonly = True,
        tags = ["manual"],
        visibility = ["//visibility:private"],
    )
    runner = Label("//ttl/rules/private/tools:operation_test.py")
    native.py_test(
        name = name,
        size = size,
        srcs = [runner] + srcs,
        main = runner,
        args = [
            "$(rootpaths %s)" % operation,
            "--reference_src=$(rootpath %s)" % srcs[0],
            "--reference=" + reference,
            "--seed=%d" % seed,
            "--rtol=" + rtol,
            "--atol=" + atol,
        ] + (["--trace"] if trace else []),
        data = [operation, ":" + check],
        python_version = "PY3",
        deps = deps + [
            Label("//ttl:runtime"),
            Label("//ttl:dsl"),
            Label("@ttl_pip//ml_dtypes"),
            Label("@ttl_pip//numpy"),
        ],
        **kwargs
    )
