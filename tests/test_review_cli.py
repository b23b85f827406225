"""`bankism advise`: fixes for the lane addresses of a trace or of an `explain --json` result."""

import json
from pathlib import Path

import numpy as np
import pytest

from bankism.arch import window_base
from bankism.cli.advise_cmd import declare_arrays, parse_array_spec
from bankism.errors import BankismError
from bankism.review import Access, SharedArray, Swizzle, check
from bankism.trace import save
from tests.helpers import run_cli

ROOT = Path(__file__).resolve().parents[1]
WINDOW = window_base()


def run(*args):
    return run_cli("advise", *args, cwd=ROOT)


def transpose_sites(base):
    """The naive 32x32 transpose (block 32x8) as the engine sees it: store site, then load site."""
    tile = SharedArray("float", (32, 32), base=base, name="tile")
    store = Access(tile, lambda t, j: (t.y + j, t.x), op="store")
    load = Access(tile, lambda t, j: (t.x, t.y + j))
    return check([store, load], block=(32, 8), loops={"j": range(0, 32, 8)}).sites


@pytest.fixture(scope="module")
def trace_path(tmp_path_factory):
    """A synthetic trace (made by this test, nothing measured) of the naive transpose, two blocks."""
    parts = {"block": [], "warp": [], "site": [], "active": [], "addresses": []}
    for block in range(2):
        for sid, site in enumerate(transpose_sites(WINDOW)):
            n = site.instructions
            parts["block"].append(np.tile([block, 0, 0], (n, 1)).astype(np.int32))
            parts["warp"].append((np.arange(n) % 8).astype(np.int32))
            parts["site"].append(np.full(n, sid, np.int32))
            parts["active"].append(np.full(n, 0xFFFFFFFF, np.uint32))
            parts["addresses"].append(site.result.addresses)
    sites = [{"id": i, "pc": 16 * (i + 1), "sass": sass, "op": op, "width": 4, "matrices": None,
              "trans": False, "file": "transpose.cu", "line": line}
             for i, (sass, op, line) in enumerate([("STS", "store", 10), ("LDS", "load", 12)])]
    doc = {
        "format": "bankism-trace", "version": 1, "description": "synthetic trace written by test_review_cli",
        "environment": {"gpu": None, "arch": "sm_90", "compute_capability": None, "driver": None,
                        "cuda": None, "ncu": None, "captured": None, "tracer": "tests"},
        "program": {"command": ["transpose"], "source": None},
        "launches": [{
            "index": 0, "kernel": "transpose_naive", "mangled": None, "grid": [2, 1, 1], "block": [32, 8, 1],
            "shared_bytes": {"static": 4096, "dynamic": 0}, "blocks_total": 2, "blocks_recorded": "all",
            "sites": sites, "records": {k: np.concatenate(v) for k, v in parts.items()},
            "counters": None, "counters_scope": "launch",
        }],
    }
    path = tmp_path_factory.mktemp("advise") / "transpose.json"
    save(doc, path)
    return path


def test_trace_fixes_in_text(trace_path):
    done = run(trace_path, "--array", "tile:float[32][32]")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"=== float tile[32][32] at byte {WINDOW}: 2 site(s)" in out
    assert "launch 0 site 1 (LDS transpose.cu:12)" in out
    assert "bank conflicts: 1984 excess wavefront(s)" in out
    assert "__shared__ float tile[32][33];" in out


def test_trace_fixes_in_json(trace_path):
    done = run(trace_path, "--array", f"tile:float[32][32]@{WINDOW}", "--json", "--limit", "3")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["format"], data["version"], data["arch"]) == ("bankism-advise", 1, "sm_90")
    (array,) = data["arrays"]
    assert array["name"] == "tile" and array["base"] == WINDOW
    assert array["given"]["conflicts"] == 1984 and array["given"]["instructions"] == 128
    pads = [f for f in array["fixes"] if f["kind"] == "pad"]
    assert pads[0]["pad"] == 1 and pads[0]["excess"] == 0 and pads[0]["extra_bytes"] == 128
    ranks = [f["rank"] for f in array["fixes"]]
    assert len(ranks) <= 3 and ranks == list(range(1, len(ranks) + 1))
    assert data["left_out"] == []


def test_padded_layout_of_the_kernel_is_understood(tmp_path):
    """Addresses recorded from a [32][33] kernel map back through its padding."""
    tile = SharedArray("float", (32, 32), pad=1, base=WINDOW, name="tile")
    site = check(Access(tile, lambda t: (t.x, t.y)), block=(32, 32)).sites[0]
    recorded = Access.from_addresses(tile, site.result.addresses)
    assert check(recorded).conflicts == 0


