"""The contract of docs/cli.md over bad input of every kind (issue 12): one line `error: ...` on
stderr, exit code 2, and no file touched (inputs unchanged, nothing new written); the Python API
raises only BankismError. Every fixture here (kernels, traces, CSV edits) is written by this test.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from bankism import cli
from bankism.arch import window_base
from bankism.capture import ncu
from bankism.errors import BankismError
from bankism.trace import load, open_trace, save
from tests.builders import FULL, launch, site, strided, trace
from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parents[1]
RAW_CSV = ROOT / "tests" / "data" / "capture" / "transpose32.ncu-raw.csv"
CONFLICTS_LD = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"

PAD_KERNEL = """#ifndef PAD
#define PAD 0
#endif
__global__ void k(float *out) {
    __shared__ float t[32][32 + PAD];
    t[threadIdx.x][0] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = t[0][threadIdx.x];
}
int main() { k<<<1, 32>>>(0); }
"""

HUGE_KERNEL = """__global__ void k(float *out) {
    __shared__ float huge[1073741824];
    huge[threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = huge[threadIdx.x ^ 1];
}
int main() { k<<<1, 32>>>(0); }
"""




def _csv_with(value: str, column: str = CONFLICTS_LD, quoting: int = csv.QUOTE_ALL) -> str:
    """The recorded transpose32 raw-page export with one metric value replaced."""
    rows = list(csv.reader(io.StringIO(RAW_CSV.read_text())))
    rows[2][rows[0].index(column)] = value
    out = io.StringIO()
    csv.writer(out, quoting=quoting, lineterminator="\n").writerows(rows)
    return out.getvalue()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    """Inputs of every kind: a conflicted synthetic trace, an ncu export, kernels, a deep JSON file."""
    root = tmp_path_factory.mktemp("contract")
    rows = [((0, 0, 0), 0, 0, FULL, strided(4)), ((0, 0, 0), 1, 1, FULL, strided(128))]
    doc = trace(launch(sites=[site(0), site(1, op="store", sass="STS")], rows=rows))
    save(doc, root / "T.json")
    shutil.copy(RAW_CSV, root / "r.csv")
    shutil.copy(RAW_CSV, root / "r2.csv")
    (root / "r2.json").mkdir()  # the default output of `ncu-import r2.csv` is a directory
    (root / "sub").mkdir()
    (root / "pad.cu").write_text(PAD_KERNEL)
    (root / "big.cu").write_text(HUGE_KERNEL)
    (root / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    for name, value in (("abc", "abc"), ("nan", "nan"), ("huge", "1e30"), ("half", "12.5")):
        (root / f"bad_{name}.csv").write_text(_csv_with(value))
    return root


def snapshot(root: Path) -> dict[str, tuple]:
    """Every file under ``root``: size, modification time and content hash."""
    seen = {}
    for path in sorted(root.rglob("*")):
        stat = path.stat()
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
        seen[str(path.relative_to(root))] = (stat.st_size if path.is_file() else 0, stat.st_mtime_ns, digest)
    return seen


BIG = str(2**63)

# Every kind of bad input the issue lists, each a command line run in the work directory.
BAD_COMMANDS = [
    # outputs: never an input, never a place that cannot be written
    ["ncu-import", "r.csv", "-o", "r.csv"],
    ["ncu-import", "r.csv", "--into", "T.json", "-o", "r.csv"],
    ["ncu-import", "r.csv", "-o", "missing/x.json"],
    ["ncu-import", "r.csv", "-o", "sub"],
    ["ncu-import", "r.csv", "-o", "/proc/bankism-x.json"],
    ["ncu-import", "r.csv", "--into", "T.json", "-o", "/proc/bankism-x.json"],
    ["ncu-import", "r.csv", "--into", "T.json", "-o", "missing/T.json"],
    ["ncu-import", "r2.csv"],
    ["show", "T.json", "--site", "1", "--png", "missing/x.png"],
    ["show", "T.json", "--site", "1", "--png", "sub"],
    ["show", "T.json", "--site", "1", "--png", "T.json"],
    # tracebacks
    ["advise", "sub"],
    ["advise", "deep.json"],
    ["analyze", "deep.json"],
    ["simulate", "--stride", BIG],
    ["simulate", "--stride", "4", "--base", str(2**63 - 1)],
    ["simulate", "--addresses", ",".join([BIG] * 32)],
    ["advise", "T.json", "--array", "tile:float[100000000][100000000]"],
    ["explain", "big.cu"],
    ["explain", "pad.cu", "--dynamic-smem", str(2**40)],
    # wrong answers once given silently
    ["advise", "T.json", "--array", "tile:float[32][32]", "--limit", "0"],
    ["advise", "T.json", "--array", "tile:float[32][32]", "--limit", "-1"],
    ["ncu-import", "bad_abc.csv", "-o", "out.json"],
    ["ncu-import", "bad_nan.csv", "-o", "out.json"],
    ["ncu-import", "bad_huge.csv", "-o", "out.json"],
    ["ncu-import", "bad_half.csv", "-o", "out.json"],
    ["explain", "pad.cu", "--dynamic-smem", "-5"],
    ["explain", "pad.cu", "-D", f"PAD={2**70}"],
    ["simulate", "--stride", "4", "--op", "load", "--atomic-op", "cas"],
    ["advise", "T.json", "--array", "a:float[32][32]", "--array", "b:float[32]@1032"],
    # usage errors: one line, not click's usage block
    ["show", "T.json", "--site", "abc"],
    ["simulate", "--site", "abc"],
    ["simulate", "--stride", "4", "--width", "four"],
    ["analyze", "T.json", "--by", "column"],
    ["analyze", "T.json", "--launch", "x"],
    ["no-such-command"],
]


@pytest.mark.parametrize("args", BAD_COMMANDS, ids=[" ".join(a)[:60] for a in BAD_COMMANDS])
def test_bad_input_is_one_line_exit_2_and_touches_nothing(monkeypatch, capsys, workdir, args):
    monkeypatch.chdir(workdir)
    before = snapshot(workdir)
    code, out, err = run_cli(*args)
    assert code == 2, (out, err)
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and "internal error" not in err
    assert snapshot(workdir) == before


def _api_cases(workdir: Path):
    from bankism import Access, SharedArray, advise, check, simulate

    tile = SharedArray("float", (32, 32))
    access = Access(tile, lambda t: (t.y, t.x))
    lanes = np.arange(32) * 4
    return [
        lambda: simulate(lanes, width=4.0),
        lambda: simulate(lanes, width=True),
        lambda: simulate(lanes, op=3),
        lambda: simulate(lanes, op="ldmatrix", matrices=2.0),
        lambda: simulate(lanes, arch=None),
        lambda: simulate([1e30] * 32, width=4),
        lambda: simulate([2**64] * 32, width=4),
        lambda: load(workdir / "deep.json"),
        lambda: load(workdir / "sub"),
        lambda: advise(tile, access, block=(32, 32), limit=0),
        lambda: advise(tile, access, block=(32, 32), limit=-1),
        lambda: advise(tile, access, block=(32, 32), limit=1.5),
        lambda: advise("tile", access, block=(32, 32)),
        lambda: check(access, block="abc"),
        lambda: check(access, block=(32, 32), loops=5),
        lambda: check(access, block=(32, 32), arch=90),
        lambda: check(Access(SharedArray("float", (10**8, 10**8)), lambda t: (t.y, t.x)), block=(32, 32)),
        lambda: SharedArray("float", "abc"),
        lambda: SharedArray("float", (32, 32), pad="x"),
        lambda: ncu.parse_csv(_csv_with("abc")),
        lambda: ncu.parse_csv(_csv_with("12.5")),
    ]


def test_the_api_raises_only_bankism_errors(workdir):
    for n, case in enumerate(_api_cases(workdir)):
        with pytest.raises(BankismError) as raised:
            case()
        assert "\n" not in str(raised.value), n


# ---------------------------------------------------------------------------------------------
# One test per item of the issue
# ---------------------------------------------------------------------------------------------


def test_outputs_are_written_atomically(tmp_path, monkeypatch):
    from bankism import files

    target = tmp_path / "out.txt"
    target.write_text("before")

    def broken(self, *args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_text", broken)
    with pytest.raises(BankismError, match="No space left on device"):
        files.write_text(target, "after")
    monkeypatch.undo()
    assert target.read_text() == "before"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_ncu_import_into_a_trace_in_place_still_works(monkeypatch, capsys, tmp_path):
    doc = trace(launch(kernel="void transpose32<0>(float*, float const*, int)",
                       mangled="_Z11transpose32ILi0EEvPfPKfi", grid=[8, 8, 1], block=[32, 8, 1],
                       blocks_total=64))
    path = save(doc, tmp_path / "T.json")
    code, out, err = run_cli("ncu-import", str(RAW_CSV), "--into", str(path))
    assert code == 0, err
    assert load(path)["launches"][0]["counters"]["ld"]["conflicts"] == 63488
    assert sorted(p.name for p in tmp_path.iterdir()) == ["T.json"]


def test_ncu_counts_are_exact_and_exports_without_quotes_are_read():
    quoted = ncu.parse_csv(RAW_CSV.read_text())[0].counters()
    minimal = _csv_with("63,488", quoting=csv.QUOTE_MINIMAL)
    assert not minimal.startswith('"')
    assert ncu.parse_csv(minimal)[0].counters() == quoted
    assert ncu.parse_count("9,007,199,254,740,993", "", "x") == 2**53 + 1  # exact, not via a float
    assert ncu.parse_count("1.5", "K", "x") == 1500
    assert ncu.parse_count("n/a", "", "x") is None
    for bad, why in (("abc", "not a number"), ("nan", "not a count"), ("1e30", "out of range"),
                     ("12.5", "not a whole count"), ("-3", "out of range")):
        with pytest.raises(BankismError, match=why):
            ncu.parse_count(bad, "", "launch 0: metric")


def _counters_only(tmp_path) -> Path:
    path = tmp_path / "counters.json"
    cli_args = ["ncu-import", str(RAW_CSV), "-o", str(path)]
    with pytest.raises(SystemExit) as done:
        cli.main(cli_args)
    assert done.value.code == 0
    return path


def test_headline_of_a_counters_only_trace_names_the_measured_conflicts(monkeypatch, capsys, tmp_path):
    path = _counters_only(tmp_path)
    capsys.readouterr()
    code, out, err = run_cli("analyze", str(path), "--fail-on-conflict")
    assert "No bank conflicts" not in out
    assert "model: none (profiled only" in out and "measured: 63,488" in out
    assert code == 1 and "measured conflicts the model does not explain" in err
    report = json.loads(run_cli("analyze", str(path), "--json")[1])
    assert report["launches"][0]["measured_conflicts_explained"] is False


def test_headline_of_the_quiz_trace_explains_the_measured_surplus(monkeypatch, capsys):
    quiz = ROOT / "traces" / "dgemm_tile.json"
    code, out, err = run_cli("analyze", str(quiz), "--fail-on-conflict")
    assert "No bank conflicts" not in out
    assert "model: none; measured: 509 (ld 471, st 38), explained as L1 surplus" in out
    assert code == 0 and err == ""  # the model explains every measured conflict: no layout problem


def _terminal(width: int = 80):
    from rich.console import Console

    return Console(file=io.StringIO(), width=width, force_terminal=True, color_system=None)


def _table_lines(path: Path, *options: str) -> list[str]:
    from bankism.analyze import analyze
    from bankism.cli.analyze_cmd import print_report

    console = _terminal(200 if "wide" in options else 80)
    by = "site" if "site" in options else "line"
    print_report(analyze(open_trace(path)), console, by=by, wide="wide" in options)
    return console.file.getvalue().splitlines()


@pytest.mark.parametrize("name", ["dgemm_tile", "transpose32", "ldmatrix_tile", "sgemm_regtile"])
def test_the_report_fits_80_columns(name):
    path = ROOT / "traces" / f"{name}.json"
    for by in ("line", "site"):
        lines = _table_lines(path, by)
        assert max(len(line) for line in lines) <= 80, by
        assert not any("…" in line and ".cu:" not in line for line in lines), by  # no cut headers


def test_rows_group_by_source_line_and_by_site_on_request(monkeypatch, capsys):
    quiz = ROOT / "traces" / "dgemm_tile.json"
    by_line = _table_lines(quiz)
    assert sum(":40" in line for line in by_line) == 1
    by_site = _table_lines(quiz, "site")
    assert sum(":40" in line for line in by_site) == 24
    wide = _table_lines(quiz, "wide")
    assert any("LDS.128,LDS.64" in line for line in wide)
    report = json.loads(run_cli("analyze", str(quiz), "--json")[1])
    (item,) = report["launches"]
    assert len(item["sites"]) == 26  # the site list is unchanged
    line40 = [entry for entry in item["lines"] if entry["line"] == 40]
    assert len(line40) == 1 and len(line40[0]["sites"]) == 24
    for key in ("executions", "wavefronts", "ideal", "excess", "conflicts"):
        assert line40[0][key] == sum(s[key] for s in item["sites"] if s["line"] == 40)


def test_broken_pipe_exits_quietly(tmp_path):
    import subprocess

    path = ROOT / "traces" / "transpose32.json"
    children = []
    for options in ([], ["--json"], ["--csv"], ["--by", "site", "--wide"]):  # four interpreters at once
        child = subprocess.Popen([sys.executable, "-m", "bankism", "analyze", str(path), *options],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
        child.stdout.close()  # the reader is gone before anything was written: `| head -0`
        children.append(child)
    for child in children:
        err = child.stderr.read().decode()
        assert child.wait(timeout=120) == 0, err
        assert err == ""


def test_one_simulate_default_width(monkeypatch, capsys):
    import inspect

    from bankism import simulate

    code, out, _ = run_cli("simulate", "--stride", "16", "--json")
    assert code == 0
    assert json.loads(out)["width"] == inspect.signature(simulate).parameters["width"].default == 8


def test_version_and_plain_metavars(monkeypatch, capsys):
    from bankism.version import __version__

    code, out, _ = run_cli("--version")
    assert code == 0 and out.strip() == f"bankism {__version__}"
    for command in ("analyze", "show", "simulate", "explain", "advise", "trace", "profile", "ncu-import"):
        code, out, _ = run_cli(command, "--help")
        assert code == 0
        for typename in ("<bool>", "<str>", "<int>", "<list", "<float>", "<Path>", "<path>"):
            assert typename not in out, (command, typename)


def test_one_json_envelope(monkeypatch, capsys, workdir):
    monkeypatch.chdir(workdir)
    explained = run_cli("explain", "pad.cu", "--json").stdout
    (workdir / "explained.json").write_text(explained)
    try:
        outputs = {
            "analyze": run_cli("analyze", "T.json", "--json")[1],
            "explain": explained,
            "simulate": run_cli("simulate", "--stride", "8", "--json")[1],
            "advise": run_cli("advise", "explained.json", "--json")[1],
        }
    finally:
        (workdir / "explained.json").unlink()
    for command, text in outputs.items():
        doc = json.loads(text)
        assert list(doc)[:3] == ["format", "version", "bankism"], command
        assert doc["format"].startswith("bankism-") and doc["version"] == 1
    assert json.loads(outputs["explain"])["schema"] == "bankism.explain/1"  # earlier fields kept
    assert "arrays" in json.loads(outputs["advise"]) and "wavefronts" in json.loads(outputs["simulate"])


def test_advise_places_arrays_without_base_by_one_rule(monkeypatch, capsys, workdir):
    """Traces and explain results both hold shared-window offsets: arrays start at byte 1024."""
    monkeypatch.chdir(workdir)
    explained = run_cli("explain", "pad.cu", "--json").stdout
    (workdir / "explained.json").write_text(explained)
    try:
        code, out, err = run_cli("advise", "explained.json", "--array",
                                 "t:float[32][32]", "--json")
    finally:
        (workdir / "explained.json").unlink()
    assert code == 0, err
    (array,) = json.loads(out)["arrays"]
    assert array["base"] == window_base() == 1024
    assert any(fix["kind"] == "pad" and fix["excess"] == 0 for fix in array["fixes"])


def test_check_streams_large_loops_with_the_same_answer():
    from bankism import Access, SharedArray
    from bankism.review.report import check_site

    tile = SharedArray("float", (32, 32))
    access = Access(tile, lambda t, k: (t.x % 32, (t.x // 32 + k) % 32))
    whole = check_site(access, (256,), {"k": range(64)}, "sm_90")
    streamed = check_site(access, (256,), {"k": range(64)}, "sm_90", chunk=40)
    assert whole.result is not None and streamed.result is None
    for name in ("instructions", "wavefronts", "ideal", "conflicts", "max_wavefronts", "costs"):
        assert getattr(streamed, name) == getattr(whole, name), name
    for name in ("worst", "peak"):
        a, b = getattr(whole, name), getattr(streamed, name)
        assert (a.index, a.where, a.describe()) == (b.index, b.where, b.describe())
    assert streamed.count_like(streamed.worst) == whole.count_like(whole.worst)



def test_check_hands_the_engine_bounded_chunks(monkeypatch):
    """Every engine call gets at most CHECK_CHUNK warp-instructions, and the site keeps sums and two
    warp-instructions, not per-instruction arrays: memory stays flat whatever the loop sizes."""
    from bankism import Access, SharedArray, check
    from bankism.review import evaluate

    sizes = []
    real = evaluate.simulate

    def counting(addresses, *args, **kwargs):
        sizes.append(len(addresses))
        return real(addresses, *args, **kwargs)

    monkeypatch.setattr(evaluate, "simulate", counting)
    tile = SharedArray("float", (32, 33))
    access = Access(tile, lambda t, k: (t.x % 32, (t.x // 32 + k) % 33))
    from bankism.review import report as report_module

    monkeypatch.setattr(report_module, "CHECK_CHUNK", 1 << 10)
    rep = check(access, block=(1024,), loops={"k": range(600)})
    assert rep.instructions == 600 * 32 and rep.conflicts == 0
    assert max(sizes) <= 1 << 10 and len(sizes) >= 600 * 32 // (1 << 10)
    (site,) = rep.sites
    assert site.result is None and set(site.streamed.kept) <= {site.worst.index, site.peak.index}


def test_explain_says_something_while_a_long_loop_runs(capsys):
    import time

    from bankism.cli.explain_cmd import _waiting_notice

    console = _terminal()
    with _waiting_notice("slow.cu", enabled=True, delay=0.0, console=console):
        time.sleep(0.3)
    assert "interpreting slow.cu" in console.file.getvalue()
    quiet = _terminal()
    with _waiting_notice("fast.cu", enabled=True, delay=30.0, console=quiet):
        pass
    assert quiet.file.getvalue() == ""


def test_large_traces_get_a_loading_notice(monkeypatch, capsys, workdir):
    from bankism.cli import analyze_cmd

    monkeypatch.setattr(analyze_cmd, "LOAD_NOTICE_BYTES", 0)
    monkeypatch.setattr(analyze_cmd, "LOAD_HINT_BYTES", 0)
    console = _terminal(200)
    opened = analyze_cmd._open_with_progress(str(workdir / "T.json"), enabled=True, console=console)
    assert opened.launches
    err = console.file.getvalue()
    assert "loading" in err and ".npz form loads faster" in err


def test_files_check_output_names_the_problem(tmp_path):
    from bankism.files import check_output

    source = tmp_path / "in.csv"
    source.write_text("x")
    with pytest.raises(BankismError, match="is the input"):
        check_output(tmp_path / "." / "in.csv", "-o", [source])
    os.symlink(source, tmp_path / "link.csv")
    with pytest.raises(BankismError, match="is the input"):
        check_output(tmp_path / "link.csv", "-o", [source])
    with pytest.raises(BankismError, match="is a directory"):
        check_output(tmp_path, "-o")
    with pytest.raises(BankismError, match="does not exist"):
        check_output(tmp_path / "no" / "x.json", "-o")
    assert check_output(tmp_path / "new.json", "-o", [source]) == tmp_path / "new.json"


def _inline_doc_text(tmp_path: Path, rows: list) -> str:
    """A saved synthetic trace whose inline addresses are replaced by ``rows`` (given as JSON text)."""
    doc = trace(launch(rows=[((0, 0, 0), 0, 0, FULL, strided(4)), ((0, 0, 0), 1, 0, FULL, strided(8))]))
    text = save(doc, tmp_path / "base.json").read_text()
    start = text.index('"addresses": [')
    end = text.index("]\n        ]", start) + len("]\n        ]")
    return text[:start] + '"addresses": ' + rows + text[end:]


ROW = ",".join(str(1024 + 4 * lane) for lane in range(32))
QUOTED = '"x"'
ADDRESS_VARIANTS = {
    "plain": f"[[{ROW}],\n [{ROW}]]",
    "one line": f"[[{ROW}],[{ROW}]]",
    "31 and 33": f"[[{ROW.rsplit(',', 1)[0]}],[{ROW},1024]]",
    "float": f"[[{ROW.replace('1024', '1024.0', 1)}],[{ROW}]]",
    "exponent": f"[[{ROW.replace('1024', '1e3', 1)}],[{ROW}]]",
    "string": f"[[{ROW.replace('1024', QUOTED, 1)}],[{ROW}]]",
    "huge": f"[[{ROW.replace('1024', str(2**70), 1)}],[{ROW}]]",
    "negative": f"[[{ROW.replace('1024', '-4', 1)}],[{ROW}]]",
    "one row": f"[[{ROW}]]",
    "empty": "[]",
    "deeper": f"[[[{ROW}]],[{ROW}]]",
    "plus": f"[[{ROW.replace('1024', '+1024', 1)}],[{ROW}]]",
    "double comma": f"[[{ROW.replace(',', ',,', 1)}],[{ROW}]]",
    "unclosed": f"[[{ROW}],[{ROW}]",
}


@pytest.mark.parametrize("variant", sorted(ADDRESS_VARIANTS))
def test_fast_inline_addresses_read_like_json(tmp_path, monkeypatch, variant):
    """Large inline traces read their address rows with NumPy; the answer (arrays or one-line error)
    must be the one json.loads gives."""
    from bankism.trace import json_text as read

    path = tmp_path / "t.json"
    path.write_text(_inline_doc_text(tmp_path, ADDRESS_VARIANTS[variant]))
    fast = []
    real = read._parse_with_fast_addresses
    monkeypatch.setattr(read, "_parse_with_fast_addresses", lambda *a: fast.append(real(*a)) or fast[-1])
    outcomes = []
    for threshold in (1 << 60, 0):  # json.loads only, then the fast path
        monkeypatch.setattr(read, "FAST_RECORDS_BYTES", threshold)
        try:
            outcomes.append(load(path)["launches"][0]["records"]["addresses"].tolist())
        except BankismError as error:
            outcomes.append(str(error))
    assert outcomes[0] == outcomes[1]
    taken = variant in ("plain", "one line", "one row", "negative")
    assert len(fast) == 1 and (fast[0] is not None) == taken
