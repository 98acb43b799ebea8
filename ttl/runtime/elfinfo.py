"""Kernel ELF images: loadable segments, symbols and source-line lookup."""

from __future__ import annotations

import bisect
import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from elftools.common.exceptions import ELFError
from elftools.elf.elffile import ELFFile

from ttl.runtime import memmap
from ttl.runtime.errors import LaunchError

# API implementation file: a stop inside it is reported at the kernel's call site.
_API_IMPL_FILE = "kernel_api_impl.h"
_EXIT_SYMBOL = "__ttl_exit"
_STOP_SYMBOL = "__ttl_stop"


@dataclass
class ElfImage:
    """A loaded kernel ELF: what to copy into LOCAL memory and where execution starts."""

    path: str
    sha256: str
    entry: int
    exit_pc: int  # crt0's `jal __ttl_yield` after kernel_main returns
    stop_pc: int  # the emulator's stop address, inside __ttl_yield
    segments: list[tuple[int, bytes, int]]  # (address, file bytes, memory size)
    _raw: bytes = field(repr=False)
    _lines: tuple[list[int], list[tuple[str, int]]] | None = field(default=None, repr=False)
    _symbols: list[tuple[int, int, str]] | None = field(default=None, repr=False)

    @classmethod
    def load(cls, path: str | os.PathLike) -> ElfImage:
        path = str(path)
        try:
            raw = Path(path).read_bytes()
        except OSError as e:
            raise LaunchError(f"cannot read kernel ELF {path}: {e.strerror}") from None
        return cls.from_bytes(raw, path)

    @classmethod
    def from_bytes(cls, raw: bytes, path: str) -> ElfImage:
        import io

        try:
            elf = ELFFile(io.BytesIO(raw))
        except ELFError as e:
            raise LaunchError(f"{path} is not an ELF file ({e})") from None
        if elf["e_machine"] != "EM_RISCV" or elf.elfclass != 32:
            raise LaunchError(
                f"{path} is not a 32-bit RISC-V ELF (machine {elf['e_machine']}, "
                f"class {elf.elfclass}): build it with the ttl device toolchain (-march=rv32im)"
            )
        segments = []
        lo, hi = memmap.LOCAL_BASE, memmap.LOCAL_BASE + memmap.LOCAL_SIZE
        for seg in elf.iter_segments():
            if seg["p_type"] != "PT_LOAD" or seg["p_memsz"] == 0:
                continue
            start, size = seg["p_vaddr"], seg["p_memsz"]
            if start < lo or start + size > hi:
                raise LaunchError(
                    f"{path}: segment [{start:#x}, {start + size:#x}) is outside LOCAL memory "
                    f"[{lo:#x}, {hi:#x}): link with ttl/runtime/device/link/kernel.ld"
                )
            segments.append((start, seg.data(), size))
        symtab = elf.get_section_by_name(".symtab")
        found = {}
        for name in (_EXIT_SYMBOL, _STOP_SYMBOL):
            syms = symtab.get_symbol_by_name(name) if symtab else None
            if not syms:
                raise LaunchError(
                    f"{path} has no '{name}' symbol: link it with the current "
                    "ttl/runtime/device/link/crt0.S"
                )
            found[name] = syms[0]["st_value"]
        return cls(
            path=path,
            sha256=hashlib.sha256(raw).hexdigest(),
            entry=elf["e_entry"],
            exit_pc=found[_EXIT_SYMBOL],
            stop_pc=found[_STOP_SYMBOL],
            segments=segments,
            _raw=raw,
        )

    def _elf(self) -> ELFFile:
        import io

        return ELFFile(io.BytesIO(self._raw))

    def _line_table(self) -> tuple[list[int], list[tuple[str, int]]]:
        if self._lines is None:
            rows: list[tuple[int, str, int]] = []
            elf = self._elf()
            if elf.has_dwarf_info():
                dwarf = elf.get_dwarf_info()
                for cu in dwarf.iter_CUs():
                    prog = dwarf.line_program_for_CU(cu)
                    if prog is None:
                        continue
                    files = _file_names(prog)
                    for entry in prog.get_entries():
                        st = entry.state
                        if st is None or st.end_sequence:
                            continue
                        rows.append((st.address, files.get(st.file, "?"), st.line))
            rows.sort(key=lambda r: r[0])
            self._lines = ([r[0] for r in rows], [(r[1], r[2]) for r in rows])
        return self._lines

    def _symbol_table(self) -> list[tuple[int, int, str]]:
        if self._symbols is None:
            syms = []
            symtab = self._elf().get_section_by_name(".symtab")
            for s in symtab.iter_symbols() if symtab else ():
                if s["st_info"]["type"] == "STT_FUNC":
                    syms.append((s["st_value"], s["st_size"], s.name))
            self._symbols = sorted(syms)
        return self._symbols

    def line_at(self, pc: int) -> tuple[str, int] | None:
        """(file, line) of the instruction at ``pc`` from DWARF, or None without -g."""
        addrs, rows = self._line_table()
        i = bisect.bisect_right(addrs, pc) - 1
        return rows[i] if i >= 0 else None

    def function_at(self, pc: int) -> str | None:
        """Name of the function symbol containing ``pc``."""
        for start, size, name in self._symbol_table():
            if start <= pc < start + max(size, 1):
                return name
        return None

    def describe_location(self, pc: int, ra: int | None = None) -> str:
        """A human-readable program point; stops inside the API name the caller's line."""
        line = self.line_at(pc)
        if line and os.path.basename(line[0]) == _API_IMPL_FILE and ra:
            caller = self.line_at(ra - 4)
            api = _demangle(self.function_at(pc))
            if caller:
                return f"{caller[0]}:{caller[1]} (in {api}, pc {pc:#x})"
        if line:
            return f"{line[0]}:{line[1]} (pc {pc:#x})"
        func = _demangle(self.function_at(pc))
        where = f" in {func}" if func else ""
        return f"pc {pc:#x}{where} (no line info: compile the kernel with -g)"


def _file_names(prog) -> dict[int, str]:
    """DWARF file index -> path for one line program (DWARF 4 and 5 numbering)."""
    header = prog.header
    version = header["version"]
    dirs = [d.decode() if isinstance(d, bytes) else d for d in header["include_directory"]]
    names = {}
    for i, f in enumerate(header["file_entry"]):
        name = f.name.decode() if isinstance(f.name, bytes) else f.name
        d = f.dir_index
        if version >= 5:
            base = dirs[d] if d < len(dirs) else ""
            idx = i
        else:
            base = dirs[d - 1] if 0 < d <= len(dirs) else ""
            idx = i + 1
        names[idx] = name if os.path.isabs(name) or not base else os.path.join(base, name)
    return names


def _demangle(name: str | None) -> str | None:
    """Just enough Itanium demangling for free functions: _Z11kernel_mainv -> kernel_main."""
    if not name or not name.startswith("_Z"):
        return name
    digits = ""
    for ch in name[2:]:
        if not ch.isdigit():
            break
        digits += ch
    if not digits:
        return name
    start = 2 + len(digits)
    return name[start : start + int(digits)]
