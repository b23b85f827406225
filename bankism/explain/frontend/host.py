"""Host-side constants: the launch configuration (``dim3`` variables, ``<<<grid, block,
bytes>>>``) and the values of scalar kernel arguments, evaluated from the source around the
launch (file scope and the function holding it) with C integer arithmetic."""

from __future__ import annotations

import math
from collections.abc import Iterator

from tree_sitter import Node

from bankism.errors import BankismError
from bankism.explain.frontend import syntax as S
from bankism.explain.frontend.command_line import under_command_line_test
from bankism.explain.frontend.parse import Program, SourceLaunch, parse_number
from bankism.explain.frontend.treesitter import named_children, node_text, parser, snippet
from bankism.explain.simt import ctype as C

#: What file-scope declarations are found inside: namespaces and ``extern "C" { }`` blocks included.
_FILE_SCOPES = ("translation_unit", "expression_statement", "namespace_definition", "declaration_list",
                "linkage_specification")


class HostUnknown(Exception):
    """A host expression bankism cannot evaluate (a runtime value, an unknown function)."""


Dim3 = tuple[int, int, int]


class HostScope:
    """Declarations visible at a launch: ``name -> initializer node`` (file scope first, then
    the enclosing function's declarations up to the launch)."""

    def __init__(self, program: Program, launch: SourceLaunch | None,
                 given: dict[str, int | float] | None = None) -> None:
        self.program = program
        self.given = given or {}
        self.nodes: dict[str, list[Node]] = {}
        #: name -> (declaration, declarator) of every host variable seen, initialized or not.
        self.declarations: dict[str, tuple[Node, Node]] = {}
        self._busy: set[str] = set()
        #: host variables assigned or passed by reference after their declaration, before the launch
        self.changed: set[str] = set()
        #: host variables changed only under ``if (argc ...)``/``argv``: a run without arguments keeps
        #: their declared value, which is used and stated (name -> line of the change)
        self.command_line: dict[str, int] = {}
        self._by_reference: dict[str, set[int]] = {}  # function name -> its non-const & parameters
        #: what the launch shape took without being told (read by the report's assumptions)
        self.notes: list[str] = []
        #: ``using NAME = type;`` seen at file scope or before the launch: name -> the type as written
        self.aliases: dict[str, str] = {}
        #: the same aliases' type nodes (a struct template's instantiation, `using tb = Block<256, 128, 32>;`)
        self.alias_nodes: dict[str, Node] = {}
        #: the parameters of the host functions being evaluated (``ceil_div(a, b)``), innermost last
        self._frames: list[dict[str, int | float]] = []
        self._enumerators: dict[str, int] | None = None
        self._collect(program.root, limit=None, top_only=True)
        if launch is not None and launch.scope is not None:
            self._collect(launch.scope, limit=launch.line, top_only=False)

    def _collect(self, root: Node, limit: int | None, top_only: bool) -> None:
        stack = list(reversed(root.children))
        while stack:
            node = stack.pop()
            if limit is not None and self.program.line(node) > limit:
                continue
            if node.type == "declaration":
                for declarator in node.children_by_field_name("declarator"):
                    self._remember(node, declarator)
            elif node.type == "alias_declaration":  # `using DType = half;`
                name, aliased = node.child_by_field_name("name"), node.child_by_field_name("type")
                if name is not None and aliased is not None:
                    self.aliases[node_text(name)] = " ".join(node_text(aliased).split())
                    self.alias_nodes[node_text(name)] = aliased
            elif node.type == "function_definition" and top_only:
                continue
            elif not top_only and node.type in _CHANGES:
                self._note_changes(node)
                stack.extend(reversed(node.children))
            elif not top_only or node.type in _FILE_SCOPES:
                stack.extend(reversed(node.children))

    def _note_changes(self, node: Node) -> None:
        """Remember the variables ``node`` may change after their declaration (``n = ...``,
        ``n++``, ``f(&n)``, ``f(n)`` with a file function taking a non-const reference there):
        their declared value is not theirs at the launch."""
        if node.type == "assignment_expression" and self._assigns_in_line(node):
            return
        if node.type == "assignment_expression":
            changed = [node.child_by_field_name("left")]
        elif node.type == "update_expression":
            changed = [node.child_by_field_name("argument")]
        else:
            args = named_children(node.child_by_field_name("arguments"))
            function = node.child_by_field_name("function")
            if function is not None and function.type == "template_function":
                function = function.child_by_field_name("name")
            callee = node_text(function).split("::")[-1]
            if callee not in self._by_reference:  # one walk of the file per function name
                self._by_reference[callee] = _reference_parameters(self.program.root, callee)
            by_reference = self._by_reference[callee]
            changed = [a.child_by_field_name("argument") if a.type == "pointer_expression"
                       and node_text(a.child_by_field_name("operator")) == "&" else a
                       for i, a in enumerate(args) if i in by_reference or a.type == "pointer_expression"]
        from_command_line = under_command_line_test(node)
        for target in changed:
            if target is not None and target.type == "identifier":
                name = node_text(target)
                if from_command_line and name not in self.changed:
                    self.command_line.setdefault(name, self.program.line(node))
                else:
                    self.changed.add(name)
                    self.command_line.pop(name, None)

    def _assigns_in_line(self, node: Node) -> bool:
        """Remember ``n = e;`` or ``block.x = e;`` as the variable's value from there on when it runs
        whenever the launch does (a statement of the launch's function, not under an ``if`` or a loop)
        and sets a variable declared before it; otherwise the caller counts the variable changed."""
        target = node.child_by_field_name("left")
        if node_text(node.child_by_field_name("operator")) != "=" or target is None:
            return False
        member = target.type == "field_expression"
        if member:
            field_node = target.child_by_field_name("field")
            target = target.child_by_field_name("argument")
            if field_node is None or node_text(field_node) not in ("x", "y", "z"):
                return False
        if target is None or target.type != "identifier" or node_text(target) not in self.declarations:
            return False
        if member and node_text(self.declarations.get(node_text(target), (node,))[0]
                                .child_by_field_name("type") or node) != "dim3":
            return False
        statement = node.parent
        if statement is None or statement.type != "expression_statement":
            return False
        parent = statement.parent
        while parent is not None and parent.type == "compound_statement":
            parent = parent.parent
        if parent is None or parent.type != "function_definition" or under_command_line_test(node):
            return False
        name = node_text(target)
        if name in self.changed:
            return False
        if member and name not in self.nodes:
            return False
        self.nodes.setdefault(name, []).append(node)
        return True

    def declared_type(self, name: str) -> tuple[str, int] | None:
        """(base type, pointer levels) of the host variable ``name`` as last declared before the
        launch (``float *d_in`` -> ("float", 1)), or None."""
        found = self.declarations.get(name)
        if found is None:
            return None
        declaration, declarator = found
        type_node = declaration.child_by_field_name("type")
        pointers = 0
        current = declarator
        while current is not None and current.type in ("init_declarator", "pointer_declarator"):
            pointers += current.type == "pointer_declarator"
            current = current.child_by_field_name("declarator")
        return " ".join(node_text(type_node).split()), pointers

    def _remember(self, declaration: Node, declarator: Node) -> None:
        inner = declarator
        while inner is not None and inner.type in ("init_declarator", "pointer_declarator"):
            inner = inner.child_by_field_name("declarator")
        if inner is not None and inner.type == "identifier":
            self.declarations[node_text(inner)] = (declaration, declarator)
        type_node = declaration.child_by_field_name("type")
        if type_node is None:
            return
        if declarator.type == "init_declarator":
            name_node = declarator.child_by_field_name("declarator")
            if name_node.type == "identifier":
                self.nodes.setdefault(node_text(name_node), []).append(declarator)
        elif declarator.type == "function_declarator" and node_text(type_node) == "dim3":
            name_node = declarator.child_by_field_name("declarator")
            self.nodes.setdefault(node_text(name_node), []).append(declarator)
        elif declarator.type == "identifier" and node_text(type_node) == "dim3":  # `dim3 block;`: (1, 1, 1)
            self.nodes.setdefault(node_text(declarator), []).append(declarator)

    def value(self, name: str) -> int | float | Dim3:
        """The value of host variable ``name``: -D NAME=VALUE, else its last declaration before
        the launch."""
        if self._frames and name in self._frames[-1]:
            return self._frames[-1][name]
        if name in self.given:
            return self.given[name]
        if name not in self.nodes and name in self.enumerators:
            return self.enumerators[name]
        if name not in self.nodes or name in self._busy or name in self.changed:
            raise HostUnknown(name)
        self._busy.add(name)
        try:
            value = self._value_through(self.nodes[name])
        finally:
            self._busy.discard(name)
        if name in self.command_line:
            note = (f"host variable {name} = {value} as declared: the program changes it from its command "
                    f"line (line {self.command_line[name]}); give -D {name}=... for another")
            if note not in self.notes:
                self.notes.append(note)
        return value

    @property
    def enumerators(self) -> dict[str, int]:
        """The file's enumerators whose values are literals or follow from them (``READ`` of
        ``enum test_t { UPDATE = 0, READ, ... }``: 1), for template arguments and conditions."""
        if self._enumerators is None:
            self._enumerators = {}
            for enum in self.program.enums:
                following: int | None = 0
                for name, written in enum.items:
                    if written is not None:
                        value = written.value if isinstance(written, S.Literal) else None
                        following = value if isinstance(value, int) and not isinstance(value, bool) else None
                    if following is None:
                        break
                    self._enumerators.setdefault(name, following)
                    following += 1
        return self._enumerators

    def _value_through(self, nodes: list[Node]) -> int | float | Dim3:
        """The value after the last of a variable's declaration and straight-line assignments; a
        ``block.x = e`` sets one component of the value before it."""
        last = nodes[-1]
        if last.type != "assignment_expression":
            return self._declared_value(last)
        right = self.eval(last.child_by_field_name("right"))
        left = last.child_by_field_name("left")
        if left.type != "field_expression":
            return right
        before = self._value_through(nodes[:-1])
        if not isinstance(before, tuple) or isinstance(right, tuple):
            raise HostUnknown(node_text(left))
        component = "xyz".index(node_text(left.child_by_field_name("field")))
        parts = list(before)
        parts[component] = int(right)
        return parts[0], parts[1], parts[2]

    def _declared_value(self, declarator: Node) -> int | float | Dim3:
        if declarator.type == "identifier":  # `dim3 block;`
            return 1, 1, 1
        type_text = node_text(declarator.parent.child_by_field_name("type"))
        if declarator.type == "function_declarator":
            params = named_children(declarator.child_by_field_name("parameters"))
            return _dim3([self.eval(_reparse(node_text(p))) for p in params])
        value = declarator.child_by_field_name("value")
        if value.type in ("argument_list", "initializer_list"):
            items = [self.eval(v) for v in named_children(value)]
            if type_text == "dim3":
                return _dim3(items)
            if len(items) == 1:
                return items[0]
            raise HostUnknown(node_text(declarator))
        result = self.eval(value)
        if type_text == "dim3" and isinstance(result, int | float):
            return _dim3([result])
        return result

    def eval(self, node: Node) -> int | float | Dim3:
        """A host expression's value: integers with C semantics, ``dim3(...)`` as a triple."""
        kind = node.type
        if kind == "number_literal":
            return parse_number(node_text(node))[0]
        if kind == "parenthesized_expression":
            return self.eval(named_children(node)[0])
        if kind in ("identifier", "qualified_identifier"):
            return self.value(node_text(node).split("::")[-1])
        if kind in ("type_descriptor", "type_identifier") and node_text(node).strip().isidentifier():
            return self.value(node_text(node).strip())
        if kind == "true":
            return 1
        if kind == "false":
            return 0
        if kind == "binary_expression":
            return _binary(node_text(node.child_by_field_name("operator")),
                           self.eval(node.child_by_field_name("left")),
                           self.eval(node.child_by_field_name("right")), node)
        if kind == "unary_expression":
            value = self.eval(node.child_by_field_name("argument"))
            op = node_text(node.child_by_field_name("operator"))
            unary = {"-": lambda v: -v, "+": lambda v: v, "!": lambda v: int(not v), "~": lambda v: ~v}
            return unary[op](value)
        if kind == "conditional_expression":
            condition = self.eval(node.child_by_field_name("condition"))
            branch = "consequence" if condition else "alternative"
            return self.eval(node.child_by_field_name(branch))
        if kind == "cast_expression":
            value = self.eval(node.child_by_field_name("value"))
            type_text = node_text(node.child_by_field_name("type"))
            t = C.lookup(" ".join(type_text.split()))
            if t is None or isinstance(value, tuple):
                return value
            return int(value) if t.is_integer else float(value) if t.kind == "float" else value
        if kind == "sizeof_expression":
            type_node = node.child_by_field_name("type")
            if type_node is None:  # `sizeof(half)`: a type name the grammar reads as an expression
                type_node = node.child_by_field_name("value")
            written = node_text(type_node).strip("() \t") if type_node is not None else ""
            t = C.lookup(" ".join(written.split())) if written else None
            if t is None:
                raise HostUnknown(node_text(node))
            return t.size
        if kind == "field_expression":
            base = self.eval(node.child_by_field_name("argument"))
            field = node_text(node.child_by_field_name("field"))
            if isinstance(base, tuple) and field in ("x", "y", "z"):
                return base["xyz".index(field)]
            raise HostUnknown(node_text(node))
        if kind == "call_expression":
            return self._call(node)
        raise HostUnknown(node_text(node))

    def _call(self, node: Node) -> int | float | Dim3:
        function = node.child_by_field_name("function")
        name = node_text(function).split("::")[-1]
        if function.type == "template_function":
            name = node_text(function.child_by_field_name("name")).split("::")[-1]
        args = [self.eval(a) for a in named_children(node.child_by_field_name("arguments"))]
        if name == "dim3":
            return _dim3(args)
        if name in ("min", "max") and len(args) == 2:
            return min(args) if name == "min" else max(args)
        if name in ("static_cast", "int", "unsigned") and len(args) == 1:
            return int(args[0])
        if name in _ROUNDING and len(args) == 1 and not isinstance(args[0], tuple):
            return float(_ROUNDING[name](args[0]))
        return self._function(name, args, node)

    def _function(self, name: str, args: list, node: Node) -> int | float | Dim3:
        """A call of a function defined in the file whose body is one ``return expr;``
        (``constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }``): ``expr`` with
        the parameters bound to the arguments (converted to an integer parameter's type)."""
        definition = _one_return_function(self.program.root, name, len(args))
        if definition is None:
            raise HostUnknown(node_text(node))
        params, result = definition
        frame = {}
        for (param, integer), value in zip(params, args, strict=True):
            if isinstance(value, tuple):
                raise HostUnknown(node_text(node))
            frame[param] = int(value) if integer else value
        self._frames.append(frame)
        try:
            return self.eval(result)
        finally:
            self._frames.pop()


