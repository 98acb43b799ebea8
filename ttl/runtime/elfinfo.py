"""Kernel ELF images: loadable segments, symbols and source-line lookup."""

from __future__ import annotations

import bisect
import hashlib
import os
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ttl.device_build import bundle as bundle_format
from ttl.runtime import memmap
from ttl.runtime.errors import LaunchError

if TYPE_CHECKING:
    from elftools.elf.elffile import ELFFile

# Kernel API headers: code inlined from them is reported at the kernel's call site.
# They are the emulator's device headers, which builds record under this name
# (ttl.device_build.kernels.DEVICE_PREFIX), or found under another name.
_API_DIR = "ttl-device/include"
_API_FILES = frozenset({"kernel_api.h", "kernel_api_impl.h"})


def _is_api_file(path: str) -> bool:
    return path.startswith(_API_DIR) or os.path.basename(path) in _API_FILES


_EXIT_SYMBOL = "__ttl_exit"
_STOP_SYMBOL = "__ttl_stop"


# (pyelftools is imported only to read DWARF or the function symbols, for reports:
# a launch does without it, and its import costs a warm process tens of ms.)
class _ElfReadError(ValueError):
    """The file's ELF header or tables cannot be read."""


class _Elf32:
    """The parts of a little-endian ELF32 file a launch needs, read with ``struct``.

    Header, PT_LOAD segments and ``.symtab`` values; pyelftools (parsing every
    header field through its construct layer, about a millisecond an ELF) is
    used only for DWARF, when a report needs source lines.
    """

    _HEADER = struct.Struct("<16sHHIIIIIHHHHHH")  # Elf32_Ehdr
    _PHDR = struct.Struct("<IIIIIIII")  # Elf32_Phdr
    _SHDR = struct.Struct("<IIIIIIIIII")  # Elf32_Shdr
    _SYM = struct.Struct("<IIIBBH")  # Elf32_Sym: name, value, size, info, other, shndx
    EM_RISCV, PT_LOAD, PF_W = 243, 1, 2

    def __init__(self, raw: bytes):
        try:
            ident, _, self.machine, _, self.entry, phoff, shoff, *_, phnum, _, shnum, shstrndx = (
                self._HEADER.unpack_from(raw)
            )
            if ident[:4] != b"\x7fELF":
                raise ValueError("bad magic")
            self.elfclass = {1: 32, 2: 64}.get(ident[4], 0)
            self.little = ident[5] == 1
            self._raw = raw
            self._phdrs, self._shdrs, self._shstr = [], [], b""
            if self.elfclass != 32 or not self.little:
                return  # the caller rejects it: the tables below would be misread
            self._phdrs = [self._PHDR.unpack_from(raw, phoff + i * 32) for i in range(phnum)]
            self._shdrs = [self._SHDR.unpack_from(raw, shoff + i * 40) for i in range(shnum)]
            self._shstr = self._section_data(shstrndx) if shnum else b""
        except (struct.error, ValueError, IndexError) as e:
            raise _ElfReadError(f"cannot read its header ({e})") from None

    def _section_data(self, index: int) -> bytes:
        offset, size = self._shdrs[index][4], self._shdrs[index][5]
        return self._raw[offset : offset + size]

    def loads(self) -> list[tuple[int, bytes, int, int, bool]]:
        """(address, file bytes, file size, memory size, read-only) of each non-empty
        PT_LOAD segment (fewer bytes than its file size when the file ends first)."""
        return [
            (vaddr, self._raw[offset : offset + filesz], filesz, memsz, not flags & self.PF_W)
            for ptype, offset, vaddr, _, filesz, memsz, flags, *_ in self._phdrs
            if ptype == self.PT_LOAD and memsz
        ]

    def symbol_values(self, names: tuple[str, ...]) -> dict[str, int]:
        """Values of the named ``.symtab`` symbols (those present; the first of a name)."""
        for shdr in self._shdrs:
            section = self._shstr[shdr[0] : self._shstr.index(b"\0", shdr[0])]
            if section == b".symtab" and shdr[9] == self._SYM.size:
                symtab, strtab = shdr, self._section_data(shdr[6])
                break
        else:
            return {}
        wanted = {n.encode(): n for n in names}
        found: dict[str, int] = {}
        data = self._raw[symtab[4] : symtab[4] + symtab[5]]
        for st_name, st_value, *_ in self._SYM.iter_unpack(data):
            name = wanted.get(strtab[st_name : strtab.index(b"\0", st_name)])
            if name is not None and name not in found:
                found[name] = st_value
        return found


