"""Every way a trace can be wrong gives one BankismError line naming file, launch and record."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest

from bankism import BankismError
from bankism.trace import RECORD_FIELDS, iter_records, load, open_trace, save
from tests.builders import FULL, launch, random_rows, site, strided, trace


def _write(tmp_path, doc, name="t.json"):
    """Write a document as plain JSON (no checks), the way a foreign tool might."""
    path = tmp_path / name

    def plain(value):
        return value.tolist() if isinstance(value, np.ndarray) else value

    for item in doc["launches"]:
        if "records" in item:
            item["records"] = {k: plain(v) for k, v in item["records"].items()}
    path.write_text(json.dumps(doc, indent=1))
    return path


def _error(path) -> str:
    with pytest.raises(BankismError) as caught:
        load(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(str(path))
    return message


def test_truncated_json_names_line_and_column(tmp_path):
    path = _write(tmp_path, trace(launch(rows=random_rows(4))))
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    message = _error(path)
    assert "line " in message and "column " in message and "truncated" in message


def test_malformed_json_names_line_and_column(tmp_path):
    path = tmp_path / "t.json"
    path.write_text('{\n  "format": "bankism-trace",\n  "version": 1,,\n}')
    expected = "line 3, column 16: invalid JSON: Expecting property name enclosed in double quotes"
    assert _error(path) == f"{path}: {expected}"


def test_missing_file(tmp_path):
    assert _error(tmp_path / "nope.json") == f"{tmp_path / 'nope.json'}: no such file"


def test_unknown_arch_is_named(tmp_path):
    message = _error(_write(tmp_path, trace(launch(), arch="sm_75")))
    assert "environment.arch" in message and "'sm_75'" in message


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda d: d.update(format="other"), 'format: is "other", expected "bankism-trace"'),
        (lambda d: d.update(version=2), "version: is 2, expected 1"),
        (lambda d: d["launches"][0].pop("kernel"), "launch 0: 'kernel' is a required property"),
        (lambda d: d["launches"][0]["sites"][0].update(op="lod"), "launch 0: sites[0].op: is \"lod\""),
        (lambda d: d["launches"][0]["sites"][0].update(width=3), "launch 0: sites[0].width: is 3"),
        (lambda d: d["launches"][0].update(records_file="x.npz"), "exactly one of 'records'"),
        (lambda d: d["launches"][0].update(grid=[2, 1]), "launch 0: grid: [2, 1] is too short"),
        (lambda d: d["launches"][0].update(blocks_recorded="some"), 'blocks_recorded: must be "all"'),
        (lambda d: d["launches"][0].update(counters={"ld": {}}), "counters: must be null or an object"),
        (lambda d: d["launches"][0]["records"].update(warp="0"), "warp: \"0\" is not of type 'array'"),
        (lambda d: d["launches"][0]["records"].pop("active"), "'active' is a required property"),
    ],
)
def test_schema_violations_name_the_field(tmp_path, change, expected):
    doc = trace(launch())
    change(doc)
    assert expected in _error(_write(tmp_path, doc))


def test_matrix_site_needs_matrices(tmp_path):
    doc = trace(launch(sites=[site(0, op="ldmatrix", width=16)], rows=[]))
    doc["launches"][0]["sites"][0]["matrices"] = None
    assert "sites[0].matrices" in _error(_write(tmp_path, doc))


def test_address_outside_shared_memory(tmp_path):
    addresses = strided(4)
    addresses[3] = 300000
    doc = trace(launch(rows=[((0, 0, 0), 0, 0, FULL, strided(4)), ((1, 0, 0), 1, 0, FULL, addresses)]))
    path = _write(tmp_path, doc)
    assert _error(path) == (
        f"{path}: launch 0, record 1: lane 3 address 300000 is outside the launch's shared memory "
        "(8192 bytes: 8192 static + 0 dynamic, ending at byte 9216 of the window)"
    )


def test_misaligned_address(tmp_path):
    doc = trace(launch(sites=[site(0, width=8)], rows=[((0, 0, 0), 0, 0, FULL, strided(8, base=1028))]))
    path = _write(tmp_path, doc)
    assert _error(path) == (
        f"{path}: launch 0, record 0: lane 0 address 1028 is not aligned to the 8-byte access width of site 0"
    )


@pytest.mark.parametrize(
    ("row", "expected"),
    [
        (((0, 0, 0), 0, 7, FULL, strided(4)), "record 1: site 7 is not among the launch's sites"),
        (((2, 0, 0), 0, 0, FULL, strided(4)), "record 1: block [2, 0, 0] is outside the grid [2, 1, 1]"),
        (((0, 0, 0), 2, 0, FULL, strided(4)), "record 1: warp 2 does not exist in a block of 64 threads"),
        (((0, 0, 0), 0, 0, FULL, [-4] + strided(4)[1:]), "record 1: addresses [-4,"),
        (((0, 0, 0), 0, 0, FULL, strided(4)[:31]), "record 1: addresses is ["),
        (((0, 0, 0), 0, 0, 2**32, strided(4)), "record 1: active 4294967296 is out of range"),
    ],
)
def test_bad_record_is_named(tmp_path, row, expected):
    doc = trace(launch(rows=[((0, 0, 0), 0, 0, FULL, strided(4))]))
    path = _write(tmp_path, doc)
    document = json.loads(path.read_text())
    records = document["launches"][0]["records"]
    for field, value in zip(RECORD_FIELDS, row, strict=True):
        records[field].append(list(value) if isinstance(value, tuple) else value)
    path.write_text(json.dumps(document))
    message = _error(path)
    assert f"launch 0, {expected}" in message


def test_float_address_is_refused(tmp_path):
    path = _write(tmp_path, trace(launch()))
    document = json.loads(path.read_text())
    document["launches"][0]["records"]["addresses"][0][4] = 1040.5
    path.write_text(json.dumps(document))
    assert "launch 0, record 0: addresses is [" in _error(path)


def test_record_arrays_of_different_lengths(tmp_path):
    path = _write(tmp_path, trace(launch(rows=random_rows(3))))
    document = json.loads(path.read_text())
    document["launches"][0]["records"]["site"].pop()
    path.write_text(json.dumps(document))
    assert "records.site has 2 entries but records.warp has 3" in _error(path)


def test_block_outside_the_recorded_subset(tmp_path):
    doc = trace(launch(blocks_recorded=[[1, 0, 0]], rows=[((0, 0, 0), 0, 0, FULL, strided(4))]))
    assert "launch 0, record 0: block [0, 0, 0] is not in blocks_recorded" in _error(_write(tmp_path, doc))


def test_blocks_total_must_match_grid(tmp_path):
    doc = trace(launch(blocks_total=3))
    assert "blocks_total 3 differs from the grid [2, 1, 1] (2 blocks)" in _error(_write(tmp_path, doc))


def test_duplicate_site_and_launch_ids(tmp_path):
    doc = trace(launch(sites=[site(0), site(0)]))
    assert "site id 0 appears twice" in _error(_write(tmp_path, doc, "a.json"))
    doc = trace(launch(), launch())
    assert "launch index 0 appears twice" in _error(_write(tmp_path, doc, "b.json"))


def test_npz_errors_name_the_file(tmp_path):
    path = save(trace(launch(rows=random_rows(50))), tmp_path / "t.json", binary=True)
    npz = tmp_path / "t.npz"
    npz.write_bytes(npz.read_bytes()[:200])
    assert "t.npz" in _error(path)
    npz.unlink()
    assert f"records file {npz} does not exist" in _error(path)


def test_npz_missing_array(tmp_path):
    path = save(trace(launch(rows=random_rows(5))), tmp_path / "t.json", binary=True)
    with np.load(tmp_path / "t.npz") as archive:
        kept = {name: archive[name] for name in archive.files if name != "0/active"}
    np.savez(tmp_path / "t.npz", **kept)
    assert "has no array '0/active'" in _error(path)


def test_npz_truncated_member_is_reported(tmp_path):
    """A member whose data stops early (the writer died) is an error, not silently short data."""
    path = save(trace(launch(rows=random_rows(5))), tmp_path / "t.json", binary=True)
    with np.load(tmp_path / "t.npz") as archive:
        members = {name: archive[name] for name in archive.files}
    with zipfile.ZipFile(tmp_path / "t.npz", "w") as archive:
        for name, array in members.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, array)
            data = buffer.getvalue()
            archive.writestr(f"{name}.npy", data[:-64] if name == "0/addresses" else data)
    assert "0/addresses.npy ends early" in _error(path)


def test_npz_record_errors_count_from_the_launch_start(tmp_path):
    rows = random_rows(30)
    rows[25] = ((0, 0, 0), 0, 0, FULL, strided(4, base=10**6))
    doc = trace(launch(rows=[]))
    doc["launches"][0]["records"] = {k: np.asarray(v) for k, v in zip(
        RECORD_FIELDS, zip(*rows, strict=True), strict=True)}
    doc["launches"][0]["records"]["block"] = doc["launches"][0]["records"]["block"].reshape(-1, 3)
    arrays = {f"0/{k}": v for k, v in doc["launches"][0].pop("records").items()}
    np.savez(tmp_path / "t.npz", **arrays)
    doc["launches"][0]["records_file"] = "t.npz"
    path = _write(tmp_path, doc)
    with pytest.raises(BankismError, match=r"launch 0, record 25: lane 0 address 1000000 is outside"):
        list(iter_records(path, 0, chunk=10))


def test_unknown_launch_index(tmp_path):
    path = save(trace(launch(index=4)), tmp_path / "t.json")
    with pytest.raises(BankismError, match=r"no launch 1 \(the trace holds launches 4\)"):
        list(iter_records(path, 1))


def test_saving_a_header_without_records_is_refused(tmp_path):
    path = save(trace(launch(rows=random_rows(5))), tmp_path / "t.json", binary=True)
    header = open_trace(path).doc
    with pytest.raises(BankismError, match="records are still in t.npz"):
        save(header, tmp_path / "copy.json")
