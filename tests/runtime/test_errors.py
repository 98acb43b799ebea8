"""Bad kernels end in clear errors: deadlock, runaway, faults, API misuse. Never a hang."""

from __future__ import annotations

import time

import pytest

from ttl.runtime import (
    DeadlockError,
    Device,
    DFBConfig,
    KernelFaultError,
    KernelSpec,
    LivelockError,
    Program,
    RunawayKernelError,
)
from ttl.runtime.elfinfo import ElfImage

HEAD = '#include <cstdint>\n#include "api/dataflow/dataflow_api.h"\n'


def _line(src: str, marker: str) -> int:
    """1-based line of ``src`` containing ``marker``."""
    return next(i for i, text in enumerate(src.splitlines(), 1) if marker in text)


PUSH_ONE = (
    HEAD
    + """
void kernel_main() {
  cb_reserve_back(0, 1);
  cb_push_back(0, 1);
}
"""
)

WAIT_TWO = (
    HEAD
    + """
void kernel_main() {
  cb_wait_front(0, 2);  // WAIT_TWO
  cb_reserve_back(16, 1);
  cb_push_back(16, 1);
  cb_pop_front(0, 2);
}
"""
)

WAIT_OUT = (
    HEAD
    + """
void kernel_main() {
  cb_wait_front(16, 1);  // WAIT_OUT
  cb_pop_front(16, 1);
}
"""
)


def test_deadlock_report_names_kernels_waits_and_dfb_counters(build):
    dev = Device(grid=(1, 1))
    prog = Program(
        kernels=[
            KernelSpec("reader", build(PUSH_ONE, name="reader"), "dm0"),
            KernelSpec("compute", build(WAIT_TWO, name="compute"), "compute"),
            KernelSpec("writer", build(WAIT_OUT, name="writer"), "dm1"),
        ],
        dfbs=[DFBConfig(0, 2048, 1, 2), DFBConfig(16, 2048, 1, 2)],
    )
    with pytest.raises(DeadlockError) as info:
        dev.launch(prog)
    msg = str(info.value)
    assert "node (0,0) dm0 kernel 'reader': finished" in msg
    assert "kernel 'compute': blocked in cb_wait_front(DFB 0, 2 pages)" in msg
    assert f"compute.cc:{_line(WAIT_TWO, 'WAIT_TWO')}" in msg
    assert "DFB 0: 2 pages of 2048 B, pages received 1, acknowledged 0 (1 filled, 1 free)" in msg
    assert "kernel 'writer': blocked in cb_wait_front(DFB 16, 1 page)" in msg
    assert f"writer.cc:{_line(WAIT_OUT, 'WAIT_OUT')}" in msg
    assert "pages received 0, acknowledged 0" in msg
    assert len(info.value.waits) == 3


def test_semaphore_deadlock_is_reported(build):
    src = (
        HEAD
        + """
void kernel_main() {
  noc_semaphore_wait(reinterpret_cast<volatile uint32_t*>(get_semaphore(1)), 5);  // SEM
}
"""
    )
    with pytest.raises(
        DeadlockError,
        match=r"noc_semaphore_wait\(semaphore at 0xf0002004, "
        rf"value 5\) at .*sem\.cc:{_line(src, 'SEM')} .*\n\s+current value 3",
    ):
        Device().launch(
            Program([KernelSpec("sem", build(src, name="sem"), "dm0")], semaphores=[0, 3])
        )


SPIN = (
    HEAD
    + """
void kernel_main() {
  volatile uint32_t x = 0;
  for (;;) {
    x = x + 1;  // SPIN
  }
}
"""
)


def test_runaway_kernel_names_kernel_and_source_line(build):
    dev = Device(grid=(1, 1), instruction_budget=2_000_000, quantum=100_000)
    with pytest.raises(RunawayKernelError) as info:
        dev.launch(Program([KernelSpec("spinner", build(SPIN, name="spin"), "dm1")]))
    err = info.value
    assert err.kernel == "spinner"
    assert "kernel 'spinner' on node (0,0) dm1" in str(err)
    assert "more than 2000000 instructions" in str(err)
    # The PC is somewhere in the loop: the loop header or its body.
    loop = (_line(SPIN, "for (;;)"), _line(SPIN, "SPIN"))
    assert any(f"spin.cc:{n} " in err.location for n in loop), err.location


