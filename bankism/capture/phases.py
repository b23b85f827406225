"""Where each shared store sits against the kernel's global loads, read from its SASS.

The store surplus depends on it (docs/rules.md, "Whole kernels: the surplus"): a store whose value comes
straight from a global load (``fed``) issues as that load's L1 fill lands, while the block's other warps'
fills still arrive; a store that runs before the kernel's first global load (``before_loads``: zeroing a
histogram) meets no fill of its own block. Limits: the walk is over program order, not the control-flow
graph; a value that goes through arithmetic (``s += a[i]``) is not ``fed``; generic loads (LD) are not
taken for global ones, nor cp.async (LDGSTS), so a kernel that reads global memory only by cp.async has all
its stores ``before_loads``.
"""

from __future__ import annotations

import re

from bankism.capture.disasm import SassInstruction
from bankism.isa import BARRIER_SASS, GLOBAL_LOAD_SASS, REGISTER_COPY_SASS, op_of_sass

#: The phases a shared store can be given; a trace without them has not read the SASS.
PHASES = ("fed", "before_loads", "other")
OTHER = "other"
#: How far back (instructions) the walk from a store looks for the load of its value.
WALK_LIMIT = 96

_REGISTER = re.compile(r"^R(\d+)$")
_BRANCH_TARGET = re.compile(r"`\((\.L_x_\d+)\)")
_WIDTH_REGISTERS = {"64": 2, "128": 4}


def _family_is(opcode: str, families: tuple[str, ...]) -> bool:
    return any(opcode == f or opcode.startswith(f + ".") for f in families)


def _is_global_load(opcode: str) -> bool:
    return _family_is(opcode, GLOBAL_LOAD_SASS)  # LDG, LDG.E.64...; not LDGSTS or LDGDEPBAR


def _registers(token: str, opcode: str) -> set[int]:
    """The registers a register operand names, a 64/128-bit opcode naming 2/4 consecutive ones."""
    found = _REGISTER.match(token.strip())
    if not found:
        return set()
    count = max((_WIDTH_REGISTERS.get(part, 1) for part in opcode.split(".")), default=1)
    first = int(found.group(1))
    return set(range(first, first + count))


def _operands(instruction: SassInstruction) -> list[str]:
    return [part.strip() for part in instruction.operands.split(",")] if instruction.operands else []


def _stored_registers(instruction: SassInstruction) -> set[int]:
    """The data registers of a shared store (its last operand)."""
    operands = _operands(instruction)
    return _registers(operands[-1], instruction.opcode) if operands else set()


def _is_fed(program: list[tuple[int, SassInstruction]], index: int) -> bool:
    """Whether the value the store at ``index`` writes comes from a global load, through copies only."""
    wanted = _stored_registers(program[index][1])
    for back in range(index - 1, max(-1, index - WALK_LIMIT), -1):
        if not wanted:
            return False
        instruction = program[back][1]
        if _family_is(instruction.opcode, BARRIER_SASS):
            return False
        operands = _operands(instruction)
        written = _registers(operands[0], instruction.opcode) if operands else set()
        if not written & wanted:
            continue
        if _is_global_load(instruction.opcode):
            return True
        if not _family_is(instruction.opcode, REGISTER_COPY_SASS) or len(operands) < 2:
            return False
        wanted = (wanted - written) | _registers(operands[-1], instruction.opcode)
    return False


def store_phases(function: dict[int, SassInstruction]) -> dict[int, str]:
    """{pc: phase} of the shared stores of one kernel's SASS that are ``fed`` or ``before_loads`` (the
    others are ``OTHER``)."""
    program = sorted(function.items())
    labels = {label: pc for pc, instruction in program for label in instruction.labels}
    loads = [pc for pc, instruction in program if _is_global_load(instruction.opcode)]
    first_load = loads[0] if loads else None
    # a branch at or after the first load back to an earlier point makes everything from there a loop body
    loop_start = min((labels[target] for pc, instruction in program
                      if first_load is not None and pc >= first_load
                      for target in _BRANCH_TARGET.findall(instruction.operands)
                      if target in labels and labels[target] <= pc), default=None)
    phases = {}
    for index, (pc, instruction) in enumerate(program):
        if op_of_sass(instruction.opcode) != "store":
            continue
        if _is_fed(program, index):
            phases[pc] = "fed"
        elif first_load is None or (pc < first_load and (loop_start is None or pc < loop_start)):
            phases[pc] = "before_loads"
    return phases
