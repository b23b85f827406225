"""Round trips of the trace format: inline JSON, the .npz sibling, streaming, atomic writes."""

from __future__ import annotations

import json
import threading
import zipfile

import jsonschema
import numpy as np
import pytest

from bankism import BankismError
from bankism.trace import RECORD_FIELDS, RECORD_LAYOUT, iter_records, load, save, schema
from bankism.trace import write as trace_write
from tests.builders import FULL, launch, random_rows, site, strided, trace


def _same_records(a: dict, b: dict) -> None:
    for field in RECORD_FIELDS:
        assert a[field].dtype == RECORD_LAYOUT[field][0]
        np.testing.assert_array_equal(a[field], b[field])


def test_inline_round_trip_keeps_header_and_records(tmp_path):
    doc = trace(launch(rows=random_rows(50, sites=1)))
    path = save(doc, tmp_path / "t.json")
    assert not (tmp_path / "t.npz").exists()
    loaded = load(path)
    original = doc["launches"][0]
    again = loaded["launches"][0]
    _same_records(again["records"], original["records"])
    assert {k: v for k, v in again.items() if k != "records"} == {
        k: v for k, v in original.items() if k != "records"
    }
    assert loaded["environment"] == doc["environment"]


def test_binary_round_trip_and_streaming(tmp_path):
    doc = trace(launch(rows=random_rows(1000, sites=1)), launch(index=3, rows=random_rows(10, seed=1)))
    path = save(doc, tmp_path / "big.json", binary=True)
    on_disk = json.loads(path.read_text())
    assert [item["records_file"] for item in on_disk["launches"]] == ["big.npz", "big.npz"]
    assert all("records" not in item for item in on_disk["launches"])
    with np.load(tmp_path / "big.npz") as archive:
        assert set(archive.files) == {f"{i}/{f}" for i in (0, 3) for f in RECORD_FIELDS}
    loaded = load(path)
    for position in (0, 1):
        for field in RECORD_FIELDS:
            np.testing.assert_array_equal(
                loaded["launches"][position]["records"][field], doc["launches"][position]["records"][field]
            )
    chunks = list(iter_records(path, 0, chunk=300))
    assert [c.start for c in chunks] == [0, 300, 600, 900]
    assert [len(c) for c in chunks] == [300, 300, 300, 100]
    joined = np.concatenate([c.addresses for c in chunks])
    np.testing.assert_array_equal(joined, doc["launches"][0]["records"]["addresses"])
    assert joined.dtype == np.int32  # addresses stay int32 from file to engine (RECORD_LAYOUT)


def test_large_launch_goes_to_npz_automatically(tmp_path, monkeypatch):
    monkeypatch.setattr(trace_write, "INLINE_RECORD_LIMIT", 20)
    save(trace(launch(rows=random_rows(21))), tmp_path / "a.json")
    save(trace(launch(rows=random_rows(20))), tmp_path / "b.json")
    assert (tmp_path / "a.npz").exists()
    assert not (tmp_path / "b.npz").exists()


def test_inline_iter_records_streams_too(tmp_path):
    path = save(trace(launch(rows=random_rows(25))), tmp_path / "t.json")
    assert [len(c) for c in iter_records(path, 0, chunk=10)] == [10, 10, 5]


@pytest.mark.parametrize("writer", [np.savez, np.savez_compressed])
def test_npz_written_by_numpy_is_read(tmp_path, writer):
    """Another writer may use np.savez(_compressed), int64 addresses, or Fortran-ordered arrays."""
    doc = trace(launch(rows=random_rows(40)))
    arrays = doc["launches"][0].pop("records")
    doc["launches"][0]["records_file"] = "other.npz"
    writer(
        tmp_path / "other.npz",
        **{"0/block": np.asfortranarray(arrays["block"]), "0/warp": arrays["warp"].astype(np.int64),
           "0/site": arrays["site"], "0/active": arrays["active"], "0/addresses": arrays["addresses"]},
    )
    (tmp_path / "other.json").write_text(json.dumps(doc))
    loaded = load(tmp_path / "other.json")
    _same_records(loaded["launches"][0]["records"], arrays)
    assert "records_file" not in loaded["launches"][0]


