"""The device toolchain produces a real RV32 ELF with the runtime's entry points."""

import sys

from elftools.elf.elffile import ELFFile


def check(path: str) -> None:
    with open(path, "rb") as stream:
        elf = ELFFile(stream)
        assert elf.elfclass == 32, f"{path}: ELF class {elf.elfclass}, want ELF32"
        assert elf.little_endian, f"{path}: not little-endian"
        assert elf["e_machine"] == "EM_RISCV", f"{path}: machine {elf['e_machine']}"
        assert elf["e_type"] == "ET_EXEC", f"{path}: type {elf['e_type']}, want ET_EXEC"
        symbols = {s.name: s["st_value"] for s in elf.get_section_by_name(".symtab").iter_symbols()}
        # `void kernel_main()` under its C++ (Itanium) mangled name.
        for name in ("_start", "_Z11kernel_mainv"):
            assert name in symbols, f"{path}: no `{name}` symbol"
        assert elf["e_entry"] == symbols["_start"], f"{path}: entry is not _start"
        flags = elf["e_flags"]
        assert flags & 0x1 == 0, f"{path}: compressed instructions (RVC) enabled"
        assert flags & 0x6 == 0, f"{path}: hardware float ABI, want ilp32 (soft float)"


if __name__ == "__main__":
    for elf_path in sys.argv[1:]:
        check(elf_path)
    print(f"checked {len(sys.argv) - 1} ELF(s)")
