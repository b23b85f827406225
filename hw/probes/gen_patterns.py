#!/usr/bin/env python3
"""Deterministic probe-pattern generator for the bankism hardware campaign.

Writes hw/probes/patterns.json (full metadata, one record per probe) and
hw/probes/patterns.txt (what the probe binary reads: id kernel mask off0..off31).

Every probe is one warp-wide shared-memory instruction of one kind.  Offsets
are bytes from the base of the dynamic shared-memory array (aligned to the
access width; < 100 KiB).  Re-running gives the same patterns (seeded).
"""
import json
import os
import random
import sys

FULL = 0xFFFFFFFF
LIMIT = 100 * 1024 - 16
HERE = os.path.dirname(os.path.abspath(__file__))

# kind -> (kernel, op, width, matrices, trans, atomic_kind, sass, ptx)
KINDS = {
    "ld1": ("probe_ld_u8", "load", 1, None, False, None, "LDS.U8", "ld.shared.u8"),
    "ld2": ("probe_ld_u16", "load", 2, None, False, None, "LDS.U16", "ld.shared.u16"),
    "ld4": ("probe_ld_u32", "load", 4, None, False, None, "LDS", "ld.shared.u32"),
    "ld8": ("probe_ld_v2u32", "load", 8, None, False, None, "LDS.64", "ld.shared.v2.u32"),
    "ld16": ("probe_ld_v4u32", "load", 16, None, False, None, "LDS.128", "ld.shared.v4.u32"),
    "st1": ("probe_st_u8", "store", 1, None, False, None, "STS.U8", "st.shared.u8"),
    "st2": ("probe_st_u16", "store", 2, None, False, None, "STS.U16", "st.shared.u16"),
    "st4": ("probe_st_u32", "store", 4, None, False, None, "STS", "st.shared.u32"),
    "st8": ("probe_st_v2u32", "store", 8, None, False, None, "STS.64", "st.shared.v2.u32"),
    "st16": ("probe_st_v4u32", "store", 16, None, False, None, "STS.128", "st.shared.v4.u32"),
    "aadd4": ("probe_atom_add_u32", "atomic", 4, None, False, "add", "ATOMS.ADD", "atom.shared.add.u32"),
    # sm_90 has no native 64-bit shared atomic add: ptxas emits LDS.64 + a
    # loop of ATOMS.CAST.SPIN.64 (compare-and-swap).  Measured as is.
    "aadd8": ("probe_atom_add_u64", "atomic", 8, None, False, "add",
              "LDS.64 + ATOMS.CAST.SPIN.64 loop (CAS emulation)", "atom.shared.add.u64"),
    "acas4": ("probe_atom_cas_b32", "atomic", 4, None, False, "cas", "ATOMS.CAS", "atom.shared.cas.b32"),
    "axch4": ("probe_atom_exch_b32", "atomic", 4, None, False, "exch", "ATOMS.EXCH", "atom.shared.exch.b32"),
    "acas8": ("probe_atom_cas_b64", "atomic", 8, None, False, "cas", "ATOMS.CAS.64", "atom.shared.cas.b64"),
    "axch8": ("probe_atom_exch_b64", "atomic", 8, None, False, "exch", "ATOMS.EXCH.64",
              "atom.shared.exch.b64"),
}
for m in (1, 2, 4):
    for t in (False, True):
        sfx = "_trans" if t else ""
        tq = ".trans" if t else ""
        ms = {1: "", 2: ".2", 4: ".4"}[m]
        KINDS[f"ldsm{m}{'t' if t else ''}"] = (
            f"probe_ldsm_x{m}{sfx}", "ldmatrix", 16, m, t, None,
            f"LDSM.16.{'MT88' if t else 'M88'}{ms}", f"ldmatrix.sync.aligned.m8n8.x{m}{tq}.shared.b16")
        KINDS[f"stsm{m}{'t' if t else ''}"] = (
            f"probe_stsm_x{m}{sfx}", "stmatrix", 16, m, t, None,
            f"STSM.16.{'MT88' if t else 'M88'}{ms}", f"stmatrix.sync.aligned.m8n8.x{m}{tq}.shared.b16")

SCALAR_KINDS = [k for k, v in KINDS.items() if v[1] in ("load", "store", "atomic")]
MATRIX_KINDS = [k for k, v in KINDS.items() if v[1] in ("ldmatrix", "stmatrix")]


def rup(x, m):
    return (x + m - 1) // m * m


