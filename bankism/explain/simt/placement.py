"""Where nvcc places the __shared__ arrays declared outside a kernel's body: at file scope,
and as (implicitly static) arrays in ``__device__`` functions.

Measured on an H100 (traces/shared_placement/: probe.cu, placement.txt) and read in the
PTX that ``nvcc -arch=sm_90`` writes: ptxas lays out a kernel's shared variables in PTX
order, the kernel's function-scope variables first, then the module-scope ones it uses.
NVVM moves a module-level array that only one kernel of the file uses into that kernel,
ahead of the kernel's own arrays, in source order; an array that two or more kernels use
stays at module scope, after the kernel's own arrays, in source order. Which kernels use
an array is read from the file's call graph (by name). Where that count is not knowable
from the source (an array used only by a template kernel, whose instantiations each count)
the array is refused. A static array in a template ``__device__`` function is one array per
instantiation: those are placed by template_shared.py (``plan.templated`` lists them)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bankism.errors import BankismError
from bankism.explain.frontend import syntax as S
from bankism.explain.frontend.parse import Program
from bankism.explain.frontend.treesitter import node_text

_IDENT = re.compile(r"[A-Za-z_]\w*")
_FILE_SCOPES = ("translation_unit", "declaration_list", "linkage_specification")


@dataclass(eq=False)
class OuterShared:
    """A __shared__ array declared outside the kernel: ``owner`` is its __device__ function
    (None at file scope); ``position`` orders arrays as the file declares them."""

    decl: S.Decl
    item: S.Declarator
    owner: S.Function | None
    position: tuple[int, int]


def outer_shared(program: Program) -> list[OuterShared]:
    """Every file-scope __shared__ array and every __shared__ array in a __device__
    function of ``program``, in source order."""
    found: list[OuterShared] = []
    nodes = _file_scope_shared(program.root)
    taken: set[int] = set()
    for decl in program.globals:
        if not decl.shared:
            continue
        index = next((i for i, (_, text) in enumerate(nodes) if i not in taken and text == decl.text), None)
        if index is None:
            continue
        taken.add(index)
        found.extend(OuterShared(decl, item, None, (nodes[index][0], k)) for k, item in enumerate(decl.items))
    for overloads in program.functions.values():
        for function in overloads:
            if function.is_kernel or function.body_node is None:
                continue
            try:
                body = program.body(function)
            except BankismError:
                continue
            k = 0
            for node in S.walk(body):
                if isinstance(node, S.Decl) and node.shared and not node.extern:
                    for item in node.items:
                        found.append(OuterShared(node, item, function, (function.body_node.start_byte, k)))
                        k += 1
    return sorted(found, key=lambda o: o.position)


def _file_scope_shared(root) -> list[tuple[int, str]]:  # noqa: ANN001
    out = []
    stack = [root]
    while stack:
        node = stack.pop()
        for child in reversed(node.children):
            if child.type == "declaration" and "__shared__" in node_text(child):
                out.append((child.start_byte, node_text(child)))
            elif child.type in _FILE_SCOPES or child.type in ("namespace_definition", "declaration_list"):
                stack.append(child)
    return sorted(out)


def kernel_reach(program: Program, kernel: S.Function) -> tuple[set[int], set[str]]:
    """(ids of the functions ``kernel`` may call, directly or not; identifiers they use)."""
    reached: set[int] = {id(kernel)}
    names: set[str] = set()
    todo = [kernel]
    while todo:
        function = todo.pop()
        if function.body_node is None:
            continue
        tokens = set(_IDENT.findall(node_text(function.body_node)))
        names |= tokens
        for name in tokens:
            for callee in program.functions.get(name, []):
                if not callee.is_kernel and id(callee) not in reached:
                    reached.add(id(callee))
                    todo.append(callee)
    return reached, names


def _uses(outer: OuterShared, reach: tuple[set[int], set[str]]) -> bool:
    functions, names = reach
    if outer.owner is None:
        return outer.item.name in names
    return id(outer.owner) in functions


@dataclass
class OuterPlan:
    """The outer arrays ``kernel`` uses: ``before`` its own arrays (moved into the kernel),
    ``after`` them (kept at module scope), and ``refused`` (array -> why)."""

    before: list[OuterShared]
    after: list[OuterShared]
    refused: list[tuple[OuterShared, str]]
    #: Static arrays of template __device__ functions the kernel may call (one per instantiation).
    templated: list[OuterShared] = field(default_factory=list)


def plan_outer(program: Program, kernel: S.Function) -> OuterPlan:
    """Split the outer __shared__ arrays ``kernel`` uses as nvcc places them."""
    outers = outer_shared(program)
    plan = OuterPlan([], [], [], [])
    if not outers:
        return plan
    mine = kernel_reach(program, kernel)
    others = [(k, kernel_reach(program, k)) for k in program.kernels if k is not kernel]
    for outer in outers:
        if not _uses(outer, mine):
            continue
        where = ("a __device__ function's static __shared__ array" if outer.owner is not None
                 else "a file-scope __shared__ array")
        if outer.owner is not None and outer.owner.template_params:
            plan.templated.append(outer)
            continue
        users = [k for k, reach in others if _uses(outer, reach)]
        if not users and kernel.template_params:
            plan.refused.append((outer,
                f"unsupported construct: {where} ({outer.item.name}) used by template kernel "
                f"{kernel.name}: where nvcc places it depends on how many instantiations the file "
                "makes, which is not modelled"))
            continue
        (plan.after if users else plan.before).append(outer)
    return plan
