"""`bankism trace`, `bankism profile` and `bankism ncu-import` from the command line, without a GPU.

Without the CUDA tools they need (nvcc, the Sanitizer API, ncu) `trace` and `profile` stop with a one-line
error and exit code 2; `ncu-import` works anywhere, on CSV exports recorded on an H100.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bankism.capture import toolkit
from bankism.capture.build import LIBRARY_NAME, TracerBuild, build_commands
from bankism.capture.run import TraceOptions, tracer_environment
from bankism.capture.toolkit import Toolkit, find_nvcc, find_sanitizer
from bankism.errors import BankismError
from tests.helpers import Ran, one_line_error, run_cli

DATA = Path(__file__).parent / "data" / "capture"
ROOT = Path(__file__).resolve().parents[1]


def bankism(*args: str, path: str | None = None) -> Ran:
    """The command in-process from the repository root; ``path`` replaces PATH (to hide the CUDA tools)."""
    return run_cli(*args, cwd=ROOT, env=None if path is None else {"PATH": path})


def test_profile_without_ncu_is_a_one_line_error(tmp_path: Path) -> None:
    message = one_line_error(bankism("profile", "--", "./app", path=str(tmp_path)))
    assert "ncu not found" in message


def test_trace_without_the_cuda_tools_is_a_one_line_error(tmp_path: Path) -> None:
    env_path = str(tmp_path)  # no nvcc, compute-sanitizer or nvidia-smi on PATH
    done = bankism("trace", "-o", str(tmp_path / "t.json"), "--", "./app", path=env_path)
    message = one_line_error(done)
    assert any(word in message for word in ("nvcc", "compute-sanitizer", "nvidia-smi"))
    assert not (tmp_path / "t.json").exists()


def test_trace_checks_its_arguments_first(tmp_path: Path) -> None:
    out = str(tmp_path / "t.json")
    assert "no program given" in one_line_error(bankism("trace", "-o", out))
    assert "--blocks" in one_line_error(bankism("trace", "-o", out, "--blocks", "first:0", "--", "./app"))
    assert "regular expression" in one_line_error(bankism("trace", "-o", out, "--kernel", "(", "--", "./app"))


def test_find_nvcc_and_sanitizer_report_what_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(toolkit, "_cuda_homes", lambda: [tmp_path])
    monkeypatch.setattr(toolkit.shutil, "which", lambda name: None)
    monkeypatch.delenv("BANKISM_NVCC", raising=False)
    monkeypatch.delenv("BANKISM_SANITIZER_DIR", raising=False)
    with pytest.raises(BankismError, match="nvcc not found"):
        find_nvcc()
    with pytest.raises(BankismError, match="Sanitizer API"):
        find_sanitizer()
    sanitizer = tmp_path / "compute-sanitizer"
    (sanitizer / "include").mkdir(parents=True)
    (sanitizer / "include" / "sanitizer.h").write_text("")
    (sanitizer / "libsanitizer-public.so").write_text("")
    assert find_sanitizer() == (sanitizer / "include", sanitizer)


def test_build_commands_compile_the_patches_as_a_tools_patch(tmp_path: Path) -> None:
    toolkit = Toolkit(Path("/cuda/bin/nvcc"), Path("/san/include"), Path("/san"), None)
    library, patches = build_commands(toolkit, tmp_path, ["90"])
    assert "-lsanitizer-public" in library and str(tmp_path / LIBRARY_NAME) in library
    assert "--compile-as-tools-patch" in patches and "--keep-device-functions" in patches
    assert "-gencode=arch=compute_90,code=sm_90" in patches


def test_tracer_environment(tmp_path: Path) -> None:
    build = TracerBuild(tmp_path / "lib.so", tmp_path / "p.fatbin")
    options = TraceOptions("multiply", (0, 2), "0,0;1,1", 5000)
    env = tracer_environment(build, options, tmp_path)
    assert env["CUDA_INJECTION64_PATH"] == str(tmp_path / "lib.so")
    assert env["BANKISM_TRACE_KERNEL"] == "multiply"
    assert env["BANKISM_TRACE_LAUNCHES"] == "0,2"
    assert env["BANKISM_TRACE_BLOCKS"] == "0,0,0;1,1,0"
    assert env["BANKISM_TRACE_MAX_RECORDS"] == "5000"


def test_ncu_import_writes_a_counters_only_trace(tmp_path: Path) -> None:
    report = tmp_path / "transpose32.csv"
    shutil.copyfile(DATA / "transpose32.ncu-details.csv", report)
    done = bankism("ncu-import", str(report))
    assert done.returncode == 0, done.stderr
    doc = json.loads((tmp_path / "transpose32.json").read_text())
    (launch,) = doc["launches"]
    assert doc["environment"]["arch"] == "sm_90" and doc["environment"]["gpu"] is None  # details: no name
    assert launch["counters"]["ld"] == {"instructions": 2048, "wavefronts": 65536, "conflicts": 63488}
    assert launch["sites"] == [] and launch["shared_bytes"] == {"static": 4096, "dynamic": 0}


def test_ncu_import_of_a_raw_page_names_the_gpu(tmp_path: Path) -> None:
    done = bankism("ncu-import", str(DATA / "ldmatrix_tile.ncu-raw.csv"), "-o", str(tmp_path / "l.json"))
    assert done.returncode == 0, done.stderr
    doc = json.loads((tmp_path / "l.json").read_text())
    assert doc["environment"]["gpu"] == "NVIDIA H100 80GB HBM3"
    assert doc["launches"][0]["counters"]["st"] == {"instructions": 64, "wavefronts": 2304, "conflicts": 1792}


def test_ncu_import_into_a_trace(tmp_path: Path) -> None:
    trace = tmp_path / "smoke.json"
    doc = json.loads((DATA / "smoke_trace.json").read_text())
    doc["launches"][0]["counters"] = None
    trace.write_text(json.dumps(doc))
    out_path = str(tmp_path / "out.json")
    done = bankism("ncu-import", str(DATA / "smoke.ncu-raw.csv"), "--into", str(trace), "-o", out_path)
    assert done.returncode == 0, done.stderr
    out = json.loads((tmp_path / "out.json").read_text())
    assert out["launches"][0]["counters"]["ld"] == {"instructions": 10, "wavefronts": 16, "conflicts": 2}
    assert json.loads(trace.read_text())["launches"][0]["counters"] is None  # --into left untouched with -o


def test_ncu_import_of_a_bad_file_is_a_one_line_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("not,an,export\n")
    assert "not an ncu CSV export" in one_line_error(bankism("ncu-import", str(bad)))
