"""Issue 23: every input a clear answer or one clear line. Each example the issue lists is a case here
(run in-process, as the `bankism` script runs), by class: integers past int64 and floats where
integers belong, physical limits (threads, grid, shared bytes, the shared window), FIFOs and devices,
work budgets, markup in names, output paths, stdout that cannot be written, the fast JSON reader.
Every fixture is written by this test; no number in it was measured.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bankism import inputs, traceio
from bankism.errors import BankismError
from tests.builders import FULL, launch, site, strided, trace
from tests.helpers import ROOT, one_line_error, run_cli
from tests.test_cli_contract import PAD_KERNEL as PAD
from tests.test_cli_contract import RAW_CSV, snapshot


def kernel(body: str, declaration: str = "__shared__ float s[32];", launch_text: str = "<<<1, 32>>>") -> str:
    """A one-kernel source with a launch, ``body`` inside the kernel."""
    return (f"__global__ void k(float *o) {{ {declaration} {body} o[0] = s[0]; }}\n"
            f"int main() {{ k{launch_text}(0); }}\n")


def _plain(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def write_doc(root: Path, name: str, doc: dict) -> str:
    """A (possibly invalid) trace document written as JSON, past bankism's own checks."""
    (root / name).write_text(json.dumps(_plain(doc)))
    return name


def edited(root: Path, name: str, edit) -> str:
    """T.json with ``edit`` applied to its document (only the name, before the work dir exists)."""
    if not root.exists():
        return name
    doc = json.loads((root / "T.json").read_text())
    edit(doc)
    (root / name).write_text(json.dumps(doc))
    return name


def first_launch(doc: dict) -> dict:
    return doc["launches"][0]


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    """Valid inputs of every kind and the special files the hostile cases point at."""
    root = tmp_path_factory.mktemp("issue23")
    rows = [((0, 0, 0), 0, 0, FULL, strided(4)), ((1, 0, 0), 1, 0, FULL, strided(128))]
    traceio.save(trace(launch(rows=rows)), root / "T.json")
    traceio.save(trace(launch(rows=rows)), root / "B.json", binary=True)
    shutil.copy(RAW_CSV, root / "r.csv")
    (root / "pad.cu").write_text(PAD)
    code, out, err = run_cli("explain", str(root / "pad.cu"), "--json")
    assert code == 0, err
    (root / "e.json").write_text(out)
    (root / "dir").mkdir()
    os.mkfifo(root / "fifo")
    os.mkfifo(root / "fifo.npz")
    (root / "zero.json").symlink_to("/dev/zero")
    (root / "urandom.cu").symlink_to("/dev/urandom")
    return root