@pytest.mark.parametrize("args,message", [
    ((), "declare the shared arrays with --array"),
    (("--array", "tile float"), "--array 'tile float': expected NAME:TYPE"),
    (("--array", "tile:quad[32][32]"), "--array 'tile:quad[32][32]': unknown element type"),
    (("--array", "tile:float[32][32]@0"), "no site's addresses fall in the declared arrays"),
    (("--array", "tile:float[32][32]", "--launch", "3"), "--launch 3: the trace holds launches 0"),
])
def test_bad_input_is_a_one_line_error(trace_path, args, message):
    done = run(trace_path, *args)
    assert done.returncode == 2
    assert done.stderr.startswith((f"error: {trace_path}: {message}", f"error: {message}"))
    assert len(done.stderr.strip().splitlines()) == 1


def test_not_a_trace(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"hello": 1}')
    done = run(path)
    assert done.returncode == 2 and "neither a bankism trace" in done.stderr


def test_explain_result_with_array_declarations(tmp_path):
    """A result shaped like `explain --json` (schema bankism.explain/1): per-warp lane addresses of the
    first execution (None for inactive lanes) and the shared arrays with their base offsets."""
    site = transpose_sites(WINDOW)[1]
    lanes = [[int(a) for a in site.result.addresses[w]] for w in range(8)]
    lanes[7][31] = None
    doc = {
        "schema": "bankism.explain/1", "arch": "sm_90",
        "shared_arrays": [{"name": "tile", "dtype": "float", "shape": [32, 32], "base_offset": WINDOW,
                           "size_bytes": 4096}],
        "sites": [{"line": 12, "expression": "tile[threadIdx.x][threadIdx.y + j]", "array": "tile",
                   "shared_array": "tile", "op": "load", "width": 4,
                   "warps": [{"block": [0, 0, 0], "warp": w, "executions": 4, "lane_addresses": lanes[w]}
                             for w in range(8)]}],
    }
    path = tmp_path / "explain.json"
    path.write_text(json.dumps(doc))
    done = run(path, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert "one execution per warp" in data["note"]
    (array,) = data["arrays"]
    assert array["base"] == WINDOW
    given = array["given"]["sites"][0]
    assert given["access"] == "line 12: load tile[threadIdx.x][threadIdx.y + j]"
    assert given["instructions"] == 8 and given["conflicts"] == 8 * 31 - 1
    assert given["worst"].startswith("block (0,0,0) warp 0: 32")
    assert any(f["kind"] == "pad" and f["pad"] == 1 and f["excess"] == 0 for f in array["fixes"])


def test_explain_output_of_the_quiz_can_be_advised(tmp_path):
    quiz = ROOT / "tests" / "data" / "explain" / "dgemm_tile_quiz.cu"
    explain = run_cli("explain", quiz, "--json", cwd=ROOT)
    assert explain.returncode == 0, explain.stderr
    path = tmp_path / "quiz.json"
    path.write_text(explain.stdout)
    done = run(path)
    assert done.returncode == 0, done.stderr
    assert "=== double A_shared[16][16]" in done.stdout and "=== double B_shared[16][16]" in done.stdout
    assert "line 40: load A_shared[threadIdx.y][k]" in done.stdout


def test_array_specs():
    array = parse_array_spec("sA:half[64][64]^3,3,3@2048", 0)
    assert (array.name, array.dtype, array.shape, array.swizzle, array.base) == (
        "sA", "float16", (64, 64), Swizzle(3, 3, 3), 2048)
    padded = parse_array_spec("As:float[8][128]+4", 1024)
    assert (padded.pad, padded.base, padded.pitch) == (4, 1024, 132)
    assert parse_array_spec("c:unsigned int[16]", 0).dtype == "uint32"
    first, second = declare_arrays(["a:double[16][16]", "b:double[16][16]"], 1024)
    assert (first.base, second.base) == (1024, 1024 + 2048)
    with pytest.raises(BankismError, match="declared twice"):
        declare_arrays(["a:float[4]", "a:float[4]"], 0)


def test_advice_on_an_explain_result_names_the_accesses_it_could_not_count(tmp_path):
    """A histogram without --data: its atomic is listed, not counted; advise's verdict must not read as the
    whole kernel's, so it names what it left out (text and JSON)."""
    from typer.testing import CliRunner

    from bankism.cli import app

    source = ROOT / "tests" / "data" / "explain" / "unsupported" / "data_dependent.cu"
    path = tmp_path / "hist.json"
    path.write_text(CliRunner().invoke(app, ["explain", str(source), "--json"]).stdout)
    text = CliRunner().invoke(app, ["advise", str(path)])
    assert text.exit_code == 0, text.output
    assert "accesses left out (explain lists them as not counted" in text.output
    assert "line 6: atomicAdd(&hist[data[blockIdx.x * blockDim.x + threadIdx.x]], 1u) (atomic)" in text.output
    as_json = json.loads(CliRunner().invoke(app, ["advise", str(path), "--json"]).stdout)
    assert any(line.startswith("line 6: ") and "not counted" in line for line in as_json["left_out"])
