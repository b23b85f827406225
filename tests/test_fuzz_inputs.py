"""A generated campaign of bad and odd inputs over every command and the public API (issue 23).

Each family below mutates a valid input of its kind with a seeded generator (the same cases on every
run) and runs it in-process, as the `bankism` script runs. Every case must end with exit code 0 and
an answer the oracle accepts (the scalar reference engine of tests/reference.py, or the physical
limits a valid input keeps), or with exit code 2 and one `error:` line; never a traceback, never a
changed input, never more than ``CASE_SECONDS``. Inputs no GPU could produce must be refused.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import time
from pathlib import Path

import numpy as np
import pytest

from bankism import traceio
from bankism.arch import MAX_BLOCK_DIMS, MAX_GRID_DIMS, MAX_THREADS_PER_BLOCK, get_arch
from bankism.errors import BankismError
from tests.builders import FULL, launch, site, strided, trace
from tests.helpers import ROOT, run_cli
from tests.reference import reference_count
from tests.test_cli_contract import snapshot

RAW_CSV = ROOT / "tests" / "data" / "capture" / "transpose32.ncu-raw.csv"
CASE_SECONDS = 20.0
SM90 = get_arch("sm_90")
ROOM = SM90.shared_bytes - SM90.reserved_shared_bytes

#: Values a mutation puts where a number belongs.
VALUES = [0, 1, -1, 2, 3, 31, 32, 33, 1023, 1024, 1025, 65535, 65536, 2**31 - 1, 2**31, 2**32, 2**63 - 1,
          2**63, 2**64, 2**70, 1.5, 2.0, 1e300, "4", "x", None, True, [], {}, [1, 2, 3]]
#: Tokens a mutation puts into a CSV cell, a command-line number or a source.
TOKENS = ["0", "1", "4", "32", "63488", "63,488", "1.5", "12.5", "-3", "1e30", "abc", "nan", "inf", "",
          "n/a", "²", "٣", "9" * 30, "0x20", "  7 ", "1,2", '"', "\x00", "[bold]", "-0", "+5", "1e-3"]


def _json_plain(value):
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, dict):
        return {k: _json_plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_plain(v) for v in value]
    return value


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """The valid inputs every family starts from."""
    root = tmp_path_factory.mktemp("fuzz")
    rows = [((0, 0, 0), 0, 0, FULL, strided(4)), ((1, 0, 0), 1, 0, 0x0000FFFF, strided(128)),
            ((0, 0, 0), 1, 1, FULL, strided(8, 2048)), ((1, 0, 0), 0, 2, 0xFF, strided(16, 4096))]
    sites = [site(0), site(1, op="store", sass="STS", width=8), site(2, op="ldmatrix", width=16, matrices=1,
                                                                     sass="LDSM.16.M88")]
    doc = trace(launch(sites=sites, rows=rows))
    traceio.save(doc, root / "T.json")
    traceio.save(doc, root / "B.json", binary=True)
    (root / "T.plain.json").write_text(json.dumps(_json_plain(doc)))
    (root / "r.csv").write_text(RAW_CSV.read_text())
    return root


def _run(workdir: Path, args: list[str]) -> tuple[int, str, str]:
    """Run one case: its exit code and streams, after checking the promises every case keeps."""
    before = snapshot(workdir)
    start = time.monotonic()
    code, out, err = run_cli(*args, cwd=workdir)
    assert time.monotonic() - start < CASE_SECONDS, args
    assert code in (0, 1, 2), (args, code, err)
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, err)
        assert "internal error" not in err, (args, err)
    assert "Traceback" not in err, (args, err)
    after = snapshot(workdir)
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert changed <= {"out.json", "out.npz"}, (args, changed)
    return code, out, err


# ---------------------------------------------------------------------------------------------
# Oracles
# ---------------------------------------------------------------------------------------------


def physically_possible(doc: dict) -> bool:
    """What every trace of a real sm_90 launch satisfies (the test's own statement of the limits)."""
    for item in doc["launches"]:
        grid, block = item["grid"], item["block"]
        if any(not 1 <= g <= m for g, m in zip(grid, MAX_GRID_DIMS, strict=True)):
            return False
        if any(not 1 <= b <= m for b, m in zip(block, MAX_BLOCK_DIMS, strict=True)):
            return False
        if block[0] * block[1] * block[2] > MAX_THREADS_PER_BLOCK:
            return False
        if item["shared_bytes"]["static"] + item["shared_bytes"]["dynamic"] > ROOM:
            return False
        widths = {s["id"]: (16 if s["op"] == "ldmatrix" else s["width"], s) for s in item["sites"]}
        records = item["records"]
        for k in range(len(records["warp"])):
            width, entry = widths[int(records["site"][k])]
            lanes = 8 * entry["matrices"] if entry["op"] == "ldmatrix" else 32
            for lane in range(lanes):
                if int(records["active"][k]) >> lane & 1:
                    address = int(records["addresses"][k][lane])
                    if address < SM90.reserved_shared_bytes or address % width:
                        return False
    return True


def expected_sites(doc: dict) -> dict[tuple[int, int], tuple[int, int]]:
    """(launch, site) -> (executions, wavefronts) by the scalar reference engine."""
    out: dict[tuple[int, int], tuple[int, int]] = {}
    for item in doc["launches"]:
        kinds = {s["id"]: s for s in item["sites"]}
        records = item["records"]
        for k in range(len(records["warp"])):
            entry = kinds[int(records["site"][k])]
            count = reference_count([int(a) for a in records["addresses"][k]], entry["width"], entry["op"],
                                    int(records["active"][k]), entry.get("matrices"))
            key = (item["index"], entry["id"])
            executions, wavefronts = out.get(key, (0, 0))
            out[key] = (executions + 1, wavefronts + count.wavefronts)
    return out


def check_analysis(workdir: Path, name: str, out: str) -> None:
    """An accepted trace: physically possible, and every site's counts those of the reference engine."""
    doc = traceio.load(workdir / name)
    assert physically_possible(doc), name
    report = json.loads(out)
    got = {(item["index"], s["id"]): (s["executions"], s["wavefronts"])
           for item in report["launches"] for s in item["sites"] if s["executions"]}
    assert got == expected_sites(doc)


# ---------------------------------------------------------------------------------------------
# Families
# ---------------------------------------------------------------------------------------------


def _number_paths(doc: dict) -> list[tuple]:
    paths = [("launches", 0, "grid", i) for i in range(3)] + [("launches", 0, "block", i) for i in range(3)]
    paths += [("launches", 0, key) for key in ("blocks_total", "index")]
    paths += [("launches", 0, "shared_bytes", key) for key in ("static", "dynamic")]
    paths += [("launches", 0, "sites", k, key) for k in range(3)
              for key in ("id", "width", "matrices", "line")]
    paths += [("launches", 0, "records", field, 0) for field in ("warp", "site", "active")]
    paths += [("launches", 0, "records", "block", 0, i) for i in range(3)]
    paths += [("launches", 0, "records", "addresses", k, lane) for k in range(4) for lane in (0, 5, 31)]
    paths += [("version",), ("launches", 0, "blocks_recorded")]
    return paths


def _set(doc, path, value):
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


def trace_cases(count: int) -> list[tuple[str, dict]]:
    """Mutated trace documents: a number replaced, an address moved, a key removed, a text edit."""
    rng = np.random.default_rng(23)
    cases = []
    for n in range(count):
        kind = n % 4
        cases.append((f"trace-{n}", {"kind": kind, "seed": int(rng.integers(1 << 30))}))
    return cases


def _mutated_trace(base: Path, spec: dict) -> str:
    rng = np.random.default_rng(spec["seed"])
    text = (base / "T.plain.json").read_text()
    doc = json.loads(text)
    paths = _number_paths(doc)
    if spec["kind"] == 0:
        path = paths[int(rng.integers(len(paths)))]
        _set(doc, path, VALUES[int(rng.integers(len(VALUES)))])
    elif spec["kind"] == 1:
        k, lane = int(rng.integers(4)), int(rng.integers(32))
        choices = [0, 1020, 1024, 1025, 1028, 9212, 9216, 9220, 233468, 2**31, 2**40, -4, 2048 + 8 * lane]
        doc["launches"][0]["records"]["addresses"][k][lane] = choices[int(rng.integers(len(choices)))]
        doc["launches"][0]["records"]["active"][k] = int(rng.integers(1 << 32))
    elif spec["kind"] == 2:
        owner = [doc, doc["launches"][0], doc["launches"][0]["sites"][int(rng.integers(3))],
                 doc["launches"][0]["records"], doc["environment"]][int(rng.integers(5))]
        owner.pop(sorted(owner)[int(rng.integers(len(owner)))])
    else:
        text = json.dumps(doc)
        at = int(rng.integers(len(text)))
        edit = int(rng.integers(3))
        if edit == 0:
            text = text[:at]
        elif edit == 1:
            text = text[:at] + TOKENS[int(rng.integers(len(TOKENS)))] + text[at:]
        else:
            text = text[:at] + text[at + 1:]
        return text
    return json.dumps(doc)


def npz_cases(count: int) -> list[tuple[str, dict]]:
    rng = np.random.default_rng(2323)
    return [(f"npz-{n}", {"seed": int(rng.integers(1 << 30)), "truncate": n % 5 == 0}) for n in range(count)]


def csv_cases(count: int) -> list[tuple[str, dict]]:
    rng = np.random.default_rng(123)
    return [(f"csv-{n}", {"seed": int(rng.integers(1 << 30))}) for n in range(count)]


def _mutated_csv(spec: dict) -> tuple[str, str, str]:
    """The export with one cell replaced: (text, column, token)."""
    rng = np.random.default_rng(spec["seed"])
    rows = list(csv.reader(io.StringIO(RAW_CSV.read_text())))
    counters = [c for c in rows[0] if re.search(r"shared_(ld|st|atom)\.sum$", c)]
    columns = counters + ["ID", "Grid Size", "Block Size", "CC", "Kernel Name"]
    column = columns[int(rng.integers(len(columns)))]
    token = TOKENS[int(rng.integers(len(TOKENS)))]
    if column in ("Grid Size", "Block Size") and rng.integers(2):
        token = f"({int(rng.choice([0, 1, 32, 1024, 1025, 65536, 2**31, 2**40]))}, 1, 1)"
    rows[2][rows[0].index(column)] = token
    out = io.StringIO()
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    return out.getvalue(), column, token


def _count_oracle(token: str) -> int | None | str:
    """What an exact count reader must make of a cell: an int, None (not collected) or "refuse"."""
    cleaned = token.strip().replace(",", "")
    if cleaned.lower() in ("", "n/a", "-"):
        return None
    if cleaned.isascii() and cleaned.isdigit():
        return int(cleaned) if int(cleaned) < 2**63 else "refuse"
    if cleaned in ("-0", "+5"):
        return {"-0": 0, "+5": 5}[cleaned]
    return "refuse"


PAD_KERNEL = """__global__ void k(float *out) {{
    __shared__ float t[{rows}][{pitch}];
    t[threadIdx.x][0] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = t[0][0];
}}
int main() {{ k<<<{grid}, {block}>>>(0); }}
"""


def explain_cases(count: int) -> list[tuple[str, dict]]:
    """Mostly launchable kernels (the oracle then checks the counts), a third impossible or edited."""
    rng = np.random.default_rng(7)
    odd_sizes = [-5, -1, 0, 2**16, 2**31, 2**40, 2**62]
    cases = []
    for n in range(count):
        odd = n % 3 == 2
        cases.append((f"explain-{n}", {
            "rows": int(rng.choice([1, 32, 64, 96, 1024, 1025] + (odd_sizes if odd else []))),
            "pitch": int(rng.choice([1, 2, 7, 8, 16, 31, 32, 33, 64] + (odd_sizes if odd else []))),
            "grid": int(rng.choice([1, 2, 65535, 2**31 - 1] + ([2**31, 2**40, 0] if odd else []))),
            "block": int(rng.choice([1, 31, 32, 64, 96] + ([1024, 1025, 4096] if odd else []))),
            "edit": n % 6 == 5, "seed": int(rng.integers(1 << 30)),
        }))
    return cases


def _explain_source(spec: dict) -> str:
    text = PAD_KERNEL.format(**{k: spec[k] for k in ("rows", "pitch", "grid", "block")})
    if spec["edit"]:
        rng = np.random.default_rng(spec["seed"])
        at = int(rng.integers(len(text)))
        pieces = ["{", "}", "(", ")", ";", "#define t 3\n", "[", "]", "\x00", "\u00e9", "threadIdx.x", "-1"]
        text = text[:at] + pieces[int(rng.integers(len(pieces)))] + text[at + int(rng.integers(2)):]
    return text


def _explain_expected(spec: dict) -> int | None:
    """Wavefronts of the store ``t[threadIdx.x][0]`` over the block, by the reference engine; None when
    the launch or the array is impossible (then the only answer is a refusal)."""
    rows, pitch, block, grid = spec["rows"], spec["pitch"], spec["block"], spec["grid"]
    if block > MAX_THREADS_PER_BLOCK or grid > MAX_GRID_DIMS[0] or rows < 1 or pitch < 1:
        return None
    if rows * pitch * 4 > ROOM or block > rows:
        return None
    total = 0
    for warp in range(-(-block // 32)):
        lanes = [min(warp * 32 + lane, block - 1) for lane in range(32)]
        mask = sum(1 << lane for lane in range(32) if warp * 32 + lane < block)
        addresses = [1024 + thread * pitch * 4 for thread in lanes]
        total += reference_count(addresses, 4, "store", mask).wavefronts
    return total


def simulate_cases(count: int) -> list[tuple[str, dict]]:
    """Half plain warp-instructions (the reference engine checks them), half odd numbers."""
    rng = np.random.default_rng(99)
    odd = ["-4", str(2**63 - 1), str(2**63), "²", "1.5", "", "abc", "3"]
    cases = []
    for n in range(count):
        plain = n % 2 == 0
        op = str(rng.choice(["load", "store", "atomic", "ldmatrix"] + ([] if plain else ["ldgsts", "nop"])))
        width = str(rng.choice(["4", "8", "16"] + ([] if plain else ["1", "2", "3", "four"])))
        if plain and op == "atomic":
            width = "4"
        cases.append((f"simulate-{n}", {
            "stride": str(rng.choice(["0", "4", "8", "16", "128", "0x10"] + ([] if plain else odd))),
            "base": str(rng.choice(["0", "1024", "4096"] + ([] if plain else odd + ["233468"]))),
            "width": width, "op": op,
            "matrices": str(rng.choice(["1", "2", "4"])) if op == "ldmatrix" else ("" if plain else "2"),
            "active": str(rng.choice(["0xffffffff", "0xffff", "1", "0x0f0f0f0f"]
                                     + ([] if plain else ["-1", str(2**40), "x", "0"]))),
        }))
    return cases


def _simulate_args(spec: dict) -> list[str]:
    args = ["simulate", "--stride", spec["stride"], "--base", spec["base"], "--width", spec["width"],
            "--op", spec["op"], "--active", spec["active"], "--json"]
    return args + (["--matrices", spec["matrices"]] if spec["matrices"] else [])


def advise_cases(count: int) -> list[tuple[str, dict]]:
    rng = np.random.default_rng(5)
    return [(f"advise-{n}", {"seed": int(rng.integers(1 << 30)), "spec": n % 3 == 0}) for n in range(count)]


def api_cases(count: int) -> list[tuple[str, dict]]:
    rng = np.random.default_rng(11)
    return [(f"api-{n}", {"seed": int(rng.integers(1 << 30)), "kind": n % 4}) for n in range(count)]


def file_cases() -> list[tuple[str, dict]]:
    """Every command with each special or impossible path where it reads or writes a file."""
    paths = ["fifo", "dir", "zero", "", "x" * 300, "missing/x.json", "dir/", "T.json/"]
    commands = [["analyze", "{p}"], ["show", "{p}", "--site", "0"], ["explain", "{p}"], ["advise", "{p}"],
                ["ncu-import", "{p}", "-o", "out.json"], ["ncu-import", "r.csv", "-o", "{p}"],
                ["show", "T.json", "--site", "0", "--png", "{p}"], ["explain", "p.cu", "--trace", "{p}"]]
    return [(f"file-{c}-{k}", {"args": command, "path": path})
            for c, command in enumerate(commands) for k, path in enumerate(paths)]


FAMILIES = {
    "trace": trace_cases(72), "npz": npz_cases(24), "csv": csv_cases(40), "explain": explain_cases(48),
    "simulate": simulate_cases(40), "advise": advise_cases(30), "api": api_cases(40), "file": file_cases(),
}


def test_the_campaign_has_at_least_300_inputs():
    assert sum(len(cases) for cases in FAMILIES.values()) >= 300


@pytest.fixture()
def workdir(base, tmp_path) -> Path:
    """A fresh copy of the base inputs, with the special files, for one chunk of cases."""
    for path in base.iterdir():
        (tmp_path / path.name).write_bytes(path.read_bytes())
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    (tmp_path / "zero").symlink_to("/dev/zero")
    (tmp_path / "p.cu").write_text(PAD_KERNEL.format(rows=32, pitch=33, grid=1, block=32))
    return tmp_path


CHUNKS = [(family, start) for family, cases in FAMILIES.items() for start in range(0, len(cases), 12)]


@pytest.mark.parametrize(("family", "start"), CHUNKS, ids=[f"{f}-{s}" for f, s in CHUNKS])
def test_every_generated_input_is_an_answer_or_one_line(workdir, family, start):
    for name, spec in FAMILIES[family][start:start + 12]:
        RUNNERS[family](workdir, name, spec)


def run_trace(workdir: Path, name: str, spec: dict) -> None:
    base_dir = workdir
    (workdir / "M.json").write_text(_mutated_trace(base_dir, spec))
    code, out, err = _run(workdir, ["analyze", "M.json", "--json"])
    if code in (0, 1):
        check_analysis(workdir, "M.json", out)
    (workdir / "M.json").unlink()


def run_npz(workdir: Path, name: str, spec: dict) -> None:
    rng = np.random.default_rng(spec["seed"])
    original = (workdir / "B.npz").read_bytes()
    data = bytearray(original)
    if spec["truncate"]:
        data = data[: int(rng.integers(len(data)))]
    else:
        for at in rng.integers(len(data), size=int(rng.integers(1, 4))):
            data[int(at)] ^= int(rng.integers(1, 256))
    (workdir / "N.npz").write_bytes(bytes(data))
    (workdir / "N.json").write_text((workdir / "B.json").read_text().replace("B.npz", "N.npz"))
    code, out, _ = _run(workdir, ["analyze", "N.json", "--json"])
    if code in (0, 1):  # the damage missed the data (CRC-32 checks it): the answer is the original's
        check_analysis(workdir, "T.json", out)
    for extra in ("N.npz", "N.json"):
        (workdir / extra).unlink()


def run_csv(workdir: Path, name: str, spec: dict) -> None:
    text, column, token = _mutated_csv(spec)
    (workdir / "M.csv").write_text(text)
    code, out, err = _run(workdir, ["ncu-import", "M.csv", "-o", "out.json"])
    if code == 0:
        doc = traceio.load(workdir / "out.json")
        assert physically_possible(doc)
        if re.search(r"shared_(ld|st|atom)\.sum$", column):
            expected = _count_oracle(token)
            assert expected != "refuse", (token, "silently accepted")
            counters = doc["launches"][0]["counters"]
            if expected is not None:  # (an uncollected metric leaves the launch without counters)
                kind = re.search(r"shared_(ld|st|atom)\.sum$", column)[1]
                field = ("conflicts" if "bank_conflicts" in column else
                         "wavefronts" if "wavefronts" in column else "instructions")
                assert counters[kind][field] == expected
        (workdir / "out.json").unlink()
    (workdir / "M.csv").unlink()


def run_explain(workdir: Path, name: str, spec: dict) -> None:
    (workdir / "M.cu").write_text(_explain_source(spec))
    code, out, err = _run(workdir, ["explain", "M.cu", "--json"])
    expected = None if spec["edit"] else _explain_expected(spec)
    if code == 0 and not spec["edit"]:
        assert expected is not None, (spec, "an impossible launch or array was explained")
        report = json.loads(out)
        stores = [s for s in report["sites"] if s["op"] == "store"]
        assert sum(s["wavefronts"] for s in stores) == expected, spec
        assert report["launch"]["threads_per_block"] <= MAX_THREADS_PER_BLOCK
    (workdir / "M.cu").unlink()


def run_simulate(workdir: Path, name: str, spec: dict) -> None:
    code, out, err = _run(workdir, _simulate_args(spec))
    if code == 0:
        result = json.loads(out)
        stride, base_value = int(spec["stride"], 0), int(spec["base"], 0)
        addresses = [base_value + stride * lane for lane in range(32)]
        matrices = int(spec["matrices"]) if spec["matrices"] else None
        count = reference_count(addresses, int(spec["width"]), spec["op"], int(spec["active"], 0), matrices)
        assert result["wavefronts"] == count.wavefronts, spec


def run_advise(workdir: Path, name: str, spec: dict) -> None:
    rng = np.random.default_rng(spec["seed"])
    if spec["spec"]:
        odd = rng.integers(3) == 0
        sizes = [32, 64] + ([0, 1, 8, 33, 2**20, 2**40] if odd else [])
        rank = int(rng.integers(1, 3)) if odd else 2
        dims = "".join(f"[{int(rng.choice(sizes))}]" for _ in range(rank))
        extra = str(rng.choice(["", "+1", "+4", "^3,2,3", "@1024"]
                               + (["^60,60,60", "^2,0,-2", "@0x10", "@3", "@²"] if odd else [])))
        dtype = str(rng.choice(["float", "int"] + (["half", "double", "uint4", "int8", "x"] if odd else [])))
        limit = str(rng.choice(["1", "3"] + (["0"] if odd else [])))
        args = ["advise", "T.json", "--array", f"t:{dtype}{dims}{extra}", "--limit", limit]
    else:
        (workdir / "M.json").write_text(_mutated_explain(workdir, rng))
        args = ["advise", "M.json", "--json"]
    code, out, err = _run(workdir, args)
    if code == 0 and "--json" in args:
        assert "arrays" in json.loads(out)
    if (workdir / "M.json").exists():
        (workdir / "M.json").unlink()


def _mutated_explain(workdir: Path, rng: np.random.Generator) -> str:
    explained = workdir / "E.json"
    if not explained.exists():
        code, out, err = run_cli("explain", workdir / "p.cu", "--json")
        assert code == 0, err
        explained.write_text(out)
    doc = json.loads(explained.read_text())
    warp = doc["sites"][0]["warps"][0]
    targets = [(doc["sites"][0], "width"), (doc["sites"][0], "op"), (warp, "lane_addresses"),
               (warp["lane_addresses"], int(rng.integers(32))), (doc, "shared_arrays"),
               (doc["shared_arrays"][0], "shape"), (doc["shared_arrays"][0], "base_offset"), (doc, "sites"),
               (warp, "block"), (doc["shared_arrays"][0], "dtype")]
    owner, key = targets[int(rng.integers(len(targets)))]
    values = VALUES if rng.integers(4) else TOKENS
    if rng.integers(3) == 0:  # a plausible edit: a lane moved to another element of the array
        owner, key = warp["lane_addresses"], int(rng.integers(32))
        values = [1024 + 4 * int(rng.integers(1056))]
    owner[key] = values[int(rng.integers(len(values)))]
    return json.dumps(doc)


def run_api(workdir: Path, name: str, spec: dict) -> None:
    """The public API: a result the reference engine agrees with, or a one-line BankismError."""
    from bankism import Access, SharedArray, Swizzle, check, simulate

    rng = np.random.default_rng(spec["seed"])
    pick = lambda options: options[int(rng.integers(len(options)))]  # noqa: E731
    try:
        if spec["kind"] == 0:
            dtype = pick([np.int32, np.int64, np.uint64, np.float64, np.float32, object, bool])
            values = pick([np.arange(32) * 4 + 1024, np.full(32, 2**62), np.full(32, -8), np.arange(32) * 4.5,
                           np.arange(31), np.zeros((2, 32)), np.full(32, 2**63 - 1)])
            addresses = np.asarray(values, object) if dtype is object else np.asarray(values).astype(dtype)
            width = pick([4, 8, 16, 4.0, True, "4", None, 2**70])
            result = simulate(addresses, width=width, op=pick(["load", "store", "atomic", 3, None]))
            rows = np.asarray(result.addresses).reshape(-1, 32)
            for i in range(len(result)):
                expected = reference_count([int(a) for a in rows[i]], result.width, result.op)
                assert int(result.wavefronts[i]) == expected.wavefronts
            result.bank_map(pick([0, -1, 0.5, True, np.int64(0)]))
        elif spec["kind"] == 1:
            Swizzle(pick([0, 1, 3, 3.0, -1, 62, True]), pick([0, 2, 60, 2.5]), pick([3, -3, 0, 62, "3"]))
        elif spec["kind"] == 2:
            shape = pick([(32, 32), (32.0, 32), (0,), (10**8, 10**8), "ab", (2**63,), (32, -1)])
            SharedArray(pick(["float", None, "half", "x", 4]), shape, pad=pick([0, 1, -1, 1.5]),
                        base=pick([0, 1024, 3, -4, 2**70]))
        else:
            tile = SharedArray("float", (32, 33))
            access = Access(tile, lambda t, k: (t.x % 32, (t.x // 32 + k) % 33))
            report = check(access, block=pick([32, 1024, 1025, (32, 32), 0, 32.0, "32"]),
                           loops=pick([{"k": range(4)}, {"k": range(0)}, {"k": []}, {"k": range(10**12)},
                                       {"k": iter(range(3))}, 5]))
            assert report.instructions >= 1
    except BankismError as error:
        assert "\n" not in str(error)


def run_file(workdir: Path, name: str, spec: dict) -> None:
    path = {"zero": "zero"}.get(spec["path"], spec["path"])
    args = [part.replace("{p}", path) for part in spec["args"]]
    code, _, _ = _run(workdir, args)
    assert code == 2, args


RUNNERS = {"trace": run_trace, "npz": run_npz, "csv": run_csv, "explain": run_explain,
           "simulate": run_simulate, "advise": run_advise, "api": run_api, "file": run_file}
