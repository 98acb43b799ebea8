"""Repository rule: a Python environment built from the hash-locked requirements.

`ttl_python_repository` creates a virtual environment inside the external
repository, installs exactly `requirements.lock` into it with
`pip --require-hashes`, and exposes:

  * one `py_library` per installed distribution with its dependencies from the
    wheel metadata, labelled like rules_python's pip hub (`@<name>//numpy`, and
    `requirement("numpy")` from `@<name>//:requirements.bzl`), and `@<name>//:all`;
  * a `py_runtime` whose interpreter is the base Python the environment was
    built from, and a registered Python toolchain (`@<name>//:python_toolchain`),
    so `py_binary`/`py_test` never fall back to `/usr/bin/env python` (absent
    on a fresh Debian 12).

The environment is shared across output bases and workspaces: it is built
once per (lock contents, interpreter) under `$TTL_PYTHON_ENV_CACHE` (default
`$XDG_CACHE_HOME/ttl-bazel/python-env`, else `~/.cache/ttl-bazel/python-env`)
and linked into the repository, so a second output base runs no pip
(toolchains/python/install_env.py). `TTL_PYTHON_ENV_CACHE=off` installs into
the repository instead.

The interpreter path is absolute (`/usr/bin/python3` on Debian) and does not
depend on the output base, so the Python stubs, and every action that runs a
`py_binary` tool, hash identically across output bases and remote caches.
"""

_PYTHON_ENV = "TTL_PYTHON"
_CACHE_ENV = "TTL_PYTHON_ENV_CACHE"

def _env_cache(rctx):
    """The shared environment cache: $TTL_PYTHON_ENV_CACHE, else ~/.cache/ttl-bazel/python-env; `off`: none."""
    requested = rctx.os.environ.get(_CACHE_ENV, "")
    if requested == "off":
        return None
    if requested:
        return requested
    base = rctx.os.environ.get("XDG_CACHE_HOME") or (
        rctx.os.environ.get("HOME", "") and rctx.os.environ["HOME"] + "/.cache"
    )
    return base + "/ttl-bazel/python-env" if base else None

def _find_python(rctx):
    """The base interpreter: $TTL_PYTHON, else /usr/bin/python3, else python3 on PATH."""
    requested = rctx.os.environ.get(_PYTHON_ENV)
    if requested:
        return requested
    if rctx.path("/usr/bin/python3").exists:
        return "/usr/bin/python3"
    found = rctx.which("python3")
    if not found:
        fail("No python3 found. Install Python 3.11+ (Debian: apt-get install python3 python3-venv) " +
             "or set {} to an interpreter.".format(_PYTHON_ENV))
    return str(found)

def _run(rctx, args, what, timeout = 1800):
    result = rctx.execute(args, timeout = timeout, quiet = True)
    if result.return_code != 0:
        fail("{} failed (exit {}):\n  {}\n{}{}".format(
            what,
            result.return_code,
            " ".join([str(a) for a in args]),
            result.stdout,
            result.stderr,
        ))
    return result.stdout

def _ttl_python_repository_impl(rctx):
    python = _find_python(rctx)
    version = _run(
        rctx,
        [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        "Probing the Python interpreter {}".format(python),
    ).strip()
    major, minor = version.split(".")
    if int(major) != 3 or int(minor) < 11:
        fail("Python {} at {} is too old: ttl needs Python 3.11+. Set {} to a newer interpreter.".format(
            version,
            python,
            _PYTHON_ENV,
        ))

    # Resolve the real executable (a pyenv shim or a symlink is not stable).
    python = _run(rctx, [python, "-c", "import sys; print(sys.executable)"], "Resolving python").strip()

    lock = rctx.path(rctx.attr.requirements_lock)
    install = [python, rctx.path(rctx.attr._install_env), "--python", python, "--lock", str(lock), "--venv", "venv"]
    cache = _env_cache(rctx)
    if cache:
        install += ["--cache", cache]
    _run(
        rctx,
        install,
        "Installing {} into the Bazel Python environment (Debian: apt-get install python3-venv)".format(
            rctx.attr.requirements_lock,
        ),
    )
    site_packages = "venv/lib/python{}/site-packages".format(version)
    generator = rctx.path(rctx.attr._generator)
    build = _run(
        rctx,
        [python, generator, "--site-packages", site_packages, "--interpreter", python, "--repository", rctx.name],
        "Generating the BUILD file of the Python environment",
    )
    rctx.file("BUILD.bazel", build)
    rctx.file("WORKSPACE", "workspace(name = \"{}\")\n".format(rctx.name))

ttl_python_repository = repository_rule(
    implementation = _ttl_python_repository_impl,
    doc = "A Python environment installed from a hash-locked requirements file, " +
          "exposed as py_library targets and a registered Python toolchain.",
    attrs = {
        "requirements_lock": attr.label(
            mandatory = True,
            allow_single_file = True,
            doc = "The hash-locked requirements file (the same one `pip install -r` uses).",
        ),
        "_generator": attr.label(
            default = Label("//toolchains/python:generate_build.py"),
            allow_single_file = True,
        ),
        "_install_env": attr.label(
            default = Label("//toolchains/python:install_env.py"),
            allow_single_file = True,
        ),
    },
    environ = [_PYTHON_ENV, _CACHE_ENV],
)
