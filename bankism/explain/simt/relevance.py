"""Statements whose results can never reach a shared-memory access, found before the kernel
runs, so the interpreter skips them (a register-tiled GEMM's ``acc[m][n] += a[m] * b[n]`` is
most of its statements, and its values only ever go to global memory).

A name is *relevant* when its value can decide something explain reports: an address or an
index (of any array: whether it is shared is not known before the run), a condition (``if``,
loops, ``?:``, ``switch``), a shared array's content (a store into a ``__shared__`` array), an
operand of inline PTX, an argument of a call explain does not see into (shuffles, atomics,
methods, constructors, unknown functions) or a value a function returns. Relevance flows
backwards through assignments and declarations (``x = y + z``: if x is relevant so are y and
z) and through arguments into parameters; names a pointer or reference ties together (``float
*p = a``, a reference parameter, a reference-returning function) share relevance both ways. A
store through pointer arithmetic (``((float4 *)(C + row * N))[i] = acc[i]``) makes the value
flow into the names outside its subscripts that may be the pointer: not those declared only as
plain arithmetic scalars (``N``), or every register tile written to global memory would count.
Names are matched by spelling across every function the kernel can reach, which only makes
the analysis more careful.

An expression statement is skippable when it assigns (``=``, ``+=``, ``++``, ...) to a plain
local variable or local array (every declaration of the name in reach is a non-pointer,
non-reference, non-shared local) that is not relevant, and is built only from names,
literals, subscripts, member accesses, casts, operators and pure arithmetic built-ins. When the
statement runs, it is skipped only if every name in it is a local arithmetic variable or a
local array (no shared or global memory, no pointer, no struct whose operators might do
anything): then it reads and writes registers only, and nothing it writes is ever read by
anything explain reports. Kernels with a snapshot request run every statement.
"""

from __future__ import annotations

import weakref

from bankism.errors import BankismError
from bankism.explain.cuda.ptx import Asm
from bankism.explain.cuda.registry import BUILTINS
from bankism.explain.frontend import syntax as S
from bankism.explain.simt import control
from bankism.explain.simt import ctype as C

#: Built-ins that compute a value from their arguments and touch nothing else.
_PURE_MODULES = ("bankism.explain.cuda.arithmetic", "bankism.explain.cuda.halfs")
#: Expression nodes a skippable statement may contain.
_PLAIN = (S.Name, S.Literal, S.Subscript, S.Cast, S.Unary, S.Binary, S.Conditional, S.SizeOf, S.TypeName)


def _pure(name: str) -> bool:
    handler = BUILTINS.get(name)
    return handler is not None and (getattr(handler, "__module__", "") in _PURE_MODULES
                                    or name.startswith("make_"))


