"""The HTML reports in a real browser: `analyze --html`, `explain --html`, `layout --html` and
`show --svg` open in Chromium (Playwright), draw their bank maps, and hold the numbers `--json` prints.

Needs the `playwright` package (``pip install 'bankism[browser]'``) and a system Chromium
(``apt-get install chromium``); without them the module is skipped with a one-line reason.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import pytest

from tests.helpers import ROOT, run_cli

CHROMIUM = os.environ.get("BANKISM_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"

sync_api = pytest.importorskip("playwright.sync_api", reason="no browser test: playwright is not installed")
if not Path(CHROMIUM).is_file():
    pytest.skip(f"no browser test: no Chromium at {CHROMIUM} (apt-get install chromium)",
                allow_module_level=True)


@pytest.fixture(scope="module")
def page():
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        tab = browser.new_page()
        requests = []
        tab.on("request", lambda request: requests.append(request.url))
        tab.requests = requests
        yield tab
        browser.close()


def read_table(tab, path: Path, table: str) -> list[dict]:
    """Open the page and read one table: per row its data attributes and each cell's data-value."""
    tab.requests.clear()
    tab.goto(path.as_uri())
    assert all(url.startswith("file:") for url in tab.requests), tab.requests  # nothing from the network
    return tab.evaluate("""(table) => [...document.querySelectorAll(`table[data-table="${table}"] tbody tr`)]
        .map(tr => ({row: tr.dataset.row, sites: tr.dataset.sites || null,
                     cells: Object.fromEntries([...tr.querySelectorAll('td[data-key]')]
                         .map(td => [td.dataset.key, td.dataset.value]))}))""", table)


def drawn_pictures(tab) -> list[dict]:
    """Each SVG bank map as the browser lays it out: its size, wavefronts and how many cells it drew."""
    return tab.evaluate("""() => [...document.querySelectorAll('svg.bankmap')].map(svg => {
        const box = svg.getBoundingClientRect();
        return {key: svg.dataset.picture, width: box.width, height: box.height,
                wavefronts: Number(svg.dataset.wavefronts), ideal: Number(svg.dataset.ideal),
                conflicts: svg.querySelectorAll('g.extra').length, cells: svg.querySelectorAll('g').length};
    })""")


def number(text: str | None) -> float | None:
    return None if text in (None, "", "None") else float(text)


def same(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b)


def test_analyze_page_holds_the_json_numbers(page, tmp_path):
    trace = ROOT / "traces" / "transpose32.json"
    html = tmp_path / "analyze.html"
    ran = run_cli("analyze", trace, "--html", html, "--no-progress")
    assert ran.returncode == 0, ran.stderr
    data = json.loads(run_cli("analyze", trace, "--json", "--no-progress").stdout)
    launch = data["launches"][0]
    rows = read_table(page, html, f"launch{launch['index']}")
    body = [r for r in rows if r["row"] != "total"]
    assert len(body) == len(launch["lines"])
    for row, line in zip(body, launch["lines"], strict=True):
        assert row["sites"] == ",".join(str(s) for s in line["sites"])
        for key in ("executions", "wavefronts", "ideal", "excess", "conflicts", "cycles"):
            assert same(number(row["cells"][key]), line[key]), (key, row, line)
    total = next(r for r in rows if r["row"] == "total")["cells"]
    for key in ("executions", "wavefronts", "ideal", "excess", "conflicts"):
        assert number(total[key]) == launch["totals"][key]
    pictures = drawn_pictures(page)
    assert len(pictures) == len(launch["lines"])
    for picture, line in zip(pictures, launch["lines"], strict=True):
        assert picture["width"] > 300 and picture["height"] > 40
        assert picture["wavefronts"] == line["worst"]["wavefronts"]  # the worst warp, drawn


def test_explain_page_holds_the_json_numbers(page, tmp_path):
    kernel = ROOT / "traces" / "kernels" / "matmul32.cu"
    html = tmp_path / "explain.html"
    assert run_cli("explain", kernel, "--html", html).returncode == 0
    data = json.loads(run_cli("explain", kernel, "--json").stdout)
    rows = read_table(page, html, "sites")
    assert len(rows) == len(data["sites"]) > 0
    for row, site in zip(rows, data["sites"], strict=True):
        for key in ("instructions", "wavefronts", "ideal", "conflicts"):
            assert number(row["cells"][key]) == site[key], (key, row, site)
    for picture in drawn_pictures(page):
        assert picture["width"] > 300 and picture["cells"] > 0


def test_layout_page_and_fixes_hold_the_json_numbers(page, tmp_path):
    args = ["layout", "Sw<3,3,3> o _0 o (128,32):(1,128)", "--dtype", "half", "--name", "sB",
            "--copy", "ldmatrix.x4.trans tv=((4,8),(2,2,2)):((32,1),(16,128,8)) tile=16,16",
            "--copy", "cp.async.16 thr=(16,8):(1,16) val=(8,1)"]
    html = tmp_path / "layout.html"
    assert run_cli(*args, "--html", html).returncode == 0
    data = json.loads(run_cli(*args, "--json").stdout)["checks"][0]
    rows = read_table(page, html, "check0")
    body = [r for r in rows if r["row"] != "total"]
    for row, site in zip(body, data["sites"], strict=True):
        for key in ("instructions", "wavefronts", "ideal", "conflicts"):
            assert number(row["cells"][key]) == site[key]
    pictures = drawn_pictures(page)
    # the .trans read's worst warp: 2 wavefronts per matrix
    assert [p["wavefronts"] for p in pictures] == [8, 4]
    assert pictures[0]["conflicts"] == 4 * 16  # 16 banks in each of 4 matrices serve a second word
    text = page.inner_text("body")
    assert "Sw<3,3,4> o _0 o (128,32):(1,128)" in text and data["fixes"][0]["layout"] in text


def test_show_svg_opens_as_an_image(page, tmp_path):
    svg = tmp_path / "site.svg"
    ran = run_cli("show", ROOT / "traces" / "transpose32.json", "--site", "1", "--svg", svg)
    assert ran.returncode == 0, ran.stderr
    page.goto(svg.as_uri())
    picture = drawn_pictures(page)[0]
    assert picture["width"] > 300 and picture["wavefronts"] >= 1
