"""Spec section: Include directories (and the header lookup / manifest records)."""

from __future__ import annotations

from compiler_testlib import filecheck
from extern_testlib import REPO

PROJECT = str(REPO / "examples" / "extern" / "project_include")


def test_include_paths_find_the_header_and_it_is_emitted(extern_compile):
    """ "`include_paths` contains compile-time directory strings added to external header
    lookup. The compiler emits the requested header before the call.\""""
    r = extern_compile(
        """
        ttl.call_extern_func(
            "kernels/custom_entry.hpp",
            "custom_entry",
            include_paths=[PROJECT_INCLUDE_DIR],
            kernel=ttl.KernelKind.COMPUTE,
        )
        """,
        top=f'PROJECT_INCLUDE_DIR = "{PROJECT}"',
        include_dirs=(),
    )
    filecheck(
        r.sources["compute.cpp"],
        """
        CHECK: #include "kernels/custom_entry.hpp"
        CHECK: void kernel_main() {
        CHECK: custom_entry();
        """,
    )
    assert r.manifest["kernels"][0]["include_dirs"] == [PROJECT]
    filecheck(r.ir, f'CHECK: include_paths = ["{PROJECT}"]')


def test_include_dirs_are_searched_after_include_paths(extern_compile):
    """Header lookup: `include_paths` first, then the compiler's include dirs (``--include_dir``,
    Bazel ``hdrs``), in order."""
    r = extern_compile(
        """
        ttl.call_extern_func("kernels/custom_entry.hpp", "custom_entry",
                             kernel=ttl.KernelKind.COMPUTE)
        """,
        include_dirs=("/nonexistent", PROJECT),
    )
    assert r.manifest["kernels"][0]["include_dirs"] == []
    assert r.manifest["extern_calls"] == [
        {
            "header": "kernels/custom_entry.hpp",
            "callee": "custom_entry",
            "kernel": "compute",
            "loc": {"file": "prog1.py", "line": 10},
        }
    ]


def test_an_absolute_header_path_is_found_where_it_is(extern_compile):
    """Upstream's compiler_only_external_call.py names its header
    ``os.path.join(os.path.dirname(__file__), "compiler_only_add.hpp")``."""
    header = f"{PROJECT}/kernels/custom_entry.hpp"
    r = extern_compile(
        f"""
        ttl.call_extern_func("{header}", "custom_entry", kernel=ttl.KernelKind.COMPUTE)
        """,
        include_dirs=(),
    )
    filecheck(r.sources["compute.cpp"], f'CHECK: #include "{header}"')


def test_missing_header_names_the_search_path(extern_error):
    """A header found nowhere is an error at the call naming the header and the searched
    directories, and saying how to declare it."""
    err = extern_error(
        """
        ttl.call_extern_func("missing.hpp", "f", include_paths=[PROJECT],  # ERROR
                             kernel=ttl.KernelKind.COMPUTE)
        """.replace("PROJECT", repr(PROJECT)),
        include_dirs=("/another/dir",),
    )
    assert "header 'missing.hpp' of ttl.call_extern_func was not found" in err.message
    assert f"searched: {PROJECT}, /another/dir" in err.message
    assert "`hdrs`/`deps` of the ttl_operation (Bazel)" in err.hint and "--include_dir" in err.hint


def test_header_found_one_directory_too_deep_names_the_include_path_to_write(extern_error):
    """`kernels/custom_entry.hpp` searched under `project_include/kernels` (a declared
    header's own directory): the hint names the file and the include path meant."""
    err = extern_error(
        """
        ttl.call_extern_func("kernels/custom_entry.hpp", "custom_entry",  # ERROR
                             kernel=ttl.KernelKind.COMPUTE)
        """,
        include_dirs=(f"{PROJECT}/kernels",),
    )
    assert "header 'kernels/custom_entry.hpp' of ttl.call_extern_func was not found" in err.message
    assert f"'{PROJECT}/kernels/custom_entry.hpp' is that header" in err.hint, err.hint
    assert f"include_paths=['{PROJECT}']" in err.hint, err.hint


def test_include_path_that_is_no_directory_is_rejected(extern_error):
    """An include path maps to a directory; under Bazel, to one holding declared headers
    (the Bazel-rules issue: an include path outside declared inputs fails the build)."""
    err = extern_error(
        """
        ttl.call_extern_func("kernels/custom_entry.hpp", "custom_entry",
                             include_paths=["/no/such/dir"],  # ERROR
                             kernel=ttl.KernelKind.COMPUTE)
        """,
        include_dirs=(PROJECT,),
    )
    assert "include path '/no/such/dir' of ttl.call_extern_func is not a directory" in err.message
    assert "`hdrs`" in err.hint and "`deps`" in err.hint


def test_include_paths_must_be_strings(extern_error):
    """ "`include_paths` contains compile-time directory strings\""""
    err = extern_error(
        """
        ttl.call_extern_func(HEADER, "f", include_paths=[3],  # ERROR
                             kernel=ttl.KernelKind.COMPUTE)
        """
    )
    assert "include_paths entries must be compile-time directory strings" in err.message
