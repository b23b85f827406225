"""explain maps every atomic* call to the SASS nvcc emits for it (bankism.isa.atomic_form) and models it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bankism.errors import BankismError
from bankism.explain import ExplainOptions, explain
from bankism.isa import atomic_form
from tests.test_explain_support import run

ROOT = Path(__file__).resolve().parents[1]
KERNEL = "atomics.cu"


def _sites(line: int, report: dict) -> dict[str, dict]:
    return {s["op"]: s for s in report["sites"] if s["line"] == line}


def test_each_call_is_labelled_with_its_sass_and_modelled():
    report = run(KERNEL, block=(64, 1, 1), grid=(1, 1, 1), kernel="atomics")
    popc = _sites(13, report)["atomic"]
    assert (popc["sass"], popc["atomic_op"]) == ("ATOMS.POPC.INC.32", "popc_inc")
    assert popc["wavefronts"] == 2 * 8  # 8 words in bank 0 per warp, lanes on one word merged
    used = _sites(14, report)["atomic"]
    assert (used["sass"], used["atomic_op"], used["wavefronts"]) == ("ATOMS.ADD", "add", 2)
    assert _sites(15, report)["atomic"]["sass"] == "ATOMS.MIN.S32"
    flags = _sites(16, report)["atomic"]
    assert (flags["sass"], flags["wavefronts"]) == ("ATOMS.MAX", 2 * 8)  # 8 lanes per word, one per pass
    assert _sites(18, report)["atomic"]["sass"] == "ATOMS.XOR"
    assert _sites(19, report)["atomic"]["sass"] == "ATOMS.ADD"  # literal 2: no POPC.INC


def test_float_atomic_add_is_the_cas_retry_loop():
    """Lanes 0-15 and 16-31 hit the same 16 words (two lanes per bank): two iterations per warp."""
    loop = _sites(17, run(KERNEL, block=(64, 1, 1), grid=(1, 1, 1), kernel="atomics"))
    load, spin = loop["load"], loop["atomic"]
    assert spin["sass"].startswith("ATOMS.CAST.SPIN") and spin["atomic_op"] == "cas_spin"
    assert (load["instructions"], spin["instructions"]) == (4, 4)
    assert (spin["wavefronts"], spin["conflicts"]) == (8, 0)
    assert load["wavefronts"] == 2 * (2 + 1)  # first iteration: 2 words per bank; second: 1


def test_64_bit_loop_forms_are_refused_with_the_reason():
    with pytest.raises(BankismError, match="ATOMS.CAST.SPIN.64 retry loop"):
        run(KERNEL, block=(32, 1, 1), grid=(1, 1, 1), kernel="atomics64")


def test_float_histogram_source_predicts_the_traced_loop():
    """Source alone (hash-computed bins) against the H100 trace and ncu: same loop count and LDS cost."""
    source = ROOT / "traces" / "kernels" / "histogram_float.cu"
    trace = ROOT / "traces" / "atomics" / "histogram_float_hash.json"
    report = explain(source.read_text(), str(source), ExplainOptions(trace=str(trace)))
    totals = report["trace"]["totals"]
    for op_class in ("ld", "atom"):
        assert totals["source"][op_class]["instructions"] == totals["measured"][op_class]["instructions"]
    assert totals["source"]["ld"]["wavefronts"] == totals["measured"]["ld"]["wavefronts"]
    assert totals["source"]["atom"]["wavefronts"] == totals["sass"]["atom"]["wavefronts"]


FORMS = {  # hw/atomics/forms.cu kernel -> (function, kind, size, operand is a literal 1)
    "add_i32_1": ("atomicAdd", "s", 4, True), "add_u32_1": ("atomicAdd", "u", 4, True),
    "add_i32_v": ("atomicAdd", "s", 4, False), "add_i32_m1": ("atomicAdd", "s", 4, False),
    "sub_i32_1": ("atomicSub", "s", 4, True), "add_u64_1": ("atomicAdd", "u", 8, True),
    "add_u64_v": ("atomicAdd", "u", 8, False), "inc_u32": ("atomicInc", "u", 4, False),
    "dec_u32": ("atomicDec", "u", 4, False), "min_i32": ("atomicMin", "s", 4, False),
    "max_i32": ("atomicMax", "s", 4, False), "min_u32": ("atomicMin", "u", 4, False),
    "max_u32": ("atomicMax", "u", 4, False), "min_i64": ("atomicMin", "s", 8, False),
    "max_i64": ("atomicMax", "s", 8, False), "min_u64": ("atomicMin", "u", 8, False),
    "max_u64": ("atomicMax", "u", 8, False), "and_u32": ("atomicAnd", "u", 4, False),
    "or_u32": ("atomicOr", "u", 4, False), "xor_u32": ("atomicXor", "u", 4, False),
    "and_u64": ("atomicAnd", "u", 8, False), "or_u64": ("atomicOr", "u", 8, False),
    "xor_u64": ("atomicXor", "u", 8, False), "exch_u32": ("atomicExch", "u", 4, False),
    "exch_u64": ("atomicExch", "u", 8, False), "exch_f32": ("atomicExch", "f", 4, False),
    "cas_u32": ("atomicCAS", "u", 4, False), "cas_u64": ("atomicCAS", "u", 8, False),
    "cas_u16": ("atomicCAS", "u", 2, False), "add_f32": ("atomicAdd", "f", 4, False),
    "add_f64": ("atomicAdd", "f", 8, False),
}


def _compiled() -> dict[str, list[str]]:
    listing = (ROOT / "traces" / "probes" / "sm_90_atomics_sass.txt").read_text()
    part = listing.split("# hw/atomics/forms.cu", 1)[1].split("\n# ", 1)[0]
    return {m.group(1): m.group(2).split() for m in re.finditer(r"^(\w+)\s+(.+)$", part, re.M)}


@pytest.mark.parametrize("name", sorted(FORMS))
@pytest.mark.parametrize("used", [True, False])
def test_the_table_is_what_nvcc_emitted(name, used):
    function, kind, size, one = FORMS[name]
    form = atomic_form(function, kind, size, result_used=used, operand_is_one=one)
    emitted = _compiled()[f"{name}_{'used' if used else 'unused'}"]
    atomics = [op for op in emitted if op.startswith("ATOMS")]
    assert len(atomics) == 1
    if form.loop is None:
        assert form.sass == atomics[0]
    else:
        assert atomics[0] in form.sass  # "LDS + ... + ATOMS.CAST.SPIN retry loop" names the instruction
        assert emitted[0].startswith("LDS")
