"""`bankism explain` end to end, up to the engine: preprocess, parse, pick the kernel and
its launch, run the asked-for thread blocks, and keep every shared-memory access site and
the optional shared-memory snapshot."""

from __future__ import annotations

import os
import re

from tree_sitter import Node

from bankism.arch import get_arch, launch_shape_problem
from bankism.errors import BankismError
from bankism.explain.frontend import syntax as S
from bankism.explain.frontend.host import HostScope, host_number, launch_dim
from bankism.explain.frontend.launch_search import beside_note, is_file_of, launching_files
from bankism.explain.frontend.misread import declared_names
from bankism.explain.frontend.parse import Program, SourceLaunch, parse, parse_number
from bankism.explain.frontend.preprocess import preprocess
from bankism.explain.frontend.treesitter import snippet
from bankism.explain.launch_values import (
    chosen_launch,
    instantiations,
    launch_param_values,
    launch_template_values,
    sibling_instantiations,
)
from bankism.explain.model import Analysis, ExplainOptions, Snapshot, SnapshotArray
from bankism.explain.simt import ctype as C
from bankism.explain.simt.alignment import definitions
from bankism.explain.simt.bindings import BlockContext, SnapshotRequest, TypeAlias
from bankism.explain.simt.global_data import GlobalData
from bankism.explain.simt.interpreter import Machine
from bankism.explain.simt.memory import describe_source, value_text
from bankism.explain.simt.placement import plan_outer
from bankism.explain.simt.recording import Recorder
from bankism.explain.simt.reloads import drop_reloads, reload_notes, says_volatile
from bankism.explain.simt.template_shared import TemplateRun
from bankism.explain.simt.values import Scalar
from bankism.explain.simt.vectorize import (
    merge_neighbours,
    merge_notes,
    runtime_stride_sites,
    runtime_uniform_names,
)
from bankism.inputs import Budget, limit, over_limit

Dim3 = tuple[int, int, int]


def interpret_kernel(source: str, filename: str, options: ExplainOptions) -> Analysis:
    """Interpret the kernel in ``source`` for the asked-for blocks and collect its accesses
    (preprocess, parse, choose the kernel and its launch, run the blocks)."""
    get_arch(options.arch)
    program = _program(source, filename, options)
    beside = _launch_beside(program, source, filename, options)
    program = beside or program
    try:
        analysis = _interpret(program, source, filename, options)
    except BankismError as error:  # what is unknown may be defined in a header that was not found
        if program.pre.missing and _UNKNOWN.search(str(error)) and "#include" not in str(error):
            raise BankismError(str(error) + _missing_headers(program)) from None
        if not options.data and _DATA.search(str(error)):
            raise BankismError(str(error) + DATA_HINT) from None
        raise
    if beside is not None:
        launch = next(launch for launch in program.launches if launch.kernel == analysis.kernel)
        analysis.assumptions.insert(0, beside_note(filename, analysis.kernel, launch.located(filename)))
    return analysis


#: Refusals a missing header may explain.
_UNKNOWN = re.compile(r"unknown (function|name|type)|no device function|cannot evaluate")
#: Refusals that input data stated with --data may lift, and what to say.
_DATA = re.compile(r"depends on values (read from global memory|in shared memory)")
DATA_HINT = ("; to run it on stated input, give --data random (uniform random values), "
             "--data NAME=random:LOW:HIGH, --data NAME=VALUE or --data NAME=file:PATH (the input itself)")


