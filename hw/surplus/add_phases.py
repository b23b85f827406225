#!/usr/bin/env python3
"""Give the stored traces of our own surplus programs their stores' phases (``capture.phases``).

usage: python hw/surplus/add_phases.py NVCC NVDISASM   (from the repository root)

`bankism record` now writes each store site's ``phase`` (fed, before_loads, other) from the kernel's SASS. The
traces in traces/surplus/kernels were recorded before that: this builds each one's source as on the device
(nvcc -O3 -arch=sm_90 -lineinfo, the same CUDA 13.0.88), disassembles it, checks that every recorded site's
program counter holds the opcode the trace names (else it stops, changing nothing), and writes the phases into
the site objects, the rest of the file byte for byte as it was.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from bankism.capture.disasm import parse_nvdisasm
from bankism.capture.phases import store_phases
from bankism.trace.read import open_trace

ROOT = Path(__file__).resolve().parents[2]
SITE = re.compile(
    r'(\{\s*"id": (\d+),\s*"pc": (\d+),\s*"sass": "([^"]*)",\s*"op": "store",[^{}]*?"line": [^\n]*?)'
    r"(\n(\s*)\})"
)


def sass_of(source: Path, nvcc: str, nvdisasm: str) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        cubin = Path(folder) / "k.cubin"
        subprocess.run(
            [nvcc, "-O3", "-arch=sm_90", "-lineinfo", "-cubin", "-o", str(cubin), str(source)], check=True
        )
        return parse_nvdisasm(
            subprocess.run(
                [nvdisasm, "-gi", "-c", str(cubin)], check=True, capture_output=True, text=True
            ).stdout
        )


def main() -> None:
    nvcc, nvdisasm = sys.argv[1:3]
    built: dict[str, dict] = {}
    for path in sorted((ROOT / "traces" / "surplus" / "kernels").glob("*.json")):
        trace = open_trace(path)
        source = trace.doc["program"]["source"]
        functions = built.setdefault(source, sass_of(ROOT / source, nvcc, nvdisasm))
        phases: dict[int, str] = {}
        for launch in trace.launches:
            function = functions[launch.mangled]
            for site in launch.sites:
                if function[site.pc].opcode != site.sass:
                    raise SystemExit(
                        f"{path.name}: pc {site.pc:#x} is {function[site.pc].opcode}, "
                        f"the trace says {site.sass}"
                    )
            found = store_phases(function)
            phases.update(
                {site.pc: found.get(site.pc, "other") for site in launch.sites if site.op == "store"}
            )
        text = path.read_text()

        def add(match: re.Match, phases=phases) -> str:
            phase = phases[int(match.group(3))]
            return f'{match.group(1)},\n{match.group(6)}  "phase": "{phase}"{match.group(5)}'

        updated, count = SITE.subn(add, text)
        if count != len(phases) and len(trace.launches) == 1:
            raise SystemExit(f"{path.name}: {count} store sites in the text, {len(phases)} in the trace")
        path.write_text(updated)
        print(f"{path.name}: {dict(sorted(phases.items()))}")


if __name__ == "__main__":
    main()
