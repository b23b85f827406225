#!/usr/bin/env python3
"""Random warps for every shared ATOMS form (hw/atomics/random.cu), seed 20261125.

Each probe is one warp: a pool of 1-64 distinct words laid out over the banks in one of several ways
(uniform over the shared window, k banks with random rows, a contiguous histogram of n bins, one bank),
lanes drawing their word from the pool (uniformly, Zipf-skewed, in runs of lanes, or with one hot
word), under a full, random, contiguous or sparse active mask. The probes are shuffled so that any
prefix of the file holds every kind in proportion (the device run stops at a time limit).

Writes random_patterns.json (kind, kernel, family, name, width, atomic form, mask, addresses) and
random_patterns.txt (what the binary reads: id kernel mask off0..off31).
"""

from __future__ import annotations

import json
import os
import random
import sys

SEED = 20261125
FULL = 0xFFFFFFFF
LIMIT = 100 * 1024 - 16  # the probe's dynamic shared array (random.cu kSmemBytes), last legal offset

# kind -> (kernel, width, atomic form (bankism atomic_op, or the loop's name), SASS, probes)
KINDS = {
    "popc": ("rnd_popc", 4, "popc_inc", "ATOMS.POPC.INC.32", 5200),
    "redadd": ("rnd_redadd", 4, "add", "ATOMS.ADD", 500),
    "add": ("rnd_add_u32", 4, "add", "ATOMS.ADD", 300),
    "inc": ("rnd_inc_u32", 4, "inc", "ATOMS.INC", 300),
    "dec": ("rnd_dec_u32", 4, "dec", "ATOMS.DEC", 300),
    "mins": ("rnd_min_s32", 4, "min", "ATOMS.MIN.S32", 300),
    "maxs": ("rnd_max_s32", 4, "max", "ATOMS.MAX.S32", 300),
    "minu": ("rnd_min_u32", 4, "min", "ATOMS.MIN", 300),
    "maxu": ("rnd_max_u32", 4, "max", "ATOMS.MAX", 300),
    "and": ("rnd_and_b32", 4, "and", "ATOMS.AND", 300),
    "or": ("rnd_or_b32", 4, "or", "ATOMS.OR", 300),
    "xor": ("rnd_xor_b32", 4, "xor", "ATOMS.XOR", 300),
    "exch": ("rnd_exch_b32", 4, "exch", "ATOMS.EXCH", 400),
    "cas": ("rnd_cas_b32", 4, "cas", "ATOMS.CAS", 400),
    "exch64": ("rnd_exch_b64", 8, "exch", "ATOMS.EXCH.64", 400),
    "cas64": ("rnd_cas_b64", 8, "cas", "ATOMS.CAS.64", 400),
    "addf32": ("rnd_add_f32", 4, "add_f32", "LDS + ATOMS.CAST.SPIN loop", 600),
    "addu64": ("rnd_add_u64", 8, "add_u64", "LDS.64 + ATOMS.CAST.SPIN.64 loop", 600),
}


def pool_words(rng: random.Random, width: int) -> tuple[str, list[int]]:
    """(layout, unit indices): 1-64 distinct aligned units (width bytes each) laid out over the banks."""
    units = LIMIT // width
    groups = 128 // width  # bank groups: a unit's bank group is unit % groups
    size = rng.choice([rng.randint(1, 8), rng.randint(1, 32), rng.randint(1, 64), rng.randint(2, 64)])
    layout = rng.choice(["uniform", "banks", "banks", "histogram", "histogram", "one bank"])
    if layout == "histogram":
        bins = rng.choice([8, 16, 24, 32, 48, 64, 64, 96, 128, 256])
        start = rng.randrange(0, units - bins)
        return f"histogram {bins} bins", [start + b for b in rng.sample(range(bins), min(size, bins))]
    if layout == "uniform":
        return "uniform", rng.sample(range(units), size)
    banks = 1 if layout == "one bank" else rng.randint(1, min(groups, size))
    chosen = rng.sample(range(groups), banks)
    rows = units // groups
    words: set[int] = set()
    while len(words) < size:
        words.add(rng.randrange(rows) * groups + rng.choice(chosen))
    return f"{banks} bank group(s)", sorted(words, key=lambda _: rng.random())


def lane_words(rng: random.Random, pool: list[int]) -> tuple[str, list[int]]:
    """(draw, the unit of each lane): how the 32 lanes pick their word from the pool."""
    draw = rng.choice(["uniform", "uniform", "zipf", "runs", "hot"])
    if draw == "uniform":
        return draw, [rng.choice(pool) for _ in range(32)]
    if draw == "zipf":
        s = rng.uniform(0.5, 2.0)
        weights = [1 / (k + 1) ** s for k in range(len(pool))]
        return f"zipf {s:.2f}", rng.choices(pool, weights, k=32)
    if draw == "runs":
        out: list[int] = []
        while len(out) < 32:
            out += [rng.choice(pool)] * rng.randint(1, 8)
        return draw, out[:32]
    share = rng.uniform(0.2, 0.9)
    hot = rng.choice(pool)
    return f"hot {share:.2f}", [hot if rng.random() < share else rng.choice(pool) for _ in range(32)]


def active_mask(rng: random.Random) -> tuple[str, int]:
    """(kind, mask): full, random bits, one contiguous range, or a few lanes."""
    kind = rng.choices(["full", "random", "range", "few"], [55, 25, 12, 8])[0]
    if kind == "full":
        return kind, FULL
    if kind == "random":
        density = rng.uniform(0.1, 0.9)
        mask = sum(1 << lane for lane in range(32) if rng.random() < density)
        return kind, mask or 1 << rng.randrange(32)
    if kind == "range":
        lo = rng.randrange(32)
        hi = rng.randrange(lo, 32)
        return kind, ((1 << (hi + 1)) - 1) & ~((1 << lo) - 1)
    return kind, sum(1 << lane for lane in rng.sample(range(32), rng.randint(1, 4)))


def main() -> None:
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    rng = random.Random(SEED)
    probes = []
    for kind, (kernel, width, form, sass, count) in KINDS.items():
        for _ in range(count):
            layout, pool = pool_words(rng, width)
            draw, units = lane_words(rng, pool)
            mask_kind, mask = active_mask(rng)
            addresses = [u * width for u in units]
            assert all(0 <= a <= LIMIT and a % width == 0 for a in addresses)
            probes.append(
                {
                    "kind": kind,
                    "kernel": kernel,
                    "width": width,
                    "atomic_kind": form,
                    "sass": sass,
                    "family": "random",
                    "name": f"{layout}, pool {len(pool)}, {draw}, mask {mask_kind}",
                    "active": mask,
                    "addresses": addresses,
                }
            )
    rng.shuffle(probes)
    for k, probe in enumerate(probes):
        probe["id"] = k
    with open(os.path.join(out_dir, "random_patterns.json"), "w") as f:
        json.dump(
            {"format": "bankism-probe-patterns", "version": 1, "seed": SEED, "probes": probes},
            f,
            separators=(",", ":"),
        )
    with open(os.path.join(out_dir, "random_patterns.txt"), "w") as f:
        for p in probes:
            f.write(f"{p['id']} {p['kernel']} {p['active']} " + " ".join(map(str, p["addresses"])) + "\n")
    print(len(probes), "probes")


if __name__ == "__main__":
    main()