def _interpret(program: Program, source: str, filename: str, options: ExplainOptions) -> Analysis:
    chosen = None
    shape_given = options.grid is not None or options.block is not None
    if options.trace is not None:
        # Lazy: the trace comparison pulls in bankism.analyze; plain explain never needs it.
        from bankism.explain.output.against_trace import kernel_base_name, open_launch, options_for

        names = list(dict.fromkeys(k.name for k in program.kernels))
        chosen = open_launch(options.trace, names, options.kernel, options.trace_launch)
        name = options.kernel or kernel_base_name(chosen.launch.kernel)
        kernel = _choose_kernel(program, name, filename)
        options = options_for(options, chosen, [p.name for p in kernel.template_params])
    kernel = _choose_kernel(program, options.kernel, filename)
    _check_data_names(program, kernel, options)
    launch = chosen_launch(program, kernel, _numeric_defines(options.defines))
    scope = HostScope(program, launch, _numeric_defines(options.defines))
    grid, block, origin, grid_note = _launch_shape(options, launch, scope, filename, kernel.name)
    if chosen is not None and not shape_given:
        origin = f"launch {chosen.launch.index} of the trace"
    dynamic = _dynamic_shared(options, launch, scope)
    blocks = _blocks(options, grid, block, filename)
    template_values = launch_template_values(kernel, launch, scope, options.defines, filename)
    param_values = launch_param_values(kernel, launch, scope, options.defines, filename)
    recorder = Recorder(Budget("accesses", f"{filename}: recording the accesses of {kernel.name}"),
                        Budget("copies", f"{filename}: counting repeated loop iterations of {kernel.name}"),
                        Budget("uncounted", f"{filename}: listing accesses of {kernel.name} it cannot count"))
    captured: list[Snapshot] = []
    steps = Budget("steps", f"{filename}: interpreting {kernel.name}")
    notes: list[str] = []
    first = None
    templates = None
    data = GlobalData(options.data, options.data_seed) if options.data else None
    if plan_outer(program, kernel).templated:  # template helpers' static arrays: one per instantiation
        first_block = BlockContext(grid, block, blocks[0], dynamic, filename, options.arch, data)
        scout = Machine(program, kernel, first_block, template_values, param_values, Recorder())
        scout.steps = steps
        scout.run()
        given = _numeric_defines(options.defines)
        templates = TemplateRun(scout.discovered, scout.owner_calls,
                                sibling_instantiations(program, kernel, given, template_values, filename),
                                {other.name: instantiations(program, other, given, filename)
                                 for other in program.kernels
                                 if other is not kernel and other.template_params})
    for number, index in enumerate(blocks):
        context = BlockContext(grid, block, index, dynamic, filename, options.arch, data)
        request = options.snapshot if number == 0 else None
        machine = Machine(program, kernel, context, template_values, param_values, recorder, request,
                          lambda m: captured.append(_capture(m, options.arch)), templates)
        machine.steps = steps
        machine.run()
        first = first or machine  # the other blocks' machines are dropped: memory stays flat
        notes += machine.notes
        if request is not None and not machine.snapshot_taken:
            raise BankismError(_snapshot_missed(filename, options.snapshot))
    assert first is not None
    if not options.as_written:
        bodies = program.converted_bodies()
        uniform = runtime_uniform_names(bodies, kernel)
        constants = {name: value for name, value in template_values.items() if isinstance(value, int)}
        runtime = runtime_stride_sites(recorder.sites.values(), uniform, definitions(bodies), constants,
                                       kernel.name)
        if not says_volatile(program.pre.text):
            notes += reload_notes(drop_reloads(recorder))
        notes += merge_notes(merge_neighbours(recorder, runtime))
    op_order = {"load": 0, "ldmatrix": 0, "atomic": 1, "store": 2, "stmatrix": 2}
    sites = sorted(recorder.sites.values(), key=lambda s: (
        (s.file or filename) != filename, s.file or filename, s.line, s.column, op_order.get(s.op, 1),
        s.order))
    count = sum(1 for launch in program.launches if launch.kernel == kernel.name)
    template = _template_display(first)
    analysis = Analysis(
        filename, source.splitlines(), kernel.name, grid, block, blocks, dynamic, origin, options.arch,
        first.shared_arrays, first.matrices, sites, captured[0] if captured else None,
        template, {p.name: param_values.get(p.name) for p in kernel.params
                   if p.type.pointers == 0 and not p.type.dims} | {
                       name: value for name, value in param_values.items() if "." in name},
        count, chosen,
    )
    first_launch = next((launch for launch in program.launches if launch.kernel == kernel.name), None)
    analysis.assumptions = _assumptions(kernel, launch, options.defines, template, count, filename,
                                        launch is first_launch)
    notes += _variables_set(program, source, options)
    analysis.assumptions += list(dict.fromkeys(scope.notes + notes + (data.notes() if data else [])))
    if grid_note:
        analysis.assumptions.insert(0, grid_note + _missing_headers(program))
    return analysis


