"""`analyze --threads N`, and the npz reader that feeds it: same answers on any thread count, damaged
members refused."""

from __future__ import annotations

import json
import zipfile

import numpy as np
import pytest

from bankism import BankismError
from bankism.analyze import analyze
from bankism.trace import open_trace, save
from tests.builders import launch, random_rows, site, trace
from tests.helpers import one_line_error, run_cli


@pytest.fixture
def mixed(tmp_path):
    """An npz trace of 30,000 records over four sites of different kinds, several chunks long."""
    sites = [site(0), site(1, width=8), site(2, op="store", width=16, sass="STS.128"),
             site(3, op="atomic", width=4, sass="ATOMS.ADD")]
    rows = random_rows(30_000, seed=5, sites=4, align=16)
    return save(trace(launch(sites=sites, rows=rows)), tmp_path / "mixed.json", binary=True)


def test_one_and_two_threads_give_the_same_report(mixed):
    opened = open_trace(mixed)
    one = analyze(opened, chunk=4096, threads=1).to_json()
    two = analyze(open_trace(mixed), chunk=4096, threads=2).to_json()
    assert one == two
    sites = one["launches"][0]["sites"]
    assert sum(s["executions"] for s in sites) == 30_000
    assert all(s["worst"] is not None for s in sites)


def test_threads_option(mixed):
    ran = run_cli("analyze", mixed, "--json", "--threads", "1")
    assert ran.returncode == 0 and ran.stderr == ""
    assert json.loads(ran.stdout)["launches"][0]["records"] == 30_000
    ran = run_cli("analyze", mixed, "--threads", "0")
    assert ran.stdout == "" and "threads must be an integer from 1" in one_line_error(ran)


def test_a_flipped_byte_in_a_stored_member_is_caught_by_its_crc(tmp_path, mixed):
    """np.savez stores members uncompressed: without the CRC check a flipped address would pass."""
    with np.load(mixed.with_suffix(".npz")) as archive:
        members = {name: archive[name] for name in archive.files}
    stored = tmp_path / "stored.npz"
    np.savez(stored, **members)
    doc = json.loads(mixed.read_text())
    doc["launches"][0]["records_file"] = stored.name
    path = tmp_path / "stored.json"
    path.write_text(json.dumps(doc))
    assert analyze(open_trace(path)).to_json()["launches"][0]["records"] == 30_000
    with zipfile.ZipFile(stored) as archive:
        info = archive.getinfo("0/addresses.npy")
    data = bytearray(stored.read_bytes())
    data[info.header_offset + 30 + len(info.filename) + len(info.extra) + 4096] ^= 0x10
    stored.write_bytes(bytes(data))
    with pytest.raises(BankismError, match="is damaged .*CRC"):
        analyze(open_trace(path))
