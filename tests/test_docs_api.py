"""The API docs are tested: docs/api.md's doctests, and the test module docs/review.md shows."""

import contextlib
import doctest
import io
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_api_md_doctests_pass(monkeypatch):
    """Every example of docs/api.md, run by the standard library's doctest in this process (a pytest
    subprocess with --doctest-glob ran the same examples in 4.6 s, most of it start-up)."""
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = doctest.testfile(str(ROOT / "docs" / "api.md"), module_relative=False)
    assert result.failed == 0, out.getvalue()
    assert result.attempted >= 40


def test_review_md_test_module_passes(tmp_path):
    text = (ROOT / "docs" / "review.md").read_text()
    module = re.search(r"```python\n(# tests/test_smem_layouts.py\n.*?)```", text, re.S)
    assert module, "docs/review.md shows a complete test module"
    (tmp_path / "test_smem_layouts.py").write_text(module.group(1))
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(tmp_path),
         str(tmp_path / "test_smem_layouts.py")],
        capture_output=True, text=True, cwd=tmp_path, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "8 passed, 1 xfailed" in done.stdout
