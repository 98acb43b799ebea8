"""Public API of the ttl Bazel rules. Implementations live in private/.

* `ttl_operation`: compile a TT-Lang operation into a dispatchable bundle.
* `ttl_bundle_test`: check a bundle's hashes, kernels, ELFs, relocatability.
* `ttl_hardware_check_test`: compile a bundle's kernels against TT-Metal's kernel API.
* `ttl_operation_test`: run a bundle on the emulator and check it against NumPy.
* `ttl_device_kernel`: link hand-written C++ into a device ELF.
* Providers: `TtlOperationInfo`, `TtlOperationSetInfo`, `DeviceToolchainInfo`.
"""

load("//ttl/rules/private:device_kernel.bzl", _ttl_device_kernel = "ttl_device_kernel")
load(
    "//ttl/rules/private:operation.bzl",
    _ttl_bundle_test = "ttl_bundle_test",
    _ttl_hardware_check_test = "ttl_hardware_check_test",
    _ttl_operation = "ttl_operation",
    _ttl_operation_test = "ttl_operation_test",
)
load(
    "//ttl/rules/private:providers.bzl",
    _DeviceToolchainInfo = "DeviceToolchainInfo",
    _TtlOperationInfo = "TtlOperationInfo",
    _TtlOperationSetInfo = "TtlOperationSetInfo",
)

ttl_device_kernel = _ttl_device_kernel
ttl_operation = _ttl_operation
ttl_bundle_test = _ttl_bundle_test
ttl_hardware_check_test = _ttl_hardware_check_test
ttl_operation_test = _ttl_operation_test
DeviceToolchainInfo = _DeviceToolchainInfo
TtlOperationInfo = _TtlOperationInfo
TtlOperationSetInfo = _TtlOperationSetInfo
