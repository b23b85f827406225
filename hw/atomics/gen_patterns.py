#!/usr/bin/env python3
"""Deterministic patterns for the shared-atomic probes (hw/atomics/atomics.cu), seed 20261124.

Writes patterns.json (one record per probe, the format of hw/probes/patterns.json) and patterns.txt
(what the binary reads: id kernel mask off0..off31). Reuses the pattern families of
hw/probes/gen_patterns.py and adds the ones that separate the atomic hypotheses:
``groups`` (g addresses of m lanes each, in one bank or in distinct banks), ``bins`` (random bins
of a 256-word histogram, uniform or skewed, full or partial masks) and ``split`` (two words of one
bank with unequal lane counts).
"""
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "probes"))
import gen_patterns as base  # noqa: E402

FULL = base.FULL

# kind -> (kernel, op, width, matrices, trans, atomic_kind, sass, ptx)
NATIVE = {
    "popc": ("probe_red_add1_u32", 4, "popc_inc", "ATOMS.POPC.INC.32", "red.shared.add.u32 [a], 1"),
    "redadd": ("probe_red_addv_u32", 4, "add", "ATOMS.ADD", "red.shared.add.u32 [a], lane+1"),
    "add": ("probe_atom_add_u32", 4, "add", "ATOMS.ADD", "atom.shared.add.u32"),
    "inc": ("probe_atom_inc_u32", 4, "inc", "ATOMS.INC", "atom.shared.inc.u32"),
    "dec": ("probe_atom_dec_u32", 4, "dec", "ATOMS.DEC", "atom.shared.dec.u32"),
    "mins": ("probe_atom_min_s32", 4, "min", "ATOMS.MIN.S32", "atom.shared.min.s32"),
    "maxs": ("probe_atom_max_s32", 4, "max", "ATOMS.MAX.S32", "atom.shared.max.s32"),
    "minu": ("probe_atom_min_u32", 4, "min", "ATOMS.MIN", "atom.shared.min.u32"),
    "maxu": ("probe_atom_max_u32", 4, "max", "ATOMS.MAX", "atom.shared.max.u32"),
    "and": ("probe_atom_and_b32", 4, "and", "ATOMS.AND", "atom.shared.and.b32"),
    "or": ("probe_atom_or_b32", 4, "or", "ATOMS.OR", "atom.shared.or.b32"),
    "xor": ("probe_atom_xor_b32", 4, "xor", "ATOMS.XOR", "atom.shared.xor.b32"),
}
LOOPS = {
    "addf32": ("probe_atom_add_f32", 4, "add_f32", "LDS + ATOMS.CAST.SPIN loop", "atom.shared.add.f32"),
    "addf64": ("probe_atom_add_f64", 8, "add_f64", "LDS.64 + ATOMS.CAST.SPIN.64 loop", "atom.shared.add.f64"),
    "maxu64": ("probe_atom_max_u64", 8, "max", "LDS.64 + ATOMS.CAST.SPIN.64 loop", "atom.shared.max.u64"),
    "andb64": ("probe_atom_and_b64", 8, "and", "LDS.64 + ATOMS.CAST.SPIN.64 loop", "atom.shared.and.b64"),
    "addf16x2": ("probe_atom_add_f16x2", 4, "add_f16x2", "LDS + ATOMS.CAST.SPIN loop",
                 "atom.shared.add.noftz.f16x2"),
    "addf16": ("probe_atom_add_f16", 2, "add_f16", "LDS + ATOMS.CAS loop on the enclosing word",
               "atom.shared.add.noftz.f16"),
    "casb16": ("probe_atom_cas_b16", 2, "cas_b16", "LDS + ATOMS.CAS loop on the enclosing word",
               "atom.shared.cas.b16"),
    "srchalf": ("probe_src_half_add", 2, "add_f16", "LD.E + ATOM.E.CAS.STRONG.GPU loop (generic)",
                "atomicAdd(__half*) (cuda_fp16.h: atom.add.noftz.f16 on a generic address)"),
    "srchalf2": ("probe_src_half2_add", 4, "add_f16x2",
                 "ATOM.E.ADD.F16x2 (generic), then QSPC.E.S + LDS + ATOMS.CAST.SPIN loop",
                 "atomicAdd(__half2*) (cuda_fp16.h: atom.add.noftz.f16x2 on a generic address)"),
    "srcbf16": ("probe_src_bf16_add", 2, "add_bf16", "LD.E + ATOM.E.CAS.STRONG.GPU loop (generic)",
                "atomicAdd(__nv_bfloat16*) (cuda_bf16.h: atom.add.noftz.bf16 on a generic address)"),
}
for name, (kernel, width, akind, sass, ptx) in {**NATIVE, **LOOPS}.items():
    base.KINDS[name] = (kernel, "atomic", width, None, False, akind, sass, ptx)