def test_empty_launch_round_trips(tmp_path):
    doc = trace(launch(rows=[]))
    for binary in (False, True):
        loaded = load(save(doc, tmp_path / f"e{binary}.json", binary=binary))
        assert loaded["launches"][0]["records"]["addresses"].shape == (0, 32)


def test_shipped_schema_is_valid_and_agrees_on_a_small_inline_trace(tmp_path):
    jsonschema.Draft202012Validator.check_schema(schema())
    path = save(trace(launch(rows=random_rows(3))), tmp_path / "t.json")
    document = json.loads(path.read_text())
    jsonschema.validate(document, schema())
    addresses = document["launches"][0]["records"]["addresses"]
    addresses[1] = addresses[1][:31]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, schema())
    path.write_text(json.dumps(document))
    with pytest.raises(BankismError, match=r"launch 0, record 1: addresses is .*expected a list of 32"):
        load(path)


def test_save_is_atomic_when_writing_fails(tmp_path, monkeypatch):
    path = save(trace(launch()), tmp_path / "t.json")
    before = path.read_text()

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(trace_write, "_write_npz", broken)
    with pytest.raises(BankismError, match="cannot write: disk full"):
        save(trace(launch(rows=random_rows(5))), path, binary=True)
    assert path.read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]


def test_save_refuses_an_invalid_document_and_writes_nothing(tmp_path):
    bad = trace(launch(rows=[((0, 0, 0), 0, 0, FULL, strided(4, base=10**6))]))
    with pytest.raises(BankismError, match="outside the launch's shared memory"):
        save(bad, tmp_path / "t.json")
    assert list(tmp_path.iterdir()) == []


def test_matrix_sites_check_only_their_row_lanes(tmp_path):
    """ldmatrix .x1 reads row addresses from lanes 0-7; what other lanes hold is not an address."""
    rows = strided(16)[:8] + [7] * 24
    doc = trace(launch(sites=[site(0, op="ldmatrix", width=16, matrices=1)],
                       rows=[((0, 0, 0), 0, 0, FULL, rows)]))
    loaded = load(save(doc, tmp_path / "m.json"))
    assert loaded["launches"][0]["records"]["addresses"][0, 8] == 7


def test_inactive_lanes_are_not_checked(tmp_path):
    addresses = strided(4)
    addresses[5] = 3
    doc = trace(launch(rows=[((0, 0, 0), 0, 0, FULL & ~(1 << 5), addresses)]))
    loaded = load(save(doc, tmp_path / "t.json"))
    records = loaded["launches"][0]["records"]
    assert records["active"][0] == FULL & ~(1 << 5)
    assert records["addresses"][0, 5] == 3


def test_dynamic_shared_memory_may_start_after_alignment_padding(tmp_path):
    """Measured on H100: __align__(1024) dynamic memory after 100 static bytes starts at byte 2048."""
    sizes = {"static": 100, "dynamic": 256}
    fits = trace(launch(shared_bytes=sizes, rows=[((0, 0, 0), 0, 0, FULL, strided(4, base=2048))]))
    save(fits, tmp_path / "ok.json")
    past = trace(launch(shared_bytes=sizes, rows=[((0, 0, 0), 0, 0, FULL, strided(4, base=2180))]))
    with pytest.raises(BankismError, match=r"record 0: lane 31 address 2304 is outside"):
        save(past, tmp_path / "bad.json")


def test_record_chunk_dict_matches_fields(tmp_path):
    path = save(trace(launch(rows=random_rows(4))), tmp_path / "t.json")
    chunk = next(iter_records(path, 0))
    assert list(chunk.as_dict()) == list(RECORD_FIELDS)


def test_zip_of_the_npz_holds_npy_members(tmp_path):
    save(trace(launch(rows=random_rows(5))), tmp_path / "t.json", binary=True)
    with zipfile.ZipFile(tmp_path / "t.npz") as archive:
        assert sorted(archive.namelist()) == sorted(f"0/{f}.npy" for f in RECORD_FIELDS)


def test_stopping_a_stream_early_releases_the_reader(tmp_path):
    path = save(trace(launch(rows=random_rows(100))), tmp_path / "t.json", binary=True)
    before = threading.active_count()
    stream = iter_records(path, 0, chunk=10)
    assert next(stream).start == 0
    stream.close()
    assert threading.active_count() == before
