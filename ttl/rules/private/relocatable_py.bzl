"""`relocatable_py_deps`: Python dependencies without install records.

pip's `*.dist-info/RECORD` lists the hashes of the environment's console
scripts, whose shebangs hold the absolute path of the output base; a tool
carrying them in its runfiles gets a different action key in every output
base, and never hits a shared remote cache. Python never reads RECORD at
import time, so the compiler tool depends on the locked distributions
through this filter.
"""

def _relocatable_py_deps_impl(ctx):
    runfiles = depset(transitive = [d[DefaultInfo].default_runfiles.files for d in ctx.attr.deps])
    kept = [f for f in runfiles.to_list() if f.basename != "RECORD"]
    return [
        DefaultInfo(runfiles = ctx.runfiles(files = kept)),
        PyInfo(
            transitive_sources = depset(transitive = [d[PyInfo].transitive_sources for d in ctx.attr.deps]),
            imports = depset(transitive = [d[PyInfo].imports for d in ctx.attr.deps]),
        ),
    ]

relocatable_py_deps = rule(
    implementation = _relocatable_py_deps_impl,
    doc = "The runfiles and PyInfo of `deps` minus pip's `RECORD` files (see module doc).",
    attrs = {
        "deps": attr.label_list(providers = [PyInfo], doc = "Python libraries to pass through."),
    },
)
