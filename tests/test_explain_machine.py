"""The SIMT machine has everything its ``SimtMachine`` protocol promises the CUDA stand-ins."""

from __future__ import annotations

import typing

from bankism.explain.analysis import interpret_kernel
from bankism.explain.model import ExplainOptions
from bankism.explain.simt import interpreter
from bankism.explain.simt.machine import SimtMachine

KERNEL = """
__global__ void k(float *out) {
    __shared__ float tile[32];
    tile[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = tile[31 - threadIdx.x];
}
"""


def test_the_interpreter_machine_has_every_member_of_the_protocol(monkeypatch):
    machines = []
    run = interpreter.Machine.run

    def keep(machine: interpreter.Machine) -> None:
        machines.append(machine)
        run(machine)

    monkeypatch.setattr(interpreter.Machine, "run", keep)
    interpret_kernel(KERNEL, "k.cu", ExplainOptions(grid=(1, 1, 1), block=(32, 1, 1)))
    (machine,) = machines
    members = set(typing.get_type_hints(SimtMachine)) | {
        name for name in vars(SimtMachine) if not name.startswith("_")}
    missing = sorted(name for name in members
                     if not hasattr(type(machine), name) and name not in vars(machine))
    assert not missing, f"interpreter.Machine lacks {missing}"
