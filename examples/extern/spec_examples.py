"""One operation per code example of the external-functions spec (unified form).

Every operation moves a bf16 ``inp`` (4 tiles) to ``out`` through DFBs, with
the spec example's external call(s) doing part of the work or running beside
it; ``REFERENCES`` gives the NumPy result of each. Headers live in
``examples/extern/include`` (``--include_dir``, Bazel ``hdrs``) and
``examples/extern/project_include`` (``include_paths``).
"""

import numpy as np

import ttl

HEADER = "extern_entries.hpp"
COPY_HEADER = "extern_copy.hpp"
PROJECT_INCLUDE_DIR = "examples/extern/project_include"
TILES = 4
SPECS = {"inp": "bf16[32,128]", "out": "bf16[32,128]"}


@ttl.operation(grid=(1, 1))
def scalar_result(inp, out):
    """Scalar results: ``is_enabled`` guards ``execute_enabled_work`` (a DFB-to-DFB move)."""
    source = ttl.make_dataflow_buffer_like(inp, shape=(1, 1))
    destination = ttl.make_dataflow_buffer_like(out, shape=(1, 1))
    for i in range(TILES):
        with source.reserve() as blk:
            ttl.copy(inp[0, i], blk).wait()
        predicate = ttl.call_extern_func(
            HEADER,
            "is_enabled",
            result_type=ttl.ScalarType.I64,
            kernel=ttl.KernelKind.COMPUTE,
        )
        if predicate:
            ttl.call_extern_func(
                HEADER,
                "execute_enabled_work",
                template_args=[ttl.dfb_descriptor(source), ttl.dfb_descriptor(destination)],
                dfb_effects=[
                    ttl.DFBEffect.wait(source, tiles=1),
                    ttl.DFBEffect.reserve(destination, tiles=1),
                    ttl.DFBEffect.push(destination, tiles=1),
                    ttl.DFBEffect.pop(source, tiles=1),
                ],
                kernel=ttl.KernelKind.COMPUTE,
            )
        with destination.wait() as blk:
            ttl.copy(blk, out[0, i]).wait()


@ttl.operation(grid=(1, 1))
def compute_external(inp, out):
    """Logical-kernel selection: ``compute_entry`` gets ``ttl.raw_addr(inp)`` in compute."""
    source = ttl.make_dataflow_buffer_like(inp, shape=(1, 1))
    destination = ttl.make_dataflow_buffer_like(out, shape=(1, 1))
    ttl.call_extern_func(
        HEADER,
        "compute_entry",
        func_args=[ttl.raw_addr(inp)],
        kernel=ttl.KernelKind.COMPUTE,
    )
    for i in range(TILES):
        with source.reserve() as blk:
            ttl.copy(inp[0, i], blk).wait()
        with source.wait() as a, destination.reserve() as b:
            b.store(ttl.math.abs(a))
        with destination.wait() as blk:
            ttl.copy(blk, out[0, i]).wait()


@ttl.operation(grid=(1, 1))
def shared_external(inp, out):
    """``KernelKind.COMPUTE | KernelKind.DATA_MOVEMENT``: one call in both kernels."""
    source = ttl.make_dataflow_buffer_like(inp, shape=(1, 1))
    destination = ttl.make_dataflow_buffer_like(out, shape=(1, 1))
    ttl.call_extern_func(
        HEADER,
        "shared_entry",
        kernel=ttl.KernelKind.COMPUTE | ttl.KernelKind.DATA_MOVEMENT,
    )
    for i in range(TILES):
        with source.reserve() as blk:
            ttl.copy(inp[0, i], blk).wait()
        with source.wait() as a, destination.reserve() as b:
            b.store(-a)
        with destination.wait() as blk:
            ttl.copy(blk, out[0, i]).wait()


def make_selected_external():
    """An operation-local ``Kernel`` handle captured from the factory."""
    reader = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)

    @ttl.operation(grid=(1, 1))
    def selected_external(inp, out):
        source = ttl.make_dataflow_buffer_like(inp, shape=(1, 1))
        destination = ttl.make_dataflow_buffer_like(out, shape=(1, 1))
        ttl.call_extern_func(
            HEADER,
            "reader_entry",
            func_args=[inp, source, TILES],
            dfb_effects=[
                ttl.DFBEffect.repeat(
                    TILES,
                    [
                        ttl.DFBEffect.reserve(source, tiles=1),
                        ttl.DFBEffect.push(source, tiles=1),
                    ],
                )
            ],
            kernel=reader,
        )
        ttl.call_extern_func(
            HEADER,
            "shared_entry",
            kernel=(ttl.KernelKind.COMPUTE, reader),
        )
        for i in range(TILES):
            with source.wait() as a, destination.reserve() as b:
                b.store(ttl.math.abs(a))
            with destination.wait() as blk:
                ttl.copy(blk, out[0, i]).wait()

    return selected_external