def _cases(root: Path) -> list[tuple[str, list[str], str]]:
    """(name, command line, a fragment of the one error line) for every bad input of the issue."""
    L = first_launch
    cases = [
        # integers past int64, floats where integers belong
        ("grid 2**70", ["analyze", edited(root, "g70.json", lambda d: L(d).update(grid=[2**70, 1, 1]))],
         "maximum of 9223372036854775807"),
        ("blocks_recorded 2**70",
         ["analyze", edited(root, "br.json", lambda d: L(d).update(blocks_recorded=[[2**70, 0, 0]]))],
         "blocks_recorded[0][0]"),
        ("site id 1e13", ["analyze", edited(root, "sid.json", lambda d: L(d)["sites"][0].update(id=10**13))],
         "site 0 is not among the launch's sites"),
        ("site id 2.0", ["analyze", edited(root, "sid2.json", lambda d: L(d)["sites"][0].update(id=0.0))],
         "sites[0].id: 0.0 is not of type 'integer'"),
        ("matrices 4.0", ["analyze", edited(root, "m4.json", lambda d: L(d)["sites"][0].update(
            op="ldmatrix", width=16, matrices=4.0))], "matrices: 4.0 is not of type"),
        ("NaN", ["analyze", edited(root, "nan.json", lambda d: d.update(description=float("nan")))],
         "NaN is not a JSON number"),
        ("swizzle ^60,60,60", ["advise", "T.json", "--array", "t:float[32][32]^60,60,60"],
         "offsets are 64-bit"),
        ("ncu ID ²", ["ncu-import", "uid.csv", "-o", "u.json"], "not a number of ASCII digits"),
        # physical limits of a trace
        ("1025 threads", ["analyze", edited(root, "t1025.json", lambda d: L(d).update(block=[1025, 1, 1]))],
         "block.x 1,025 is past CUDA's limit of 1,024"),
        ("2**31 threads",
         ["analyze", edited(root, "t231.json", lambda d: L(d).update(block=[2**16, 2**15, 1]))],
         "past CUDA's limit"),
        ("1e12 static bytes",
         ["analyze", edited(root, "s12.json", lambda d: L(d)["shared_bytes"].update(static=10**12))],
         "more than the 232,448 bytes a sm_90 block can have"),
        ("below the window", ["analyze", edited(
            root, "below.json", lambda d: L(d)["records"]["addresses"][0].__setitem__(0, 0))],
         "below the block's shared memory"),
        # npz members
        ("corrupt npz", ["analyze", "Bc.json"], "is damaged"),
        ("encrypted npz", ["analyze", "Be.json"], "encrypted"),
        # file names and special files
        ("name over 255", ["analyze", "x" * 300 + ".json"], "file name too long"),
        ("output name over 255", ["ncu-import", "r.csv", "-o", "x" * 300 + ".json"], "file name too long"),
        ("empty trace name", ["analyze", ""], "the file name is empty"),
        ("a directory", ["analyze", "dir"], "is a directory"),
        ("FIFO trace", ["analyze", "fifo"], "is a FIFO"),
        ("FIFO source", ["explain", "fifo"], "is a FIFO"),
        ("FIFO advise", ["advise", "fifo"], "is a FIFO"),
        ("FIFO csv", ["ncu-import", "fifo", "-o", "f.json"], "is a FIFO"),
        ("FIFO -include", ["explain", "pad.cu", "-include", "fifo"], "is a FIFO"),
        ("FIFO #include", ["explain", "incfifo.cu"], "is a FIFO"),
        ("FIFO --trace", ["explain", "pad.cu", "--trace", "fifo"], "is a FIFO"),
        ("FIFO npz", ["analyze", "Bf.json"], "is a FIFO"),
        ("/dev/zero trace", ["analyze", "zero.json"], "is a character device"),
        ("/dev/urandom source", ["explain", "urandom.cu"], "is a character device"),
        ("/dev/zero advise", ["advise", "zero.json"], "is a character device"),
        ("/dev/zero csv", ["ncu-import", "zero.json", "-o", "z.json"], "is a character device"),
        ("UTF-16 source", ["explain", "u16.cu"], "is UTF-16 text"),
        # explain: sizes and budgets
        ("negative shared size", ["explain", "neg.cu"], "array size -4 is negative"),
        ("2**64 shared elements", ["explain", "h64.cu"], "too large for 64 bits"),
        ("2**63 shared elements", ["explain", "h63.cu"], "a block of sm_90 has at most"),
        ("--grid 2**40", ["explain", "pad.cu", "--grid", str(2**40)], "past CUDA's limit of 2,147,483,647"),
        ("expression of 300 terms", ["explain", "expr.cu"], "over the nesting limit"),
        ("2000 nested blocks", ["explain", "nest.cu"], "over the nesting limit"),
        ("macro explosion", ["--limit", "expansion=20000", "explain", "macro.cu"],
         "over the expansion limit"),
        ("include cycle", ["explain", "cycle.cu"], "over the includes limit"),
        ("large source", ["explain", "large.cu"], "over the source limit"),
        ("endless nested loops", ["--limit", "steps=2000", "explain", "loops.cu"], "over the steps limit"),
        ("--block-index all of 10^5 blocks",
         ["explain", "pad.cu", "--grid", "100000", "--block-index", "all"],
         "over the threads limit"),
        ("negative index", ["explain", "negidx.cu"], "outside its 128 bytes"),
        # CLI numbers
        ("simulate near 2**63", ["simulate", "--stride", "0", "--base", str(2**63 - 1), "--width", "1"],
         "is past the 233472-byte shared memory"),
        ("--blocks first:²", ["trace", "-o", "o.json", "--blocks", "first:²", "--", "true"], "first:K"),
        ("a limit that is no size", ["--limit", "source=lots", "analyze", "T.json"], "is not a size"),
        ("an unknown limit", ["--limit", "speed=1", "analyze", "T.json"], "NAME one of"),
        # outputs
        ("-o out/", ["ncu-import", "r.csv", "-o", "out/"], "names a folder"),
        ("-o '' ", ["ncu-import", "r.csv", "-o", ""], "the file name is empty"),
        ("--into A -o X keeps X.npz", ["ncu-import", "r.csv", "--into", "A.json", "-o", "X.json"],
         "X.npz exists and is not X.json's records file"),
        ("-o X.npz", ["ncu-import", "r.csv", "-o", "X2.npz"], "a trace is a JSON file"),
        ("-o a FIFO", ["ncu-import", "r.csv", "-o", "fifo"], "not a regular file"),
        ("profile -o no/x.json", ["profile", "-o", "no/x.json", "--", "true"], "folder no does not exist"),
        ("profile --csv X -o X", ["profile", "--csv", "T.json", "-o", "T.json", "--", "true"],
         "is the input"),
        ("show --png a folder/", ["show", "T.json", "--site", "0", "--png", "pics/"], "names a folder"),
    ]
    return cases


