"""`bankism trace`, `profile`, `record` and `ncu-import`: capture real programs on a GPU."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated, Any

import typer

from bankism.arch import NCU_CLASSES
from bankism.errors import BankismError
from bankism.files import check_output

_PROGRAM_SETTINGS = {"allow_extra_args": True, "ignore_unknown_options": True}


def _short(kernel: str, limit: int = 48) -> str:
    return kernel if len(kernel) <= limit else kernel[: limit - 3] + "..."


def _counter_text(counters: dict[str, Any] | None) -> str:
    if not counters:
        return "no counters"
    parts = []
    for kind in NCU_CLASSES:
        c = counters[kind]
        if c["instructions"] or c["wavefronts"]:
            parts.append(
                f"{kind} {c['instructions']} inst / {c['wavefronts']} wavefronts / {c['conflicts']} conflicts"
            )
    return "; ".join(parts) or "no shared-memory instructions"


def _time_text(launch: dict[str, Any]) -> str:
    """'; 1.983 ms at 1.59 GHz' from the launch's time block, or '' without one."""
    block = launch.get("time")
    if not block:
        return ""
    return f"; {block['duration_ns'] / 1e6:.4g} ms at {block['sm_clock_hz'] / 1e9:.3g} GHz"


def _launch_summary(launch: dict[str, Any]) -> str:
    records = launch.get("records")
    count = len(records["warp"]) if isinstance(records, dict) else "?"
    blocks = launch["blocks_recorded"]
    kept = "all blocks" if blocks == "all" else f"{len(blocks)} of {launch['blocks_total']} blocks"
    return (
        f"  launch {launch['index']}: {_short(launch['kernel'])} grid {launch['grid']} block "
        f"{launch['block']}: "
        f"{count} warp-instructions at {len(launch['sites'])} sites ({kept}); "
        f"{_counter_text(launch.get('counters'))}{_time_text(launch)}"
    )


def _save_with_counters(doc: dict[str, Any], path: Path, ncu_version: str | None) -> None:
    from bankism.trace import save

    if ncu_version:
        doc["environment"]["ncu"] = ncu_version
    save(doc, path)


#: bankism runs ncu with its default clock control, which locks the clocks at the base clock: the time
#: block says so (an imported CSV does not tell).
PROFILE_CLOCK_CONTROL = "base"


def _counters_only_doc(
    profiled: list[Any], command: list[str] | None, source: str, env: dict[str, Any],
    clock_control: str | None = None,
) -> dict:
    from bankism.capture.ncu import counters_only_launch

    where = f"`{shlex.join(command)}`" if command else source
    return {
        "format": "bankism-trace",
        "version": 1,
        "description": (
            f"Counters-only trace from {where}: Nsight Compute's shared-memory counters per launch; no "
            "addresses "
            "were recorded (sites and records are empty). Launch indices are ncu's IDs."
        ),
        "environment": env,
        "program": {"command": list(command or []), "source": None},
        "launches": [counters_only_launch(p, clock_control) for p in profiled],
    }


def _optional_nvcc() -> Path | None:
    from bankism.capture.toolkit import find_nvcc

    try:
        return find_nvcc()
    except BankismError:
        return None


def _csv_environment(profiled: list[Any], source: str) -> dict[str, Any]:
    capability = next((p.compute_capability for p in profiled if p.compute_capability), None)
    if not capability:
        raise BankismError(f"{source}: no CC column: cannot tell which architecture the counters come from")
    return {
        "gpu": next((p.device for p in profiled if p.device), None),
        "arch": "sm_" + capability.replace(".", ""),
        "compute_capability": capability,
        "driver": None,
        "cuda": None,
        "ncu": None,
        "captured": None,
        "tracer": None,
    }


def _import_target(report: Path, into: Path | None, output: Path | None) -> tuple[Path, str]:
    """Where ncu-import writes, checked first: never the CSV itself, nor the --into trace under another name.

    ``--into T.json`` without ``-o`` updates T.json in place (atomically): that is what --into asks for.
    """
    target = output or into or report.with_suffix(".json")
    label = "-o" if output is not None else "--into" if into is not None else "output"
    inputs: list[Path] = [report]
    in_place = into is not None and (output is None or _same_path(output, into))
    if into is not None and not in_place:
        inputs += [into, into.with_suffix(".npz")]
    check_output(target, label, inputs)
    check_output(target.with_suffix(".npz"), f"{label} {target}: its records file", inputs)
    return target, label


def _same_path(a: Path, b: Path) -> bool:
    return a.resolve() == b.resolve()