def _check_data_names(program: Program, kernel: S.Function, options: ExplainOptions) -> None:
    """A ``--data NAME=...`` must name a pointer parameter of the kernel (``A.elements``: a field of its
    struct parameter ``A``) or a ``__constant__``/``__device__`` array of the file."""
    pointers = [p.name for p in kernel.params if p.type.pointers or p.type.dims]
    known = {p.name for p in kernel.params} | {item.name for decl in program.globals for item in decl.items}
    for name in options.data:
        if name is not None and name.split(".")[0] not in known:
            raise BankismError(f"--data {name}=...: {kernel.name} has no pointer or global array {name} "
                               f"(its pointer parameters: {', '.join(pointers) or 'none'})")


def _assumptions(kernel: S.Function, launch: SourceLaunch | None, defines: dict[str, str],
                 template: dict[str, int | str], launches: int, filename: str,
                 first: bool = True) -> list[str]:
    """What explain took without being told: template arguments from the file's launch (the
    first, when there are several) or from the parameter's default."""
    notes = []
    for position, param in enumerate(kernel.template_params):
        if param.name in defines or param.name not in template:
            continue
        value = template[param.name]
        if launch is not None and position < len(launch.template_args):
            place = launch.place(filename)
            where = f"the launch on {place}"
            if launches > 1 and first:
                where = f"the first of the file's {launches} launches of {kernel.name} ({place})"
            elif launches > 1:
                where = (f"the launch on {place}, the one of the file's {launches} launches of "
                         f"{kernel.name} the host code reaches with the values given")
            notes.append(f"template argument {param.name}={value} taken from {where}; "
                         f"give -D {param.name}=... for another")
        elif param.is_type and launch is not None and param.default is None:
            notes.append(
                f"template argument {param.name}={value} deduced from the arguments of the launch on "
                f"{launch.place(filename)}"
            )
        elif param.default is not None:
            notes.append(f"template argument {param.name}={value} is the parameter's default")
    return notes


def _template_display(machine: Machine) -> dict[str, int | str]:
    """The template arguments the kernel ran with (numbers, or type names)."""
    out: dict[str, int | str] = {}
    for param in machine.kernel.template_params:
        binding = machine.bindings.get(param.name)
        if isinstance(binding, TypeAlias):
            out[param.name] = binding.type.name
        elif isinstance(binding, Scalar):
            out[param.name] = int(binding.data)
    return out


def _launch_beside(program: Program, source: str, filename: str, options: ExplainOptions) -> Program | None:
    """The program with a runner of the same source tree appended, when the file does not launch its
    kernel and the options do not give the launch's shape (launch_search.py); None otherwise. The
    kernel's file keeps its lines; the runner's own ``#include`` of it is skipped."""
    if options.block is not None or not is_file_of(filename, source):
        return None
    try:
        kernel = _choose_kernel(program, options.kernel, filename)
    except BankismError:
        return None
    defined = sum(1 for other in program.kernels if other.name == kernel.name)
    if any(launch.kernel == kernel.name for launch in program.launches):
        return None
    for runner in launching_files(filename, kernel.name):
        if '"' in runner or "\\" in runner or "\n" in runner:
            continue
        try:
            joined = _program(f'{source}\n#include "{os.path.abspath(runner)}"\n', filename, options, True)
        except BankismError:  # a runner that does not preprocess or parse: the next one, else the refusal
            continue
        if (any(launch.kernel == kernel.name for launch in joined.launches)
                and sum(1 for other in joined.kernels if other.name == kernel.name) == defined):
            return joined  # (a runner that defines a kernel of the same name launches its own)
    return None


