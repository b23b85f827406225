"""What the SASS of a captured kernel adds to a trace: the function symbols nvdisasm is restricted to,
and the shared-memory instructions the tracer cannot record (listed so `analyze` can say so).

tests/data/capture/two_kernels.cubin is tests/data/capture/two_kernels.cu built with
`nvcc -cubin -arch=sm_90 -lineinfo` (CUDA 13.0).
"""

from __future__ import annotations

from pathlib import Path

from bankism.capture.convert import UNRECORDED_SHARED, unrecorded_shared
from bankism.capture.disasm import SassInstruction, function_symbols

DATA = Path(__file__).parent / "data" / "capture"


def test_function_symbols_of_a_cubin() -> None:
    symbols = function_symbols((DATA / "two_kernels.cubin").read_bytes())
    assert set(symbols) == {"_Z5firstPf", "_Z6secondPi"}
    assert len(set(symbols.values())) == 2 and all(index > 0 for index in symbols.values())


def test_function_symbols_of_something_else_is_empty() -> None:
    image = (DATA / "two_kernels.cubin").read_bytes()
    assert function_symbols(b"not an elf file") == {}
    assert function_symbols(image[:200]) == {}  # the section headers are cut off


def test_unrecorded_shared_instructions_by_opcode_and_line() -> None:
    function = {
        0x10: SassInstruction("LDS.128", "k.py", 3),
        0x20: SassInstruction("HGMMA.64x64x16.F32", "k.py", 7),
        0x30: SassInstruction("HGMMA.64x64x16.F32", "k.py", 7),
        0x40: SassInstruction("UTMALDG.2D", "k.py", 5),
        0x48: SassInstruction("LDGSTS.E.128", "k.py", 6),  # recorded per lane since the async tracer
        0x50: SassInstruction("STS", "k.py", 4),
    }
    found = unrecorded_shared(function)
    assert [(f["sass"], f["instructions"], f["line"]) for f in found] == [
        ("HGMMA.64x64x16.F32", 2, 7),
        ("UTMALDG.2D", 1, 5),
    ]
    assert found[0]["what"] == UNRECORDED_SHARED["HGMMA"]
    assert unrecorded_shared({0x10: SassInstruction("LDS", None, None)}) == []
