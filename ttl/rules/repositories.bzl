"""WORKSPACE setup of the ttl rules (Bazel 4.2.3); implementation in private/.

    load("@ttl_bazel//ttl/rules:repositories.bzl", "ttl_bazel_dependencies")
    ttl_bazel_dependencies()
"""

load("//ttl/rules/private:dependencies.bzl", _ttl_bazel_dependencies = "ttl_bazel_dependencies")

ttl_bazel_dependencies = _ttl_bazel_dependencies
