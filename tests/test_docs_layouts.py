"""docs/layouts.md is tested: its Python examples run as doctests, and its worked answers are the
assertions of tests/test_cute_layouts.py, test_triton_layouts.py and test_layouts_hardware.py."""

import doctest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_layouts_md_doctests_pass():
    failures, tried = doctest.testfile(str(ROOT / "docs" / "layouts.md"), module_relative=False,
                                       optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert tried > 0 and failures == 0