#: C's rounding functions: their result is a double (``dim3(ceil(n / 64.0))`` converts it).
_ROUNDING = {"ceil": math.ceil, "ceilf": math.ceil, "floor": math.floor, "floorf": math.floor}
_INTEGER_TYPES = ("int", "unsigned", "long", "short", "size_t", "uint32_t", "int64_t", "uint64_t", "char")


def _definitions(root: Node, name: str) -> Iterator[tuple[Node, list[Node]]]:
    """(definition, parameter declarations) of every function of the file named ``name`` (also
    inside templates, namespaces and ``extern "C"`` blocks; ``ns::name`` matches ``name``)."""
    stack = list(root.children)
    while stack:
        node = stack.pop()
        if node.type in ("template_declaration", "namespace_definition", "declaration_list",
                         "linkage_specification"):
            stack.extend(node.children)
            continue
        if node.type != "function_definition":
            continue
        declarator = node.child_by_field_name("declarator")
        while declarator is not None and declarator.type in ("pointer_declarator", "reference_declarator"):
            declarator = named_children(declarator)[-1]
        if declarator is None or declarator.type != "function_declarator":
            continue
        if node_text(declarator.child_by_field_name("declarator")).split("::")[-1] != name:
            continue
        yield node, [p for p in named_children(declarator.child_by_field_name("parameters"))
                     if p.type == "parameter_declaration"]