@dataclass
class ElfImage:
    """A loaded kernel ELF: what to copy into LOCAL memory and where execution starts."""

    path: str
    sha256: str
    entry: int
    exit_pc: int  # crt0's `jal __ttl_yield` after kernel_main returns
    stop_pc: int  # the emulator's stop address, inside __ttl_yield
    segments: list[tuple[int, bytes, int]]  # (address, file bytes, memory size)
    read_only: list[bool]  # per segment: not writable (code, shared by harts)
    _raw: bytes = field(repr=False)
    _lines: tuple[list[int], list[tuple[str, int]]] | None = field(default=None, repr=False)
    _symbols: list[tuple[int, int, str]] | None = field(default=None, repr=False)
    # Inlined calls: (low, high, depth, call file, call line), from DWARF.
    _inlined: list[tuple[int, int, int, str, int]] | None = field(default=None, repr=False)
    # Kernel sources read for describe_location: bundle-relative name -> lines.
    _sources: dict[str, list[str]] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, path: str | os.PathLike) -> ElfImage:
        path = str(path)
        try:
            raw = bundle_format.read_bounded(path, bundle_format.MAX_ELF_BYTES)
        except bundle_format.UnsafeBundleFileError as e:
            raise LaunchError(f"cannot read kernel ELF: {e}") from None
        except OSError as e:
            raise LaunchError(f"cannot read kernel ELF {path}: {e.strerror}") from None
        return cls.from_bytes(raw, path)

    @classmethod
    def from_bytes(cls, raw: bytes, path: str, sha256: str | None = None) -> ElfImage:
        """Parses ``raw`` (the ELF at ``path``); ``sha256``: its hex digest if the caller
        already computed it (bundles verify every file's hash first)."""
        try:
            elf = _Elf32(raw)
        except _ElfReadError as e:
            raise LaunchError(f"{path} is not an ELF file ({e})") from None
        if elf.machine != _Elf32.EM_RISCV or elf.elfclass != 32 or not elf.little:
            raise LaunchError(
                f"{path} is not a 32-bit little-endian RISC-V ELF (machine {elf.machine}, "
                f"class {elf.elfclass}): build it with the ttl device toolchain (-march=rv32im)"
            )
        segments, read_only = [], []
        lo, hi = memmap.LOCAL_BASE, memmap.LOCAL_BASE + memmap.LOCAL_SIZE
        for start, data, file_size, size, ro in elf.loads():
            if start < lo or start + size > hi:
                raise LaunchError(
                    f"{path}: segment [{start:#x}, {start + size:#x}) is outside LOCAL memory "
                    f"[{lo:#x}, {hi:#x}): link with ttl/runtime/device/link/kernel.ld"
                )
            if file_size > size or len(data) < file_size:  # a linker never writes either
                why = (
                    "more file bytes than its memory size"
                    if file_size > size
                    else ("file bytes past the end of the file")
                )
                raise LaunchError(
                    f"{path}: segment at {start:#x} has {why} ({file_size} bytes in the file, "
                    f"{size} in memory, {len(raw)} in the ELF): a damaged ELF; rebuild it"
                )
            segments.append((start, data, size))
            read_only.append(ro)
        symbols = elf.symbol_values((_EXIT_SYMBOL, _STOP_SYMBOL))
        for name in (_EXIT_SYMBOL, _STOP_SYMBOL):
            if name not in symbols:
                raise LaunchError(
                    f"{path} has no '{name}' symbol: link it with the current "
                    "ttl/runtime/device/link/crt0.S"
                )
        return cls(
            path=path,
            sha256=sha256 or hashlib.sha256(raw).hexdigest(),
            entry=elf.entry,
            exit_pc=symbols[_EXIT_SYMBOL],
            stop_pc=symbols[_STOP_SYMBOL],
            segments=segments,
            read_only=read_only,
            _raw=raw,
        )

    def _python_origin(self, cpp_file: str, cpp_line: int) -> str | None:
        """``file.py:N`` that C++ line ``cpp_line`` of ``cpp_file`` was generated from, if
        the kernel source sits in the bundle (``<bundle>/kernels/``, next to ``elf/``)."""
        if not cpp_file.startswith("kernels/"):
            return None
        lines = self._sources.get(cpp_file)
        if lines is None:
            try:
                path = bundle_format.bundle_member(
                    Path(self.path).resolve().parent.parent, cpp_file
                )
                text = bundle_format.read_bounded(path, bundle_format.MAX_SOURCE_BYTES)
                lines = text.decode("utf-8").splitlines()
            except (OSError, UnicodeDecodeError, bundle_format.UnsafeBundleFileError):
                lines = []
            self._sources[cpp_file] = lines
        return _origin_of(lines, cpp_line)

    def _elf(self) -> ELFFile:
        import io

        from elftools.elf.elffile import ELFFile

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
            from elftools.elf.sections import SymbolTableSection

            syms = []
            symtab = self._elf().get_section_by_name(".symtab")
            for s in symtab.iter_symbols() if isinstance(symtab, SymbolTableSection) else ():
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

    def _inlined_calls(self) -> list[tuple[int, int, int, str, int]]:
        if self._inlined is None:
            self._inlined = []
            elf = self._elf()
            if elf.has_dwarf_info():
                dwarf = elf.get_dwarf_info()
                for cu in dwarf.iter_CUs():
                    self._collect_inlined(dwarf, cu)
        return self._inlined

    def _collect_inlined(self, dwarf, cu) -> None:
        prog = dwarf.line_program_for_CU(cu)
        files = _file_names(prog) if prog is not None else {}
        rangelists = dwarf.range_lists()
        base = cu.get_top_DIE().attributes.get("DW_AT_low_pc")
        base = base.value if base else 0

        def walk(die, depth):
            for child in die.iter_children():
                d = depth
                if child.tag == "DW_TAG_inlined_subroutine":
                    d = depth + 1
                    attrs = child.attributes
                    call = (
                        (
                            files.get(attrs["DW_AT_call_file"].value, "?"),
                            attrs["DW_AT_call_line"].value,
                        )
                        if "DW_AT_call_line" in attrs
                        else None
                    )
                    for lo, hi in _die_ranges(child, rangelists, base, cu) if call else ():
                        self._inlined.append((lo, hi, d, call[0], call[1]))
                walk(child, d)

        walk(cu.get_top_DIE(), 0)

    def source_location(self, pc: int) -> tuple[str, int] | None:
        """(file, line) of ``pc`` in the kernel's own code.

        Code inlined from the API implementation is attributed, through the
        DWARF inlined-call records, to the kernel line that called the API.
        """
        line = self.line_at(pc)
        if line is None or not _is_api_file(line[0]):
            return line
        calls = sorted((c for c in self._inlined_calls() if c[0] <= pc < c[1]), key=lambda c: -c[2])
        for _, _, _, file, lineno in calls:  # innermost inlined call first
            line = (file, lineno)
            if not _is_api_file(file):
                break
        return line

    def in_api(self, pc: int) -> bool:
        """Whether ``pc`` is in the device kernel API's own code (not the kernel's)."""
        line = self.source_location(pc)
        return line is not None and _is_api_file(line[0])

    def describe_location(self, pc: int) -> str:
        """A human-readable program point for ``pc``: the TT-Lang source line the
        generated C++ came from when the bundle has the kernel source, and the C++
        file:line (with -g)."""
        line = self.source_location(pc)
        if line:
            origin = self._python_origin(*line)
            cpp = f"{line[0]}:{line[1]}, pc {pc:#x}" if origin else f"{line[0]}:{line[1]}"
            return f"{origin} ({cpp})" if origin else f"{cpp} (pc {pc:#x})"
        func = _demangle(self.function_at(pc))
        where = f" in {func}" if func else ""
        return f"pc {pc:#x}{where} (no line info: compile the kernel with -g)"