def _program(source: str, filename: str, options: ExplainOptions, once: bool = False) -> Program:
    """Preprocess and parse; -D names that are kernel or template parameters are kept out
    of the preprocessor (they bind parameters instead of rewriting the text). ``once``: an
    ``#include`` of ``filename`` itself is skipped (a runner appended to it includes it)."""
    defines = options.defines
    paths = (options.include_dirs, options.pre_includes, options.undefines, (filename,) if once else ())
    program = parse(preprocess(source, filename, {}, *paths))
    if not defines:
        return program
    reserved = set()
    for kernel in program.kernels:
        reserved.update(p.name for p in kernel.params)
        reserved.update(p.name for p in kernel.template_params)
    reserved.update(_signature_names(program.pre.text))
    reserved.update(_variable_defines(program.root, source, set(defines)))
    macros = {name: value for name, value in defines.items()
              if name not in reserved and "." not in name}  # `-D A.width=64`: a struct parameter's field
    if not macros:  # every -D binds a parameter: the first parse is the program
        return program
    return parse(preprocess(source, filename, macros, *paths))


def _variable_defines(root: Node, source: str, names: set[str]) -> set[str]:
    """Which of the -D ``names`` the file declares as a variable or parameter (host or device)
    and never tests in a preprocessor line: a -D for one sets that host variable (``-D m=1024``
    for ``void run(int m)``) and is not pasted into the text, where it would also rewrite a
    kernel's own ``for (int m = 0; ...)``."""
    kinds = ("declaration", "parameter_declaration", "optional_parameter_declaration")
    return (names & declared_names(root, kinds)[0]) - _tested_macros(source, names)


def _variables_set(program: Program, source: str, options: ExplainOptions) -> list[str]:
    """Notes for the -D names that set a variable the file declares instead of a macro."""
    given = {name for name in options.defines if "." not in name}
    params = {p.name for k in program.kernels for p in k.params + k.template_params}
    names = _variable_defines(program.root, source, given - params)
    return [f"-D {name}={options.defines[name]} sets the variable {name} the file declares (the host's value "
            "at the launch); it is not pasted into the source as a macro" for name in sorted(names)]


def _tested_macros(source: str, names: set[str]) -> set[str]:
    """Which of ``names`` the source tests or uses in a preprocessor line (#if/#ifdef/#define):
    those stay macros, as nvcc's -D makes them."""
    lines = [line for line in source.splitlines() if line.lstrip().startswith("#")]
    return {name for name in names if any(re.search(rf"\b{re.escape(name)}\b", line) for line in lines)}


_KERNEL_SIGNATURE = re.compile(r"__global__[^{};]*?\(([^{};]*?)\)\s*\{")
_LAST_WORD = re.compile(r"([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*(?:=[^,]*)?$")


def _signature_names(text: str) -> set[str]:
    """Parameter names of every __global__ function in ``text``, read from the signatures
    themselves (also of kernels bankism cannot parse): a -D for one of them binds that
    parameter and must never be pasted into the text as a macro."""
    names = set()
    for match in _KERNEL_SIGNATURE.finditer(text):
        for param in match.group(1).split(","):
            word = _LAST_WORD.search(param.strip())
            if word:
                names.add(word.group(1))
    return names


def _numeric_defines(defines: dict[str, str]) -> dict[str, int | float]:
    """-D values that are numbers, for host expressions that name them (``CEIL_DIV(N, 128)``
    where N is a parameter of the host function)."""
    values = {}
    for name, text in defines.items():
        try:
            values[name] = parse_number(text.strip())[0]
        except (ValueError, IndexError):
            continue
    return values


