"""Helpers shared by the explain tests: run explain on a test kernel, and check a site's
counts against the engine on addresses computed here, independently of the interpreter."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import bankism
from bankism.arch import window_base
from bankism.explain import ExplainOptions, SnapshotRequest, explain

DATA = Path(__file__).parent / "data" / "explain"
BASE = window_base()


#: The shared quiz's kernel, as copied into tests/data (the tests never read ../shared/quiz).
QUIZ = DATA / "dgemm_tile_quiz.cu"


def quiz_path() -> Path:
    """The copy of the shared quiz kept in tests/data."""
    return QUIZ


def run(name: str | Path, snapshot: tuple[int, dict[str, int]] | None = None, **options) -> dict:
    """The explain report of a kernel in tests/data/explain (or a path), its accesses counted as the source
    writes them (``as_written``, the interpreter's semantics these tests check) unless told otherwise:
    nvcc's merging of neighbours has tests of its own (test_explain_vectorize.py) and the H100 traces."""
    path = Path(name) if isinstance(name, Path) else DATA / name
    request = None
    if snapshot is not None:
        request = SnapshotRequest(snapshot[0], tuple(snapshot[1].items()))
    options.setdefault("as_written", True)
    return explain(path.read_text(), str(path), ExplainOptions(snapshot=request, **options))


def site(report: dict, line: int, array: str, op: str) -> dict:
    """The one site of ``report`` on ``line`` for ``array`` and ``op``."""
    found = [s for s in report["sites"] if s["line"] == line and s["shared_array"] == array and s["op"] == op]
    assert len(found) == 1, [(s["line"], s["shared_array"], s["op"]) for s in report["sites"]]
    return found[0]


def not_counted(report: dict, line: int) -> dict:
    """The one access of ``line`` whose addresses explain does not know (listed, not counted)."""
    (entry,) = [u for u in report.get("unmodelled", []) if u["line"] == line and not u["addresses_known"]]
    assert all(a is None for warp in entry["warps"] for a in warp["lane_addresses"])
    assert not any((s["line"], s["shared_array"], s["op"]) == (line, entry["shared_array"], entry["op"])
                   for s in report["sites"])
    return entry


def listed(report: dict, line: int, words: str) -> dict:
    """The access of ``line`` listed as not counted whose note says ``words`` (what it depends on)."""
    found = [u for u in report.get("unmodelled", [])
             if u["line"] == line and not u["addresses_known"] and words in u["note"]]
    assert found, [(u["line"], u["note"]) for u in report.get("unmodelled", [])]
    return found[0]


def check_site(found: dict, expected: dict[int, np.ndarray], width: int, op: str,
               active: dict[int, np.ndarray] | None = None) -> None:
    """Compare a site with the engine run on ``expected`` addresses: per warp (warp -> (E, 32)
    addresses, one row per execution), its lane addresses, wavefronts, ideal, and the totals."""
    assert found["width"] == width and found["op"] == op
    warps = {w["warp"]: w for w in found["warps"]}
    assert sorted(warps) == sorted(expected)
    totals = np.zeros(3, np.int64)
    instructions = 0
    for warp, addresses in expected.items():
        lanes = None if active is None else active[warp]
        result = bankism.simulate(addresses, width=width, op=op, active=lanes)
        got = warps[warp]
        assert got["executions"] == addresses.shape[0]
        assert got["wavefronts"] == result.wavefronts.tolist()
        assert got["ideal"] == result.ideal.tolist()
        first_active = np.ones(32, bool) if lanes is None else np.asarray(lanes)[0]
        lanes_first = zip(addresses[0], first_active, strict=True)
        assert got["lane_addresses"] == [int(a) if on else None for a, on in lanes_first]
        totals += [result.total_wavefronts, result.total_ideal, result.total_conflicts]
        instructions += addresses.shape[0]
    assert found["instructions"] == instructions
    assert [found["wavefronts"], found["ideal"], found["conflicts"]] == totals.tolist()


def align(offset: int, alignment: int) -> int:
    return -(-offset // alignment) * alignment
