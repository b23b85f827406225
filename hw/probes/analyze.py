#!/usr/bin/env python3
"""Compare measured probe wavefronts with simple textbook rules (for the report).

usage: analyze.py traces/probes/sm_90_probes.json [--list N]

Rules tried (all on active lanes only; 'word' = 4-byte-aligned word; a lane of
width w touches the words of [a, a+w)):
  T32   max over banks of distinct words  (whole warp)
  THALF textbook wide rule: 8 B -> half-warps (16 lanes) summed, 16 B -> quarter-warps
        (8 lanes) summed, each group = max over banks of distinct words; if every active
        lane i has addr[i] == addr[i^1] (or every one addr[i^2]) the groups merge:
        8 B -> whole warp, 16 B -> half-warps
  TMAT  ldmatrix/stmatrix: sum over the m matrices of (max over banks of distinct words
        among that matrix's 8 row addresses)
  TATOM atomics: max over banks of active lanes (same-address lanes NOT merged)
"""
import collections
import json
import sys


def words(a, w):
    return range(a // 4, (a + max(w, 4) - 1) // 4 + 1) if w >= 4 else [a // 4]


def maxbank(lanes, addrs, w):
    banks = collections.defaultdict(set)
    for i in lanes:
        for wd in words(addrs[i], w):
            banks[wd % 32].add(wd)
    return max((len(s) for s in banks.values()), default=0)


def active_lanes(p):
    return [i for i in range(32) if (p["active"] >> i) & 1]


def t32(p):
    return maxbank(active_lanes(p), p["addresses"], p["width"])


def thalf(p):
    w, a, act = p["width"], p["addresses"], active_lanes(p)
    if w <= 4:
        return t32(p)
    g = 128 // w  # lanes per group: 16 for 8 B, 8 for 16 B
    pair = any(all(a[i] == a[i ^ x] for i in act if (i ^ x) in act) and
               all(((i ^ x) in act) for i in act) for x in (1, 2))
    if pair:
        g *= 2
    tot = 0
    for s in range(0, 32, g):
        grp = [i for i in act if s <= i < s + g]
        if grp:
            tot += maxbank(grp, a, w)
    return tot


def tmat(p):
    m, a = p["matrices"], p["addresses"]
    return sum(maxbank(range(8 * j, 8 * j + 8), a, 16) for j in range(m))


def tatom(p):
    act, a, w = active_lanes(p), p["addresses"], p["width"]
    banks = collections.Counter()
    for i in act:
        for wd in words(a[i], w):
            banks[wd % 32] += 1
    return max(banks.values(), default=0)


def measured(p):
    c = p["counters"]
    return c["ld"]["wavefronts"] + c["st"]["wavefronts"] + c["atom"]["wavefronts"]


def conflicts(p):
    c = p["counters"]
    return c["ld"]["conflicts"] + c["st"]["conflicts"] + c["atom"]["conflicts"]


def main():
    with open(sys.argv[1]) as fh:
        d = json.load(fh)
    nlist = int(sys.argv[sys.argv.index("--list") + 1]) if "--list" in sys.argv else 6
    groups = collections.defaultdict(list)
    for p in d["probes"]:
        key = (p["op"], p["width"], p.get("matrices"), p.get("trans"), p.get("atomic_kind"))
        groups[key].append(p)
    for key, ps in groups.items():
        op = key[0]
        if op in ("ldmatrix", "stmatrix"):
            rules = {"TMAT": tmat, "T32": t32}
        elif op == "atomic":
            rules = {"TATOM": tatom, "T32": t32, "THALF": thalf}
        else:
            rules = {"T32": t32, "THALF": thalf}
        print(f"== {key}: {len(ps)} probes")
        for rn, f in rules.items():
            bad = [(p, f(p)) for p in ps if f(p) != measured(p)]
            print(f"   {rn:6s}: {len(ps) - len(bad)}/{len(ps)} match")
            if rn == list(rules)[0] or rn == "THALF":
                for p, t in bad[:nlist]:
                    print(f"      id {p['id']:4d} {p['name'][:75]:75s} measured {measured(p)} rule {t}")
        cf = collections.Counter((measured(p), conflicts(p)) for p in ps)
        print("   (wavefronts, conflicts) pairs:", sorted(cf.items())[:14])


if __name__ == "__main__":
    main()
