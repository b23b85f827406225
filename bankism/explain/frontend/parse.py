"""The CUDA front end: tree-sitter-cuda parses the preprocessed text, and this module turns
the kernels it finds into the small tree of ``syntax`` and collects the launches
(``kernel<<<grid, block>>>(...)``) wherever they are, file scope included."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

from tree_sitter import Node

from bankism.errors import BankismError
from bankism.explain.frontend import syntax as S
from bankism.explain.frontend.declarations import RECORDS, Declarations
from bankism.explain.frontend.expressions import ExpressionConverter, parse_number  # noqa: F401 (re-exported)
from bankism.explain.frontend.launch_search import SourceLaunch  # noqa: F401 (re-exported)
from bankism.explain.frontend.misread import (
    array_reference_declaration,
    misread_array_reference,
    misread_casts,
    misread_comparisons,
    misread_constructions,
    misread_template_declaration,
)
from bankism.explain.frontend.preprocess import Preprocessed
from bankism.explain.frontend.range_for import range_for
from bankism.explain.frontend.treesitter import (
    child_of_type,
    last_name,
    named_children,
    node_text,
    parser,
    snippet,
)
from bankism.explain.simt import control
from bankism.inputs import limit, over_limit

#: Statements with a header (condition, initializer) besides their bodies.
_HEADED = ("if_statement", "for_statement", "for_range_loop", "while_statement", "do_statement",
           "switch_statement")
_SKIPPED_STATEMENTS = {"comment", "preproc_call", ";", "attributed_statement_empty"}


@dataclass(eq=False)
class Program:
    """Everything bankism takes from one preprocessed file."""

    pre: Preprocessed
    root: Node
    functions: dict[str, list[S.Function]]
    launches: list[SourceLaunch]
    globals: list[S.Decl] = field(default_factory=list)
    structs: dict[str, list[S.StructDef]] = field(default_factory=dict)
    aliases: dict[str, S.TypeName] = field(default_factory=dict)
    enums: list[S.EnumDef] = field(default_factory=list)
    _bodies: dict[S.Function, S.Block] = field(default_factory=dict)  # by object: ids are reused

    @property
    def kernels(self) -> list[S.Function]:
        return [f for overloads in self.functions.values() for f in overloads if f.is_kernel]

    def body(self, function: S.Function) -> S.Block:
        """The converted body of ``function`` (converted on first use, so unused device
        functions never stop the analysis)."""
        key = function
        if key not in self._bodies:
            if function.error is not None:
                raise BankismError(function.error)
            if function.body_node is None:
                self._bodies[key] = S.Block(function.line, "", function.line, [])
            else:
                self._bodies[key] = _Converter(self.pre).statement(function.body_node)
        return self._bodies[key]

    def converted_bodies(self) -> list[tuple[S.Function, S.Block]]:
        """The functions whose bodies a run converted (the kernel and what it called), with them."""
        return list(self._bodies.items())

    def type_descriptor(self, node: Node) -> S.TypeName:
        """A type written in the host code (a launch's template argument) as a ``syntax`` type."""
        return _Converter(self.pre)._type_descriptor(node)

    def lambda_body(self, lam: S.Lambda) -> S.Block:
        """The converted body of a lambda (converted on its first call)."""
        if lam._body is None:
            lam._body = _Converter(self.pre).statement(lam.body_node)
        return lam._body

    def line(self, node: Node) -> int:
        return self.pre.origin(node.start_point.row)[1]


#: Where file-scope declarations live: the file, a namespace's body, an extern "C" block.
_FILE_SCOPES = ("translation_unit", "declaration_list")


def parse(pre: Preprocessed) -> Program:
    """Parse preprocessed CUDA text into a ``Program``: kernels and device functions, structs,
    type aliases, file-scope declarations and launches. Nothing here refuses: a definition
    bankism cannot read is kept with its error, raised only if the kernel uses it."""
    tree = parser().parse(pre.text.encode())
    for _ in range(8):  # each pass clears the outermost misreads; nested ones show up after it
        fixed = (misread_comparisons(pre.text, tree.root_node) or misread_casts(pre.text, tree.root_node)
                 or misread_constructions(pre.text, tree.root_node))
        if fixed is None:
            break
        pre = replace(pre, text=fixed)
        tree = parser().parse(pre.text.encode())
    _check_nesting(tree.root_node, pre)
    converter = _Converter(pre)
    functions: dict[str, list[S.Function]] = {}
    launches: list[SourceLaunch] = []
    globals_ = []
    structs: dict[str, list[S.StructDef]] = {}
    aliases: dict[str, S.TypeName] = {}
    enums: list[S.EnumDef] = []
    for node, scope in _walk_with_scope(tree.root_node):
        kind = node.type
        parent = node.parent.type if node.parent is not None else ""
        if kind == "declaration" and parent in _FILE_SCOPES:
            try:
                globals_.append(converter.declaration(node))
            except BankismError:
                continue
        elif kind in ("type_definition", "alias_declaration") and scope is None:
            for name, type_name in converter.aliases(node):
                aliases[name] = type_name
        elif kind in RECORDS and node.child_by_field_name("body") is not None and (
                scope is None or parent == "declaration"):  # file scope, or `__shared__ union {...} u;`
            struct = converter.struct(node)
            todo = [struct] if struct is not None else []
            while todo:  # with the unnamed structs and unions defined inside it
                struct = todo.pop()
                structs.setdefault(struct.name, []).append(struct)
                todo.extend(struct.nested)
        elif kind in RECORDS and parent == "template_declaration" and scope is None \
                and _declared_template(node):
            struct = converter.struct(node)  # `template <class T, int N = 4> struct S;`: its parameters
            if struct is not None:
                struct.defined = False
                structs.setdefault(struct.name, []).append(struct)
        elif kind == "enum_specifier" and scope is None and not _in_record(node):
            try:
                enum = converter.enum(node)
            except BankismError:  # an enumeration bankism cannot read: its names stay unknown
                continue
            if enum is not None:
                enums.append(enum)
        elif kind == "function_definition" and not _is_member(node):
            function = converter.safe_function(node)
            if function is not None:
                functions.setdefault(function.name, []).append(function)
        elif kind == "call_expression" and child_of_type(node, "kernel_call_syntax"):
            launch = converter.launch(node, scope)
            if launch is not None:
                launches.append(launch)
    return Program(pre, tree.root_node, functions, launches, globals_, structs, aliases, enums)


def _declared_template(node: Node) -> bool:
    """Whether a record node is a class template's declaration without a body (its primary's
    parameters and their defaults, where only the specializations are defined)."""
    name = node.child_by_field_name("name")
    return node.child_by_field_name("body") is None and name is not None and name.type != "template_type"


def _in_record(node: Node) -> bool:
    """Whether ``node`` is inside a struct, class or union body (its names are members)."""
    parent = node.parent
    while parent is not None:
        if parent.type == "field_declaration_list":
            return True
        parent = parent.parent
    return False


def _check_nesting(root: Node, pre: Preprocessed) -> None:
    """Refuse source nested deeper than the ``nesting`` limit (bankism.inputs) before anything
    recursive walks it: the deepest published kernel we read nests 25 levels; a 100,000-term
    expression or 2,000 nested blocks would exhaust Python's recursion instead of a clear line."""
    most = limit("nesting")
    cursor = root.walk()
    depth = 0
    while True:
        if cursor.goto_first_child():
            depth += 1
            if depth > most:
                file, line = pre.origin(cursor.node.start_point.row)
                raise over_limit("nesting", None, f"{file}:{line}: the source nests")
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return
            depth -= 1


def _is_member(node: Node) -> bool:
    """Whether a function definition is a member of a struct/class (its body, or a member
    template)."""
    parent = node.parent
    if parent is not None and parent.type == "template_declaration":
        parent = parent.parent
    return parent is not None and parent.type == "field_declaration_list"


def _walk_with_scope(root: Node):
    """Every node with the function definition that encloses it (None at file scope)."""
    stack = [(root, None)]
    while stack:
        node, scope = stack.pop()
        yield node, scope
        inner = node if node.type == "function_definition" else scope
        stack.extend((child, inner) for child in reversed(node.children))


class _Converter(Declarations, ExpressionConverter):
    """tree-sitter nodes to ``syntax`` nodes; anything unknown is a one-line BankismError."""

    def __init__(self, pre: Preprocessed) -> None:
        self.pre = pre
        #: Trees of statements parsed again (kept alive while their nodes are converted).
        self._reparsed: list = []
        #: The concepts each parsed tree defines, by its root node's id (Declarations._constrained).
        self._concepts: dict[int, set[str]] = {}

    # --- helpers --------------------------------------------------------------------------

    def _line(self, node: Node) -> int:
        return self.pre.origin(node.start_point.row)[1]

    def _file(self, node: Node) -> str:
        return self.pre.origin(node.start_point.row)[0]

    def _after_pragma(self, node: Node, line: int, pragmas: set[tuple[str, int]]) -> bool:
        """Whether one of ``pragmas`` (file, line) stands on one of the two lines before ``node``."""
        path = os.path.abspath(self._file(node))
        return any((path, line - back) in pragmas for back in (1, 2))

    def _end_line(self, node: Node) -> int:
        return self.pre.origin(node.end_point.row)[1]

    def where(self, node: Node) -> str:
        file, line = self.pre.origin(node.start_point.row)
        return f"{file}:{line}"

    def unsupported(self, node: Node, what: str) -> BankismError:
        return BankismError(f"{self.where(node)}: unsupported construct: {what}: `{snippet(node)}`")

    def _check(self, node: Node) -> None:
        if node.type == "ERROR" or node.is_missing:
            rows = self.pre.text.split("\n")
            row = node.start_point.row
            text = " ".join(rows[row].split()) if row < len(rows) else snippet(node)
            text = text if len(text) <= 70 else text[:67] + "..."
            raise BankismError(f"{self.where(node)}: cannot parse this code: `{text}`")

    def _first_error(self, node: Node) -> Node | None:
        if not node.has_error:
            return None
        stack = [node]
        while stack:
            current = stack.pop()
            if current.type == "ERROR" or current.is_missing:
                return current
            stack.extend(reversed([c for c in current.children if c.has_error or c.is_missing]))
        return node

    def launch(self, node: Node, scope: Node | None) -> SourceLaunch | None:
        """The kernel name, template arguments, <<<config>>> and arguments of a launch."""
        function = node.child_by_field_name("function")
        template_args: list[Node] = []
        while function.type == "qualified_identifier" and function.child_by_field_name("name") is not None:
            function = function.child_by_field_name("name")
        if function.type == "template_function":
            template_args = named_children(function.child_by_field_name("arguments"))
            function = function.child_by_field_name("name")
        config = named_children(child_of_type(node, "kernel_call_syntax"))
        arguments = node.child_by_field_name("arguments")
        args = named_children(arguments) if arguments is not None else []
        return SourceLaunch(last_name(function), template_args, config, args, self._line(node), scope,
                            self._file(node))

    # --- statements -----------------------------------------------------------------------

    def lazy_statement(self, node: Node) -> S.Stmt:
        """``statement``, or a ``Refused`` statement that raises its error only when a thread
        executes it (code the simulated block never runs never stops the analysis)."""
        try:
            return self.statement(node)
        except BankismError as error:
            refused = S.Refused(self._line(node), node_text(node), self._end_line(node), str(error))
            refused.file = self._file(node)
            return refused

    def statement(self, node: Node) -> S.Stmt:
        """One statement (compound statements included) as a ``syntax`` node."""
        stmt = self._statement(node)
        stmt.file = self._file(node)
        return stmt

    def _statement(self, node: Node) -> S.Stmt:
        self._check(node)
        line, end, text = self._line(node), self._end_line(node), node_text(node)
        kind = node.type
        if kind in ("switch_statement", "goto_statement", "labeled_statement") or (
                kind == "compound_statement" and control.has_labels(node)):
            return control.convert(self, node)
        if kind == "compound_statement":
            body = [self.lazy_statement(c) for c in node.named_children if c.type not in _SKIPPED_STATEMENTS]
            return S.Block(line, text, end, body)
        if kind == "expression_statement":
            children = named_children(node)
            if not children:
                return S.Block(line, text, end, [])
            declaration = self._misread_declaration(node, children[0])
            if isinstance(declaration, S.Decl):
                return declaration
            if declaration is not None:
                return self.declaration(declaration)
            if len(children) > 1 or node.has_error:
                self._check(self._first_error(node))
            return S.ExprStmt(line, text, end, self.expr(children[0]))
        if kind == "declaration":
            return self.declaration(node)
        if kind in _HEADED and node.has_error:  # an error in a loop's or branch's own header refuses
            parts = (node.child_by_field_name(f) for f in ("body", "consequence", "alternative"))
            bodies = {part.id for part in parts if part is not None}
            for child in node.children:
                if child.id not in bodies and (child.has_error or child.is_missing or child.type == "ERROR"):
                    self._check(self._first_error(child) or child)
        if kind == "if_statement":
            condition = node.child_by_field_name("condition")
            alternative = node.child_by_field_name("alternative")
            otherwise = None
            if alternative is not None:
                otherwise = self.lazy_statement(
                    named_children(alternative)[0] if alternative.type == "else_clause" else alternative
                )
            return S.If(
                line,
                text,
                end,
                self._condition(condition),
                self.lazy_statement(node.child_by_field_name("consequence")),
                otherwise,
            )
        if kind == "for_range_loop":
            return range_for(self, node)
        if kind == "for_statement":
            init = node.child_by_field_name("initializer")
            condition = node.child_by_field_name("condition")
            update = node.child_by_field_name("update")
            init_stmt = None
            if init is not None and init.type == "declaration":
                init_stmt = self.declaration(init)
            elif init is not None:
                init_stmt = S.ExprStmt(
                    self._line(init), node_text(init), self._end_line(init), self.expr(init)
                )
            return S.For(
                line,
                text,
                end,
                init_stmt,
                self.expr(condition) if condition is not None else None,
                self.expr(update) if update is not None else None,
                self.lazy_statement(node.child_by_field_name("body")),
                not self._after_pragma(node, line, self.pre.no_unroll),
                self._after_pragma(node, line, self.pre.forced_unroll),
            )
        if kind == "while_statement":
            return S.While(
                line,
                text,
                end,
                self._condition(node.child_by_field_name("condition")),
                self.lazy_statement(node.child_by_field_name("body")),
            )
        if kind == "do_statement":
            return S.DoWhile(
                line,
                text,
                end,
                self.lazy_statement(node.child_by_field_name("body")),
                self.expr(node.child_by_field_name("condition")),
            )
        if kind == "return_statement":
            values = named_children(node)
            return S.Return(line, text, end, self.expr(values[0]) if values else None)
        if kind == "break_statement":
            return S.Break(line, text, end)
        if kind == "continue_statement":
            return S.Continue(line, text, end)
        if kind in (
            "comment",
            "preproc_call",
            "static_assert_declaration",
            "using_declaration",
            "namespace_alias_definition",
            "empty_declaration",
        ):
            return S.Block(line, text, end, [])
        if kind in ("type_definition", "alias_declaration"):
            aliases = self.aliases(node)
            if not aliases:
                raise self.unsupported(node, "typedef" if kind == "type_definition" else "using alias")
            typedefs = [S.TypeDef(line, text, end, name, t) for name, t in aliases]
            # one alias is the statement itself: a Block would scope it to itself
            return typedefs[0] if len(typedefs) == 1 else S.Block(line, text, end, typedefs)
        names = {
            "switch_statement": "switch statement",
            "goto_statement": "goto",
            "labeled_statement": "label",
            "try_statement": "try/catch",
            "gnu_asm_expression": "inline assembly",
            "case_statement": "case label",
        }
        raise self.unsupported(node, names.get(kind, kind.replace("_", " ")))

    def _misread_declaration(self, node: Node, expression: Node) -> Node | S.Decl | None:
        """``ns::Tile<32> t = f();`` that tree-sitter read as ``(ns::Tile < 32) > (t = f())``:
        the same text parsed where only a declaration fits (at file scope, on the same row and
        column, so lines stay right), or None when the statement is not of that shape."""
        if misread_array_reference(expression):
            return array_reference_declaration(self, node, expression)
        if not misread_template_declaration(expression):
            return None
        padding = "\n" * node.start_point.row + " " * node.start_point.column
        tree = parser().parse((padding + node_text(node)).encode())
        children = [c for c in tree.root_node.children if c.type != "comment"]
        if len(children) != 1 or children[0].type != "declaration" or children[0].has_error:
            return None
        self._reparsed.append(tree)
        return children[0]

    def _condition(self, node: Node) -> S.Expr:
        if node.type == "condition_clause":
            values = named_children(node)
            if len(values) != 1 or values[0].type == "declaration":
                raise self.unsupported(node, "declaration in a condition")
            return self.expr(values[0])
        return self.expr(node)

    def declaration(self, node: Node) -> S.Decl:
        """A declaration statement: its declarators with types, initializers and storage."""
        self._check(node)
        if self._first_error(node) is not None:
            self._check(self._first_error(node))
        qualifiers = {
            node_text(c)
            for c in node.children
            if c.type in ("type_qualifier", "storage_class_specifier", "__device__")
        }
        items = []
        for declarator in node.children_by_field_name("declarator"):
            type_name, name = self._declared(node, declarator)
            init = None
            if declarator.type == "init_declarator":
                value = declarator.child_by_field_name("value")
                if value.type == "argument_list":
                    values = named_children(value)
                    init = (
                        self.expr(values[0])
                        if len(values) == 1
                        else S.InitList(self._line(value), node_text(value), [self.expr(v) for v in values])
                    )
                else:
                    init = self.expr(value)
                    while (isinstance(init, S.Assign) and init.op == "=" and isinstance(init.target, S.Name)
                           and init.target.name == name):  # `int x = x = e;`: x is e
                        init = init.value
            items.append(S.Declarator(self._line(declarator), node_text(declarator), name, type_name, init))
        return S.Decl(
            self._line(node),
            node_text(node),
            self._end_line(node),
            items,
            shared="__shared__" in qualifiers,
            extern="extern" in qualifiers,
            static="static" in qualifiers,
            space=_memory_space(qualifiers),
        )


def _memory_space(qualifiers: set[str]) -> str:
    if "__constant__" in qualifiers:
        return "constant"
    return "device" if "__device__" in qualifiers else ""