def _one_return_function(root: Node, name: str, count: int) -> tuple[list[tuple[str, bool]], Node] | None:
    """(parameters as (name, is an integer), returned expression) of the definition of ``name``
    with ``count`` parameters whose body is one return statement; None when there is none."""
    for node, params in _definitions(root, name):
        body = [c for c in named_children(node.child_by_field_name("body")) if c.type != "comment"]
        if len(params) != count or len(body) != 1 or body[0].type != "return_statement":
            continue
        returned = named_children(body[0])
        names = []
        for param in params:
            inner = param.child_by_field_name("declarator")
            while inner is not None and inner.type != "identifier":
                children = named_children(inner)
                inner = children[-1] if children else None
            if inner is None:
                return None
            type_words = node_text(param.child_by_field_name("type")).split()
            names.append((node_text(inner), any(w in _INTEGER_TYPES for w in type_words)))
        return (names, returned[0]) if returned else None
    return None


_CHANGES = ("assignment_expression", "update_expression", "call_expression")
def _reference_parameters(root: Node, name: str) -> set[int]:
    """Positions of the non-const reference parameters of the functions of the file named ``name``."""
    out: set[int] = set()
    for _, params in _definitions(root, name):
        for i, param in enumerate(params):
            inner = param.child_by_field_name("declarator")
            const = any(c.type == "type_qualifier" and node_text(c) == "const" for c in param.children)
            if inner is not None and inner.type == "reference_declarator" and not const:
                out.add(i)
    return out