selected_external = make_selected_external()


def make_explicit_operation():
    """Explicit threads with selectors on the decorators."""
    reader = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)

    @ttl.operation(grid=(1, 1))
    def explicit_operation(inp, out):
        source = ttl.make_dataflow_buffer_like(inp, shape=(1, 1))
        destination = ttl.make_dataflow_buffer_like(out, shape=(1, 1))

        @ttl.compute(kernel=ttl.KernelKind.COMPUTE)
        def compute_thread():
            ttl.call_extern_func(HEADER, "shared_entry")
            for _ in range(TILES):
                with source.wait() as a, destination.reserve() as b:
                    b.store(ttl.math.abs(a))

        @ttl.datamovement(kernel=reader)
        def reader_thread():
            for i in range(TILES):
                with source.reserve() as blk:
                    ttl.copy(inp[0, i], blk).wait()

        @ttl.datamovement()
        def writer_thread():
            for i in range(TILES):
                with destination.wait() as blk:
                    ttl.copy(blk, out[0, i]).wait()

    return explicit_operation


explicit_operation = make_explicit_operation()


def make_conditional_operation():
    """One ``DispatchCondition`` evaluated independently in three kernels."""
    active = ttl.DispatchCondition(ttl.ScalarType.I64)
    producer = ttl.Kernel(ttl.KernelKind.DATA_MOVEMENT)
    consumer = ttl.Kernel(ttl.KernelKind.COMPUTE)

    @ttl.operation(grid=(1, 1))
    def conditional_operation(inp, out):
        source = ttl.make_dataflow_buffer_like(inp, shape=(1, 1))
        destination = ttl.make_dataflow_buffer_like(out, shape=(1, 1))
        producer_active = ttl.call_extern_func(
            HEADER,
            "evaluate_for_producer",
            condition_result=active,
            kernel=producer,
        )
        consumer_active = ttl.call_extern_func(
            HEADER,
            "evaluate_for_consumer",
            condition_result=active,
            kernel=consumer,
        )
        writer_active = ttl.call_extern_func(
            HEADER,
            "evaluate_for_writer",
            condition_result=active,
            kernel=ttl.KernelKind.DATA_MOVEMENT,
        )
        for i in range(TILES):
            if producer_active:
                blk = source.reserve()
                ttl.copy(inp[0, i], blk).wait()
                blk.push(kernel=producer)
            if consumer_active:
                a = source.wait()
                b = destination.reserve()
                b.store(ttl.math.abs(a))
                b.push(kernel=consumer)
                a.pop(kernel=consumer)
            if writer_active:
                with destination.wait() as blk:
                    ttl.copy(blk, out[0, i]).wait()

    return conditional_operation


@ttl.operation(grid=(1, 1))
def external_copy_operation(inp, out):
    """Template arguments: two ``ttl.dfb_descriptor`` types, an int and a bool."""
    source_dfb = ttl.make_dataflow_buffer_like(inp, shape=(1, 1), block_count=TILES)
    destination_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1))
    out_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1))
    for i in range(TILES):
        with source_dfb.reserve() as blk:
            ttl.copy(inp[0, i], blk).wait()
    ttl.call_extern_func(
        COPY_HEADER,
        "external_copy",
        template_args=[
            ttl.dfb_descriptor(source_dfb),
            ttl.dfb_descriptor(destination_dfb),
            4,
            False,
        ],
        kernel=ttl.KernelKind.DATA_MOVEMENT,
    )
    for i in range(TILES):
        with destination_dfb.wait() as a, out_dfb.reserve() as b:
            b.store(a)
        with out_dfb.wait() as blk:
            ttl.copy(blk, out[0, i]).wait()


@ttl.operation(grid=(1, 1))
def external_stage_operation(inp, out):
    """DFB dependencies and effects: ``external_stage`` forwards every other tile."""
    source = ttl.make_dataflow_buffer_like(inp, shape=(1, 1))
    destination = ttl.make_dataflow_buffer_like(out, shape=(1, 1))
    out_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1))
    for i in range(TILES):
        for j in range(2):
            with source.reserve() as blk:
                ttl.copy(inp[0, (2 * i + j) % TILES], blk).wait()
        ttl.call_extern_func(
            HEADER,
            "external_stage",
            template_args=[ttl.get_dfb_id(source), ttl.get_dfb_id(destination)],
            func_args=[source],
            dfb_dependencies=[destination],
            dfb_effects=[
                ttl.DFBEffect.wait(source, tiles=2),
                ttl.DFBEffect.pop(source, tiles=2),
                ttl.DFBEffect.reserve(destination, tiles=1),
                ttl.DFBEffect.push(destination, tiles=1),
            ],
            kernel=ttl.KernelKind.DATA_MOVEMENT,
        )
        with destination.wait() as a, out_dfb.reserve() as b:
            b.store(a)
        with out_dfb.wait() as blk:
            ttl.copy(blk, out[0, i]).wait()