def _fixtures(root: Path) -> None:
    """The files the cases name, beyond the module fixture's."""
    rows = RAW_CSV.read_text().splitlines()
    rows[2] = rows[2].replace('"0"', '"²"', 1)
    (root / "uid.csv").write_text("\n".join(rows) + "\n")
    data = bytearray((root / "B.npz").read_bytes())
    corrupt = bytearray(data)
    for i in range(200, min(len(corrupt), 600)):
        corrupt[i] ^= 0x5A
    (root / "Bc.npz").write_bytes(bytes(corrupt))
    import zipfile

    with zipfile.ZipFile(root / "B.npz") as archive:
        for info in archive.infolist():
            data[info.header_offset + 6] |= 1  # the "encrypted" flag of each member
    position = data.find(b"PK\x01\x02")
    while position >= 0:
        data[position + 8] |= 1
        position = data.find(b"PK\x01\x02", position + 4)
    (root / "Be.npz").write_bytes(bytes(data))
    for name, npz in (("Bc", "Bc.npz"), ("Be", "Be.npz"), ("Bf", "fifo.npz")):
        (root / f"{name}.json").write_text((root / "B.json").read_text().replace("B.npz", npz))
    (root / "incfifo.cu").write_text('#include "fifo"\n' + PAD)
    (root / "u16.cu").write_bytes(PAD.encode("utf-16"))
    (root / "neg.cu").write_text(kernel("s[0] = 1;", "__shared__ float s[-4];"))
    (root / "h64.cu").write_text(kernel("s[0] = 1;", "__shared__ float s[18446744073709551616];"))
    (root / "h63.cu").write_text(kernel("s[0] = 1;", "__shared__ float s[1ull << 62];"))
    (root / "expr.cu").write_text(kernel(f"s[({'+'.join(['threadIdx.x'] * 300)}) % 32] = 1;"))
    (root / "nest.cu").write_text(kernel("{" * 2000 + "s[threadIdx.x] = 1;" + "}" * 2000))
    macros = "#define A0 x\n" + "".join(f"#define A{i} A{i - 1} A{i - 1}\n" for i in range(1, 40))
    (root / "macro.cu").write_text(macros + kernel("int x = 1; int y = A39; s[0] = y;"))
    (root / "cycle.cu").write_text('#include "cycle.cu"\n' + kernel("s[0] = 1;"))
    (root / "large.cu").write_text(PAD + "// " + "x" * (2 << 20) + "\n")
    (root / "loops.cu").write_text(kernel(
        "float a = 0; for (int i = 0; i < 100000; ++i) for (int j = 0; j < 100000; ++j) "
        "a += s[(i * j + threadIdx.x) % 32]; o[threadIdx.x] = a;"))
    (root / "negidx.cu").write_text(kernel("s[-1 + threadIdx.x] = 1;"))
    (root / "pics").mkdir()
    A = trace(launch(kernel="void transpose32<0>(float*, float const*, int)", blocks_total=64,
                     mangled="_Z11transpose32ILi0EEvPfPKfi", grid=[8, 8, 1], block=[32, 8, 1]))
    traceio.save(A, root / "A.json")
    (root / "X.npz").write_bytes(b"a neighbour's records")


@pytest.fixture(scope="module")
def issue_work(work) -> Path:
    _fixtures(work)
    return work


CASES = _cases(Path("/nonexistent"))  # the names only; the documents are written into the work dir