def extra_patterns(g, kind, rng, small=False):
    """The families that separate 'lanes on one address are merged' from 'served one per pass'."""
    w = base.KINDS[kind][2]
    L = range(32)
    shapes = [(2, 16), (4, 8), (8, 4), (16, 2), (2, 2), (4, 4), (3, 5), (8, 2), (32, 1), (1, 32)]
    if small:
        shapes = [(2, 16), (4, 8), (16, 2), (3, 5)]
    for groups, per in shapes:
        lanes = groups * per
        mask = FULL if lanes == 32 else (1 << lanes) - 1
        same = [((i // per) * 128 + 8) if i < lanes else 0 for i in L]
        g.add(kind, "groups", f"{groups} addresses x {per} lanes, one bank", same, mask)
        if not small:
            spread = [((i // per) * (w if w >= 4 else 4)) if i < lanes else 0 for i in L]
            g.add(kind, "groups", f"{groups} addresses x {per} lanes, distinct banks", spread, mask)
            shuffled = list(range(lanes))
            rng.shuffle(shuffled)
            mixed = [0] * 32
            for j, lane in enumerate(shuffled):
                mixed[lane] = (j // per) * 128 + 8
            g.add(kind, "groups", f"{groups} addresses x {per} lanes, one bank, lanes shuffled", mixed, mask)
    for hot, cold in ((31, 1), (16, 1), (24, 8), (1, 1)):
        a = [0] * 32
        for i in range(hot):
            a[i] = 64
        for i in range(hot, hot + cold):
            a[i] = 64 + 128 * (i - hot + 1)
        g.add(kind, "split", f"{hot} lanes on one word, {cold} on other words of its bank", a,
              (1 << (hot + cold)) - 1 if hot + cold < 32 else FULL)
    if w not in (2, 4):
        return
    nbins = 8 if small else 18
    for r in range(nbins):
        warp = r % 8
        if r % 3 == 2:
            bins = [rng.randrange(16) if rng.random() < 0.5 else rng.randrange(256) for _ in L]
            label = "skewed (half from 16 hot bins)"
        else:
            bins = [rng.randrange(256) for _ in L]
            label = "uniform"
        mask = rng.getrandbits(32) if r % 4 == 3 else FULL
        g.add(kind, "bins", f"256 bins {label} #{r}, sub-histogram {warp}",
              [warp * 1024 + b * w for b in bins], mask)


def keep_small(p):
    """A short list for the loop forms: enough to see one-iteration and contended behaviour."""
    f, n = p["family"], p["name"]
    if f == "stride":
        return n.endswith((" stride 0", " stride 1", " stride 2", " stride 16", " stride 32"))
    if f == "degree":
        return "degree 2 " in n or "degree 4 " in n or "degree 32 " in n
    if f == "hotspot":
        return "rest contiguous" in n and any(f" {k} lanes" in n for k in ("2", "8", "31"))
    if f == "mask":
        return "contiguous" in n and any(m in n for m in ("0x0000ffff", "0x55555555", "0x80000001"))
    if f == "single":
        return "lane 0 " in n
    if f == "random":
        return "masked" not in n and int(n.split("#", 1)[1].split(" ", 1)[0]) < 4
    if f == "pairs":
        return "xor 1 compact" in n
    return f in ("halfdup",) and "quarter dup (i%8), contiguous" in n


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else HERE
    rng = random.Random(20261124)
    g = base.Gen()
    for kind in NATIVE:
        start = len(g.probes)
        base.scalar_patterns(g, kind, rng, False)
        if kind != "popc":  # POPC.INC gets every family; the others the lite set of hw/probes
            keep = base.lite_keep if kind in ("inc", "minu", "or") else keep_small
            kept = [p for p in g.probes[start:] if keep(p)]
            del g.probes[start:]
            g.probes.extend(kept)
        extra_patterns(g, kind, rng, small=kind not in ("popc", "add"))
    for kind in LOOPS:
        start = len(g.probes)
        base.scalar_patterns(g, kind, rng, False)
        keep = base.lite_keep if kind in ("addf32",) else keep_small
        kept = [p for p in g.probes[start:] if keep(p)]
        del g.probes[start:]
        g.probes.extend(kept)
        extra_patterns(g, kind, rng, small=True)
    for k, p in enumerate(g.probes):
        p["id"] = k
    with open(os.path.join(out_dir, "patterns.json"), "w") as f:
        json.dump({"format": "bankism-probe-patterns", "version": 1, "seed": 20261124, "probes": g.probes},
                  f, separators=(",", ":"))
    with open(os.path.join(out_dir, "patterns.txt"), "w") as f:
        for p in g.probes:
            f.write(f"{p['id']} {p['kernel']} {p['active']} " + " ".join(map(str, p["addresses"])) + "\n")
    from collections import Counter
    print(len(g.probes), dict(Counter(p["kind"] for p in g.probes)))


if __name__ == "__main__":
    main()
