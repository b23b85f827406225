"""The declaration half of the CUDA front end: function definitions (kernels, device
functions, member functions, constructors, operators, conversion operators), structs,
classes, unions and their members, type aliases, template parameters and types as
written. A mixin of the converter in ``parse``."""

from __future__ import annotations

from tree_sitter import Node

from bankism.errors import BankismError
from bankism.explain.frontend import syntax as S
from bankism.explain.frontend.concepts import constrained_type_parameter, defined_concepts
from bankism.explain.frontend.cpp_declarations import CppDeclarations
from bankism.explain.frontend.treesitter import SPACE, child_of_type, last_name, named_children, node_text

#: tree-sitter's node types of struct, class and union specifiers.
RECORDS = ("struct_specifier", "class_specifier", "union_specifier")


class Declarations(CppDeclarations):
    """Functions, structs, aliases and types (a mixin of the converter in ``parse``)."""

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
            name = last_name(name_node) if name_node is not None else ""
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
                name = last_name(name_node)
                if any(c.type == "destructor_name" for c in name_node.children):
                    return None
            else:
                name = last_name(name_node)
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
            optional = p.type == "optional_parameter_declaration"
            default = p.child_by_field_name("default_value") if optional else None
            params.append(S.Param(self._line(p), node_text(p), pname, type_name,
                                  self.expr(default) if default is not None else None))
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

    def unnamed_record_name(self, node: Node) -> str:
        """The name an unnamed struct or union of a declaration goes by (``union { ... } u;``)."""
        return f"(unnamed {node.type.split('_')[0]} at line {self._line(node)})"

    def struct(self, node: Node, name: str | None = None) -> S.StructDef | None:
        """A struct/class/union definition: data members, static members, member functions
        (converted here, bodies later) and member aliases. Anything it cannot read makes the
        struct carry an error, raised only when the kernel uses the struct. ``name`` names an
        unnamed struct defined inside another (an anonymous member)."""
        name_node = node.child_by_field_name("name")
        specialization = None
        if name is not None:
            pass
        elif name_node is None:
            parent = node.parent
            if parent is not None and parent.type == "declaration":  # `__shared__ union { ... } u;`
                name = self.unnamed_record_name(node)
            elif parent is None or parent.type != "type_definition":
                return None
            else:
                declarators = parent.children_by_field_name("declarator")
                if not declarators:
                    return None
                name = node_text(declarators[0])
        elif name_node.type == "template_type":
            name = last_name(name_node.child_by_field_name("name"))
        else:
            name = last_name(name_node)
        kind = node.type.split("_")[0]
        struct = S.StructDef(
            self._line(node), node_text(node), name, kind, [], specialization, [], [], [], []
        )
        struct.file = self._file(node)
        try:
            if name_node is not None and name_node.type == "template_type":
                # a specialization; one whose arguments cannot be read (`traits<Ret (*)(Arg)>`) matches
                # no use (an empty list) and carries the error like any unreadable member
                struct.specialization = []
                arguments = named_children(name_node.child_by_field_name("arguments"))
                struct.specialization = [self._template_argument(a) for a in arguments]
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
                struct.bases = self._bases(base_clause)
            body = node.child_by_field_name("body")
            for member in named_children(body) if body is not None else []:
                self._member(struct, member)
        except BankismError as error:
            struct.error = str(error)
        return struct

    def _member(self, struct: S.StructDef, member: Node) -> None:
        kind = member.type
        type_node = member.child_by_field_name("type")
        if kind == "field_declaration" and type_node is not None and type_node.type == "enum_specifier":
            enum = self.enum(type_node)
            if enum is not None:
                struct.enums.append(enum)
            if not member.children_by_field_name("declarator"):
                return
        if (kind == "field_declaration" and type_node is not None and type_node.type in RECORDS
                and type_node.child_by_field_name("body") is not None
                and type_node.child_by_field_name("name") is None):
            self._anonymous_member(struct, member, type_node)
            return
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
                    and type_node.type in RECORDS
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
                # an unnamed parameter (`typename = enable_if_t<...>`) gets a name no source can spell
                name = node_text(name_node) if name_node is not None else f"<unnamed {len(out)}>"
                out.append(S.TemplateParam(line, text, name, True,
                                           self._default_type(default) if default is not None else None))
            elif p.type in ("parameter_declaration", "optional_parameter_declaration") \
                    and self._constrained(p):
                # `Arith T`, `std::floating_point T = float`: a type parameter constrained by a concept
                default = p.child_by_field_name("default_value")
                out.append(S.TemplateParam(line, text, node_text(p.child_by_field_name("declarator")), True,
                                           self._default_type(default) if default is not None else None))
            elif p.type in ("parameter_declaration", "optional_parameter_declaration"):
                declarator = p.child_by_field_name("declarator")
                name = self._declared(p, declarator)[1] if declarator is not None else f"<unnamed {len(out)}>"
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

    def _constrained(self, parameter: Node) -> bool:
        """Whether a template parameter `C name` names a concept C: then it declares a type."""
        root = parameter
        while root.parent is not None:
            root = root.parent
        if root.id not in self._concepts:
            self._concepts[root.id] = defined_concepts(root)
        return constrained_type_parameter(parameter, self._concepts[root.id])

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
        if type_node.type == "decltype":
            base, args, scope = "decltype", None, ""
        else:
            base, args, scope = self._type_spec(type_node)
        const = type_node.type == "sized_type_specifier" and any(  # `unsigned const &`: inside the specifier
            c.type == "type_qualifier" and node_text(c) == "const" for c in type_node.children)
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
        if kind == "enum_specifier":  # `enum Mode m;`, `enum { A, B } m;`: the enumeration's type
            name_node = type_node.child_by_field_name("name")
            return (self._type_spec(name_node) if name_node is not None else ("int", None, ""))
        if kind in RECORDS:
            name_node = type_node.child_by_field_name("name")
            declared = type_node.parent is not None and type_node.parent.type == "declaration"
            if declared and type_node.child_by_field_name("body") is not None:  # defined where it is used
                return (self.unnamed_record_name(type_node), None, "") if name_node is None else \
                    self._type_spec(name_node)
            if type_node.child_by_field_name("body") is not None or name_node is None:
                raise self.unsupported(type_node, kind.replace("_", " "))
            return self._type_spec(name_node)
        if kind == "dependent_type":  # `typename Traits<T>::type`
            return self._type_spec(named_children(type_node)[-1])
        if kind == "decltype":
            raise self.unsupported(type_node, kind.replace("_", " "))
        if kind == "sized_type_specifier":  # `unsigned long`; `const` inside (`unsigned const`) is no name
            return " ".join(node_text(c) for c in type_node.children if c.type != "type_qualifier"), None, ""
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
        array_pointers = 0  # pointers inside `( )` after array sizes: `T (*p)[N]`
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
                if dims:
                    array_pointers += 1
                else:
                    pointers += 1
                current = current.child_by_field_name("declarator")
            elif kind in ("reference_declarator", "abstract_reference_declarator"):
                reference = True
                current = named_children(current)[-1] if named_children(current) else None
            elif kind in ("array_declarator", "abstract_array_declarator"):
                size = current.child_by_field_name("size")
                dims.insert(0, self.expr(size) if size is not None else None)
                current = current.child_by_field_name("declarator")
            elif kind in ("parenthesized_declarator", "abstract_parenthesized_declarator"):
                current = self._parenthesized(current, dims)
            elif kind == "function_declarator":
                raise self.unsupported(current, "function declaration inside a kernel")
            else:
                self._check(current)
                raise self.unsupported(current, f"declarator {kind}")
        type_name = S.TypeName(self._line(node), node_text(node), base, pointers, dims, reference, const,
                               align, args, scope, **self._type_extras(node), array_pointers=array_pointers)
        type_name.file = self._file(node)
        return type_name, name

    def _parenthesized(self, node: Node, dims: list) -> Node | None:
        """The declarator inside ``(&name)`` or ``(&)``: a reference to an array (``T (&r)[M][N]``,
        ``reinterpret_cast<T (&)[N]>``), a pointer to an array (``T (*p)[N]``, its pointer counted
        apart from ``T *p[N]``'s) or a plain name in parentheses."""
        inner = named_children(node)
        if not inner:
            return None
        inside = inner[0]
        if inside.type not in ("reference_declarator", "abstract_reference_declarator", "identifier",
                               "field_identifier", "pointer_declarator", "abstract_pointer_declarator"):
            raise self.unsupported(node, "parenthesized declarator")
        return inside

    def _type_descriptor(self, node: Node) -> S.TypeName:
        type_name, _ = self._declared(node, node.child_by_field_name("declarator"))
        return type_name
