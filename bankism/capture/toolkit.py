"""Finding the CUDA toolkit (nvcc, the Sanitizer API, nvdisasm) and recording the GPU and tool versions."""

from __future__ import annotations

import datetime
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bankism.capture.raw import TRACER_NAME
from bankism.errors import BankismError


@dataclass(frozen=True)
class Toolkit:
    """The CUDA tools the tracer needs: nvcc, the Sanitizer API (headers + library), nvdisasm."""

    nvcc: Path
    sanitizer_include: Path
    sanitizer_lib: Path
    nvdisasm: Path | None


def _cuda_homes() -> list[Path]:
    homes = [Path(os.environ[name]) for name in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(name)]
    nvcc = shutil.which("nvcc")
    if nvcc:
        homes.append(Path(nvcc).resolve().parent.parent)
    homes.append(Path("/usr/local/cuda"))
    return homes


def find_nvcc() -> Path:
    """The nvcc that builds the tracer: $BANKISM_NVCC, then PATH, then $CUDA_HOME/bin."""
    candidates = [os.environ.get("BANKISM_NVCC"), shutil.which("nvcc")]
    candidates += [str(home / "bin" / "nvcc") for home in _cuda_homes()]
    for candidate in candidates:
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    raise BankismError(
        "nvcc not found: bankism builds its tracer with CUDA's nvcc; put it on PATH or set CUDA_HOME"
    )


def _sanitizer_dirs() -> list[Path]:
    dirs = [Path(os.environ["BANKISM_SANITIZER_DIR"])] if os.environ.get("BANKISM_SANITIZER_DIR") else []
    tool = shutil.which("compute-sanitizer")
    if tool:
        dirs.append(Path(tool).resolve().parent)
    dirs += [home / "compute-sanitizer" for home in _cuda_homes()]
    return dirs


def find_sanitizer() -> tuple[Path, Path]:
    """The Sanitizer API's include directory and the directory holding libsanitizer-public.so."""
    for root in _sanitizer_dirs():
        include = root / "include"
        libs = [d for d in (root, root / "lib", root / "lib64") if (d / "libsanitizer-public.so").is_file()]
        if (include / "sanitizer.h").is_file() and libs:
            return include, libs[0]
    raise BankismError(
        "compute-sanitizer's Sanitizer API (include/sanitizer.h, libsanitizer-public.so) not found: "
        "install CUDA's compute-sanitizer or set BANKISM_SANITIZER_DIR"
    )


def find_toolkit() -> Toolkit:
    """nvcc, the Sanitizer API and nvdisasm, or a one-line error saying which is missing."""
    nvcc = find_nvcc()
    include, lib = find_sanitizer()
    nvdisasm = shutil.which("nvdisasm") or (
        str(nvcc.parent / "nvdisasm") if (nvcc.parent / "nvdisasm").is_file() else None
    )
    return Toolkit(nvcc, include, lib, Path(nvdisasm) if nvdisasm else None)


def command_output(command: Sequence[str]) -> str | None:
    """stdout of a short tool query, or None when the tool is missing or fails."""
    try:
        done = subprocess.run(list(command), capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def cuda_version(nvcc: Path) -> str | None:
    """'13.0 (V13.0.88)' from ``nvcc --version``."""
    text = command_output([str(nvcc), "--version"]) or ""
    match = re.search(r"release (\d+\.\d+), (V[\d.]+)", text)
    return f"{match.group(1)} ({match.group(2)})" if match else None


def ncu_version(ncu: str | None = None) -> str | None:
    """Nsight Compute's version ('2025.3.1.0'), or None when ncu is not installed."""
    ncu = ncu or shutil.which("ncu")
    if not ncu:
        return None
    match = re.search(r"Version\s+([\d.]+)", command_output([ncu, "--version"]) or "")
    return match.group(1) if match else None


def gpu_properties() -> dict[str, str]:
    """Name, driver and compute capability of the first visible GPU, from nvidia-smi."""
    query = ["nvidia-smi", "--query-gpu=name,driver_version,compute_cap", "--format=csv,noheader"]
    text = command_output(query)
    if not text or not text.strip():
        raise BankismError("nvidia-smi found no GPU: tracing needs an NVIDIA GPU and its driver")
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    rows = [row for row in text.strip().splitlines() if row.strip()]
    row = rows[int(visible)] if visible.isdigit() and int(visible) < len(rows) else rows[0]
    name, driver, capability = (part.strip() for part in row.split(","))
    return {"gpu": name, "driver": driver, "compute_capability": capability}


def environment(nvcc: Path | None, ncu: str | None = None) -> dict[str, Any]:
    """The trace's environment block: GPU, arch, driver, CUDA, ncu, time of capture, tracer."""
    gpu = gpu_properties()
    return {
        "gpu": gpu["gpu"],
        "arch": "sm_" + gpu["compute_capability"].replace(".", ""),
        "compute_capability": gpu["compute_capability"],
        "driver": gpu["driver"],
        "cuda": cuda_version(nvcc) if nvcc else None,
        "ncu": ncu_version(ncu),
        "captured": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "tracer": TRACER_NAME,
    }