TraceOutput = Annotated[Path, typer.Option("-o", "--output", help="Trace to write (JSON, .npz beside it).")]
Program = Annotated[list[str] | None, typer.Argument(help="The program and its arguments, after --.")]
KernelRegex = Annotated[str | None, typer.Option("--kernel", help="Regex searched in the kernel's name.")]
Launches = Annotated[
    list[int] | None, typer.Option("--launch", help="Keep the N-th matching launch (0-based); repeatable.")
]
Blocks = Annotated[
    str,
    typer.Option(
        help="auto (every block if the records fit --max-records, else every S-th block, spread over the "
        "grid) | all | first:K | every:S | x,y,z;x,y,z (at most 64 listed)."
    ),
]
MaxRecords = Annotated[int, typer.Option(help="Warp-instructions kept per launch.")]
Source = Annotated[str | None, typer.Option(help="Source file of the kernel, kept in the trace.")]
Description = Annotated[str | None, typer.Option(help="Text put first in the description.")]
KeepRaw = Annotated[Path | None, typer.Option(help="Also copy the tracer's raw output here.")]
Timeout = Annotated[float | None, typer.Option(help="Stop the program after this many seconds.")]
CsvOut = Annotated[Path | None, typer.Option("--csv", help="Also save ncu's raw-page CSV here.")]
DetailsOut = Annotated[
    Path | None, typer.Option("--details-csv", help="Also save ncu's details-page CSV here.")
]


def _print_counters(doc: dict[str, Any]) -> None:
    """One line per launch: its kernel and the ncu counters it now holds."""
    for item in doc["launches"]:
        print(f"  launch {item['index']}: {_short(item['kernel'])}: {_counter_text(item.get('counters'))}"
              f"{_time_text(item)}")


def record(
    command: list[str],
    output: Path,
    options: Any,
    *,
    source: str | None = None,
    description: str | None = None,
    keep_raw: Path | None = None,
    timeout: float | None = None,
    csv_out: Path | None = None,
    details_out: Path | None = None,
) -> dict[str, Any]:
    """Trace the program, then profile with ncu exactly the launches the trace recorded, into one trace."""
    from bankism.capture import ncu, toolkit
    from bankism.capture.convert import trace_program
    from bankism.capture.run import validate_options

    validate_options(options)
    if not command:
        raise BankismError("no program given: put it after --, e.g. bankism record -o t.json -- ./app")
    ncu_path = ncu.find_ncu()  # before the (long) traced run
    seen: list[dict[str, Any]] = []
    doc = trace_program(command, output, options, source, description, keep_raw, timeout, seen)
    selection, indices = ncu.exact_selection(seen, [launch["index"] for launch in doc["launches"]])
    profiled = ncu.run_profile(command, keep_csv=csv_out, keep_details=details_out, selection=selection)
    for launch in profiled:  # ncu's results count the selected launches: back to indices in the process
        launch.id = indices[launch.id] if 0 <= launch.id < len(indices) else -1
    missing = ncu.fill_counters(doc, profiled, "ncu", by_index=True, clock_control=PROFILE_CLOCK_CONTROL)
    _save_with_counters(doc, output, toolkit.ncu_version(ncu_path))
    if missing:
        print(f"note: no ncu launch matched trace launch(es) {missing}; their counters stay null")
    return doc


