"""The CUDA front end: tree-sitter-cuda parses the preprocessed text, and this module turns
the kernels it finds into the small tree of ``syntax`` and collects the launches
(``kernel<<<grid, block>>>(...)``) wherever they are, file scope included."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tree_sitter import Node

from bankism.errors import BankismError
from bankism.explain import syntax as S
from bankism.explain.ctype import integer_literal_type
from bankism.explain.preprocess import Preprocessed
from bankism.explain.treesitter import SPACE, child_of_type, named_children, node_text, parser, snippet

_CASTS = {"static_cast": "static", "reinterpret_cast": "reinterpret", "const_cast": "const"}
_SKIPPED_STATEMENTS = {"comment", "preproc_call", ";", "attributed_statement_empty"}


@dataclass(eq=False)
class Launch:
    """One ``kernel<<<config>>>(args)`` statement, with the tree-sitter nodes to evaluate."""

    kernel: str
    template_args: list[Node]
    config: list[Node]
    args: list[Node]
    line: int
    scope: Node | None


@dataclass(eq=False)
class Program:
    """Everything bankism takes from one preprocessed file."""

    pre: Preprocessed
    root: Node
    functions: dict[str, list[S.Function]]
    launches: list[Launch]
    globals: list[S.Decl] = field(default_factory=list)
    structs: dict[str, list[S.StructDef]] = field(default_factory=dict)
    aliases: dict[str, S.TypeName] = field(default_factory=dict)
    _bodies: dict[int, S.Block] = field(default_factory=dict)

    @property
    def kernels(self) -> list[S.Function]:
        return [f for overloads in self.functions.values() for f in overloads if f.is_kernel]

    def body(self, function: S.Function) -> S.Block:
        """The converted body of ``function`` (converted on first use, so unused device
        functions never stop the analysis)."""
        key = id(function)
        if key not in self._bodies:
            if function.error is not None:
                raise BankismError(function.error)
            if function.body_node is None:
                self._bodies[key] = S.Block(function.line, "", function.line, [])
            else:
                self._bodies[key] = _Converter(self.pre).statement(function.body_node)
        return self._bodies[key]

    def lambda_body(self, lam: S.Lambda) -> S.Block:
        """The converted body of a lambda (converted on its first call)."""
        if lam._body is None:
            lam._body = _Converter(self.pre).statement(lam.body_node)
        return lam._body

    def line(self, node: Node) -> int:
        return self.pre.origin(node.start_point.row)[1]


#: Where file-scope declarations live: the file, a namespace's body, an extern "C" block.
_FILE_SCOPES = ("translation_unit", "declaration_list")
_RECORDS = ("struct_specifier", "class_specifier", "union_specifier")


def parse(pre: Preprocessed) -> Program:
    """Parse preprocessed CUDA text into a ``Program``: kernels and device functions, structs,
    type aliases, file-scope declarations and launches. Nothing here refuses: a definition
    bankism cannot read is kept with its error, raised only if the kernel uses it."""
    tree = parser().parse(pre.text.encode())
    converter = _Converter(pre)
    functions: dict[str, list[S.Function]] = {}
    launches: list[Launch] = []
    globals_ = []
    structs: dict[str, list[S.StructDef]] = {}
    aliases: dict[str, S.TypeName] = {}
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
        elif kind in _RECORDS and node.child_by_field_name("body") is not None and scope is None:
            struct = converter.struct(node)
            if struct is not None:
                structs.setdefault(struct.name, []).append(struct)
        elif kind == "function_definition" and not _is_member(node):
            function = converter.safe_function(node)
            if function is not None:
                functions.setdefault(function.name, []).append(function)
        elif kind == "call_expression" and child_of_type(node, "kernel_call_syntax"):
            launch = converter.launch(node, scope)
            if launch is not None:
                launches.append(launch)
    return Program(pre, tree.root_node, functions, launches, globals_, structs, aliases)


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


class _Converter:
    """tree-sitter nodes to ``syntax`` nodes; anything unknown is a one-line BankismError."""

    def __init__(self, pre: Preprocessed) -> None:
        self.pre = pre
        #: Trees of statements parsed again (kept alive while their nodes are converted).
        self._reparsed: list = []

    # --- helpers --------------------------------------------------------------------------

    def _line(self, node: Node) -> int:
        return self.pre.origin(node.start_point.row)[1]

    def _file(self, node: Node) -> str:
        return self.pre.origin(node.start_point.row)[0]

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

    # --- functions and launches -----------------------------------------------------------

    def safe_function(self, node: Node) -> S.Function | None:
        """``function``, or a Function that carries its error when bankism cannot read it (the
        error is raised only if the kernel calls it)."""
        try:
            return self.function(node)
        except BankismError as error:
            declarator = node.child_by_field_name("declarator")
            while declarator is not None and declarator.type != "function_declarator":
                declarator = declarator.child_by_field_name("declarator")
            if declarator is None:
                return None
            name_node = declarator.child_by_field_name("declarator")
            name = _last_name(name_node) if name_node is not None else ""
            if not name.isidentifier():
                return None
            is_kernel = any(c.type == "__global__" for c in node.children)
            void = S.TypeName(self._line(node), "void", "void")
            return S.Function(self._line(node), node_text(node), name, void, [], [], is_kernel, None,
                              error=str(error))

    def function(self, node: Node, owner: str = "") -> S.Function | None:
        """A function definition as ``syntax.Function`` (body left for later), or None for
        host functions and definitions bankism need not understand. ``owner`` names the
        struct of a member function (constructors, operators, conversion operators)."""
        tokens = {c.type for c in node.children}
        is_kernel = "__global__" in tokens
        is_device = "__device__" in tokens or any(
            c.type == "type_qualifier" and node_text(c) == "constexpr" for c in node.children)
        if not owner and not (is_kernel or is_device):
            return None
        declarator = node.child_by_field_name("declarator")
        pointers, reference = 0, False
        while declarator is not None and declarator.type in ("pointer_declarator", "reference_declarator"):
            if declarator.type == "pointer_declarator":
                pointers += 1
            else:
                reference = True
            declarator = declarator.child_by_field_name("declarator") or named_children(declarator)[-1]
        if declarator is None:
            return None
        error = self._first_error(node.child_by_field_name("declarator"))
        if error is not None:
            self._check(error)
        conversion = None
        params: list[S.Param] = []
        if declarator.type == "operator_cast":
            conversion = self._cast_target(declarator)
            name, return_type = "operator cast", conversion
        elif declarator.type != "function_declarator":
            return None
        else:
            name_node = declarator.child_by_field_name("declarator")
            if name_node.type == "operator_name":
                name = "operator" + "".join(node_text(name_node)[len("operator"):].split())
            elif name_node.type in ("destructor_name", "template_function"):
                return None
            elif name_node.type == "qualified_identifier" and owner == "":
                name = _last_name(name_node)
                if any(c.type == "destructor_name" for c in name_node.children):
                    return None
            else:
                name = _last_name(name_node)
            params = self._params(declarator.child_by_field_name("parameters"))
            if node.child_by_field_name("type") is None:
                return_type = S.TypeName(self._line(node), name, "void")
            else:
                return_type = self.type_name(node, None)
                return_type.pointers += pointers
                return_type.reference = reference
        template_params = []
        parent = node.parent
        if parent is not None and parent.type == "template_declaration":
            template_params = self._template_params(parent.child_by_field_name("parameters"))
        initializers = []
        for child in node.children:
            if child.type == "field_initializer_list":
                for item in named_children(child):
                    if item.type != "field_initializer":
                        continue
                    values = [c for c in named_children(item)
                              if c.type in ("argument_list", "initializer_list")]
                    field_name = node_text(named_children(item)[0])
                    args = [self.expr(v) for v in named_children(values[0])] if values else []
                    initializers.append((field_name, args))
        is_static = any(
            c.type == "storage_class_specifier" and node_text(c) == "static" for c in node.children
        )
        function = S.Function(
            self._line(node),
            node_text(node),
            name,
            return_type,
            params,
            template_params,
            is_kernel,
            node.child_by_field_name("body"),
            owner=owner,
            initializers=initializers,
            conversion=conversion,
            is_static=is_static,
        )
        function.file = self._file(node)
        return function

    def _params(self, node: Node) -> list[S.Param]:
        params = []
        for p in named_children(node):
            if p.type == "variadic_parameter":
                raise self.unsupported(p, "variadic parameters")
            if p.type not in ("parameter_declaration", "optional_parameter_declaration"):
                raise self.unsupported(p, f"parameter {p.type}")
            type_name, pname = self._declared(p, p.child_by_field_name("declarator"))
            if pname == "" and type_name.base == "void" and not type_name.pointers:
                continue
            params.append(S.Param(self._line(p), node_text(p), pname, type_name))
        return params

    def _cast_target(self, node: Node) -> S.TypeName:
        """The target type of a conversion operator (``operator T*()``)."""
        base, args, scope = self._type_spec(node.child_by_field_name("type"))
        pointers, reference = 0, False
        current = node.child_by_field_name("declarator")
        while current is not None:
            if current.type == "abstract_pointer_declarator":
                pointers += 1
            elif current.type == "abstract_reference_declarator":
                reference = True
            current = current.child_by_field_name("declarator") or (
                named_children(current)[-1] if named_children(current) else None
            )
        return S.TypeName(
            self._line(node), node_text(node), base, pointers, [], reference, False, None, args, scope
        )

    # --- structs and aliases --------------------------------------------------------------

    def struct(self, node: Node) -> S.StructDef | None:
        """A struct/class/union definition: data members, static members, member functions
        (converted here, bodies later) and member aliases. Anything it cannot read makes the
        struct carry an error, raised only when the kernel uses the struct."""
        name_node = node.child_by_field_name("name")
        specialization = None
        if name_node is None:
            parent = node.parent
            if parent is None or parent.type != "type_definition":
                return None
            declarators = parent.children_by_field_name("declarator")
            if not declarators:
                return None
            name = node_text(declarators[0])
        elif name_node.type == "template_type":
            name = _last_name(name_node.child_by_field_name("name"))
            specialization = [
                self._template_argument(a) for a in named_children(name_node.child_by_field_name("arguments"))
            ]
        else:
            name = _last_name(name_node)
        kind = node.type.split("_")[0]
        struct = S.StructDef(
            self._line(node), node_text(node), name, kind, [], specialization, [], [], [], []
        )
        struct.file = self._file(node)
        try:
            parent = node.parent
            if parent is not None and parent.type == "template_declaration":
                struct.template_params = self._template_params(parent.child_by_field_name("parameters"))
            for child in node.children:
                if child.type == "alignas_qualifier":
                    struct.align = self.expr(named_children(child)[0])
                elif child.type == "attribute_specifier":
                    struct.align = self._aligned_attribute(child) or struct.align
            base_clause = child_of_type(node, "base_class_clause")
            if base_clause is not None:
                raise self.unsupported(base_clause, "inheritance (base class members are not laid out)")
            for member in named_children(node.child_by_field_name("body")):
                self._member(struct, member)
        except BankismError as error:
            struct.error = str(error)
        return struct

    def _member(self, struct: S.StructDef, member: Node) -> None:
        kind = member.type
        if kind == "field_declaration":
            static = any(
                c.type == "storage_class_specifier" and node_text(c) == "static" for c in member.children
            )
            for declarator in member.children_by_field_name("declarator"):
                if declarator.type == "function_declarator":
                    continue
                type_name, name = self._declared(member, declarator)
                default = member.child_by_field_name("default_value")
                init = self.expr(default) if default is not None else None
                item = S.Declarator(self._line(declarator), node_text(declarator), name, type_name, init)
                (struct.statics if static else struct.fields).append(item)
        elif kind == "function_definition":
            method = self.function(member, struct.name)
            if method is not None:
                struct.methods.append(method)
        elif kind == "template_declaration":
            inner = [c for c in named_children(member) if c.type == "function_definition"]
            if inner:
                method = self.function(inner[0], struct.name)
                if method is not None:
                    struct.methods.append(method)
        elif kind in ("type_definition", "alias_declaration"):
            struct.aliases.extend(self.aliases(member))

    def aliases(self, node: Node) -> list[tuple[str, S.TypeName]]:
        """``typedef T a, *b;`` or ``using a = T;`` as (name, type) pairs; [] when unreadable."""
        try:
            if node.type == "alias_declaration":
                name = node_text(node.child_by_field_name("name"))
                return [(name, self._type_descriptor(node.child_by_field_name("type")))]
            type_node = node.child_by_field_name("type")
            out = []
            for declarator in node.children_by_field_name("declarator"):
                if (
                    type_node is not None
                    and type_node.type in _RECORDS
                    and (type_node.child_by_field_name("name") is None)
                ):
                    type_name = S.TypeName(
                        self._line(node),
                        node_text(node),
                        node_text(node.children_by_field_name("declarator")[0]),
                    )
                    name = node_text(declarator)
                    if not name.isidentifier():
                        type_name, name = self._declared_with(type_name, declarator)
                    if name != type_name.base:
                        out.append((name, type_name))
                    continue
                type_name, name = self._declared(node, declarator)
                out.append((name, type_name))
            return out
        except BankismError:
            return []

    def _declared_with(self, base: S.TypeName, declarator: Node) -> tuple[S.TypeName, str]:
        pointers = 0
        current = declarator
        while current is not None and current.type == "pointer_declarator":
            pointers += 1
            current = current.child_by_field_name("declarator")
        name = node_text(current) if current is not None else ""
        return S.TypeName(base.line, base.text, base.base, pointers), name

    def _template_params(self, node: Node) -> list[S.TemplateParam]:
        out = []
        for p in named_children(node):
            line, text = self._line(p), node_text(p)
            if p.type in ("type_parameter_declaration", "optional_type_parameter_declaration"):
                name_node = p.child_by_field_name("name") or child_of_type(p, "type_identifier")
                default = p.child_by_field_name("default_type")
                out.append(
                    S.TemplateParam(
                        line,
                        text,
                        node_text(name_node),
                        True,
                        self._type_descriptor(default) if default is not None else None,
                    )
                )
            elif p.type in ("parameter_declaration", "optional_parameter_declaration"):
                _, name = self._declared(p, p.child_by_field_name("declarator"))
                default = p.child_by_field_name("default_value")
                out.append(
                    S.TemplateParam(
                        line,
                        text,
                        name,
                        False,
                        self.expr(default) if default is not None else None,
                    )
                )
            else:
                raise self.unsupported(p, "template parameter")
        return out

    def launch(self, node: Node, scope: Node | None) -> Launch | None:
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
        return Launch(_last_name(function), template_args, config, args, self._line(node), scope)

    # --- types ----------------------------------------------------------------------------

    def type_name(self, node: Node, declarator: Node | None) -> S.TypeName:
        """The type of a declaration/parameter node combined with one of its declarators."""
        type_name, _ = self._declared(node, declarator)
        return type_name

    def _base_type(self, node: Node) -> tuple[str, list | None, str, bool, S.Expr | None]:
        """(base type name, template arguments, scope, const, alignas) from the specifiers of
        a declaration-like node."""
        type_node = node.child_by_field_name("type")
        if type_node is None:
            raise self.unsupported(node, "declaration without a type")
        base, args, scope = self._type_spec(type_node)
        const = False
        align = None
        for child in node.children:
            if child.type == "type_qualifier":
                if node_text(child) == "const" or node_text(child) == "constexpr":
                    const = True
                alignas = child_of_type(child, "alignas_qualifier")
                if alignas is not None:
                    align = self.expr(named_children(alignas)[0])
            elif child.type == "attribute_specifier":
                align = self._aligned_attribute(child) or align
        return base, args, scope, const, align

    def _type_spec(self, type_node: Node) -> tuple[str, list | None, str]:
        """(name, template arguments or None, namespace/class scope) of a type specifier."""
        kind = type_node.type
        if kind == "qualified_identifier":
            scopes = []
            current = type_node
            while current is not None and current.type == "qualified_identifier":
                scope = current.child_by_field_name("scope")
                if scope is not None:
                    scopes.append(node_text(scope))
                current = current.child_by_field_name("name")
            if current is None:
                raise self.unsupported(type_node, "type")
            base, args, _ = self._type_spec(current)
            return base, args, "::".join(scopes)
        if kind == "template_type":
            name = node_text(type_node.child_by_field_name("name"))
            args = [
                self._template_argument(a) for a in named_children(type_node.child_by_field_name("arguments"))
            ]
            return name, args, ""
        if kind in _RECORDS or kind == "enum_specifier":
            name_node = type_node.child_by_field_name("name")
            if (
                type_node.child_by_field_name("body") is not None
                or name_node is None
                or kind == "enum_specifier"
            ):
                raise self.unsupported(type_node, kind.replace("_", " "))
            return self._type_spec(name_node)
        if kind in ("decltype", "dependent_type"):
            raise self.unsupported(type_node, kind.replace("_", " "))
        if kind == "sized_type_specifier":
            return " ".join(node_text(c) for c in type_node.children), None, ""
        return SPACE.sub(" ", node_text(type_node)).strip().split("::")[-1], None, ""

    def _template_argument(self, node: Node) -> S.TypeName | S.Expr:
        """A template argument: a type, or an expression (a name written as a type is kept as
        a type; callers read it as a value where the parameter is not a type)."""
        if node.type == "type_descriptor":
            inner = node.child_by_field_name("type")
            if (inner is not None and inner.type == "qualified_identifier" and "<" in node_text(inner)
                    and node.child_by_field_name("declarator") is None):
                return self.expr(inner)
            return self._type_descriptor(node)
        return self.expr(node)

    def _aligned_attribute(self, node: Node) -> S.Expr | None:
        for call in named_children(named_children(node)[0]) if named_children(node) else []:
            callee = call.child_by_field_name("function") if call.type == "call_expression" else None
            if callee is not None and node_text(callee) == "aligned":
                return self.expr(named_children(call.child_by_field_name("arguments"))[0])
        return None

    def _declared(self, node: Node, declarator: Node | None) -> tuple[S.TypeName, str]:
        """(type, declared name) of ``declarator`` within the declaration ``node``."""
        base, args, scope, const, align = self._base_type(node)
        pointers, dims, reference = 0, [], False
        name = ""
        current = declarator
        while current is not None:
            kind = current.type
            if kind in ("identifier", "field_identifier", "type_identifier", "primitive_type"):
                name = node_text(current)
                break
            if kind == "init_declarator":
                current = current.child_by_field_name("declarator")
            elif kind == "pointer_declarator" or kind == "abstract_pointer_declarator":
                pointers += 1
                current = current.child_by_field_name("declarator")
            elif kind == "reference_declarator":
                reference = True
                current = named_children(current)[-1] if named_children(current) else None
            elif kind in ("array_declarator", "abstract_array_declarator"):
                size = current.child_by_field_name("size")
                dims.insert(0, self.expr(size) if size is not None else None)
                current = current.child_by_field_name("declarator")
            elif kind == "parenthesized_declarator":
                raise self.unsupported(current, "parenthesized declarator")
            elif kind == "function_declarator":
                raise self.unsupported(current, "function declaration inside a kernel")
            else:
                self._check(current)
                raise self.unsupported(current, f"declarator {kind}")
        type_name = S.TypeName(
            self._line(node),
            node_text(node),
            base,
            pointers,
            dims,
            reference,
            const,
            align,
            args,
            scope,
        )
        type_name.file = self._file(node)
        return type_name, name

    def _type_descriptor(self, node: Node) -> S.TypeName:
        type_name, _ = self._declared(node, node.child_by_field_name("declarator"))
        return type_name

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
        if kind == "compound_statement":
            body = [self.lazy_statement(c) for c in node.named_children if c.type not in _SKIPPED_STATEMENTS]
            return S.Block(line, text, end, body)
        if kind == "expression_statement":
            children = named_children(node)
            if not children:
                return S.Block(line, text, end, [])
            declaration = self._misread_declaration(node, children[0])
            if declaration is not None:
                return self.declaration(declaration)
            if len(children) > 1 or node.has_error:
                self._check(self._first_error(node))
            return S.ExprStmt(line, text, end, self.expr(children[0]))
        if kind == "declaration":
            return self.declaration(node)
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
            return S.Block(line, text, end, [S.TypeDef(line, text, end, name, t) for name, t in aliases])
        names = {
            "switch_statement": "switch statement",
            "goto_statement": "goto",
            "labeled_statement": "label",
            "for_range_loop": "range-based for loop",
            "try_statement": "try/catch",
            "gnu_asm_expression": "inline assembly",
            "case_statement": "case label",
        }
        raise self.unsupported(node, names.get(kind, kind.replace("_", " ")))

    def _misread_declaration(self, node: Node, expression: Node) -> Node | None:
        """``ns::Tile<32> t = f();`` that tree-sitter read as ``(ns::Tile < 32) > (t = f())``:
        the same text parsed where only a declaration fits (at file scope, on the same row and
        column, so lines stay right), or None when the statement is not of that shape."""
        if (
            expression.type != "binary_expression"
            or node_text(expression.child_by_field_name("operator")) != ">"
        ):
            return None
        left, right = expression.child_by_field_name("left"), expression.child_by_field_name("right")
        if left.type != "binary_expression" or node_text(left.child_by_field_name("operator")) != "<":
            return None
        if left.child_by_field_name("left").type not in ("identifier", "qualified_identifier"):
            return None
        target = right.child_by_field_name("left") if right.type == "assignment_expression" else right
        if target is None or target.type != "identifier":
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

    # --- expressions ----------------------------------------------------------------------

    def expr(self, node: Node) -> S.Expr:
        """One expression as a ``syntax`` node (with its column, to order sites on a line)."""
        result = self._expr(node)
        result.col = node.start_point.column
        result.file = self._file(node)
        return result

    def _expr(self, node: Node) -> S.Expr:
        self._check(node)
        line, text = self._line(node), node_text(node)
        kind = node.type
        if kind == "parenthesized_expression":
            inner = named_children(node)
            if len(inner) != 1:
                raise self.unsupported(node, "parenthesized expression")
            return self.expr(inner[0])
        if kind == "number_literal":
            value, type_name = parse_number(text)
            return S.Literal(line, text, value, type_name)
        if kind == "char_literal":
            return S.Literal(line, text, _char_value(node, self), "char")
        if kind in ("true", "false"):
            return S.Literal(line, text, int(kind == "true"), "bool")
        if kind in ("string_literal", "concatenated_string", "raw_string_literal"):
            return S.Literal(line, text, text, "string")
        if kind == "null" or text == "nullptr":
            return S.Literal(line, text, 0, "nullptr")
        if kind == "identifier":
            return S.Name(line, text, text)
        if kind == "qualified_identifier":
            scope, _, name = text.rpartition("::")
            inner = node
            while inner.child_by_field_name("name") is not None and (
                    inner.child_by_field_name("name").type == "qualified_identifier"):
                inner = inner.child_by_field_name("name")
            scope_node = inner.child_by_field_name("scope")
            scope_type = None
            if scope_node is not None and scope_node.type == "template_type":
                base, args, _ = self._type_spec(scope_node)
                scope_type = S.TypeName(line, node_text(scope_node), base, 0, [], False, False, None, args)
            return S.Name(line, text, name.strip(), scope=scope.strip(), scope_type=scope_type)
        if kind == "this":
            return S.This(line, text)
        if kind == "lambda_expression":
            declarator = node.child_by_field_name("declarator")
            params = []
            if declarator is not None and declarator.child_by_field_name("parameters") is not None:
                params = self._params(declarator.child_by_field_name("parameters"))
            return S.Lambda(line, text, params, node.child_by_field_name("body"))
        if kind == "compound_literal_expression":
            type_name = self._type_descriptor(node.child_by_field_name("type"))
            value = node.child_by_field_name("value")
            args = [self.expr(c) for c in named_children(value)] if value is not None else []
            return S.Call(line, text, type_name.base, args, list(type_name.args or []))
        if kind == "field_expression":
            operator = node.child_by_field_name("operator")
            arrow = operator is not None and node_text(operator) == "->"
            return S.Member(
                line,
                text,
                self.expr(node.child_by_field_name("argument")),
                node_text(node.child_by_field_name("field")),
                arrow,
            )
        if kind == "subscript_expression":
            indices = node.child_by_field_name("indices") or node.child_by_field_name("index")
            values = named_children(indices) if indices.type == "subscript_argument_list" else [indices]
            if len(values) != 1:
                raise self.unsupported(node, "multi-argument subscript")
            base = self.expr(node.child_by_field_name("argument"))
            return S.Subscript(line, text, base, self.expr(values[0]))
        if kind == "call_expression":
            return self._call(node)
        if kind == "cast_expression":
            return S.Cast(
                line,
                text,
                self._type_descriptor(node.child_by_field_name("type")),
                self.expr(node.child_by_field_name("value")),
                "c",
            )
        if kind in ("unary_expression", "pointer_expression"):
            return S.Unary(
                line,
                text,
                node_text(node.child_by_field_name("operator")),
                self.expr(node.child_by_field_name("argument")),
            )
        if kind == "update_expression":
            operator = node.child_by_field_name("operator")
            argument = node.child_by_field_name("argument")
            prefix = operator.start_byte < argument.start_byte
            return S.IncDec(line, text, node_text(operator), prefix, self.expr(argument))
        if kind == "binary_expression":
            return S.Binary(
                line,
                text,
                node_text(node.child_by_field_name("operator")),
                self.expr(node.child_by_field_name("left")),
                self.expr(node.child_by_field_name("right")),
            )
        if kind == "assignment_expression":
            return S.Assign(
                line,
                text,
                node_text(node.child_by_field_name("operator")),
                self.expr(node.child_by_field_name("left")),
                self.expr(node.child_by_field_name("right")),
            )
        if kind == "conditional_expression":
            return S.Conditional(
                line,
                text,
                self.expr(node.child_by_field_name("condition")),
                self.expr(node.child_by_field_name("consequence")),
                self.expr(node.child_by_field_name("alternative")),
            )
        if kind == "comma_expression":
            return S.Comma(
                line,
                text,
                self.expr(node.child_by_field_name("left")),
                self.expr(node.child_by_field_name("right")),
            )
        if kind == "sizeof_expression":
            type_node = node.child_by_field_name("type")
            if type_node is not None:
                return S.SizeOf(line, text, self._type_descriptor(type_node))
            return S.SizeOf(line, text, self.expr(node.child_by_field_name("value")))
        if kind == "initializer_list":
            return S.InitList(line, text, [self.expr(c) for c in named_children(node)])
        names = {
            "new_expression": "new",
            "delete_expression": "delete",
            "gnu_asm_expression": "inline assembly",
            "co_await_expression": "co_await",
            "alignof_expression": "alignof",
            "offsetof_expression": "offsetof",
        }
        raise self.unsupported(node, names.get(kind, kind.replace("_", " ")))

    def _call(self, node: Node) -> S.Expr:
        line, text = self._line(node), node_text(node)
        if child_of_type(node, "kernel_call_syntax") is not None:
            raise self.unsupported(node, "kernel launch inside a kernel (dynamic parallelism)")
        function = node.child_by_field_name("function")
        args = [self.expr(a) for a in named_children(node.child_by_field_name("arguments"))]
        template_args: list[S.TypeName | S.Expr] = []
        while function.type == "qualified_identifier" and function.child_by_field_name("name") is not None:
            function = function.child_by_field_name("name")
        if function.type == "field_expression":
            operator = function.child_by_field_name("operator")
            field_node = function.child_by_field_name("field")
            method = node_text(field_node)
            if field_node.type == "template_method":
                method = node_text(field_node.child_by_field_name("name"))
                template_args = [
                    self._template_argument(a)
                    for a in named_children(field_node.child_by_field_name("arguments"))
                ]
            return S.MethodCall(
                line,
                text,
                self.expr(function.child_by_field_name("argument")),
                method,
                args,
                operator is not None and node_text(operator) == "->",
                template_args,
            )
        if function.type == "template_function":
            name = _last_name(function.child_by_field_name("name"))
            targs = named_children(function.child_by_field_name("arguments"))
            if name in _CASTS:
                if len(targs) != 1 or len(args) != 1:
                    raise self.unsupported(node, name)
                return S.Cast(line, text, self._type_descriptor(targs[0]), args[0], _CASTS[name])
            template_args = [self._template_argument(t) for t in targs]
            return S.Call(line, text, name, args, template_args)
        if function.type in ("primitive_type", "sized_type_specifier"):
            if len(args) != 1:
                raise self.unsupported(node, "constructor call")
            base = (
                " ".join(node_text(c) for c in function.children)
                if function.children
                else node_text(function)
            )
            return S.Cast(line, text, S.TypeName(line, text, base), args[0], "functional")
        if function.type in ("identifier", "qualified_identifier", "type_identifier"):
            return S.Call(line, text, _last_name(function), args, template_args)
        raise self.unsupported(node, "call through an expression")


def _last_name(node: Node) -> str:
    """``f`` for ``f``, ``ns::f`` and ``a::b::f`` (without template arguments)."""
    while node.type == "qualified_identifier" and node.child_by_field_name("name") is not None:
        node = node.child_by_field_name("name")
    if node.type in ("template_function", "template_type") and node.child_by_field_name("name") is not None:
        node = node.child_by_field_name("name")
    return node_text(node).split("::")[-1].split("<")[0].strip()


def _memory_space(qualifiers: set[str]) -> str:
    if "__constant__" in qualifiers:
        return "constant"
    return "device" if "__device__" in qualifiers else ""


_INT_LITERAL = re.compile(r"^(0[xX][0-9a-fA-F']+|0[bB][01']+|0[0-7']*|[1-9][0-9']*)([uUlL]*)$")


def parse_number(text: str) -> tuple[int | float, str]:
    """The value and C type name of a number literal (``16``, ``3u``, ``1.0f``, ``0x10``, ``1e-3``)."""
    match = _INT_LITERAL.match(text)
    if match:
        digits = match.group(1).replace("'", "")
        base = (
            16
            if digits[:2] in ("0x", "0X")
            else 2
            if digits[:2] in ("0b", "0B")
            else (8 if digits.startswith("0") and len(digits) > 1 else 10)
        )
        value = int(digits, base) if base != 8 else int(digits[1:], 8)
        return value, integer_literal_type(value, match.group(2), base == 10).name
    body = text.replace("'", "")
    suffix = body[-1].lower() if body[-1] in "fFlL" and not body.lower().startswith("0x") else ""
    if suffix:
        body = body[:-1]
    value = float.fromhex(body) if body.lower().startswith("0x") else float(body)
    return value, "float" if suffix == "f" else "double"


def _char_value(node: Node, converter: _Converter) -> int:
    text = node_text(node)[1:-1]
    escapes = {"\\n": 10, "\\t": 9, "\\0": 0, "\\\\": 92, "\\'": 39, '\\"': 34, "\\r": 13}
    if text in escapes:
        return escapes[text]
    if len(text) == 1:
        return ord(text)
    raise converter.unsupported(node, "character literal")
