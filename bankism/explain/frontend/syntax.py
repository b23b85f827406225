"""The small syntax tree the interpreter runs: built once from tree-sitter's concrete tree so
that loops executed thousands of times never touch tree-sitter nodes again."""

from __future__ import annotations

from dataclasses import dataclass, field, fields


@dataclass(slots=True, eq=False)
class Node:
    """Every node knows its 1-based line in the file as given and its (preprocessed) text."""

    line: int
    text: str
    col: int = field(default=0, kw_only=True)
    file: str = field(default="", kw_only=True)


# --- types -------------------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class TypeName(Node):
    """A type as written: base name, pointer levels, array sizes, reference, qualifiers."""

    base: str
    pointers: int = 0
    dims: list[Expr | None] = field(default_factory=list)
    reference: bool = False
    const: bool = False
    align: Expr | None = None
    args: list[TypeName | Expr] | None = None
    scope: str = ""
    #: ``Traits<T>`` in ``typename Traits<T>::type``: the class template the name is a member of.
    scope_type: TypeName | None = None
    #: ``decltype(expr)``: the expression whose type this is (``base`` is "decltype").
    decltype: Expr | None = None
    #: Pointer levels outside the array sizes: ``T (*p)[N]`` is a pointer to an array of N T.
    array_pointers: int = 0


# --- expressions -------------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class Expr(Node):
    pass


@dataclass(slots=True, eq=False)
class Literal(Expr):
    value: int | float | str
    type_name: str


@dataclass(slots=True, eq=False)
class Name(Expr):
    name: str
    scope: str = ""
    #: ``Stride<double, 2>`` in ``Stride<double, 2>::value``: the class the name is a member of.
    scope_type: TypeName | None = None


@dataclass(slots=True, eq=False)
class This(Expr):
    """``this`` inside a member function."""


@dataclass(slots=True, eq=False)
class Member(Expr):
    base: Expr
    field: str
    arrow: bool


@dataclass(slots=True, eq=False)
class Subscript(Expr):
    base: Expr
    index: Expr


@dataclass(slots=True, eq=False)
class Call(Expr):
    function: str
    args: list[Expr]
    template_args: list[TypeName | Expr] = field(default_factory=list)
    #: The qualifier written before the name (``L`` of ``L::off(r, k)``), "" when none.
    scope: str = ""


@dataclass(slots=True, eq=False)
class MethodCall(Expr):
    """``base.method(args)`` or ``base->method(args)``: a member function, or a cooperative
    group's operation."""

    base: Expr
    method: str
    args: list[Expr]
    arrow: bool
    template_args: list[TypeName | Expr] = field(default_factory=list)


@dataclass(slots=True, eq=False)
class Lambda(Expr):
    """A lambda expression; its body is converted when it is first called."""

    params: list[Param]
    body_node: object = field(repr=False)
    _body: Block | None = field(default=None, repr=False)


@dataclass(slots=True, eq=False)
class Cast(Expr):
    target: TypeName
    value: Expr
    style: str


@dataclass(slots=True, eq=False)
class Unary(Expr):
    op: str
    operand: Expr


@dataclass(slots=True, eq=False)
class IncDec(Expr):
    op: str
    prefix: bool
    target: Expr