transaction_count = 2
tiles_per_transaction = TILES // transaction_count


@ttl.operation(grid=(1, 1))
def repeated_effects(inp, out):
    """``ttl.DFBEffect.repeat``: ``external_drain`` consumes a copy of the input."""
    source = ttl.make_dataflow_buffer_like(inp, shape=(1, 1), block_count=TILES)
    passthrough = ttl.make_dataflow_buffer_like(inp, shape=(1, 1))
    for i in range(TILES):
        with source.reserve() as blk:
            ttl.copy(inp[0, i], blk).wait()
    ttl.call_extern_func(
        HEADER,
        "external_drain",
        template_args=[ttl.dfb_descriptor(source), transaction_count, tiles_per_transaction],
        dfb_effects=[
            ttl.DFBEffect.repeat(
                transaction_count,
                [
                    ttl.DFBEffect.wait(source, tiles=tiles_per_transaction),
                    ttl.DFBEffect.pop(source, tiles=tiles_per_transaction),
                ],
            ),
        ],
        kernel=ttl.KernelKind.COMPUTE,
    )
    for i in range(TILES):
        with passthrough.reserve() as blk:
            ttl.copy(inp[0, i], blk).wait()
        with passthrough.wait() as blk:
            ttl.copy(blk, out[0, i]).wait()


@ttl.operation(grid=(1, 1))
def include_paths_operation(inp, out):
    """Include directories: ``kernels/custom_entry.hpp`` found through ``include_paths``."""
    source = ttl.make_dataflow_buffer_like(inp, shape=(1, 1))
    destination = ttl.make_dataflow_buffer_like(out, shape=(1, 1))
    ttl.call_extern_func(
        "kernels/custom_entry.hpp",
        "custom_entry",
        include_paths=[PROJECT_INCLUDE_DIR],
        kernel=ttl.KernelKind.COMPUTE,
    )
    for i in range(TILES):
        with source.reserve() as blk:
            ttl.copy(inp[0, i], blk).wait()
        with source.wait() as a, destination.reserve() as b:
            b.store(a * a)
        with destination.wait() as blk:
            ttl.copy(blk, out[0, i]).wait()


@ttl.operation(grid=(1, 1))
def release_selector(inp, out):
    """DFB synchronization ownership: an otherwise unused wait is popped in data movement."""
    input_dfb = ttl.make_dataflow_buffer_like(inp, shape=(1, 1))
    output_dfb = ttl.make_dataflow_buffer_like(out, shape=(1, 1))
    for i in range(TILES):
        with input_dfb.reserve() as blk:
            ttl.copy(inp[0, i], blk).wait()
        unused = input_dfb.wait()
        unused.pop(kernel=ttl.KernelKind.DATA_MOVEMENT)
        with output_dfb.reserve() as blk:
            ttl.copy(inp[0, i], blk).wait()
        with output_dfb.wait() as blk:
            ttl.copy(blk, out[0, i]).wait()


conditional_operation = make_conditional_operation()


def reference_scalar_result(inp):
    return inp


def reference_compute_external(inp):
    return np.abs(inp)


def reference_shared_external(inp):
    return -inp


def reference_selected_external(inp):
    return np.abs(inp)


def reference_explicit_operation(inp):
    return np.abs(inp)


def reference_conditional_operation(inp):
    return np.abs(inp)


def reference_external_copy_operation(inp):
    return inp


def reference_external_stage_operation(inp):
    """``out`` tile i is ``inp`` tile 2i (mod TILES): every other tile."""
    tiles = [inp[:, 32 * t : 32 * (t + 1)] for t in range(TILES)]
    return np.concatenate([tiles[(2 * i) % TILES] for i in range(TILES)], axis=1)


def reference_repeated_effects(inp):
    return inp


def reference_include_paths_operation(inp):
    return inp * inp


def reference_release_selector(inp):
    return inp


# operation name -> NumPy reference (``reference_<operation>`` above)
REFERENCES = {
    name[len("reference_") :]: fn
    for name, fn in sorted(globals().items())
    if name.startswith("reference_")
}
OPERATIONS = sorted(REFERENCES)
