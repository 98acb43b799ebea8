"""Installs a hash-locked requirements file into a virtual environment, optionally shared.

Run by `ttl_python_repository` (standard library only):

    install_env.py --python PY --lock FILE --venv DIR [--cache DIR]

Without --cache: creates the venv at --venv and installs the lock into it
(`pip --require-hashes --no-deps --only-binary=:all:`). With --cache: the
venv lives in the cache under a key of the lock's contents and the
interpreter (path and version), built once (in a temporary directory, then
renamed into place, so concurrent output bases never see half an
environment) and linked at --venv; later output bases, and other workspaces
with the same lock, reuse it without running pip. Only the venv's
site-packages is used (the interpreter is the base one), so the link is safe.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile

COMPLETE = "complete"


def cache_key(python: str, lock: str) -> str:
    digest = hashlib.sha256()
    digest.update(f"{python}\n{sys.version}\n".encode())
    with open(lock, "rb") as f:
        digest.update(f.read())
    return digest.hexdigest()[:32]


def install(python: str, lock: str, venv: str) -> None:
    subprocess.run([python, "-m", "venv", venv], check=True)
    subprocess.run(
        [
            os.path.join(venv, "bin", "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--no-compile",
            "--require-hashes",
            "--only-binary=:all:",
            "-r",
            lock,
        ],
        check=True,
    )


def cached(python: str, lock: str, cache: str) -> str:
    """The cached venv for (python, lock), built if missing; returns its path."""
    entry = os.path.join(cache, cache_key(python, lock))
    if os.path.isfile(os.path.join(entry, COMPLETE)):
        return os.path.join(entry, "venv")
    os.makedirs(cache, exist_ok=True)
    if os.path.lexists(entry):  # a broken entry (no marker): rebuild it
        shutil.rmtree(entry, ignore_errors=True)
    staging = tempfile.mkdtemp(prefix=".building-", dir=cache)
    try:
        # Renaming is safe: only site-packages and the base interpreter are used.
        install(python, lock, os.path.join(staging, "venv"))
        with open(os.path.join(staging, COMPLETE), "w", encoding="utf-8") as f:
            f.write(f"{python}\n{os.path.abspath(lock)}\n")
        try:
            os.rename(staging, entry)
        except OSError:  # another output base finished first: use its entry
            if not os.path.isfile(os.path.join(entry, COMPLETE)):
                raise
        return os.path.join(entry, "venv")
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", required=True)
    parser.add_argument("--lock", required=True)
    parser.add_argument("--venv", required=True)
    parser.add_argument("--cache", help="a directory shared by output bases")
    args = parser.parse_args(argv)
    if not args.cache:
        install(args.python, args.lock, args.venv)
        return 0
    try:
        venv = cached(args.python, args.lock, args.cache)
    except OSError as e:
        print(f"install_env: cannot use the cache {args.cache} ({e}); installing locally")
        install(args.python, args.lock, args.venv)
        return 0
    os.symlink(venv, args.venv)
    print(f"install_env: {args.venv} -> {venv}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