@pytest.mark.parametrize("number", range(len(CASES)), ids=[name for name, _, _ in CASES])
def test_each_bad_input_of_the_issue_is_one_line_and_touches_nothing(issue_work, number):
    name, args, fragment = _cases(issue_work)[number]
    before = snapshot(issue_work)
    line = one_line_error(run_cli(*args, cwd=issue_work))
    assert fragment in line, (name, line)
    assert "internal error" not in line and "Traceback" not in line
    assert snapshot(issue_work) == before


@pytest.mark.parametrize("name", ["f[abi:cxx11](float*)", "[bold]x", "g[/bold](int)"])
def test_names_from_input_print_literally(tmp_path, name):
    """Kernel names, file names and SASS are text, not Rich markup, in every table and heading."""
    rows = [((0, 0, 0), 0, 0, FULL, strided(4)), ((0, 0, 0), 0, 1, FULL, strided(128)),
            ((0, 0, 0), 0, 2, FULL, strided(4))]
    sites = [site(0, file="[bold]x.cu"), site(1, file="src/[i]y.cu"), site(2, sass="[red]LDS")]
    path = traceio.save(trace(launch(kernel=name, sites=sites, rows=rows)), tmp_path / "t.json")
    wide = ["analyze", path, "--by", "site", "--wide"]
    for args in (["analyze", path], wide, ["show", path, "--site", "1"]):
        code, out, err = run_cli(*args, env={"COLUMNS": "200"})
        assert code == 0, err
        assert name.split("(")[0] in out, args
    code, out, _ = run_cli("analyze", path, "--by", "site", "--wide", env={"COLUMNS": "200"})
    assert "[bold]x.cu" in out and "[i]y.cu" in out and "[red]LDS" in out


def test_the_api_refuses_wrong_types_and_sizes_in_one_line(tmp_path):
    from bankism import Access, SharedArray, Swizzle, check, simulate

    tile = SharedArray("float", (32, 32))
    result = simulate(np.arange(32) * 4, width=4)
    for case, fragment in (
        (lambda: Swizzle(62, 0, 62), "offsets are 64-bit"),
        (lambda: Swizzle(3.0, 2, 3), "bits=3.0 must be an integer"),
        (lambda: SharedArray("float", (32.0, 32)), "must be positive integers"),
        (lambda: SharedArray(None, (32, 32)), "element type None"),
        (lambda: SharedArray("float", (10**8, 10**8)), "elements"),
        (lambda: check(Access(tile, lambda t, k: (t.x % 32, k)), block=32, loops={"k": range(0)}),
         "no values"),
        (lambda: check(Access(tile, lambda t, k: (t.x % 32, k % 32)), block=1024, loops={"k": range(10**9)}),
         "over the instructions limit"),
        (lambda: check(Access(tile, lambda t: (t.y, t.x)), block=(32.0, 32)), "positive integers"),
        (lambda: result.bank_map(0.5), "must be an integer"),
        (lambda: simulate(np.full(32, 2**63 - 1), width=1), "is past the"),
        (lambda: traceio.load(None), "expected a file name"),
        (lambda: traceio.load(""), "the file name is empty"),
        (lambda: traceio.save(trace(), tmp_path / "out.npz", binary=True), "a trace is a JSON file"),
        (lambda: traceio.save(trace(), tmp_path / "o.json", binary="yes"), "binary="),
    ):
        with pytest.raises(BankismError, match=None) as raised:
            case()
        assert fragment in str(raised.value) and "\n" not in str(raised.value)
    assert not (tmp_path / "out.npz").exists()


def test_limits_are_raised_by_option_and_environment(tmp_path):
    """A budget that refuses an input lets it through once raised, by --limit or BANKISM_LIMITS."""
    deep = tmp_path / "deep.cu"
    deep.write_text(kernel("{" * 100 + "s[threadIdx.x] = 1;" + "}" * 100))
    assert "over the nesting limit" in one_line_error(run_cli("--limit", "nesting=60", "explain", deep))
    assert run_cli("explain", deep).returncode == 0
    refused = run_cli("explain", deep, env={inputs.ENVIRONMENT: "nesting=60"})
    assert "over the nesting limit" in one_line_error(refused)
    raised = run_cli("--limit", "nesting=400", "explain", deep, env={inputs.ENVIRONMENT: "nesting=60"})
    assert raised.returncode == 0
    assert inputs.parse_limits(["source=64M,steps=1e6", "trace=unlimited"], "x") == {
        "source": 64 << 20, "steps": 10**6, "trace": 1 << 62}
    for bad in ("source", "source=", "source=-1", "source=1.5.5", "source=²", "nothing=5"):
        with pytest.raises(BankismError):
            inputs.parse_limits([bad], "--limit")


