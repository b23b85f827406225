"""``__syncthreads()`` reached by different code paths: an ``if``/``else`` whose two branches
both call it (a split barrier, as double-buffered GEMMs do: half the block loads the next
tile while the other half computes, and the two halves meet at each barrier).

On the GPU the block's barrier 0 completes when every thread that has not exited arrives at
*a* ``__syncthreads()``, whichever. When both branches have the same number of barriers
at their top level (not inside a loop or a nested ``if``), the code between the k-th and
(k+1)-th barrier of one branch runs at the same time as that of the other: explain runs the
two branches in these phases, one after the other within a phase and both before the next,
so what one half writes before a barrier is what the other half reads after it. Other shapes
(different counts, barriers inside loops or helpers of one branch only) keep the one-line
refusal of a barrier reached by part of the block."""

from __future__ import annotations

from bankism.explain.frontend import syntax as S
from bankism.explain.simt.values import Mask


def _is_barrier(stmt: S.Stmt) -> bool:
    return (isinstance(stmt, S.ExprStmt) and isinstance(stmt.expr, S.Call)
            and stmt.expr.function == "__syncthreads" and not stmt.expr.args)


def _has_barrier(nodes: list[S.Stmt]) -> bool:
    return any(isinstance(n, S.Call) and n.function == "__syncthreads" for n in S.walk(nodes))


def _segments(branch: S.Stmt | None) -> list[list[S.Stmt]] | None:
    """The branch cut at its top-level barriers; None when a barrier sits deeper."""
    body = [] if branch is None else branch.body if isinstance(branch, S.Block) else [branch]
    segments: list[list[S.Stmt]] = [[]]
    for stmt in body:
        if _is_barrier(stmt):
            segments.append([])
        else:
            segments[-1].append(stmt)
    if any(_has_barrier(segment) for segment in segments):
        return None
    return segments


_CUT: dict[int, tuple[S.If, object]] = {}


def barrier_phases(stmt: S.If) -> tuple[list[list[S.Stmt]], list[list[S.Stmt]]] | None:
    """(then segments, else segments) when both branches call ``__syncthreads()`` at their top
    level the same number of times (at least once) and nowhere deeper; else None."""
    cached = _CUT.get(id(stmt))
    if cached is not None and cached[0] is stmt:
        return cached[1]  # type: ignore[return-value]
    then, otherwise = _segments(stmt.then), _segments(stmt.otherwise)
    cut = None
    if then is not None and otherwise is not None and len(then) == len(otherwise) >= 2:
        cut = (then, otherwise)
    if len(_CUT) > 4096:
        _CUT.clear()
    _CUT[id(stmt)] = (stmt, cut)
    return cut


class Phases:
    """Running a split barrier's branches phase by phase (a mixin of ``Machine``)."""

    def run_phases(self, stmt: S.If, phases: tuple[list[list[S.Stmt]], list[list[S.Stmt]]],
                   then_mask: Mask, else_mask: Mask) -> Mask:
        """Both branches, segment by segment; each barrier between segments is the block's
        (every thread that has not returned reaches one of the two)."""
        from bankism.explain.cuda.builtins import block_barrier

        masks = [then_mask, else_mask]
        scopes: list[dict] = [{}, {}]
        for number in range(len(phases[0])):
            if number:
                block_barrier(self, stmt, Mask.of(masks[0].arr | masks[1].arr), "__syncthreads()")
            for side in (0, 1):
                self.frame.scopes.append(scopes[side])
                try:
                    for inner in phases[side][number]:
                        if masks[side].none:
                            break
                        masks[side] = self.exec(inner, masks[side])
                finally:
                    self.frame.scopes.pop()
        return self._live(masks[0] | masks[1])