BAD_STORE = (
    HEAD
    + """
void kernel_main() {
  volatile uint32_t* p = reinterpret_cast<volatile uint32_t*>(0xE0000010u);
  *p = 42;  // BAD
}
"""
)


def test_bad_address_fault_names_kernel_address_and_line(build):
    with pytest.raises(KernelFaultError) as info:
        Device().launch(Program([KernelSpec("scribbler", build(BAD_STORE, name="bad"), "dm0")]))
    msg = str(info.value)
    assert "kernel 'scribbler' on node (0,0) dm0" in msg
    assert "write to unmapped address 0xe0000010" in msg
    assert f"bad.cc:{_line(BAD_STORE, 'BAD')}" in msg


# Page faults come from Unicorn as traps; the hart decodes the access itself.
ACCESSES = {
    "negative offset store": (
        "  volatile uint32_t* p = reinterpret_cast<volatile uint32_t*>(base);\n"
        "  p[-3] = 7;  // FAULT",
        "write to unmapped address 0xe00000f4 (4 bytes)",
    ),
    "byte load": (
        "  volatile uint8_t* p = reinterpret_cast<volatile uint8_t*>(base);\n"
        "  uint32_t x = p[5];  // FAULT\n"
        "  (void)x;",
        "read from unmapped address 0xe0000105 (1 bytes)",
    ),
    "call to unmapped code": (
        "  reinterpret_cast<void (*)()>(base)();  // FAULT",
        "instruction fetch from unmapped address 0xe0000100",
    ),
}


@pytest.mark.parametrize("body, want", list(ACCESSES.values()), ids=list(ACCESSES))
def test_page_fault_names_the_access_address_and_line(build, body, want):
    src = HEAD + (
        "void kernel_main() {\n  const uint32_t base = get_arg_val<uint32_t>(0);\n" + body + "\n}\n"
    )
    with pytest.raises(KernelFaultError) as info:
        Device().launch(Program([KernelSpec("k", build(src, name="acc"), "dm0", [0xE0000100])]))
    msg = str(info.value)
    assert want in msg
    if "fetch" not in want:  # a fetch fault is located at the address it jumped to
        assert f"acc.cc:{_line(src, 'FAULT')}" in msg


def test_jump_into_the_stack_is_a_fetch_from_non_executable_memory(build):
    src = HEAD + (
        "void kernel_main() {\n"
        "  volatile uint32_t code[4] = {0x00000013u, 0x00000013u, 0x00008067u, 0};\n"
        "  reinterpret_cast<void (*)()>(const_cast<uint32_t*>(code))();\n"
        "}\n"
    )
    with pytest.raises(
        KernelFaultError, match="instruction fetch from non-executable address 0x100f"
    ):
        Device().launch(Program([KernelSpec("k", build(src, name="stack"), "dm0")]))


CODE_STORE = (
    HEAD
    + """
void kernel_main() {
  volatile uint32_t* p = reinterpret_cast<volatile uint32_t*>(&kernel_main);
  *p = 0;  // CODE
}
"""
)


def test_store_into_shared_code_is_a_protection_fault(build):
    """Code pages are one copy shared by every hart of the image, read and execute only."""
    with pytest.raises(KernelFaultError) as info:
        Device(grid=(2, 1)).launch(
            Program([KernelSpec("patcher", build(CODE_STORE, name="patch"), "dm0")])
        )
    msg = str(info.value)
    assert "write to protected address 0x1000" in msg  # kernel_main's own code
    assert f"patch.cc:{_line(CODE_STORE, 'CODE')}" in msg


