"""Analysis-time checks of the ttl rules' attributes.

Each check returns None when the value is good, else why not; the rules turn
that into a `fail` naming the attribute, the target's label and what to write.
"""

# The device targets and their full grids (x, y): ttl/targets.py's TARGETS,
# which tests/rules/test_validation.py keeps these equal to.
TARGET_GRIDS = {
    "blackhole": (13, 10),
    "wormhole_b0": (8, 8),
}

_DTYPES = ["bf16", "bfloat16", "f32", "fp32", "float32", "bfp8", "bfp8_b", "bfloat8_b"]

# ttl/specs.py's layouts: tiled (the default) and row-major.
_LAYOUTS = ["tile", "row_major"]
_DIGITS = "0123456789"

def _is_positive_int(text):
    return bool(text) and not [c for c in text.elems() if c not in _DIGITS] and int(text) > 0

def spec_error(spec):
    """Checks a parameter spec string.

    Args:
      spec: a tensor spec, e.g. `bf16[64,64]`, optionally with a layout:
        `bf16[64,64]:tile` (the default; with it any logical shape, e.g.
        `bf16[1,1]:tile`, stored padded to whole tiles) or
        `bf16[2,128,32]:row_major`; or a
        compile-time constant, `const:` and a Python literal (`const:(2, 2)`), whose
        literal ttlc checks.

    Returns:
      None if `spec` looks like `dtype[d0,d1,...]` (optionally `:layout`) or
      `const:<literal>`, else why not.
    """
    text = spec.replace(" ", "")
    if text.startswith("const:"):
        if text == "const:":
            return "`const:` needs a Python literal after it, e.g. `const:(2, 2)`"
        return None
    layout = "tile"
    explicit_layout = False
    layout_sep = text.rfind(":")
    if layout_sep > text.rfind("]"):
        layout = text[layout_sep + 1:]
        if layout not in _LAYOUTS:
            return "unknown layout `%s` (write `:tile`, the default, or `:row_major`)" % layout
        explicit_layout = True
        text = text[:layout_sep]
    open_bracket = text.find("[")
    if open_bracket <= 0 or not text.endswith("]"):
        return "expected `dtype[d0,d1,...]`, e.g. `bf16[64,64]`"
    dtype = text[:open_bracket]
    if dtype not in _DTYPES:
        return "unknown dtype `%s` (use bf16, f32 or bfp8)" % dtype
    dims = text[open_bracket + 1:-1].split(",") if text[open_bracket + 1:-1] else []
    for dim in dims:
        if not _is_positive_int(dim):
            return "dimension `%s` is not a positive integer" % dim
    if layout == "row_major":
        if not dims:
            return "a row-major tensor needs at least 1 dimension"
        if dtype in ("bfp8", "bfp8_b", "bfloat8_b"):
            return "bfp8 tensors are tiled: drop `:row_major` or use bf16/f32"
        return None
    if explicit_layout:  # `:tile`: any logical shape, stored padded to whole tiles
        return None
    if len(dims) < 2:
        return ("a tiled tensor needs at least 2 dimensions: write `:tile` after it for a " +
                "tensor of that logical shape padded to whole tiles, or `:row_major`")
    if int(dims[-2]) % 32 or int(dims[-1]) % 32:
        return ("the two innermost dimensions of a tiled tensor must be multiples of 32 " +
                "(32x32 tiles): write `:tile` after it for a tensor of that logical shape " +
                "padded to whole tiles (ttnn's TILE_LAYOUT), or `:row_major`")
    return None

def target_error(target):
    """None if `target` is a device target, else why not."""
    if target in TARGET_GRIDS:
        return None
    return "`%s` is not a device target (known: %s)" % (target, ", ".join(sorted(TARGET_GRIDS)))

def grid_error(grid, target):
    """Checks a grid override against the target's full grid.

    Args:
      grid: the `grid` attribute: empty, `full` (or `auto`), or `XxY`.
      target: a key of TARGET_GRIDS.

    Returns:
      None if `grid` is valid for `target`, else why not.
    """
    if grid in ("", "full", "auto"):
        return None
    parts = grid.lower().split("x")
    if len(parts) > 2 or not [p for p in parts if _is_positive_int(p)] == parts:
        return ("`%s` is not a grid: write `XxY` (columns x rows) with positive integers " +
                "(e.g. `2x4`), or `full`") % grid
    x = int(parts[0])
    y = int(parts[1]) if len(parts) == 2 else 1
    full_x, full_y = TARGET_GRIDS[target]
    if x > full_x or y > full_y:
        return "grid %dx%d is larger than the %s grid %dx%d: use at most %dx%d, or `full`" % (
            x,
            y,
            target,
            full_x,
            full_y,
            full_x,
            full_y,
        )
    return None

def tolerance_error(value):
    """Checks a tolerance written as a string (Bazel 4's Starlark has no floats).

    Args:
      value: the attribute's value, e.g. `0.01` or `1e-3`.

    Returns:
      None if `value` is a non-negative decimal number, else why not.
    """
    parts = value.lower().split("e")
    if len(parts) > 2:
        return "`%s` is not a non-negative decimal number" % value
    mantissa = parts[0]
    exponent = parts[1] if len(parts) == 2 else "0"
    if exponent[:1] in ("-", "+"):
        exponent = exponent[1:]
    digits = mantissa.replace(".", "", 1)
    if not digits or not exponent or [c for c in (digits + exponent).elems() if c not in _DIGITS]:
        return "`%s` is not a non-negative decimal number" % value
    return None

def closest_target(name, default):
    """The known target sharing the longest prefix with `name` (a misspelling's fix).

    Args:
      name: a `target` value that is not a known target.
      default: what to suggest when no known target shares a first letter.

    Returns:
      A key of TARGET_GRIDS.
    """
    best, best_len = default, 0
    for target in sorted(TARGET_GRIDS):
        common = 0
        for i in range(min(len(name), len(target))):
            if name[i].lower() != target[i]:
                break
            common = i + 1
        if common > best_len:
            best, best_len = target, common
    return best