def _missing_headers(program: Program) -> str:
    """'; #include "X" was not found ...' when the file includes headers bankism could not
    find (a kernel may live in one of them)."""
    missing = program.pre.missing
    if not missing:
        return ""
    listed = ", ".join(f'"{m}"' for m in missing[:3]) + (", ..." if len(missing) > 3 else "")
    return f"; #include {listed} not found (give the directory with -I DIR)"


def _parse_error(program: Program) -> str:
    """Where the source stops parsing, when it does (unbalanced brackets hide a kernel)."""
    if not program.root.has_error:
        return ""
    node = program.root
    while node.has_error:  # descend towards the first error
        child = next((c for c in node.children if c.has_error or c.type == "ERROR" or c.is_missing), None)
        if child is None or child is node:
            break
        node = child
        if node.type == "ERROR" or node.is_missing:
            break
    file, line = program.pre.origin(node.start_point.row)
    return f"; the source does not parse near {file}:{line}"


def _choose_kernel(program: Program, wanted: str | None, filename: str) -> S.Function:
    kernels = program.kernels
    names = ", ".join(dict.fromkeys(k.name for k in kernels))
    if wanted is not None:
        matches = [k for k in kernels if k.name == wanted]
        if not matches:
            raise BankismError(
                f"{filename}: no __global__ function named {wanted}"
                + (f"; it defines {names}" if names else "") + _missing_headers(program)
            )
        return matches[0]
    if not kernels:
        raise BankismError(f"{filename}: no __global__ kernel found" + _parse_error(program)
                           + _missing_headers(program))
    if len({k.name for k in kernels}) > 1:
        raise BankismError(f"{filename} defines several kernels ({names}): choose one with --kernel NAME")
    return kernels[0]


def _launch_shape(
    options: ExplainOptions, launch: SourceLaunch | None, scope: HostScope, filename: str, kernel: str
) -> tuple[Dim3 | None, Dim3, str, str | None]:
    """The launch's grid (None where neither the options nor the source say it), block, where they came
    from, and the note that says the grid is not known."""
    grid, block = options.grid, options.block
    origin = "options"
    unknown_grid = None
    if block is None and launch is None:
        totals = " (and --grid X,Y,Z for the launch's totals)" if grid is None else ""
        raise BankismError(f"{filename}: no launch of {kernel} (<<<grid, block>>>) found: give --block X,Y,Z"
                           f"{totals}")
    if grid is None and launch is None:
        unknown_grid = f"no launch of {kernel} (<<<grid, block>>>) was found"
    if launch is not None and (grid is None or block is None):
        if len(launch.config) < 2:
            raise BankismError(f"{launch.located(filename)}: the launch needs <<<grid, block>>>")
        if block is None:
            block = launch_dim(scope, launch.config[1], "block", launch.written_in(filename), launch.line)
        if grid is None:
            try:
                grid = launch_dim(scope, launch.config[0], "grid", launch.written_in(filename), launch.line)
            except BankismError:  # the block alone answers per block; only the launch's totals need the grid
                unknown_grid = (f"the grid `{snippet(launch.config[0])}` on {launch.place(filename)} "
                                "cannot be evaluated")
        origin = launch.place(filename) + ("" if options.grid is None and options.block is None
                                           else " and options")
    problem = launch_shape_problem(grid or (1, 1, 1), block)
    if problem:
        raise BankismError(f"{filename}: {problem}")
    note = (None if unknown_grid is None else
            f"the launch's grid is not known ({unknown_grid}): the answer is per block, gridDim is not "
            "known, and no launch totals are given; give --grid X,Y,Z for them")
    return grid, block, origin, note


