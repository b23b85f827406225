#!/usr/bin/env python3
"""The configurations of hw/surplus/sweep.cu: one line per launch (name kernel iters blocks threads shn deg
hitlog wpriv). Families:

- ``st``/``ld``: 4-byte shared stores or loads after 0, 1, 2 or 4 float4 global loads per thread and
  iteration, dependent (DEP 1) or not, conflict-free or 4-way, loads that miss L1 (stream) or hit it;
- ``vec1``: the same with 4-byte global loads; ``wide``: 16-byte stores, 8-byte loads and stores;
- ``occupancy``: threads per block and blocks per SM; ``shn``: shared ops per global load;
- ``repeat``: three launches of the same configuration (run-to-run spread);
- ``atomic``: ATOMS.ADD, POPC.INC and the float-add loop from 1, 8 or 32 warps of a block, on the same
  words for every warp (wpriv 0) or on words of their own, with and without global loads.

Usage: python3 hw/surplus/gen_sweep.py [FOLDER]   (writes sweep_configs.txt and sweep2_configs.txt)
"""

from __future__ import annotations

import sys

STREAM, HIT = 24, 10
BASE = {
    "iters": 32,
    "blocks": 264,
    "threads": 256,
    "shn": 4,
    "deg": 1,
    "hitlog": STREAM,
    "wpriv": 0,
    "gs": 0,
    "bar": 0,
}


def kernel(op: str, gl: int, vec: int = 4, dep: int = 0) -> str:
    if gl == 0:
        vec, dep = 4, 0
    return f"{op}_gl{gl}_v{vec}_dep{dep}"


def configs() -> list[tuple[str, str, dict[str, int]]]:
    rows: list[tuple[str, str, dict[str, int]]] = []

    def add(family: str, name: str, k: str, **changes: int) -> None:
        rows.append((f"{family}:{name}", k, {**BASE, **changes}))

    for op in ("st32", "ld32"):
        for deg in (1, 4):
            add(op[:2], f"gl0_deg{deg}", kernel(op, 0), deg=deg)
        for gl in (1, 2, 4):
            for dep in (0, 1):
                for deg in (1, 4):
                    for hit, hitlog in (("stream", STREAM), ("hit", HIT)):
                        add(
                            op[:2],
                            f"gl{gl}_dep{dep}_deg{deg}_{hit}",
                            kernel(op, gl, 4, dep),
                            deg=deg,
                            hitlog=hitlog,
                        )
        for gl in (1, 4):
            for dep in (0, 1):
                add("vec1", f"{op}_gl{gl}_dep{dep}", kernel(op, gl, 1, dep))
    for op in ("st128", "ld64", "st64"):
        add("wide", f"{op}_gl0", kernel(op, 0))
        for dep in (0, 1):
            add("wide", f"{op}_gl2_dep{dep}", kernel(op, 2, 4, dep))
    shapes = (
        (32, 132),
        (64, 132),
        (128, 132),
        (256, 132),
        (512, 132),
        (1024, 132),
        (1024, 264),
        (256, 528),
        (256, 1056),
    )
    for op, dep in (("st32", 1), ("ld32", 0)):
        for threads, blocks in shapes:
            add(
                "occupancy",
                f"{op}_t{threads}_b{blocks}",
                kernel(op, 2, 4, dep),
                threads=threads,
                blocks=blocks,
            )
        for shn in (1, 2, 8, 16):
            add("shn", f"{op}_shn{shn}", kernel(op, 2, 4, dep), shn=shn)
        for r in range(3):
            add("repeat", f"{op}_gl2_dep{dep}_r{r}", kernel(op, 2, 4, dep))
    for op in ("atomadd", "popc", "fadd"):
        for gl in (0, 2):
            for deg in (1, 0):
                for threads in (32, 256, 1024) if deg == 1 else (32, 1024):
                    for wpriv in (512,) if threads == 32 else (0, 512):
                        shared = "same words" if wpriv == 0 else "own words"
                        add(
                            "atomic",
                            f"{op}_gl{gl}_deg{deg}_t{threads}_{shared.replace(' ', '_')}",
                            kernel(op, gl, 4, 0),
                            threads=threads,
                            blocks=132,
                            deg=deg,
                            wpriv=wpriv,
                            iters=16,
                        )
    return rows


