"""docs/quiz.md shows real output: every `$ bankism ...` console block is re-run and must
match (a `[...]` line stands for lines left out)."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_explain_support import quiz_path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "quiz.md"
#: How docs/quiz.md names the quiz; the test runs the copy in tests/data instead.
SHARED_QUIZ = "../shared/quiz/dgemm_tile_quiz.cu"


def _blocks() -> list[tuple[str, list[str]]]:
    found = re.findall(r"```console\n\$ (bankism [^\n]*)\n(.*?)```", DOC.read_text(), re.S)
    return [(command, output.rstrip("\n").split("\n")) for command, output in found]


def _matches(expected: list[str], actual: list[str]) -> bool:
    """Whether ``actual`` is ``expected`` with any number of lines where ``[...]`` stands."""
    pieces: list[list[str]] = [[]]
    for line in expected:
        if line == "[...]":
            pieces.append([])
        else:
            pieces[-1].append(line)
    position = 0
    for index, piece in enumerate(pieces):
        if index == 0:
            if actual[: len(piece)] != piece:
                return False
            position = len(piece)
            continue
        while position + len(piece) <= len(actual) and actual[position:position + len(piece)] != piece:
            position += 1
        if position + len(piece) > len(actual):
            return False
        position += len(piece)
    return position == len(actual) or expected[-1] == "[...]"


def test_the_doc_has_console_blocks():
    assert len(_blocks()) >= 4


@pytest.mark.parametrize(("command", "expected"), _blocks(), ids=lambda v: v if isinstance(v, str) else "")
def test_console_block_output_is_current(command, expected):
    args = shlex.split(command)[1:]
    quiz = quiz_path()
    args = [str(quiz) if a == SHARED_QUIZ else a for a in args]
    result = subprocess.run([sys.executable, "-m", "bankism", *args], cwd=ROOT, capture_output=True,
                            text=True, check=False)
    assert result.returncode == 0, result.stderr
    actual = result.stdout.rstrip("\n").replace(str(quiz), SHARED_QUIZ).split("\n")
    assert _matches(expected, actual), "\n".join(actual)