def test_harts_of_one_image_share_one_engine_and_its_code(build):
    dev = Device(grid=(4, 2))
    idle = build(HEAD + "void kernel_main() {}\n", name="idle")
    dev.launch(Program([KernelSpec("idle", idle, "dm0"), KernelSpec("idle1", idle, "dm1")]))
    harts = [h for node in dev.nodes.values() for h in node.harts.values()]
    assert len(harts) == 16
    assert len({id(h.engine) for h in harts}) == 1 == len(dev._engines)
    # LOCAL's first page (code) is one shared page, its last (stack) one per hart.
    assert len({int(h.space.tables[1024]) for h in harts}) == 1
    assert len({int(h.space.tables[1024 + 255]) for h in harts}) == 16


ILLEGAL = (
    HEAD
    + """
void kernel_main() {
  asm volatile(".word 0x00000000");  // ILLEGAL
}
"""
)


def test_illegal_instruction_fault(build):
    elf = build(ILLEGAL, name="ill")
    with pytest.raises(KernelFaultError, match="illegal instruction") as info:
        Device().launch(Program([KernelSpec("k", elf, "compute")]))
    # The reported pc is the zero word itself, inside kernel_main.
    image = ElfImage.load(elf)
    addr, data, _ = image.segments[0]
    assert data[info.value.pc - addr : info.value.pc - addr + 4] == bytes(4)
    assert image.function_at(info.value.pc) == "_Z11kernel_mainv"
    # GCC attributes the inline asm word to the statement or the function's first line.
    lines = (_line(ILLEGAL, "ILLEGAL"), _line(ILLEGAL, "kernel_main"))
    assert any(f"ill.cc:{n} " in str(info.value) for n in lines), str(info.value)


BAD_ARG = (
    HEAD
    + """
void kernel_main() {
  uint32_t a = get_arg_val<uint32_t>(0);
  uint32_t b = get_arg_val<uint32_t>(3);  // ARG
  (void)a; (void)b;
}
"""
)


def test_missing_runtime_arg_is_reported_at_its_call(build):
    with pytest.raises(KernelFaultError) as info:
        Device().launch(Program([KernelSpec("k", build(BAD_ARG, name="arg"), "dm0", [7, 8])]))
    msg = str(info.value)
    assert "get_arg_val(3) reads runtime argument 3, but this node was launched with 2" in msg
    assert f"arg.cc:{_line(BAD_ARG, 'ARG')}" in msg


UNCONFIGURED = (
    HEAD
    + """
void kernel_main() {
  cb_reserve_back(5, 1);  // DFB5
}
"""
)


def test_unconfigured_dfb_is_reported(build):
    line = _line(UNCONFIGURED, "DFB5")
    with pytest.raises(KernelFaultError, match=rf"dfb\.cc:{line} .*DFB 5 is not configured"):
        Device().launch(Program([KernelSpec("k", build(UNCONFIGURED, name="dfb"), "dm0")]))


BAD_NOC = (
    HEAD
    + """
void kernel_main() {
  const auto t = TensorAccessor(TensorAccessorArgs<0>(), get_arg_val<uint32_t>(0), 2048);
  noc_async_read_page(1000, t, get_write_ptr(0));  // NOC
  noc_async_read_barrier();
}
"""
)


def test_noc_read_outside_dram_is_reported_at_its_call(build):
    dev = Device()
    tensor = dev.allocate_tensor((32, 32), "bf16")
    with pytest.raises(KernelFaultError) as info:
        dev.launch(
            Program(
                [
                    KernelSpec(
                        "k", build(BAD_NOC, ct_args=[2, 2048], name="noc"), "dm0", [tensor.address]
                    )
                ],
                [DFBConfig(0, 2048, 1, 1)],
            )
        )
    msg = str(info.value)
    assert "NOC read from DRAM: DRAM bank 4 range" in msg and "outside allocated DRAM" in msg
    assert f"noc.cc:{_line(BAD_NOC, 'NOC')}" in msg


OVERSIZED = (
    HEAD
    + """
void kernel_main() {
  cb_reserve_back(0, 3);  // BIG
}
"""
)