def configs2() -> list[tuple[str, str, dict[str, int]]]:
    """The second run: global stores (``stg``), block-synchronous phases (``bar``), atomics whose global
    loads hit L1 or that only store (``atomic2``), and repeats at full occupancy."""
    rows: list[tuple[str, str, dict[str, int]]] = []

    def add(family: str, name: str, k: str, **changes: int) -> None:
        rows.append((f"{family}:{name}", k, {**BASE, **changes}))

    for gs in (1, 2, 4):
        for deg in (1, 4):
            add("stg", f"ld32_gl0_gs{gs}_deg{deg}", kernel("ld32", 0), gs=gs, deg=deg)
        add("stg", f"st32_gl0_gs{gs}", kernel("st32", 0), gs=gs)
    for gs in (1, 2):
        add("stg", f"ld32_gl2_dep0_gs{gs}", kernel("ld32", 2, 4, 0), gs=gs)
    add("stg", "ld64_gl2_dep0_gs2", kernel("ld64", 2, 4, 0), gs=2)
    add("stg", "ld32_gl2_dep0_gs2_hit", kernel("ld32", 2, 4, 0), gs=2, hitlog=HIT)
    for threads, blocks in ((256, 132), (256, 264), (512, 132), (1024, 132)):
        add(
            "bar",
            f"st32_gl2_dep1_t{threads}_b{blocks}",
            kernel("st32", 2, 4, 1),
            threads=threads,
            blocks=blocks,
            bar=1,
        )
        add(
            "bar",
            f"st32_gl2_dep1_gs1_t{threads}_b{blocks}",
            kernel("st32", 2, 4, 1),
            threads=threads,
            blocks=blocks,
            bar=1,
            gs=1,
        )
    for threads in (256, 1024):
        add(
            "bar",
            f"ld32_gl2_dep1_gs1_t{threads}",
            kernel("ld32", 2, 4, 1),
            threads=threads,
            blocks=132,
            bar=1,
            gs=1,
        )
    add(
        "bar",
        "ld64_gl1_dep1_gs1_t1024",
        kernel("ld64", 1, 4, 1),
        threads=1024,
        blocks=132,
        bar=1,
        gs=1,
        shn=1,
    )
    add(
        "bar",
        "st64_gl1_dep1_gs1_t1024",
        kernel("st64", 1, 4, 1),
        threads=1024,
        blocks=132,
        bar=1,
        gs=1,
        shn=1,
    )
    for op in ("atomadd", "popc"):
        add(
            "atomic2",
            f"{op}_gl2_hit_t1024_same_words",
            kernel(op, 2, 4, 0),
            threads=1024,
            blocks=132,
            hitlog=HIT,
            iters=16,
        )
        add(
            "atomic2",
            f"{op}_gl0_gs2_t1024_same_words",
            kernel(op, 0),
            threads=1024,
            blocks=132,
            gs=2,
            iters=16,
        )
    for r in range(3):
        add("repeat2", f"st32_gl2_dep1_t1024_r{r}", kernel("st32", 2, 4, 1), threads=1024, blocks=132)
    return rows


def write(rows: list[tuple[str, str, dict[str, int]]], out: str) -> None:
    with open(out, "w") as f:
        for name, k, c in rows:
            f.write(
                f"{name} {k} {c['iters']} {c['blocks']} {c['threads']} {c['shn']} {c['deg']} {c['hitlog']} "
                f"{c['wpriv']} {c['gs']} {c['bar']}\n"
            )
    print(f"{len(rows)} configurations -> {out}")


def main() -> None:
    folder = sys.argv[1] if len(sys.argv) > 1 else "hw/surplus"
    write(configs(), f"{folder}/sweep_configs.txt")
    write(configs2(), f"{folder}/sweep2_configs.txt")


if __name__ == "__main__":
    main()
