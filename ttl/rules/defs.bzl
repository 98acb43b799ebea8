"""Public API of the ttl Bazel rules. Implementations live in private/."""

load("//ttl/rules/private:device_kernel.bzl", _ttl_device_kernel = "ttl_device_kernel")
load("//ttl/rules/private:providers.bzl", _DeviceToolchainInfo = "DeviceToolchainInfo")

ttl_device_kernel = _ttl_device_kernel
DeviceToolchainInfo = _DeviceToolchainInfo