def _dynamic_shared(options: ExplainOptions, launch: SourceLaunch | None, scope: HostScope) -> int:
    value = 0
    if options.dynamic_shared is not None:
        value = options.dynamic_shared
    elif launch is not None and len(launch.config) >= 3:
        found = host_number(scope, launch.config[2])
        if isinstance(found, int):
            value = found
    limit = get_arch(options.arch).shared_bytes
    if not 0 <= value <= limit:
        raise BankismError(
            f"dynamic shared memory of {value:,} bytes: expected 0 to {limit:,} bytes "
            f"({limit // 1024} KB, the shared memory of a {options.arch} block)"
        )
    return value


def _blocks(options: ExplainOptions, grid: Dim3 | None, block: Dim3, filename: str) -> list[Dim3]:
    """The blocks to simulate, within the ``threads`` budget (blocks x threads per block)."""
    per_block = block[0] * block[1] * block[2]
    if grid is None:
        if options.all_blocks:
            raise BankismError(f"{filename}: --block-index all needs the launch's grid: give --grid X,Y,Z")
        return list(dict.fromkeys(options.block_indices or [(0, 0, 0)]))
    count = grid[0] * grid[1] * grid[2] if options.all_blocks else len(set(options.block_indices or [0]))
    if count * per_block > limit("threads"):
        raise over_limit("threads", count * per_block,
                         f"{filename}: {count:,} block(s) of {per_block:,} threads")
    if options.all_blocks:
        return [(x, y, z) for z in range(grid[2]) for y in range(grid[1]) for x in range(grid[0])]
    blocks = options.block_indices or [(0, 0, 0)]
    for index in blocks:
        if any(i < 0 or i >= g for i, g in zip(index, grid, strict=True)):
            raise BankismError(f"--block-index {','.join(map(str, index))} is outside the grid {grid}")
    return list(dict.fromkeys(blocks))


def _snapshot_missed(filename: str, request: SnapshotRequest) -> str:
    when = " and ".join(f"{n}={v}" for n, v in request.when)
    condition = f" with {when}" if when else ""
    return f"{filename}:{request.line}: --snapshot: no statement ending on line {request.line} ran{condition}"


def _capture(machine: Machine, arch: str) -> Snapshot:
    """The content of every shared array now: per scalar cell, the matrix element (or value)
    it holds, its byte offset and banks."""
    geometry = get_arch(arch)
    arrays = []
    for region in machine.shared_arrays:
        dims, element = C.array_shape(region.type)
        scalar = element.scalar
        shape = list(dims) + ([element.count] if element.kind == "vec" else [])
        count = region.size // scalar.size
        cells = []
        for k in range(count):
            address = region.base + k * scalar.size
            index = _unravel(k, shape)
            words = range(
                address // geometry.bank_bytes, (address + scalar.size - 1) // geometry.bank_bytes + 1
            )
            banks = sorted({w % geometry.banks for w in words})
            cells.append(
                {
                    "index": index,
                    "byte_offset": address,
                    "banks": banks,
                    "source": _cell_source(machine, address, scalar),
                }
            )
        arrays.append(SnapshotArray(region.name, scalar.name, shape, region.base, scalar.size, cells))
    request = machine.snapshot
    return Snapshot(request.line, dict(request.when), machine.context.block_index, arrays)


def _unravel(k: int, shape: list[int]) -> list[int]:
    index = []
    for size in reversed(shape):
        index.append(k % size)
        k //= size
    return list(reversed(index)) if shape else [k]


def _cell_source(machine: Machine, address: int, t: C.CType) -> str | None:
    held = machine.store.cell(address, t)
    if held is None:
        return None
    kind, payload = held
    if kind == "src":
        return describe_source(payload, machine.matrices)
    if kind == "value":
        return "=" + value_text(payload, t)
    return kind


#: The former name of ``interpret_kernel`` (kept for callers; not the trace analysis of
#: ``bankism.analyze``).
analyze = interpret_kernel