def _reparse(text: str) -> Node:
    """An expression given as text (a dim3 argument tree-sitter took for a parameter)."""
    tree = parser().parse(f"auto __bankism_value = ({text});".encode())
    declaration = tree.root_node.children[0]
    declarator = declaration.child_by_field_name("declarator")
    return declarator.child_by_field_name("value")


def reparse_type(text: str) -> Node | None:
    """A type given as text (a template argument from -D) as a type node (``using T = text;``);
    None when the text is not exactly one type."""
    tree = parser().parse(f"using __bankism_type = {text};".encode())
    if tree.root_node.has_error or len(tree.root_node.children) != 1:
        return None
    return tree.root_node.children[0].child_by_field_name("type")


def _dim3(items: list) -> Dim3:
    """``dim3(x[, y[, z]])``; a floating-point size is truncated to an integer, as C converts it."""
    if not 1 <= len(items) <= 3 or not all(isinstance(v, int | float) and math.isfinite(v) for v in items):
        raise HostUnknown("dim3")
    values = [int(v) for v in items] + [1] * (3 - len(items))
    return values[0], values[1], values[2]


def _binary(op: str, a: int | float, b: int | float, node: Node) -> int | float:
    if isinstance(a, tuple) or isinstance(b, tuple):
        raise HostUnknown(node_text(node))
    if op == "/":
        if b == 0:
            raise HostUnknown(node_text(node))
        if isinstance(a, int) and isinstance(b, int):
            quotient = abs(a) // abs(b)
            return quotient if (a >= 0) == (b >= 0) else -quotient
        return a / b
    if op == "%":
        if b == 0:
            raise HostUnknown(node_text(node))
        return a - b * int(_binary("/", a, b, node))
    operations = {
        "+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "<<": lambda: a << b,
        ">>": lambda: a >> b, "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b,
        "<": lambda: int(a < b), ">": lambda: int(a > b), "<=": lambda: int(a <= b),
        ">=": lambda: int(a >= b), "==": lambda: int(a == b), "!=": lambda: int(a != b),
        "&&": lambda: int(bool(a) and bool(b)), "||": lambda: int(bool(a) or bool(b)),
    }
    if op not in operations:
        raise HostUnknown(node_text(node))
    return operations[op]()


def launch_dim(scope: HostScope, node: Node, what: str, file: str, line: int) -> Dim3:
    """A <<<...>>> grid or block argument as (x, y, z), or a BankismError naming the option."""
    try:
        value = scope.eval(node)
    except (HostUnknown, RecursionError):
        raise BankismError(
            f"{file}:{line}: cannot evaluate the launch's {what} `{snippet(node)}`: give --{what} X,Y,Z"
        ) from None
    if isinstance(value, tuple):
        return value
    if isinstance(value, int | float) and math.isfinite(value):  # `<<<ceil(n / 64.0), 256>>>`
        return (int(value), 1, 1)
    raise BankismError(f"{file}:{line}: the launch's {what} `{snippet(node)}` is not a dim3 or integer")


def host_number(scope: HostScope, node: Node) -> int | float | None:
    """A scalar launch argument's value, or None when it cannot be evaluated."""
    try:
        value = scope.eval(node)
    except (HostUnknown, RecursionError, ValueError, TypeError):
        return None
    return value if isinstance(value, int | float) else None
