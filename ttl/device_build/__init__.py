"""ttl.device_build: the one device build of TT-Lang kernels.

Standard library only, so the Bazel action tools run it without pip packages.
It owns the device compiler flags (:mod:`.flags`), the kernel compile + link
(:mod:`.kernels`) and the bundle format and writer (:mod:`.bundle`). The
``ttl_operation`` rule's actions and the JIT both call it, so the same
operation gives byte-identical bundles on both paths.
"""
