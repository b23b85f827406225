"""One real subprocess per command: the installed entry point (`python -m bankism`) starts, runs, exits.

Every other CLI test runs the same entry point in-process (tests/helpers.py), which is much faster.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TRANSPOSE = ROOT / "traces" / "transpose32.json"


def bankism(*args: object, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "bankism", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, timeout=300, check=False)


def test_help_and_version():
    helped = bankism("--help")
    assert helped.returncode == 0 and "analyze" in helped.stdout and "record" in helped.stdout
    version = bankism("--version")
    assert version.returncode == 0 and version.stdout.strip().endswith("0.1.0")


def test_analyze():
    done = bankism("analyze", TRANSPOSE, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["launches"][0]["sites"]


def test_show():
    done = bankism("show", TRANSPOSE, "--site", "0")
    assert done.returncode == 0, done.stderr
    assert "bank" in done.stdout


def test_simulate():
    done = bankism("simulate", "--stride", "128", "--width", "4")
    assert done.returncode == 0, done.stderr
    assert "32 wavefront(s)" in done.stdout


def test_explain():
    done = bankism("explain", "tests/data/explain/transpose.cu", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["sites"]


def test_advise():
    done = bankism("advise", TRANSPOSE, "--array", "tile:float[32][32]")
    assert done.returncode == 0, done.stderr
    assert "tile[32][33]" in done.stdout


def test_ncu_import(tmp_path):
    out = tmp_path / "t.json"
    done = bankism("ncu-import", "tests/data/capture/transpose32.ncu-raw.csv", "-o", out)
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text())["launches"]


@pytest.mark.parametrize("command", ["trace", "profile", "record"])
def test_capture_commands_refuse_a_missing_program_in_one_line(command, tmp_path):
    done = bankism(command, "-o", tmp_path / "t.json")
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith("error: ")
    assert not (tmp_path / "t.json").exists()