def test_only_regular_files_are_read(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    for path, fragment in ((tmp_path / "pipe", "is a FIFO"), (tmp_path, "is a directory"),
                           ("/dev/null", "is a character device"), (tmp_path / "none", "no such file"),
                           ("", "the file name is empty"), ("a\0b", "NUL character")):
        with pytest.raises(BankismError, match=fragment):
            inputs.read_bytes(path, "trace")
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 2048)
    with pytest.raises(BankismError, match="over the trace limit of 1 KB"):
        inputs.set_limits(["trace=1K"])
        try:
            inputs.read_bytes(big, "trace")
        finally:
            inputs.reset_limits()
    assert inputs.read_bytes(big, "trace") == b" " * 2048


def test_stdout_on_a_full_disk_is_one_line_for_every_command(tmp_path):
    """Writing stdout to /dev/full: one `error:` line and exit code 2, never a traceback."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    trace_path = traceio.save(trace(), tmp_path / "T.json")
    (tmp_path / "pad.cu").write_text(PAD)
    for args in (["analyze", str(trace_path)], ["--version"]):
        with open("/dev/full", "w") as full:
            done = subprocess.run([sys.executable, "-m", "bankism", *args], stdout=full,
                                  stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=120)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr == "error: cannot write to stdout: No space left on device\n", done.stderr


def test_an_ascii_terminal_gets_escapes_not_a_traceback(tmp_path):
    path = traceio.save(trace(launch(kernel="kérnel_π(float*)")), tmp_path / "u.json")
    done = subprocess.run([sys.executable, "-m", "bankism", "analyze", str(path)], capture_output=True,
                          cwd=ROOT, timeout=120, env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert done.returncode == 0, done.stderr
    assert b"k\\xe9rnel_\\u03c0" in done.stdout


ROW = ",".join(str(1024 + 4 * lane) for lane in range(32))


@pytest.mark.parametrize("variant", ["leading zero", "minus zero", "unicode space", "placeholder", "nan"])
def test_the_fast_reader_reads_what_json_reads(tmp_path, monkeypatch, variant):
    """The same answer (arrays or one-line error) from the fast reader and from strict JSON alone."""
    from bankism.trace import json_text as read

    doc = trace(launch(rows=[((0, 0, 0), 0, 0, FULL, strided(4)), ((0, 0, 0), 1, 0, FULL, strided(8))]))
    text = traceio.save(doc, tmp_path / "base.json").read_text()
    start = text.index('"addresses": [')
    end = text.index("]\n        ]", start) + len("]\n        ]")
    rows = {
        "leading zero": f"[[{ROW.replace('1024', '01024', 1)}],[{ROW}]]",
        "minus zero": f"[[{ROW.replace('1024', '-0', 1)}],[{ROW}]]",
        "unicode space": f"[[{ROW}]\u2028,[{ROW}]]",
        "placeholder": f"[[{ROW}],[{ROW}]]",
        "nan": f"[[{ROW}],[{ROW}]]",
    }[variant]
    body = text[:start] + '"addresses": ' + rows + text[end:]
    if variant == "placeholder":
        body = body.replace('"description": "', '"description": "@@bankism-addresses-0@@ ', 1)
    if variant == "nan":
        body = body.replace('"counters": null', '"counters": NaN', 1)
    path = tmp_path / "t.json"
    path.write_text(body)
    outcomes = []
    for threshold in (1 << 60, 0):
        monkeypatch.setattr(read, "FAST_RECORDS_BYTES", threshold)
        try:
            outcomes.append(traceio.load(path)["launches"][0]["records"]["addresses"].tolist())
        except BankismError as error:
            outcomes.append(str(error))
    assert outcomes[0] == outcomes[1]
    try:
        json.loads(body, parse_constant=lambda name: 1 / 0)
        valid = True
    except (ValueError, ZeroDivisionError):
        valid = False
    if not valid:  # what JSON refuses, the fast reader refuses too (the same line)
        assert isinstance(outcomes[1], str), outcomes[1]
