"""`bankism simulate`: one warp-instruction, its wavefronts, and the bank map that explains them."""

from __future__ import annotations

import json

import numpy as np
import typer

from bankism.arch import DEFAULT_ARCH, LANES
from bankism.engine import simulate
from bankism.errors import BankismError
from bankism.inputs import c_integer
from bankism.version import __version__

#: Lane addresses are 64-bit signed integers in the engine; larger values are refused here.
ADDRESS_LIMIT = 2**63

#: The default access width: the Python API's (``bankism.simulate(width=8)``, docs/api.md), so the two agree.
DEFAULT_WIDTH = 8

JSON_FORMAT = "bankism-simulate"
JSON_VERSION = 1


def _parse_addresses(addresses: str | None, stride: int | None, base: int) -> np.ndarray:
    if (addresses is None) == (stride is None):
        raise BankismError("give either --addresses A0,A1,... (32 values) or --stride BYTES")
    if stride is not None:
        values = [base + stride * lane for lane in range(LANES)]
        option = "--stride/--base"
    else:
        try:
            values = [c_integer(v) for v in addresses.replace(" ", "").split(",") if v]
        except ValueError as error:
            raise BankismError(f"--addresses: {error}") from None
        if len(values) != LANES:
            raise BankismError(f"--addresses needs 32 comma-separated values; got {len(values)}")
        option = "--addresses"
    for lane, value in enumerate(values):
        if not -ADDRESS_LIMIT <= value < ADDRESS_LIMIT:
            raise BankismError(f"{option}: lane {lane}'s address {value} is out of range (|address| < 2^63)")
    return np.asarray(values, np.int64)


def register(app: typer.Typer) -> None:
    """Add the `simulate` command to ``app``."""

    @app.command("simulate")
    def simulate_command(
        addresses: str = typer.Option(None, help="32 comma-separated byte offsets, one per lane."),
        stride: int = typer.Option(None, help="Lane i reads base + i*stride bytes."),
        base: int = typer.Option(0, help="Byte offset of lane 0 with --stride."),
        width: int = typer.Option(DEFAULT_WIDTH, help="Bytes per lane: 1, 2, 4, 8 or 16."),
        op: str = typer.Option("load", help="load, store, atomic, ldmatrix or stmatrix."),
        matrices: int = typer.Option(None, help="1, 2 or 4 for ldmatrix/stmatrix."),
        atomic_op: str = typer.Option(
            None, help="add (default), exch, cas, popc_inc, inc, dec, min, max, and, or, xor, cas_spin; "
                       "only with --op atomic."),
        active: str = typer.Option("0xffffffff", help="Active-lane bitmask."),
        arch: str = typer.Option(DEFAULT_ARCH, help="Architecture."),
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
    ) -> None:
        """Count the wavefronts of one warp-instruction and show the bank map behind them."""
        if atomic_op is not None and op != "atomic":
            raise BankismError(f"--atomic-op {atomic_op} applies to --op atomic only, not to --op {op}")
        rows = _parse_addresses(addresses, stride, base)
        try:
            mask = c_integer(active)
        except ValueError:
            raise BankismError(f"--active: {active!r} is not an integer bitmask") from None
        result = simulate(
            rows, width=width, op=op, active=mask, matrices=matrices, arch=arch, atomic_op=atomic_op or "add"
        )
        if as_json:
            print(json.dumps({
                "format": JSON_FORMAT, "version": JSON_VERSION, "bankism": __version__,
                "op": result.op, "width": result.width, "matrices": result.matrices,
                "atomic_op": result.atomic_op,
                "split": result.split, "wavefronts": int(result.wavefronts[0]),
                "ideal": int(result.ideal[0]), "conflicts": int(result.conflicts[0]),
                "cycles": None if np.isnan(result.cycles[0]) else float(result.cycles[0]),
                "merged": bool(result.merged[0]),
                "explanation": result.describe(0),
            }, indent=2))
            return
        print(result.describe(0))
        print(result.bank_map(0))
