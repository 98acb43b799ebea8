"""Issue 4 "Bad input": every rejection is a located TTLCompileError (never an internal
exception) naming the offending argument, its source line and what to write instead.

The ``extern_error`` fixture checks the location (the ``# ERROR`` line), that the source
line is shown and that a hint is present; these cases add malformed shapes of every argument.
"""

from __future__ import annotations

import pytest

CASES = {
    "no-arguments": "ttl.call_extern_func(kernel=ttl.KernelKind.COMPUTE)  # ERROR",
    "header-only": "ttl.call_extern_func(HEADER, kernel=ttl.KernelKind.COMPUTE)  # ERROR",
    "star-args": "ttl.call_extern_func(*ARGS, kernel=ttl.KernelKind.COMPUTE)  # ERROR",
    "double-star": 'ttl.call_extern_func(HEADER, "f", **OPTS)  # ERROR',
    "template-not-list": (
        'ttl.call_extern_func(HEADER, "f", template_args=5, kernel=ttl.KernelKind.COMPUTE)  # ERROR'
    ),
    "func-args-dfb-not-list": (
        'ttl.call_extern_func(HEADER, "f", func_args=src, kernel=ttl.KernelKind.COMPUTE)  # ERROR'
    ),
    "deps-not-dfb": (
        'ttl.call_extern_func(HEADER, "f", dfb_dependencies=[inp], '
        "kernel=ttl.KernelKind.COMPUTE)  # ERROR"
    ),
    "effect-extra-kw": (
        'ttl.call_extern_func(HEADER, "f", func_args=[src], '
        "dfb_effects=[ttl.DFBEffect.wait(src, tiles=1, extra=2)], "
        "kernel=ttl.KernelKind.DATA_MOVEMENT)  # ERROR"
    ),
    "effect-not-dfb": (
        'ttl.call_extern_func(HEADER, "f", func_args=[src], '
        "dfb_effects=[ttl.DFBEffect.wait(3, tiles=1)], "
        "kernel=ttl.KernelKind.DATA_MOVEMENT)  # ERROR"
    ),
    "repeat-arity": (
        'ttl.call_extern_func(HEADER, "f", func_args=[src], '
        "dfb_effects=[ttl.DFBEffect.repeat(2)], "
        "kernel=ttl.KernelKind.DATA_MOVEMENT)  # ERROR"
    ),
    "descriptor-of-tensor": (
        'ttl.call_extern_func(HEADER, "f", template_args=[ttl.dfb_descriptor(inp)], '
        "kernel=ttl.KernelKind.COMPUTE)  # ERROR"
    ),
    "descriptor-two-args": (
        'ttl.call_extern_func(HEADER, "f", '
        "template_args=[ttl.dfb_descriptor(src, dst)], "
        "kernel=ttl.KernelKind.COMPUTE)  # ERROR"
    ),
    "include-not-list": (
        'ttl.call_extern_func(HEADER, "f", include_paths=3, kernel=ttl.KernelKind.COMPUTE)  # ERROR'
    ),
    "include-a-string": (
        'ttl.call_extern_func(HEADER, "f", include_paths="inc", kernel=ttl.KernelKind.COMPUTE)'
        "  # ERROR"
    ),
    "empty-header": 'ttl.call_extern_func("", "f", kernel=ttl.KernelKind.COMPUTE)  # ERROR',
    "selector-runtime": (
        'ttl.call_extern_func(HEADER, "f", '
        "kernel=ttl.KernelKind.COMPUTE if inp else ttl.KernelKind.COMPUTE)  # ERROR"
    ),
    "kernel-none-top-level": 'ttl.call_extern_func(HEADER, "f", kernel=None)  # ERROR',
}


@pytest.mark.parametrize("line", list(CASES.values()), ids=list(CASES))
def test_malformed_call_is_a_located_diagnostic(extern_error, line):
    """No rejection may surface as a Python exception from our internals."""
    err = extern_error(line, top='ARGS = [HEADER, "f"]\nOPTS = {}')
    assert err.message and err.hint


def test_a_string_for_a_list_argument_says_to_write_a_list(extern_error):
    err = extern_error(CASES["include-a-string"], top='ARGS = [HEADER, "f"]\nOPTS = {}')
    assert err.message == "'include_paths' must be a list, got the string 'inc'"
    assert err.hint == "write include_paths=['inc']"


def test_intrinsic_called_outside_an_operation_is_located(extern_error):
    """Calling the DSL functions as plain Python is a located error too."""
    err = extern_error(
        """
        import ttl

        ttl.call_extern_func("h.hpp", "f")  # ERROR
        """,
        whole=True,
    )
    assert "can only be used inside" in err.message