class _Flow:
    """Relevance seeds, value dependences and pointer/reference ties between names."""

    def __init__(self, program) -> None:  # noqa: ANN001
        self.program = program
        self.seeds: set[str] = set()
        self.deps: dict[str, set[str]] = {}
        self.ties: dict[str, set[str]] = {}
        self.impure: set[str] = set()  # names declared other than as a plain local somewhere
        self.locals: set[str] = set()
        self.candidates: list[S.ExprStmt] = []
        self.calls: set[str] = set()
        #: names declared somewhere as a plain arithmetic scalar (parameter or local), and names
        #: declared somewhere as anything else: only the latter can be a pointer written through
        self.scalars: set[str] = set()
        self.others: set[str] = set()
        #: writes through pointer arithmetic: (names outside the target's subscripts, value names)
        self.through_pointers: list[tuple[set[str], set[str]]] = []

    def take_calls(self) -> set[str]:
        """The names of the functions called in the code walked since the last call."""
        calls, self.calls = self.calls, set()
        return calls

    # --- recording -------------------------------------------------------------------------

    def depend(self, target: str, names: set[str]) -> None:
        self.deps.setdefault(target, set()).update(names)

    def tie(self, target: str, names: set[str]) -> None:
        for name in names:
            self.ties.setdefault(target, set()).add(name)
            self.ties.setdefault(name, set()).add(target)

    def note_declared(self, name: str, t: S.TypeName) -> None:
        """Whether ``name`` is declared here as a plain arithmetic scalar, or as anything else."""
        base = " ".join(w for w in t.base.split() if w not in ("const", "volatile", "__restrict__"))
        scalar = C.SCALARS.get(base)
        plain = not (t.pointers or t.reference or t.dims) and scalar is not None and scalar.kind != "void"
        (self.scalars if plain else self.others).add(name)

    def relevant(self) -> set[str]:
        for names, value in self.through_pointers:  # `((float4 *)(C + row * N))[i] = v`: C, not N
            roots = {n for n in names if n not in self.scalars or n in self.others}
            for root in roots:
                self.depend(root, value)
            if not roots:
                self.seeds.update(value)
        self.through_pointers = []
        found: set[str] = set()
        work = list(self.seeds)
        while work:
            name = work.pop()
            if name in found:
                continue
            found.add(name)
            work.extend(self.deps.get(name, ()))
            work.extend(self.ties.get(name, ()))
        return found

    # --- walking ---------------------------------------------------------------------------

    def function(self, function: S.Function, body: S.Stmt) -> None:
        for param in function.params:
            self.impure.add(param.name)
            self.note_declared(param.name, param.type)
        self.statement(body, f"return:{function.name}", function.return_type.reference)

    def statement(self, stmt: object, returns: str, by_reference: bool) -> None:
        if stmt is None:
            return
        if isinstance(stmt, list):
            for item in stmt:
                self.statement(item, returns, by_reference)
            return
        if isinstance(stmt, S.Block | control.LabeledBlock):
            self.statement(stmt.body, returns, by_reference)
        elif isinstance(stmt, S.ExprStmt):
            self.expression(stmt.expr)
            if isinstance(stmt.expr, S.Assign | S.IncDec):
                self.candidates.append(stmt)
        elif isinstance(stmt, S.Decl):
            self.declaration(stmt)
        elif isinstance(stmt, S.If):
            self.condition(stmt.condition)
            self.statement([stmt.then, stmt.otherwise], returns, by_reference)
        elif isinstance(stmt, S.For):
            self.statement(stmt.init, returns, by_reference)
            self.condition(stmt.condition)
            if stmt.update is not None:
                self.expression(stmt.update)
            self.statement(stmt.body, returns, by_reference)
        elif isinstance(stmt, S.While | S.DoWhile):
            self.condition(stmt.condition)
            self.statement(stmt.body, returns, by_reference)
        elif isinstance(stmt, control.Switch):
            self.condition(stmt.condition)
            for case in stmt.cases:
                self.condition(case.value)
                self.statement(case.body, returns, by_reference)
        elif isinstance(stmt, control.Label):
            self.statement(stmt.stmt, returns, by_reference)
        elif isinstance(stmt, S.Return):
            if stmt.value is not None:
                self.expression(stmt.value)
                names = _names(stmt.value)
                (self.tie if by_reference else self.depend)(returns, names)
        elif isinstance(stmt, S.Break | S.Continue | S.TypeDef | S.Refused | control.Goto):
            pass
        else:  # anything else: every name in it matters
            self.seeds.update(_names(stmt))

    def condition(self, expr: S.Expr | None) -> None:
        if expr is not None:
            self.expression(expr)
            self.seeds.update(_names(expr))

    def declaration(self, decl: S.Decl) -> None:
        for item in decl.items:
            t = item.type
            if decl.shared or decl.extern:
                self.others.add(item.name)
            else:
                self.note_declared(item.name, t)
            names = _names(item.init) if item.init is not None else set()
            for dim in t.dims:
                if dim is not None:
                    self.condition(dim)
            if item.init is not None:
                self.expression(item.init)
            if decl.shared or decl.extern or decl.static or decl.space:
                self.seeds.add(item.name)
                self.impure.add(item.name)
            elif t.pointers or t.reference or t.base == "auto":
                self.tie(item.name, names)
                self.impure.add(item.name)
            else:
                self.locals.add(item.name)
                self.depend(item.name, names)

    def expression(self, expr: S.Expr) -> None:
        """Seeds and flows of every part of ``expr``."""
        for node in S.walk(expr):
            if isinstance(node, S.Assign | S.IncDec):
                value = _names(node.value) if isinstance(node, S.Assign) else set()
                indices = _indices(node.target)
                root = _root(node.target)  # the variable written, or None: through a pointer
                if root is not None:
                    self.depend(root, value | indices)
                else:  # resolved once every declaration in reach is known
                    self.through_pointers.append((_names(node.target) - indices, value | indices))
            elif isinstance(node, S.Subscript):
                self.seeds.update(_names(node.index))
            elif isinstance(node, S.Unary) and node.op == "*":
                self.seeds.update(_names(node.operand))
            elif isinstance(node, S.Member) and node.arrow:
                self.seeds.update(_names(node.base))
            elif isinstance(node, S.Conditional):
                self.seeds.update(_names(node.condition))
            elif isinstance(node, S.Call):
                self.call(node)
            elif isinstance(node, S.MethodCall | Asm | S.Lambda | S.Comma | S.InitList):
                self.seeds.update(_names(node))
                if isinstance(node, S.Lambda):
                    self.lambda_body(node)

    def call(self, call: S.Call) -> None:
        self.calls.add(call.function)
        for arg in call.template_args:
            self.seeds.update(_names(arg))
        functions = [f for f in self.program.functions.get(call.function, []) if not f.is_kernel]
        if not functions:
            if not _pure(call.function):
                self.seeds.update(_names(call))
            return
        for function in functions:
            for param, arg in zip(function.params, call.args, strict=False):
                names = _names(arg)
                if param.type.pointers or param.type.reference or param.type.dims:
                    self.tie(param.name, names)
                else:
                    self.depend(param.name, names)
            if len(call.args) > len(function.params):
                self.seeds.update(_names(call))

    def lambda_body(self, lam: S.Lambda) -> None:
        for param in lam.params:
            self.impure.add(param.name)
            self.seeds.add(param.name)
        body = self.program.lambda_body(lam)
        self.statement(body, "return:(lambda)", True)
        self.seeds.add("return:(lambda)")


