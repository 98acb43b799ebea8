"""The compiler's IR passes: xDSL ``ModulePass``es over a ``builtin.module`` holding one
``ttl.operation``.

Each pass is runnable alone on IR text (``ttl-opt -p <name> file.mlir``): it
reads what it needs from the IR (the target from the operation's ``target``,
earlier analysis results from attributes on ``ttl.dfb``) and records its own
results there. ``registry.py`` has the driver's pipeline (``DEFAULT_PIPELINE``)
and every pass name ``ttl-opt`` accepts (``available_passes``); ``common.py``
the pass diagnostic ``TTLPassError``.
"""
