"""Every script in examples/ runs, prints its verdict, and states its layout in under 15 lines."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
VERDICT = re.compile(r"^(conflict-free: |bank conflicts: )", re.M)

#: What each example must conclude, beyond printing a verdict.
EXPECTED = {
    "transpose_32x32.py": ["=== __shared__ float tile[32][33];\n", "__shared__ float tile[32][33];\n",
                           "bank conflicts: 992 excess wavefront(s)"],
    "sgemm_store_a.py": ["cheapest padding: __shared__ float As[8][132];"],
    "ldmatrix_swizzle.py": ["=== half tile[64][64] with Swizzle<3,3,3>", "CuTe's Swizzle<3,3,3>"],
    "reduction_tree.py": ["=== interleaved addressing (reduce2)", "=== sequential addressing (reduce3)"],
    "quiz_tile.py": ["A_shared[t.y][k]", "B_shared[k][t.x]"],
}


def test_every_example_is_covered():
    assert {p.name for p in EXAMPLES} == set(EXPECTED)


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_runs_and_prints_its_verdict(script):
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert VERDICT.search(done.stdout), done.stdout
    for text in EXPECTED[script.name]:
        assert text in done.stdout, text
    if script.name == "reduction_tree.py":
        interleaved, sequential = done.stdout.split("=== sequential addressing (reduce3)")
        assert "bank conflicts: " in interleaved and "conflict-free: " in sequential


@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.name)
def test_example_states_its_layout_in_under_15_lines(script):
    text = script.read_text()
    match = re.search(r"# --- layout ---\n(.*?)\n\s*# --- end of layout ---", text, re.S)
    assert match, "mark the layout with '# --- layout ---' and '# --- end of layout ---'"
    lines = [line for line in match.group(1).splitlines() if line.strip()]
    assert len(lines) < 15