class Gen:
    def __init__(self):
        self.probes = []

    def add(self, kind, family, name, addrs, active=FULL):
        kern, op, w, mats, trans, akind, sass, ptx = KINDS[kind]
        addrs = [int(a) for a in addrs]
        assert len(addrs) == 32, (name, len(addrs))
        for a in addrs:
            assert 0 <= a <= LIMIT, (kind, name, a)
            assert a % w == 0, (kind, name, a, w)
        mat_desc = "" if mats is None else f" x{mats:d}{' trans' if trans else ''}"
        rec = {"id": len(self.probes), "kind": kind, "kernel": kern, "family": family,
               "name": f"{op} w{w}{mat_desc}"
                       f"{'' if akind is None else ' ' + akind} {name}",
               "op": op, "width": w, "matrices": mats, "trans": trans,
               "sass": sass, "ptx": ptx, "active": active & FULL, "addresses": addrs}
        if akind is not None:
            rec["atomic_kind"] = akind
        self.probes.append(rec)


def scalar_patterns(g, kind, rng, full_strides):
    w = KINDS[kind][2]
    op = KINDS[kind][1]
    L = range(32)
    # --- stride s elements (0 = broadcast)
    strides = range(65) if full_strides else list(range(0, 34)) + [40, 48, 63, 64]
    for s in strides:
        g.add(kind, "stride", f"stride {s}", [i * s * w for i in L])
    # --- degree-d conflicts: lanes i and i+? land on the same bank, distinct words
    for d in ([1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 24, 32] if w != 4 else range(1, 33)):
        per = -(-32 // d)
        row = rup(max(per * w, 128), 128)
        g.add(kind, "degree", f"degree {d} (lane i -> (i%{d})*{row} + (i//{d})*{w})",
              [(i % d) * row + (i // d) * w for i in L])
    # --- byte strides (any multiple of width)
    for b in sorted(set([4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 48, 64, 68, 72, 96, 128, 132, 136,
                         256, 260, 264, 512, 1024])):
        if b % w == 0 and b // w not in strides:
            g.add(kind, "bytestride", f"byte stride {b}", [i * b for i in L])
    # --- row padding: [rows][cols+pad] column read (lane i = row i, column c)
    for cols in (8, 32) if w >= 8 else (16, 32, 64):
        for pad in range(5):
            for c in (0, 1):
                if c == 1 and pad not in (0, 1):
                    continue
                g.add(kind, "padding", f"column {c} of [32][{cols}+{pad}]",
                      [(i * (cols + pad) + c) * w for i in L])
    # --- pairs sharing address under lane xor x
    for x in (1, 2, 3, 4, 8, 16):
        reps = sorted(set(min(i, i ^ x) for i in L))
        rank = {r: k for k, r in enumerate(reps)}
        g.add(kind, "pairs", f"pairs xor {x} compact", [rank[min(i, i ^ x)] * w for i in L])
        g.add(kind, "pairs", f"pairs xor {x} lane-slot", [min(i, i ^ x) * w for i in L])
        g.add(kind, "pairs", f"pairs xor {x} stride 2", [min(i, i ^ x) * 2 * w for i in L])
        g.add(kind, "pairs", f"pairs xor {x} rank stride 32 words", [rank[min(i, i ^ x)] * 128 for i in L])
    # --- broken pairs: all pairs share except one lane
    for x in (1, 2):
        reps = sorted(set(min(i, i ^ x) for i in L))
        rank = {r: k for k, r in enumerate(reps)}
        for b in (0, 5, 31):
            a = [rank[min(i, i ^ x)] * w for i in L]
            a[b] = 16 * w * 2 + 128  # its own address, beyond the others
            g.add(kind, "broken_pairs", f"pairs xor {x}, lane {b} broken", a)
    # --- half-warp and quarter duplicates
    g.add(kind, "halfdup", "lanes 16-31 = lanes 0-15, contiguous", [(i % 16) * w for i in L])
    g.add(kind, "halfdup", "lanes 16-31 = lanes 0-15, stride 2", [(i % 16) * 2 * w for i in L])
    g.add(kind, "halfdup", "lanes 16-31 = lanes 0-15 reversed order",
          [(15 - (i % 16)) * w if i >= 16 else i * w for i in L])
    g.add(kind, "halfdup", "lanes 16-31 = lanes 0-15, stride 128B", [(i % 16) * 128 for i in L])
    g.add(kind, "halfdup", "quarter dup (i%8), contiguous", [(i % 8) * w for i in L])
    g.add(kind, "halfdup", "quarter dup (i%8), stride 128B", [(i % 8) * 128 for i in L])
    g.add(kind, "halfdup", "lane i = lane i+8 within half (i%8 + 16*(i//16))",
          [((i % 8) + 16 * (i // 16)) * w for i in L])
    # --- pools of k distinct addresses randomly assigned
    for k in (1, 2, 3, 4, 8, 16):
        for variant in ("random", "samebank"):
            if variant == "random":
                pool = rng.sample(range(0, 4096 // w), k)
                pool = [p * w for p in pool]
            else:
                pool = [r * 128 + 4 * rng.randrange(4) // w * w for r in rng.sample(range(64), k)]
            g.add(kind, "pool", f"pool of {k} {variant} addresses", [rng.choice(pool) for _ in L])
    # --- same bank, different words (n lanes), rest contiguous
    for n in (2, 4, 8, 16, 32):
        a = [i * w for i in L]
        for j in range(n):
            a[j] = j * 1024 + 4096
        g.add(kind, "samebank", f"{n} lanes same bank different rows, rest contiguous", a)
    # --- many lanes on the same address (hot spot), rest contiguous
    for n in (2, 3, 4, 8, 16, 31):
        a = [i * w for i in L]
        for j in range(n):
            a[j] = 2048
        g.add(kind, "hotspot", f"{n} lanes on one address, rest contiguous", a)
        if op == "atomic" or n in (4, 16):
            b = [i * 128 + 8192 for i in L]
            for j in range(n):
                b[j] = 2048
            g.add(kind, "hotspot", f"{n} lanes on one address, rest 32-way conflicting", b)
    # --- random active masks
    masks = [0x0000FFFF, 0xFFFF0000, 0x55555555, 0xAAAAAAAA, 0x000000FF, 0x80000001, 0x0F0F0F0F] + \
            [rng.getrandbits(32) for _ in range(5)]
    for m in masks:
        g.add(kind, "mask", f"mask {m:#010x} contiguous", [i * w for i in L], m)
        g.add(kind, "mask", f"mask {m:#010x} 32-way conflict (stride 128B)", [i * 128 for i in L], m)
    for m in masks[:4] + masks[-2:]:
        g.add(kind, "mask", f"mask {m:#010x} stride 2", [i * 2 * w for i in L], m)
    # --- single active lane
    for ln in (0, 13, 31):
        g.add(kind, "single", f"only lane {ln} active", [i * w * 3 + 64 for i in L], 1 << ln)
    # --- random aligned addresses
    nrand = 40 if w == 4 else 24
    for r in range(nrand):
        span = 4096 if r % 2 == 0 else 65536
        g.add(kind, "random", f"random aligned #{r} in [0,{span})",
              [rng.randrange(0, span // w) * w for _ in L])
    # --- random, with random partial mask
    for r in range(6):
        g.add(kind, "random", f"random aligned masked #{r}", [rng.randrange(0, 4096 // w) * w for _ in L],
              rng.getrandbits(32))
    # --- mixes of broadcast and conflicts
    g.add(kind, "mix", "even lanes broadcast, odd lanes stride 128B",
          [0 if i % 2 == 0 else i * 128 for i in L])
    g.add(kind, "mix", "lanes 0-15 broadcast, 16-31 contiguous", [0 if i < 16 else i * w for i in L])
    g.add(kind, "mix", "lanes 0-15 broadcast, 16-31 stride 128B", [256 if i < 16 else i * 128 for i in L])
    g.add(kind, "mix", "4 groups of 8 each broadcast, groups same bank", [(i // 8) * 128 for i in L])
    g.add(kind, "mix", "4 groups of 8 each broadcast, groups distinct banks", [(i // 8) * 16 for i in L])
    # --- high addresses (>= 32 KiB)
    g.add(kind, "high", "contiguous at 32 KiB", [32768 + i * w for i in L])
    g.add(kind, "high", "contiguous at 60 KiB", [61440 + i * w for i in L])
    g.add(kind, "high", "pairs low/high same bank (x and x+32 KiB)",
          [(i // 2) * w + (i % 2) * 32768 for i in L])
    g.add(kind, "high", "stride 2048B from 32 KiB", [32768 + i * 2048 for i in L])
    # --- sub-word lanes (1/2-byte): several lanes inside one 4-byte word
    if w < 4:
        per = 4 // w
        g.add(kind, "subword", f"{per} lanes per word, word stride 128B (same bank)",
              [(i // per) * 128 + (i % per) * w for i in L])
        g.add(kind, "subword", f"{per} lanes per word, consecutive words", [i * w for i in L])
        g.add(kind, "subword", f"{per} lanes per word but words at stride 2 words",
              [(i // per) * 8 + (i % per) * w for i in L])
        g.add(kind, "subword", "all lanes in word 0 (bytes cycle)", [(i % per) * w for i in L])
        g.add(kind, "subword", "pairs of lanes per word, word in same bank",
              [(i // 2) * 128 + (i % 2) * w for i in L])
        g.add(kind, "subword", "lanes in same bank different bytes & rows",
              [(i % 16) * 128 + ((i // 16) % per) * w for i in L])
        g.add(kind, "subword", "two lanes per word, lanes i and i+16",
              [(i % 16) * 4 + (i // 16) * w for i in L])
        for r in range(6):
            g.add(kind, "subword", f"random bytes in 8 words #{r}",
                  [rng.randrange(0, 32 // w) * w for _ in L])
            g.add(kind, "subword", f"random bytes in 8 rows of bank 0 #{r}",
                  [rng.randrange(8) * 128 + rng.randrange(per) * w for _ in L])


def matrix_patterns(g, kind, rng):
    m = KINDS[kind][3]
    n = 8 * m  # lanes whose addresses matter
    L = range(32)

    def fill(rows):
        """rows: addresses for lanes 0..n-1; other lanes repeat them (ignored)."""
        return [rows[i % n] for i in L]

    # stacked: matrix j row r = lane 8j+r at (8j+r)*S
    for S in (16, 32, 48, 64, 80, 96, 128, 144, 160, 192, 256, 272, 512):
        g.add(kind, "mat_stride", f"row stride {S}B (rows of matrices stacked)",
              fill([lane * S for lane in range(n)]))
    # side by side: row r of matrix j at r*S + j*16
    if m > 1:
        for S in (16 * m, 64, 128, 144, 256):
            if 16 * m > S:
                continue
            g.add(kind, "mat_side", f"matrices side by side, row stride {S}B",
                  fill([(lane % 8) * S + (lane // 8) * 16 for lane in range(n)]))
    if m == 4:
        for S in (32, 64, 80, 128, 144, 256):
            g.add(kind, "mat_afrag", f"A-fragment: lane l row l%16, col chunk l//16, row stride {S}B",
                  fill([(lane % 16) * S + (lane // 16) * 16 for lane in range(n)]))
    # 128-byte XOR swizzle: row r at r*128 + ((chunk ^ (r%8))*16)
    g.add(kind, "swizzle", "128B swizzle, stacked rows r=l, chunk 0",
          fill([lane * 128 + ((0 ^ (lane % 8)) * 16) for lane in range(n)]))
    g.add(kind, "swizzle", "128B swizzle, rows r=l%8, chunk=l//8",
          fill([(lane % 8) * 128 + (((lane // 8) ^ (lane % 8)) * 16) for lane in range(n)]))
    if m == 4:
        g.add(kind, "swizzle", "128B swizzle, A-fragment rows l%16, chunk l//16",
              fill([(lane % 16) * 128 + (((lane // 16) ^ (lane % 8)) * 16) for lane in range(n)]))
        g.add(kind, "swizzle", "128B swizzle, rows l%16, chunk 2*(l//16)",
              fill([(lane % 16) * 128 + (((2 * (lane // 16)) ^ (lane % 8)) * 16) for lane in range(n)]))
    g.add(kind, "swizzle", "64B swizzle, row r=l at r*64 + ((0 ^ (r//2)%4)*16)",
          fill([lane * 64 + ((0 ^ ((lane // 2) % 4)) * 16) for lane in range(n)]))
    g.add(kind, "swizzle", "broken swizzle: chunk ^ (r%4) with 128B rows",
          fill([lane * 128 + ((lane % 4) * 16) for lane in range(n)]))
    # all rows same address
    g.add(kind, "mat_same", "all rows same address", fill([0] * n))
    g.add(kind, "mat_same", "all rows same address at 4096", fill([4096] * n))
    # rows shared between matrices
    if m > 1:
        g.add(kind, "mat_shared", "every matrix uses matrix 0's rows (contiguous)",
              fill([(lane % 8) * 16 for lane in range(n)]))
        g.add(kind, "mat_shared", "every matrix uses matrix 0's rows (stride 128B)",
              fill([(lane % 8) * 128 for lane in range(n)]))
        if m == 4:
            g.add(kind, "mat_shared", "matrices 2,3 reuse rows of 0,1 (contiguous)",
                  fill([(lane % 16) * 16 for lane in range(n)]))
            g.add(kind, "mat_shared", "matrices 2,3 reuse rows of 0,1 (stride 128B)",
                  fill([(lane % 16) * 128 for lane in range(n)]))
    g.add(kind, "mat_shared", "rows pairwise equal (r and r^1), contiguous",
          fill([(lane // 2) * 16 for lane in range(n)]))
    g.add(kind, "mat_shared", "rows pairwise equal (r and r^1), stride 128B",
          fill([(lane // 2) * 128 for lane in range(n)]))
    # random rows
    for r in range(8):
        span = 4096 if r < 5 else 65536
        g.add(kind, "mat_random", f"random 16B rows #{r} in [0,{span})",
              fill([rng.randrange(span // 16) * 16 for _ in range(n)]))
    for r in range(3):
        g.add(kind, "mat_random", f"random rows among 8 rows of 128B bank-aligned #{r}",
              fill([rng.randrange(8) * 128 for _ in range(n)]))
    # high addresses
    g.add(kind, "high", "contiguous rows at 32 KiB", fill([32768 + lane * 16 for lane in range(n)]))
    g.add(kind, "high", "row stride 128B at 48 KiB", fill([49152 + lane * 128 for lane in range(n)]))
    # unused lanes: do their addresses matter?
    if m < 4:
        rows = [lane * 16 for lane in range(n)]
        g.add(kind, "unused_lanes", "contiguous rows, unused lanes 32-way conflicting",
              rows + [8192 + 128 * i for i in range(32 - n)])
        g.add(kind, "unused_lanes", "contiguous rows, unused lanes = 0", rows + [0] * (32 - n))
        rows = [lane * 128 for lane in range(n)]
        g.add(kind, "unused_lanes", "stride 128B rows, unused lanes contiguous",
              rows + [8192 + 16 * i for i in range(32 - n)])


LITE_KINDS = ("acas4", "axch4", "acas8", "axch8")


def lite_keep(p):
    f, n = p["family"], p["name"]
    if f == "stride":
        s = int(n.rsplit(" ", 1)[1])
        return s <= 8 or s in (16, 32, 64)
    if f == "degree":
        d = int(n.split("degree ", 1)[1].split(" ", 1)[0])
        return d in (1, 2, 3, 4, 8, 16, 32)
    if f == "pairs":
        return n.endswith("compact")
    if f in ("hotspot", "mix", "high", "single", "halfdup"):
        return True
    if f == "pool":
        return "random" in n
    if f == "mask":
        return "contiguous" in n
    if f == "random":
        return "masked" not in n and int(n.split("#", 1)[1].split(" ", 1)[0]) < 12
    return False


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else HERE
    rng = random.Random(20261123)
    g = Gen()
    for kind in SCALAR_KINDS:
        full = kind in ("ld4", "st4", "aadd4", "ld8", "ld16", "st8", "st16")
        start = len(g.probes)
        scalar_patterns(g, kind, rng, full)
        if kind in LITE_KINDS:  # cas/exch: a reduced set (device time); rng use unchanged
            kept = [p for p in g.probes[start:] if lite_keep(p)]
            del g.probes[start:]
            for p in kept:
                p["id"] = len(g.probes)
                g.probes.append(p)
    for kind in MATRIX_KINDS:
        matrix_patterns(g, kind, rng)
    with open(os.path.join(out_dir, "patterns.json"), "w") as f:
        json.dump({"format": "bankism-probe-patterns", "version": 1, "seed": 20261123,
                   "probes": g.probes}, f, separators=(",", ":"))
    with open(os.path.join(out_dir, "patterns.txt"), "w") as f:
        for p in g.probes:
            f.write(f"{p['id']} {p['kernel']} {p['active']} " + " ".join(map(str, p["addresses"])) + "\n")
    # small test subset (pipeline check): a few patterns of every kind, renumbered
    sub = [dict(p) for p in g.probes
           if (p["family"] == "stride" and p["name"].endswith((" stride 0", " stride 1", " stride 2")))
           or (p["family"] == "mat_stride" and (" 16B " in p["name"] or " 128B " in p["name"]))
           or (p["family"] == "hotspot" and p["op"] == "atomic"
               and "8 lanes on one address, rest contiguous" in p["name"])]
    for k, p in enumerate(sub):
        p["orig_id"] = p["id"]
        p["id"] = k
    with open(os.path.join(out_dir, "patterns_test.json"), "w") as f:
        json.dump({"format": "bankism-probe-patterns", "version": 1, "seed": 20261123, "probes": sub},
                  f, separators=(",", ":"))
    with open(os.path.join(out_dir, "patterns_test.txt"), "w") as f:
        for p in sub:
            f.write(f"{p['id']} {p['kernel']} {p['active']} " + " ".join(map(str, p["addresses"])) + "\n")
    print("test subset", len(sub))
    from collections import Counter
    c = Counter(p["kind"] for p in g.probes)
    print(len(g.probes), dict(c))


if __name__ == "__main__":
    main()
