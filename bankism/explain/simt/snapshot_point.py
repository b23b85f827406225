"""``explain --snapshot FILE:LINE [--when NAME=VALUE]``: the point in the run where the block's shared
memory and the named variables are captured (the first time the statement ends with every lane's
``--when`` values as given)."""

from __future__ import annotations

import os

from bankism.explain.frontend import syntax as S
from bankism.explain.simt.bindings import Variable
from bankism.explain.simt.machine import SimtMachine
from bankism.explain.simt.values import Failure, Mask, Scalar, per_thread


def file_matches(file: str, wanted: str) -> bool:
    """Whether ``file`` (as the preprocessor names it) is the file a user wrote as ``wanted``
    (the same path, or the same trailing path components)."""
    a = os.path.normpath(file).split(os.sep)
    b = os.path.normpath(wanted).split(os.sep)
    n = min(len(a), len(b))
    return a[-n:] == b[-n:]


def maybe_snapshot(machine: SimtMachine, stmt: S.Stmt, mask: Mask) -> None:
    """Take the snapshot at ``stmt`` if it is the asked-for statement and the ``--when`` values hold."""
    wanted = machine.snapshot.file
    if machine.snapshot_taken or not (wanted is None
                                      or file_matches(stmt.file or machine.context.filename, wanted)):
        return
    for name, value_wanted in machine.snapshot.when:
        binding = machine.find_variable(name)
        if binding is None:
            if name in machine.builtin_variables:
                raise Failure(stmt, f"--when {name}: use a variable of the kernel, not a built-in")
            raise Failure(stmt, f"--when {name}={value_wanted}: no variable {name} in scope at this line")
        if not isinstance(binding, Variable) or not isinstance(binding.value, Scalar):
            raise Failure(stmt, f"--when {name}: {name} is not a scalar variable")
        data = per_thread(binding.value.data, machine.threads)[mask.arr]
        if not (data == value_wanted).all():
            return
    machine.snapshot_taken = True
    if machine.on_snapshot is not None:
        machine.on_snapshot(machine)
