"""What a file's launches of a kernel say: which launch the host code reaches with the values
given, its template arguments (from the launch, -D, a default or the arguments' types), the
scalar arguments, and the template arguments of the file's other instantiations."""

from __future__ import annotations

import re

from tree_sitter import Node

from bankism.errors import BankismError
from bankism.explain.cuda.wmma import tag_type
from bankism.explain.frontend import syntax as S
from bankism.explain.frontend.host import HostScope, HostUnknown, host_number, reparse_type
from bankism.explain.frontend.parse import Program, SourceLaunch, parse_number
from bankism.explain.frontend.treesitter import named_children, node_text
from bankism.explain.simt import ctype as C

#: A launch argument that is a null pointer as written.
NULL_POINTERS = ("nullptr", "NULL", "0")


def chosen_launch(program: Program, kernel: S.Function, given: dict[str, int | float]) -> SourceLaunch | None:
    """The file's first launch of ``kernel`` that the host code reaches with the values given
    (launches in switch cases or if branches decidably not taken are passed over), else its first."""
    mine = [launch for launch in program.launches if launch.kernel == kernel.name]
    reached = (launch for launch in mine if launch_is_reached(program, launch, given))
    return next(reached, mine[0] if mine else None)


def sibling_instantiations(program: Program, kernel: S.Function, given: dict[str, int | float],
                           mine: dict[str, object], filename: str) -> list[dict[str, object]] | None:
    """The template arguments of the file's other instantiations of a template kernel (its
    launches with other arguments); None when some cannot be evaluated or the file also
    instantiates it explicitly."""
    if not kernel.template_params:
        return []
    made = instantiations(program, kernel, given, filename)
    return None if made is None else [values for values in made if _key(values) != _key(mine)]


def instantiations(program: Program, kernel: S.Function, given: dict[str, int | float],
                   filename: str) -> list[dict[str, object]] | None:
    """The template arguments of every launch of a template kernel of the file (each evaluated
    in its own host scope), or None when one cannot be evaluated or the file also instantiates
    the kernel explicitly."""
    if re.search(r"\btemplate\s+(?!<)[^;{}]*\b" + re.escape(kernel.name) + r"\s*<", program.pre.text):
        return None
    out: list[dict[str, object]] = []
    for launch in program.launches:
        if launch.kernel != kernel.name:
            continue
        try:
            values = launch_template_values(kernel, launch, HostScope(program, launch, given), {}, filename)
        except BankismError:
            return None
        if len(values) != len(kernel.template_params):
            return None
        if _key(values) not in [_key(v) for v in out]:
            out.append(values)
    return out


def _key(values: dict[str, object]) -> tuple:
    """Template arguments compared by what they are (a struct type by its text as written)."""
    return tuple((name, " ".join(value.text.split()) if isinstance(value, S.TypeName) else value)
                 for name, value in sorted(values.items()))


def launch_template_values(
    kernel: S.Function, launch: SourceLaunch | None, scope: HostScope, defines: dict[str, str], filename: str
) -> dict[str, object]:
    """The kernel's template arguments: from -D, else the launch's ``<...>`` (types by name, a
    host alias, a struct of the file; values evaluated in the host scope), else deduced from the
    launch's arguments' types."""
    values: dict[str, object] = {}
    for position, param in enumerate(kernel.template_params):
        if param.name in defines:
            values[param.name] = _defined(param.name, defines[param.name], param.is_type, scope)
        elif launch is not None and position < len(launch.template_args):
            node = launch.template_args[position]
            text = " ".join(node.text.decode().split())
            if param.is_type:
                text = scope.aliases.get(text, text)  # `using DType = half;` before the launch
                t = C.lookup(text.replace("const ", "")) or tag_type(text) or _struct_argument(node, scope)
                if t is None:
                    raise BankismError(
                        f"{launch.located(filename)}: template argument {text} is not a type bankism knows "
                        f"(a host template's own parameter, or a type of a header not found): give "
                        f"-D {param.name}=TYPE, e.g. -D {param.name}=float"
                    )
                values[param.name] = t
            else:
                try:
                    values[param.name] = int(scope.eval(node))
                except (HostUnknown, TypeError, ValueError):
                    raise BankismError(
                        f"{launch.located(filename)}: cannot evaluate template argument {text}: "
                        f"give -D {param.name}=VALUE"
                    ) from None
        elif launch is not None and param.is_type:
            deduced = _deduced_type(kernel, param.name, launch, scope)
            if deduced is not None:
                values[param.name] = deduced
    return values


def _deduced_type(kernel: S.Function, name: str, launch: SourceLaunch, scope: HostScope) -> C.CType | None:
    """A type template parameter deduced from the launch's arguments, as the compiler does:
    the declared type of a host variable passed for a parameter of type ``T*`` or ``T``."""
    for position, param in enumerate(kernel.params):
        if param.type.base != name or position >= len(launch.args):
            continue
        arg = launch.args[position]
        if arg.type != "identifier":
            continue
        declared = scope.declared_type(arg.text.decode())
        if declared is None:
            continue
        base, pointers = declared
        if pointers != param.type.pointers:
            continue
        t = C.lookup(base)
        if t is not None:
            return t
    return None


