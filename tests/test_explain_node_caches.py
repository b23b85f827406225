"""Regression: the interpreter's per-node caches hold the node itself, not its id.

A literal the interpreter made for itself (the ``1`` of a counted loop's ``i++``) was freed
and its id reused by the next body converted (the ``0`` of ``int i = 0``), which then read
as 1: a struct's ``operator+=`` skipped its first lane now and then (tests/data/explain/decl
/packed.cu, failing about once in 30 runs after another kernel)."""

from __future__ import annotations

import numpy as np

from bankism.explain.frontend import syntax as S
from bankism.explain.simt.expressions import Expressions
from bankism.explain.simt.values import Mask


class _Cache:
    """Just the state ``Expressions._literal`` uses."""

    def __init__(self) -> None:
        self._constants: dict = {}


def test_a_literal_made_after_another_was_freed_reads_its_own_value() -> None:
    machine = _Cache()
    mask = Mask(np.ones(32, bool), True, False)
    reused = False
    for _ in range(200):
        one = S.Literal(1, "1", 1, "int")
        assert int(Expressions._literal(machine, one, mask).data) == 1
        freed = id(one)
        del one  # freed here by its reference count (no cycle): its id is free for the next object
        zero = S.Literal(1, "0", 0, "int")
        reused = reused or id(zero) == freed
        assert int(Expressions._literal(machine, zero, mask).data) == 0
        if reused:
            break
    # the cache keeps each literal alive, so a freed id is never seen again while it holds them;
    # either way every literal read its own value above
    assert len(machine._constants) >= 2
