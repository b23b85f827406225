"""SASS of a captured module: opcode and source line of each program counter (``nvdisasm -g``)."""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from bankism.capture.toolkit import command_output

_INSTRUCTION = re.compile(
    r"/\*([0-9a-fA-F]+)\*/\s+(?:\{\s*)?(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9_]+)*)([^;]*)"
)
_LABEL = re.compile(r"^\s*(\.L_x_\d+):")
_LINE_INFO = re.compile(r'//## File "([^"]*)", line (\d+)')
_LOCATION = re.compile(r'"([^"]*)", line (\d+)')
_TOOLKIT_HEADER = re.compile(r"/targets/[^/]+/include/|/cuda[^/]*/include/")
_FUNCTION = re.compile(r"^\s*\.text\.(\S+):\s*$")


@dataclass(frozen=True)
class SassInstruction:
    """One disassembled instruction: opcode with modifiers (``LDS.128``) and its source line; ``operands``
    (the text after the opcode) and ``labels`` (branch labels that name this instruction) let
    ``capture.phases`` follow registers and loops. Two instructions are equal by opcode and line."""

    opcode: str
    file: str | None
    line: int | None
    operands: str = field(default="", compare=False)
    labels: tuple[str, ...] = field(default=(), compare=False)


def _user_location(locations: list[tuple[str, int]]) -> tuple[str | None, int | None]:
    """The innermost source location outside CUDA's own headers (the line a user wrote)."""
    for path, line in locations:
        if not _TOOLKIT_HEADER.search(path):
            return path, line
    return locations[0] if locations else (None, None)


def parse_nvdisasm(text: str) -> dict[str, dict[int, SassInstruction]]:
    """``nvdisasm -gi -c`` output as {function: {byte offset: instruction}}.

    The ``//## File`` lines before an instruction give its source location and the chain of calls it
    was inlined into; the instruction gets the innermost location that is not in a CUDA header.
    """
    functions: dict[str, dict[int, SassInstruction]] = {}
    current: dict[int, SassInstruction] | None = None
    source: tuple[str | None, int | None] = (None, None)
    pending: list[tuple[str, int]] = []
    labels: list[str] = []
    for line in text.splitlines():
        header = _FUNCTION.match(line)
        if header:
            current = functions.setdefault(header.group(1), {})
            source, pending, labels = (None, None), [], []
            continue
        label = _LABEL.match(line)
        if label:
            labels.append(label.group(1))
            continue
        if _LINE_INFO.search(line):
            pending += [(path, int(number)) for path, number in _LOCATION.findall(line)]
            continue
        instruction = _INSTRUCTION.search(line)
        if instruction and current is not None:
            if pending:
                source, pending = _user_location(pending), []
            current[int(instruction.group(1), 16)] = SassInstruction(
                instruction.group(2), *source, instruction.group(3).strip(), tuple(labels))
            labels = []
    return functions


def function_symbols(image: bytes) -> dict[str, int]:
    """The function symbols of an ELF cubin as {name: symbol index} (nvdisasm's ``-fun`` takes indices);
    empty when the image is not a well-formed 64-bit little-endian ELF file."""
    if len(image) < 64 or image[:4] != b"\x7fELF" or image[4] != 2 or image[5] != 1:
        return {}
    shoff, = struct.unpack_from("<Q", image, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", image, 0x3A)
    if shentsize != 64 or shoff + shnum * 64 > len(image):
        return {}
    sections = [struct.unpack_from("<IIQQQQIIQQ", image, shoff + i * 64) for i in range(shnum)]
    symbols: dict[str, int] = {}
    for _name, kind, _flags, _addr, offset, size, link, _info, _align, entsize in sections:
        if kind != 2 or entsize != 24 or link >= shnum or offset + size > len(image):  # SHT_SYMTAB
            continue
        strings_offset, strings_size = sections[link][4], sections[link][5]
        table = image[strings_offset : strings_offset + strings_size]
        for index in range(size // 24):
            name_offset, info = struct.unpack_from("<IB", image, offset + index * 24)
            if info & 0xF == 2 and name_offset < len(table):  # STT_FUNC
                end = table.find(b"\0", name_offset)
                symbols[table[name_offset : end if end >= 0 else None].decode(errors="replace")] = index
    return symbols


def disassemble(
    cubin: Path, nvdisasm: Path | None, functions: Iterable[str] | None = None
) -> dict[str, dict[int, SassInstruction]]:
    """The SASS map of one module's cubin; empty when nvdisasm is missing or the image is not an ELF cubin.

    ``functions`` (mangled names) restricts nvdisasm to those kernels (``-fun``): a PyTorch module holds
    thousands of kernels and megabytes of code, of which a trace needs one.
    """
    if nvdisasm is None or not cubin.is_file():
        return {}
    image = cubin.read_bytes()
    if image[:4] != b"\x7fELF":
        return {}
    command = [str(nvdisasm), "-gi", "-c", str(cubin)]
    if functions is not None:
        symbols = function_symbols(image)
        wanted = sorted({symbols[name] for name in functions if name in symbols})
        if wanted and all(name in symbols for name in functions):
            command[1:1] = ["-fun", ",".join(map(str, wanted))]
    text = command_output(command)
    return parse_nvdisasm(text) if text else {}
