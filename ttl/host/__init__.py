"""ttl.host: what runs TT-Lang programs on the host, above the compiler and the emulator.

The JIT (``jit``: calling an ``@ttl.operation`` compiles, caches and
dispatches it), the bundle cache (``cache``), the command lines ``ttl`` and
``ttlc`` (``cli``, ``ttlc``) and the ttnn host subset (``ttnn``).
"""