# The emitter's source comment above each statement's C++: `// softmax.py:43: <source>`.
_ORIGIN = re.compile(r"^\s*// (?P<file>[^\s:]+\.py):(?P<line>\d+): ")


def _origin_of(lines: list[str], cpp_line: int) -> str | None:
    """``file.py:N`` of the nearest source comment at or above ``cpp_line`` (1-based)."""
    for text in reversed(lines[:cpp_line]):
        m = _ORIGIN.match(text)
        if m:
            return f"{m['file']}:{m['line']}"
    return None


def _die_ranges(die, rangelists, base: int, cu) -> list[tuple[int, int]]:
    """Address ranges covered by a DIE (low/high pc or a range list)."""
    attrs = die.attributes
    if "DW_AT_low_pc" in attrs and "DW_AT_high_pc" in attrs:
        lo = attrs["DW_AT_low_pc"].value
        hi = attrs["DW_AT_high_pc"]
        return [(lo, hi.value if hi.form == "DW_FORM_addr" else lo + hi.value)]
    if "DW_AT_ranges" in attrs and rangelists is not None:
        try:
            entries = rangelists.get_range_list_at_offset(attrs["DW_AT_ranges"].value, cu=cu)
        except Exception:
            return []
        out = []
        for e in entries:
            name = type(e).__name__
            if name == "RangeEntry":
                lo, hi = (e.begin_offset, e.end_offset)
                if not getattr(e, "is_absolute", False):
                    lo, hi = lo + base, hi + base
                out.append((lo, hi))
            elif name == "BaseAddressEntry":
                base = e.base_address
        return out
    return []


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