def test_reserve_larger_than_dfb_is_an_error_not_a_deadlock(build):
    with pytest.raises(KernelFaultError) as info:
        Device().launch(
            Program(
                [KernelSpec("k", build(OVERSIZED, name="big"), "dm0")], [DFBConfig(0, 2048, 1, 2)]
            )
        )
    msg = str(info.value)
    assert "cb_reserve_back(DFB 0, 3 pages) can never succeed: the DFB holds 2 pages" in msg
    assert f"big.cc:{_line(OVERSIZED, 'BIG')}" in msg


def test_runaway_is_caught_in_the_default_uncounted_mode(build):
    # No quantum: the hart runs uncounted until the watchdog preempts it, then
    # in counted quanta until the budget is spent.
    dev = Device(grid=(1, 1), instruction_budget=3_000_000)
    with pytest.raises(RunawayKernelError, match="more than 3000000 instructions") as info:
        dev.launch(Program([KernelSpec("spinner", build(SPIN, name="spin"), "dm1")]))
    assert "spin.cc:" in info.value.location


RECURSE = (
    HEAD
    + """
uint32_t depth(uint32_t n) {
  volatile uint32_t buf[256];  // 1 KiB of stack per call
  buf[n & 255] = n;
  return n ? depth(n - 1) + buf[(n * 7) & 255] : 0;  // RECURSE
}
void kernel_main() { (void)depth(1000); }
"""
)


def test_stack_overflow_hits_the_guard_page(build):
    with pytest.raises(KernelFaultError, match="stack overflow: write to unmapped address") as info:
        Device().launch(Program([KernelSpec("deep", build(RECURSE, name="rec"), "dm0")]))
    assert "rec.cc:" in str(info.value)


def test_elf_without_the_crt0_symbols_is_a_launch_error(build, tmp_path):
    import shutil
    import subprocess

    from ttl.runtime import LaunchError

    elf = build(PUSH_ONE, name="push")
    assert ElfImage.load(elf).stop_pc > ElfImage.load(elf).exit_pc  # read from .symtab
    strip = shutil.which("riscv64-unknown-elf-strip")
    if strip is None:
        pytest.skip("riscv64-unknown-elf-strip is not installed")
    stripped = tmp_path / "stripped.elf"
    subprocess.run([strip, "-o", str(stripped), str(elf)], check=True)
    with pytest.raises(
        LaunchError,
        match=r"stripped\.elf has no '__ttl_exit' symbol: link it "
        r"with the current ttl/runtime/device/link/crt0\.S",
    ):
        ElfImage.load(stripped)


def test_generated_cpp_lines_map_to_the_tt_lang_line():
    from ttl.runtime.elfinfo import _origin_of

    lines = [
        "void kernel_main() {",
        "  // prog.py:7: with a_dfb.wait() as blk:",
        "  cb_wait_front(dfb_a, 1);",
        "  // prog.py:8: y_blk.store(blk)",
        "  {",
        "    tile_regs_acquire();",
    ]
    assert _origin_of(lines, 3) == "prog.py:7"
    assert _origin_of(lines, 6) == "prog.py:8"
    assert _origin_of(lines, 1) is None


def test_kernels_spinning_without_progress_are_a_livelock(build):
    spin = build("spin_on_semaphore")
    program = Program(
        kernels=[KernelSpec("a", spin, "dm0"), KernelSpec("b", spin, "dm1")], semaphores=[0]
    )
    start = time.perf_counter()
    with pytest.raises(LivelockError) as info:
        Device(livelock_budget=5_000_000).launch(program)
    assert time.perf_counter() - start < 30
    text = str(info.value)
    assert text.startswith("livelock: the kernels executed ")
    assert "without any progress" in text
    assert "device=ttl.runtime.Device(target, grid, livelock_budget=None)" in text
    assert len(info.value.sites) == 2
    assert "kernel 'a': running at " in text and "spin_on_semaphore.cc:8" in text
    # Without the bound, the instruction budget is what stops them.
    with pytest.raises(RunawayKernelError, match=r"instruction_budget=N\)"):
        Device(livelock_budget=None, instruction_budget=2_000_000).launch(program)
