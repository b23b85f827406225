#!/usr/bin/env python3
"""Configurations for the cycles benchmark (hw/cycles/cycles.cu).

Writes configs.json (metadata) and configs.txt (id kernel mask off0..off31).
Each config = one kind + one 32-lane byte-offset pattern (the warp's pattern;
copy j of the 32 unrolled copies adds j*128 bytes, which keeps every lane's bank).

usage: gen_configs.py [OUTDIR]                 all 302 configs (configs.json/.txt)
       gen_configs.py --atomics-only OUTDIR    only the exch/cas atomics, ids from 0
                                               (configs_atomics.json/.txt; rows carry atomic_kind)
"""
import json
import os
import sys

FULL = 0xFFFFFFFF
HERE = os.path.dirname(os.path.abspath(__file__))

SCALAR = {  # kernel -> (op, width)
    "ld_u8": ("load", 1), "ld_u16": ("load", 2), "ld_u32": ("load", 4), "ld_v2u32": ("load", 8),
    "ld_v4u32": ("load", 16), "st_u8": ("store", 1), "st_u16": ("store", 2), "st_u32": ("store", 4),
    "st_v2u32": ("store", 8), "st_v4u32": ("store", 16), "atom_add_u32": ("atomic", 4),
    "atom_add_u64": ("atomic", 8),
}
ATOMICS = {  # kernel -> (op, width, atomic_kind); the --atomics-only set
    "atom_exch_b32": ("atomic", 4, "exch"), "atom_cas_b32": ("atomic", 4, "cas"),
    "atom_exch_b64": ("atomic", 8, "exch"), "atom_cas_b64": ("atomic", 8, "cas"),
}
MATRIX = {"ldsm_x1": ("ldmatrix", 1), "ldsm_x2": ("ldmatrix", 2), "ldsm_x4": ("ldmatrix", 4),
          "stsm_x1": ("stmatrix", 1), "stsm_x2": ("stmatrix", 2), "stsm_x4": ("stmatrix", 4)}


def rup(x, m):
    return (x + m - 1) // m * m


def main():
    atomics_only = len(sys.argv) > 1 and sys.argv[1] == "--atomics-only"
    args = sys.argv[2:] if atomics_only else sys.argv[1:]
    out_dir = args[0] if args else HERE
    stem = "configs_atomics" if atomics_only else "configs"
    rows = []

    def add(kern, op, w, mats, name, addrs, active=FULL):
        assert len(addrs) == 32 and all(a % w == 0 and 0 <= a <= 98000 for a in addrs), (kern, name)
        row = {"id": len(rows), "kernel": kern, "op": op, "width": w, "matrices": mats,
               "pattern": name, "addresses": [int(a) for a in addrs], "active": active}
        if kern in ATOMICS:
            row["atomic_kind"] = ATOMICS[kern][2]
        rows.append(row)

    L = range(32)
    kinds = ({k: (op, w) for k, (op, w, _) in ATOMICS.items()} if atomics_only else SCALAR)
    for kern, (op, w) in kinds.items():
        add(kern, op, w, None, "broadcast (all lanes same address)", [0] * 32)
        for s in (1, 2, 3, 4, 8, 16, 32):
            add(kern, op, w, None, f"stride {s}", [i * s * w for i in L])
        for d in (1, 2, 3, 4, 6, 8, 12, 16, 24, 32):
            per = -(-32 // d)
            row = rup(max(per * w, 128), 128)
            add(kern, op, w, None, f"degree {d}", [(i % d) * row + (i // d) * w for i in L])
        if w in (8, 16):
            add(kern, op, w, None, "pairs xor 1 compact", [(i // 2) * w for i in L])
            add(kern, op, w, None, "quads (i//4) compact", [(i // 4) * w for i in L])
        if op == "atomic":
            for n in (2, 4, 8, 16):
                a = [i * w for i in L]
                for j in range(n):
                    a[j] = 2048
                add(kern, op, w, None, f"{n} lanes on one address, rest contiguous", a)
            add(kern, op, w, None, "32 lanes, 16 distinct addresses (pairs xor 1) contiguous",
                [(i // 2) * w for i in L])
    for kern, (op, m) in ({} if atomics_only else MATRIX).items():
        n = 8 * m

        def fill(r, n=n):
            return [r[i % n] for i in L]
        add(kern, op, 16, m, "all rows same address", fill([0] * n))
        for S in (16, 32, 48, 64, 80, 128, 144, 256):
            add(kern, op, 16, m, f"row stride {S}B", fill([lane * S for lane in range(n)]))
        add(kern, op, 16, m, "128B swizzle rows r=l",
            fill([lane * 128 + ((lane % 8) * 16) for lane in range(n)]))
        add(kern, op, 16, m, "128B swizzle rows l%8 chunk l//8",
            fill([(lane % 8) * 128 + (((lane // 8) ^ (lane % 8)) * 16) for lane in range(n)]))
    with open(os.path.join(out_dir, stem + ".json"), "w") as f:
        json.dump({"format": "bankism-cycles-configs", "version": 1, "rows": rows}, f, separators=(",", ":"))
    with open(os.path.join(out_dir, stem + ".txt"), "w") as f:
        for r in rows:
            f.write(f"{r['id']} {r['kernel']} {r['active']} " + " ".join(map(str, r["addresses"])) + "\n")
    print(len(rows), "configs")


if __name__ == "__main__":
    main()
