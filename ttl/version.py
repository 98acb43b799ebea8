"""The ttl-bazel version: the one place it is written (pyproject.toml and the CLIs read it)."""

VERSION = "0.1.0"
