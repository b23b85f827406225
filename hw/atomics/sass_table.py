#!/usr/bin/env python3
"""Print, per kernel of a `cuobjdump -sass` listing, the shared-memory-capable SASS it executes.

usage: sass_table.py LISTING.sass [...]   (hw/atomics/forms.cu: one kernel per atomic* source form,
result used and unused; hw/atomics/atomics.cu: the probes). Loop branches are not shown; an opcode
printed once per kernel body in program order.
"""
import re
import sys

SHARED = re.compile(r"^(LDS|STS|ATOMS|ATOM|RED|LD|ST|QSPC)(\.|$)")


def table(path):
    rows, name = {}, None
    with open(path) as lines:
        text = lines.read().splitlines(keepends=True)
    for line in text:
        found = re.search(r"Function : (\S+)", line)
        if found:
            name = found.group(1)
            rows[name] = []
            continue
        body = re.search(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Za-z0-9_.]*)", line)
        if name and body and SHARED.match(body.group(1)):
            rows[name].append(body.group(1))
    return rows


for listing in sys.argv[1:]:
    print(f"# {listing}")
    for kernel, ops in sorted(table(listing).items()):
        print(f"{kernel:28s} {' '.join(ops)}")