def register(app: typer.Typer) -> None:
    """Add the `trace`, `profile` and `ncu-import` commands to ``app``."""

    @app.command("trace", context_settings=_PROGRAM_SETTINGS)
    def trace_command(
        output: TraceOutput,
        program: Program = None,
        kernel: KernelRegex = None,
        launch: Launches = None,
        blocks: Blocks = "auto",
        max_records: MaxRecords = 1_000_000,
        source: Source = None,
        description: Description = None,
        keep_raw: KeepRaw = None,
        timeout: Timeout = None,
    ) -> None:
        """Run a CUDA program under the Sanitizer-API tracer and record its shared-memory accesses."""
        from bankism.capture.convert import trace_program
        from bankism.capture.run import TraceOptions

        inputs = [source, *(program or [])[:1]]
        check_output(output, "-o", inputs)
        check_output(output.with_suffix(".npz"), f"-o {output}: its records file", inputs)
        if keep_raw is not None:
            check_output(keep_raw, "--keep-raw", [*inputs, output])
        options = TraceOptions(kernel, tuple(launch or ()), blocks, max_records)
        doc = trace_program(list(program or []), output, options, source, description, keep_raw, timeout)
        print(f"wrote {output}:")
        for item in doc["launches"]:
            print(_launch_summary(item))

    @app.command("profile", context_settings=_PROGRAM_SETTINGS)
    def profile_command(
        program: Program = None,
        output: Annotated[
            Path | None,
            typer.Option(
                "-o", "--output", help="Trace whose matching launches get the counters (else a new one)."
            ),
        ] = None,
        kernel: Annotated[
            str | None,
            typer.Option("--kernel", help="Profile only kernels whose demangled name matches this regex."),
        ] = None,
        launch: Annotated[
            int | None, typer.Option("--launch", help="Start at the N-th matching launch (0-based).")
        ] = None,
        launch_count: Annotated[
            int | None,
            typer.Option(
                "--launch-count", help="Profile K matching launches (default: 1 with --launch, else all)."
            ),
        ] = None,
        metric: Annotated[
            list[str] | None, typer.Option(help="Extra ncu metric to collect; repeatable.")
        ] = None,
        csv_out: CsvOut = None,
        details_out: DetailsOut = None,
    ) -> None:
        """Measure shared-memory instructions, wavefronts and bank conflicts of kernel launches with ncu."""
        from bankism.capture import ncu, toolkit
        from bankism.trace import load

        command = list(program or [])
        for path, option in ((csv_out, "--csv"), (details_out, "--details-csv")):
            if path is not None:
                check_output(path, option, [output, *command[:1]])
        selection = ncu.check_selection(kernel, launch, launch_count)
        if output is not None and output.exists():
            load(output)  # a bad trace is refused before the (long) profile
        profiled = ncu.run_profile(
            command, metric or (), keep_csv=csv_out, keep_details=details_out, selection=selection
        )
        selected = ncu.select_kernels(profiled, kernel)
        if not selected:
            raise BankismError(f"ncu profiled no launch of a kernel matching --kernel {kernel!r}")
        version = toolkit.ncu_version()
        if output is not None and output.exists():
            doc = load(output)
            missing = ncu.fill_counters(doc, selected, str(output), by_index=selection.everything,
                                        clock_control=PROFILE_CLOCK_CONTROL)
            _save_with_counters(doc, output, version)
            if missing:
                print(f"note: no ncu launch matched trace launch(es) {missing}; their counters stay null")
        elif output is not None:
            env = toolkit.environment(_optional_nvcc(), None)
            doc = _counters_only_doc(selected, command, "ncu", env, PROFILE_CLOCK_CONTROL)
            _save_with_counters(doc, output, version)
        else:
            doc = {"launches": [ncu.counters_only_launch(p, PROFILE_CLOCK_CONTROL) for p in selected]}
        if output is not None:
            print(f"wrote {output}:")
        _print_counters(doc)

    @app.command("record", context_settings=_PROGRAM_SETTINGS)
    def record_command(
        output: TraceOutput,
        program: Program = None,
        kernel: KernelRegex = None,
        launch: Launches = None,
        blocks: Blocks = "auto",
        max_records: MaxRecords = 1_000_000,
        source: Source = None,
        description: Description = None,
        keep_raw: KeepRaw = None,
        timeout: Timeout = None,
        csv_out: CsvOut = None,
        details_out: DetailsOut = None,
    ) -> None:
        """Trace a CUDA program, then profile exactly the traced launches with ncu: one trace with both."""
        from bankism.capture.run import TraceOptions

        options = TraceOptions(kernel, tuple(launch or ()), blocks, max_records)
        doc = record(
            list(program or []),
            output,
            options,
            source=source,
            description=description,
            keep_raw=keep_raw,
            timeout=timeout,
            csv_out=csv_out,
            details_out=details_out,
        )
        print(f"wrote {output}:")
        for item in doc["launches"]:
            print(_launch_summary(item))

    @app.command("ncu-import")
    def ncu_import_command(
        report: Annotated[Path, typer.Argument(help="An `ncu --csv` export (raw page or details page).")],
        into: Annotated[
            Path | None, typer.Option(help="Trace whose matching launches get the counters.")
        ] = None,
        output: Annotated[
            Path | None,
            typer.Option("-o", "--output", help="Where to write (default: --into, or REPORT.json)."),
        ] = None,
        kernel: KernelRegex = None,
    ) -> None:
        """Read Nsight Compute's shared-memory counters from a CSV export into a trace."""
        from bankism.capture import ncu
        from bankism.trace import load, save

        target, label = _import_target(report, into, output)
        profiled = ncu.select_kernels(ncu.read_csv(report), kernel)
        if not profiled:
            raise BankismError(f"{report}: no launch of a kernel matching --kernel {kernel!r}")
        if into is not None:
            doc = load(into)
            missing = ncu.fill_counters(doc, profiled, str(report))
            if missing:
                print(f"note: no CSV launch matched trace launch(es) {missing}; their counters stay null")
        else:
            doc = _counters_only_doc(profiled, None, str(report), _csv_environment(profiled, str(report)))
        save(doc, target)
        print(f"wrote {target}:")
        _print_counters(doc)
