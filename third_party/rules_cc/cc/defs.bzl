"""Offline stand-in for @rules_cc//cc:defs.bzl under Debian's Bazel 4.2.3.

Bazel 4 would download rules_cc for @bazel_tools, which only loads a few
native rules from it. Debian's rules_cc 0.0.4 targets newer Bazel, so this file
forwards them to the native rules. Under MODULE.bazel (Bazel 7+) the real
rules_cc module is used instead.
"""

cc_binary = native.cc_binary
cc_library = native.cc_library
cc_test = native.cc_test
cc_toolchain = native.cc_toolchain
cc_toolchain_suite = native.cc_toolchain_suite