def _names(node: object) -> set[str]:
    """Every variable name in ``node``, and ``return:f`` for each call of f."""
    out = set()
    for item in S.walk(node):
        if isinstance(item, S.Name):
            out.add(item.name)
        elif isinstance(item, S.Call):
            out.add(f"return:{item.function}")
    return out


def _root(target: S.Expr) -> str | None:
    """The variable an assignment's target is part of (``a`` of ``a[i].x``, ``*(float4*)&a[2]``)."""
    while True:
        if isinstance(target, S.Name):
            return target.name
        if isinstance(target, S.Subscript | S.Member):
            target = target.base
        elif isinstance(target, S.Cast):
            target = target.value
        elif isinstance(target, S.Unary) and target.op in ("*", "&"):
            target = target.operand
        else:
            return None


def _indices(target: S.Expr) -> set[str]:
    return set().union(*(_names(n.index) for n in S.walk(target) if isinstance(n, S.Subscript)))


def _plain(expr: S.Expr) -> bool:
    """Whether ``expr`` only computes (no call but pure built-ins, no assignment inside)."""
    for node in S.walk(expr):
        if isinstance(node, S.Call):
            if not _pure(node.function) or node.template_args:
                return False
        elif isinstance(node, S.Member):
            if node.arrow:
                return False
        elif not isinstance(node, _PLAIN):
            return False
    return True


def skippable_statements(program, kernel: S.Function) -> dict[int, tuple[str, ...]]:  # noqa: ANN001
    """id(statement) -> the names in it, for the kernel's expression statements whose results
    never matter (see the module docstring); empty when some code in reach cannot be read.
    Worked out once per program and kernel (every simulated block asks)."""
    found = _CACHE.setdefault(program, {})
    if id(kernel) not in found:
        found[id(kernel)] = _skippable(program, kernel)
    return found[id(kernel)]


#: program -> {id(kernel): skippable statements}.
_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _skippable(program, kernel: S.Function) -> dict[int, tuple[str, ...]]:  # noqa: ANN001
    flow = _Flow(program)
    try:
        for decl in program.globals:
            for item in decl.items:
                flow.impure.add(item.name)
                flow.seeds.add(item.name)
                flow.others.add(item.name)
        pending = [kernel]
        for definitions in program.structs.values():
            for struct in definitions:
                for item in struct.fields + struct.statics:
                    flow.impure.add(item.name)
                for method in struct.methods:
                    if method.error is None:
                        flow.seeds.update(p.name for p in method.params)
                        flow.seeds.add(f"return:{method.name}")
                        pending.append(method)
        done: set[int] = set()
        while pending:  # the kernel, every member function, and every function a call names
            function = pending.pop()
            if id(function) in done:
                continue
            done.add(id(function))
            body = program.body(function)
            flow.function(function, body)
            for name in flow.take_calls():
                pending.extend(f for f in program.functions.get(name, [])
                               if not f.is_kernel and f.error is None and id(f) not in done)
    except BankismError:
        return {}
    relevant = flow.relevant()
    out = {}
    for stmt in flow.candidates:
        expr = stmt.expr
        root = _root(expr.target)
        if (root is None or root in relevant or root in flow.impure or root not in flow.locals
                or not _plain(expr.target) or (isinstance(expr, S.Assign) and not _plain(expr.value))):
            continue
        out[id(stmt)] = tuple(sorted(_names(expr)))
    return out
