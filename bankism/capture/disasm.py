"""SASS of a captured module: opcode and source line of each program counter (``nvdisasm -g``)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from bankism.capture.toolkit import command_output

_INSTRUCTION = re.compile(
    r"/\*([0-9a-fA-F]+)\*/\s+(?:\{\s*)?(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)"
)
_LINE_INFO = re.compile(r'//## File "([^"]*)", line (\d+)')
_LOCATION = re.compile(r'"([^"]*)", line (\d+)')
_TOOLKIT_HEADER = re.compile(r"/targets/[^/]+/include/|/cuda[^/]*/include/")
_FUNCTION = re.compile(r"^\s*\.text\.(\S+):\s*$")


@dataclass(frozen=True)
class SassInstruction:
    """One disassembled instruction: opcode with modifiers (``LDS.128``) and its source line."""

    opcode: str
    file: str | None
    line: int | None


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
    for line in text.splitlines():
        header = _FUNCTION.match(line)
        if header:
            current = functions.setdefault(header.group(1), {})
            source, pending = (None, None), []
            continue
        if _LINE_INFO.search(line):
            pending += [(path, int(number)) for path, number in _LOCATION.findall(line)]
            continue
        instruction = _INSTRUCTION.search(line)
        if instruction and current is not None:
            if pending:
                source, pending = _user_location(pending), []
            current[int(instruction.group(1), 16)] = SassInstruction(instruction.group(2), *source)
    return functions


def disassemble(cubin: Path, nvdisasm: Path | None) -> dict[str, dict[int, SassInstruction]]:
    """The SASS map of one module's cubin; empty when nvdisasm is missing or the image is not an ELF cubin."""
    if nvdisasm is None or not cubin.is_file() or cubin.read_bytes()[:4] != b"\x7fELF":
        return {}
    text = command_output([str(nvdisasm), "-gi", "-c", str(cubin)])
    return parse_nvdisasm(text) if text else {}


