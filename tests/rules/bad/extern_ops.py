"""Operations whose external headers or include paths are not declared inputs."""

import ttl

BAD_INCLUDE_DIR = "tests/rules/bad/include"


@ttl.operation(grid=(1, 1))
def undeclared_header(a, y):
    ttl.call_extern_func("undeclared.hpp", "undeclared_entry", kernel=ttl.KernelKind.COMPUTE)


@ttl.operation(grid=(1, 1))
def undeclared_include_path(a, y):
    ttl.call_extern_func(
        "undeclared.hpp",
        "undeclared_entry",
        include_paths=[BAD_INCLUDE_DIR],
        kernel=ttl.KernelKind.COMPUTE,
    )


@ttl.operation(grid=(1, 1))
def undeclared_transitive_include(a, y):
    ttl.call_extern_func("declared.hpp", "declared_entry", kernel=ttl.KernelKind.COMPUTE)


@ttl.operation(grid=(1, 1))
def absolute_include(a, y):
    ttl.call_extern_func("absolute.hpp", "absolute_entry", kernel=ttl.KernelKind.COMPUTE)


OUTSIDE_INCLUDE_DIR = "/tmp/ttl-bazel-outside"  # written by the test, no declared header


@ttl.operation(grid=(1, 1))
def absolute_include_path(a, y):
    ttl.call_extern_func(
        "outside.hpp",
        "outside_entry",
        include_paths=[OUTSIDE_INCLUDE_DIR],
        kernel=ttl.KernelKind.COMPUTE,
    )
