"""Thread-block clusters (bankism.capture.cluster, device run 13, traces/cluster/, hw/cluster/dsmem.cu).

In a cluster launch the Sanitizer API gives shared addresses in the cluster's window, the block's rank above
bit 24: a public cluster program (rank 1's accesses at 0x1000400) failed `record` with "address outside the
launch's shared memory". A block's own accesses now keep their 24-bit offset; a lane in another block's
shared memory moves the warp-instruction to the launch's ``distributed_shared`` list (not simulated).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bankism.analyze import analyze
from bankism.capture import cluster
from bankism.capture import convert as tracing
from bankism.capture.disasm import SassInstruction
from bankism.capture.raw import FLAG_WRITE, KIND_SHARED, RECORD_DTYPE
from bankism.trace import load, open_trace, save, validate

ROOT = Path(__file__).parent.parent
FULL = 0xFFFFFFFF
START = 0x7000_0000
SASS = {"_Z1kv": {0x100: SassInstruction("STS", "/src/k.cu", 7),
                  0x200: SassInstruction("UCGABAR_ARV", "/src/k.cu", 8),
                  0x180: SassInstruction("ATOMS.ADD", "/src/k.cu", 9)}}


def _record(pc: int, rank: int, addresses, block: int = 0, kind: int = KIND_SHARED) -> np.ndarray:
    record = np.zeros(1, RECORD_DTYPE)
    record["pc"], record["kind"], record["active"], record["width"] = START + pc, kind | rank << 16, FULL, 4
    record["block"] = (block, 0, 0)
    record["flags"] = FLAG_WRITE
    record["addresses"] = np.asarray(addresses, np.uint32)
    return record


def _launch() -> dict:
    return {"index": 0, "kernel": "k()", "mangled": "_Z1kv", "grid": [2, 1, 1], "block": [32, 1, 1],
            "static_shared": 256, "function_pc": START, "function_size": 0x1000, "dynamic_shared": 0}


def test_own_accesses_keep_their_offset_and_remote_ones_are_split_off():
    own = 1024 + 4 * np.arange(32)
    records = np.concatenate([
        _record(0x100, 0, own, block=0),                   # rank 0, its own memory
        _record(0x100, 1, (1 << 24) + own, block=1),       # rank 1, its own memory in the cluster window
        _record(0x180, 0, (1 << 24) + own, block=0),       # rank 0 into rank 1's memory
        _record(0x180, 1, own, block=1),                   # rank 1 into rank 0's memory
    ])
    local, remote = cluster.split_remote(records)
    assert local["addresses"].max() < 1 << 24 and (local["kind"] == KIND_SHARED).all()
    assert len(local) == 2 and len(remote) == 2 and (remote["pc"] == START + 0x180).all()
    launch = tracing.convert_launch(_launch(), records, SASS, "all")
    assert [s["pc"] for s in launch["sites"]] == [0x100]
    assert launch["distributed_shared"] == [{"pc": 0x180, "sass": "ATOMS.ADD", "file": "/src/k.cu", "line": 9,
                                             "op": "atomic", "executions": 2, "lanes": 64}]
    document = {"format": "bankism-trace", "version": 1, "environment": {"arch": "sm_90"},
                "launches": [launch]}
    validate(document)
    assert [entry["sass"] for entry in launch["unrecorded_shared"]] == ["UCGABAR_ARV"]


def test_records_without_a_rank_pass_unchanged():
    records = _record(0x100, 0, 1024 + 8 * np.arange(32))
    local, remote = cluster.split_remote(records)
    assert len(remote) == 0 and (local["addresses"] == records["addresses"]).all()


def test_a_cluster_launch_agrees_with_ncu_on_every_counter():
    """cluster_local: 264 blocks in clusters of 2, half of them rank 1; every counter equal but a 14-wavefront
    (0.2%) load surplus, the address-level counts exactly."""
    document = load(ROOT / "traces" / "cluster" / "cluster_local.json")
    launch = document["launches"][0]
    ranks = np.asarray(launch["records"]["block"])[:, 0] % 2
    assert (ranks == 1).sum() > 0 and np.asarray(launch["records"]["addresses"]).max() < 1 << 24
    report = analyze(open_trace(ROOT / "traces" / "cluster" / "cluster_local.json"), threads=1).launches[0]
    rows = {(row.op_class, row.metric): row for row in report.comparisons()}
    for op_class in ("ld", "st", "atom"):
        assert rows[(op_class, "instructions")].difference == 0
        assert rows[(op_class, "addressed")].difference == 0
    assert report.agrees() is True


def test_remote_atomics_are_named_as_distributed_shared_memory_not_printf():
    """cluster_remote: 1,056 remote atomic warp-instructions the tracer does not see; ncu counts 1,056 atom
    wavefronts with no instruction, address or conflict. The kernel's SASS has a cluster barrier and no
    runtime call, so the cause named is distributed shared memory."""
    report = analyze(open_trace(ROOT / "traces" / "cluster" / "cluster_remote.json"), threads=1).launches[0]
    rows = {(row.op_class, row.metric): row for row in report.comparisons()}
    atom = rows[("atom", "wavefronts")]
    assert (atom.measured, atom.predicted) == (1056, 0)
    assert "distributed shared memory" in atom.explanation and "printf" not in atom.explanation
    assert report.agrees() is True and report.unexplained_surplus() == []


def test_an_uncounted_atomic_surplus_without_printf_or_cluster_in_the_sass_is_not_explained(tmp_path):
    """The same counters in a kernel whose SASS (known) has neither a runtime call nor a cluster barrier."""
    document = load(ROOT / "traces" / "cluster" / "cluster_remote.json")
    document["launches"][0]["unrecorded_shared"] = []
    path = tmp_path / "no_cluster.json"
    save(document, path)
    report = analyze(open_trace(path), threads=1).launches[0]
    assert report.unexplained_surplus() == ["atom"]
    assert not any("printf" in row.explanation or "distributed" in row.explanation
                   for row in report.comparisons())