@dataclass(slots=True, eq=False)
class Binary(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(slots=True, eq=False)
class Assign(Expr):
    op: str
    target: Expr
    value: Expr


@dataclass(slots=True, eq=False)
class Conditional(Expr):
    condition: Expr
    then: Expr
    otherwise: Expr


@dataclass(slots=True, eq=False)
class Comma(Expr):
    left: Expr
    right: Expr


@dataclass(slots=True, eq=False)
class SizeOf(Expr):
    target: TypeName | Expr


@dataclass(slots=True, eq=False)
class InitList(Expr):
    items: list[Expr]


# --- statements --------------------------------------------------------------------------


@dataclass(slots=True, eq=False)
class Stmt(Node):
    end_line: int


@dataclass(slots=True, eq=False)
class ExprStmt(Stmt):
    expr: Expr


@dataclass(slots=True, eq=False)
class Declarator(Node):
    name: str
    type: TypeName
    init: Expr | None


@dataclass(slots=True, eq=False)
class Decl(Stmt):
    items: list[Declarator]
    shared: bool = False
    extern: bool = False
    static: bool = False
    space: str = ""


@dataclass(slots=True, eq=False)
class Block(Stmt):
    body: list[Stmt]


@dataclass(slots=True, eq=False)
class If(Stmt):
    condition: Expr
    then: Stmt
    otherwise: Stmt | None


@dataclass(slots=True, eq=False)
class For(Stmt):
    init: Stmt | None
    condition: Expr | None
    update: Expr | None
    body: Stmt
    #: False after ``#pragma unroll 1``: nvcc keeps the loop, so no access merges across iterations.
    unrolled: bool = True
    #: True after ``#pragma unroll`` (no count, or one above 1): unrolled whatever its size.
    forced: bool = False


@dataclass(slots=True, eq=False)
class While(Stmt):
    condition: Expr
    body: Stmt


@dataclass(slots=True, eq=False)
class DoWhile(Stmt):
    body: Stmt
    condition: Expr


@dataclass(slots=True, eq=False)
class Refused(Stmt):
    """A statement bankism cannot interpret: ``error`` (file:line: what) is raised only when
    a simulated thread executes it."""

    error: str


@dataclass(slots=True, eq=False)
class TypeDef(Stmt):
    """``typedef T name;`` or ``using name = T;`` inside a function."""

    name: str
    type: TypeName


@dataclass(slots=True, eq=False)
class Return(Stmt):
    value: Expr | None


@dataclass(slots=True, eq=False)
class Break(Stmt):
    pass


@dataclass(slots=True, eq=False)
class Continue(Stmt):
    pass


# --- functions and launches --------------------------------------------------------------


@dataclass(slots=True, eq=False)
class Param(Node):
    name: str
    type: TypeName
    #: The default argument (``unsigned C = 0``), or None.
    default: Expr | None = None


@dataclass(slots=True, eq=False)
class TemplateParam(Node):
    name: str
    is_type: bool
    default: TypeName | Expr | None


@dataclass(slots=True, eq=False)
class Function(Node):
    name: str
    return_type: TypeName
    params: list[Param]
    template_params: list[TemplateParam]
    is_kernel: bool
    body_node: object = field(repr=False)
    _body: Block | None = field(default=None, repr=False)
    #: Member functions: the struct they belong to, constructor member initializers
    #: (field, arguments), and the target type of a conversion operator.
    owner: str = ""
    initializers: list[tuple[str, list[Expr]]] = field(default_factory=list)
    conversion: TypeName | None = None
    is_static: bool = False
    #: Why bankism cannot use this function (raised only when it is called).
    error: str | None = None


@dataclass(slots=True, eq=False)
class StructDef(Node):
    """A struct, class or union definition (a class template, or one specialization)."""

    name: str
    kind: str
    template_params: list[TemplateParam]
    specialization: list[TypeName | Expr] | None
    fields: list[Declarator]
    statics: list[Declarator]
    methods: list[Function]
    aliases: list[tuple[str, TypeName]]
    align: Expr | None = None
    error: str | None = None
    #: Non-virtual base classes, in order (their members come first in the layout).
    bases: list[TypeName] = field(default_factory=list)
    #: Enumerations declared inside (``enum { ROWS = 8 };``): their names are members.
    enums: list[EnumDef] = field(default_factory=list)
    #: Unnamed structs and unions defined inside (anonymous members, or members of an
    #: unnamed type), under the names the members' types refer to.
    nested: list[StructDef] = field(default_factory=list)
    #: False for a class template only declared (``template <class T> struct S;``): its primary's
    #: parameters and defaults, no definition.
    defined: bool = True


@dataclass(slots=True, eq=False)
class EnumDef(Node):
    """An enumeration: its name ("" when unnamed), whether it is scoped (``enum class``), its
    underlying type when written, and its enumerators with their values as written."""

    name: str
    scoped: bool
    underlying: TypeName | None
    items: list[tuple[str, Expr | None]]


def walk(node: object):
    """Every syntax node under ``node`` (itself included), depth first."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, list):
            stack.extend(reversed(current))
            continue
        if not isinstance(current, Node):
            continue
        yield current
        for item in fields(current):
            if item.name in ("line", "text", "col", "file", "body_node", "_body"):
                continue
            value = getattr(current, item.name, None)
            if isinstance(value, Node | list):
                stack.append(value)