def _defined(name: str, text: str, is_type: bool, scope: HostScope) -> object:
    """A template argument given as -D NAME=TEXT: a type (a struct of the file too,
    ``-D Tile=Block<256, 128, 32>``, as explain --trace passes a recorded instantiation) or an
    integer."""
    if is_type:
        t = C.lookup(" ".join(text.split())) or tag_type(text) or _struct_argument(reparse_type(text), scope)
        if t is None:
            raise BankismError(f"-D {name}={text}: {text} is not a type bankism knows")
        return t
    booleans = {"true": 1, "false": 0}
    try:
        value = booleans.get(text.strip())
        if value is None:
            value = parse_number(text.strip())[0]
    except (ValueError, IndexError):
        raise BankismError(f"-D {name}={text}: not a number") from None
    if not isinstance(value, int):
        raise BankismError(f"-D {name}={text}: template parameter {name} needs an integer")
    return value


def launch_param_values(
    kernel: S.Function, launch: SourceLaunch | None, scope: HostScope, defines: dict[str, str], filename: str
) -> dict[str, int | float | None]:
    """The kernel's scalar arguments (and fields of struct arguments, ``-D A.width=64``): from
    -D, else the launch's argument evaluated in the host scope; None where not known."""
    values: dict[str, int | float | None] = {}
    names = {p.name for p in kernel.params}
    for name, text in defines.items():  # `-D A.width=64`: a field of struct parameter A
        if "." in name and name.split(".")[0] in names:
            try:
                values[name] = parse_number(text.strip())[0]
            except (ValueError, IndexError):
                raise BankismError(f"-D {name}={text}: not a number") from None
    for position, param in enumerate(kernel.params):
        if param.name in defines:
            try:
                values[param.name] = parse_number(defines[param.name].strip())[0]
            except (ValueError, IndexError):
                raise BankismError(f"-D {param.name}={defines[param.name]}: not a number") from None
        elif launch is not None and position < len(launch.args) and param.type.pointers \
                and node_text(launch.args[position]).strip() in NULL_POINTERS:
            values[param.name] = 0  # `kernel<<<...>>>(a, nullptr)`: a null pointer argument
        elif launch is not None and position < len(launch.args):
            values[param.name] = host_number(scope, launch.args[position])
        else:
            values[param.name] = None
    return values


def _struct_argument(node: Node | None, scope: HostScope) -> S.TypeName | None:
    """A launch's template argument naming a struct of the file (``Block<256, 128, 32>``, or a
    host alias of one), as a type the machine instantiates; None otherwise."""
    if node is None:
        return None
    written = node_text(node).strip()
    if written in scope.alias_nodes:
        node = scope.alias_nodes[written]
    if node.type != "type_descriptor":
        return None
    try:
        type_name = scope.program.type_descriptor(node)
    except BankismError:
        return None
    return type_name if type_name.base in scope.program.structs and not type_name.pointers else None


_UNDECIDED = (HostUnknown, BankismError, RecursionError, ArithmeticError, KeyError, TypeError, ValueError)
_LEAVES = ("break_statement", "return_statement", "throw_statement", "continue_statement")


def launch_is_reached(program: Program, launch: SourceLaunch, given: dict[str, int | float]) -> bool:
    """False when a ``switch`` case or an ``if`` branch around ``launch`` is decidably not taken
    with the values known (a dispatch over template sizes: ``switch (K) { case 64: k<64><<<...>>> }``
    with -D K=1024); True when it is taken or cannot be decided."""
    if not launch.config:
        return True
    scope = HostScope(program, launch, given)
    node = launch.config[0]
    while node.parent is not None:
        parent = node.parent
        try:
            if parent.type == "case_statement" and not _case_taken(scope, parent):
                return False
            if parent.type == "if_statement":
                consequence = parent.child_by_field_name("consequence")
                alternative = parent.child_by_field_name("alternative")
                taken = bool(scope.eval(_condition(parent)))
                if consequence is not None and consequence.id == node.id and not taken:
                    return False
                if alternative is not None and alternative.id == node.id and taken:
                    return False
        except _UNDECIDED:
            pass
        node = parent
    return True


def _condition(statement: Node) -> Node:
    """The expression of an ``if``/``switch`` condition clause."""
    clause = statement.child_by_field_name("condition")
    children = named_children(clause)
    return children[-1] if children else clause


def _case_taken(scope: HostScope, case: Node) -> bool:
    """Whether control reaches ``case`` for the switch value: entered at the matching label (or
    ``default``), then falling through cases that do not end in break/return."""
    switch = case.parent.parent if case.parent is not None else None
    if switch is None or switch.type != "switch_statement":
        return True
    value = scope.eval(_condition(switch))
    cases = [c for c in case.parent.named_children if c.type == "case_statement"]
    labels = [c.child_by_field_name("value") for c in cases]
    values = [None if label is None else scope.eval(label) for label in labels]
    entered = next((i for i, v in enumerate(values) if v is not None and v == value), None)
    if entered is None:
        entered = next((i for i, v in enumerate(values) if v is None), None)
    if entered is None:
        return False
    for index in range(entered, len(cases)):
        if cases[index].id == case.id:
            return True
        body = [c for c in cases[index].named_children if c.id != (labels[index].id if labels[index] else -1)]
        if body and body[-1].type in _LEAVES:
            return False
    return False
