"""The SIMT interpreter: runs one thread block of a kernel with every statement vectorized
over the block's threads (NumPy), divergence as lane masks, and records each shared-memory
access per warp and per source-level access site.

``Machine`` holds the block's state (threads, frames, bindings, the shared-memory layout);
its behaviour is split by concern: ``statements``, ``expressions``, ``lvalues`` and
``calls``."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bankism.arch import LANES, window_base
from bankism.errors import BankismError
from bankism.explain.cuda import async_copy, tma, wmma  # noqa: F401 (their built-ins and object types)
from bankism.explain.cuda import halfs as _halfs  # noqa: F401  (registers the 16/8-bit float built-ins)
from bankism.explain.cuda.ptx import Asm
from bankism.explain.cuda.ptx_exec import InlinePtx
from bankism.explain.cuda.type_traits import CONDITIONAL, conditional_type
from bankism.explain.frontend import syntax as S
from bankism.explain.frontend.parse import Program
from bankism.explain.simt import ctype as C
from bankism.explain.simt.bindings import (
    BlockContext,
    Frame,
    LoopState,
    SnapshotRequest,
    TypeAlias,
    Variable,
    object_type,
)
from bankism.explain.simt.calls import Calls
from bankism.explain.simt.control import Control, Goto, Label, LabeledBlock, Switch
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.expressions import Expressions
from bankism.explain.simt.initializers import Initializers
from bankism.explain.simt.kernel_scope import KernelScope
from bankism.explain.simt.lvalues import Lvalues
from bankism.explain.simt.memory import GlobalMatrix, SharedStore, SharedVariable
from bankism.explain.simt.phases import Phases
from bankism.explain.simt.recording import Recorder, SourceSite
from bankism.explain.simt.records import Records, member_path
from bankism.explain.simt.references import References
from bankism.explain.simt.relevance import skippable_statements
from bankism.explain.simt.shared_layout import SharedLayout, check_shared_fits
from bankism.explain.simt.statements import Statements
from bankism.explain.simt.struct_copy import StructCopies
from bankism.explain.simt.structs import Structs
from bankism.explain.simt.template_shared import TemplateRun, TemplateShared
from bankism.explain.simt.values import (
    Failure,
    Mask,
    Scalar,
    Value,
    Vector,
    all_known,
    constant,
    per_thread,
    unknown,
)

#: Kept for callers that import them from here.
__all__ = ["BlockContext", "Machine", "Recorder", "SnapshotRequest", "SourceSite", "TypeAlias"]


# --- the machine -------------------------------------------------------------------------


class Machine(Statements, Initializers, Expressions, Lvalues, Calls, Structs, Records, References,
              StructCopies, KernelScope, SharedLayout, TemplateShared, InlinePtx, Control, Phases):
    """Runs one thread block of ``kernel``; see module docstring. Statements, expressions,
    lvalues and calls live in their own modules (mixins); this class holds the block's
    state: threads, scopes, bindings and the shared-memory layout."""

    def __init__(self, program: Program, kernel: S.Function, context: BlockContext,
                 template_values: dict[str, object], param_values: dict[str, int | float | None],
                 recorder: Recorder, snapshot: SnapshotRequest | None = None,
                 on_snapshot: Callable[[Machine], None] | None = None,
                 templates: TemplateRun | None = None) -> None:
        self.program = program
        #: The instantiations of template functions with static shared arrays the kernel makes
        #: and the calls of them that ran, from a discovery run (None: this is one).
        self.instances = templates.instances if templates is not None else None
        self.ran_calls = templates.ran_calls if templates is not None else set()
        self.siblings = self.sibling_scopes(templates.siblings) if templates is not None else None
        self.other_kernels = templates.others if templates is not None else {}
        self.kernel = kernel
        self.context = context
        self.recorder = recorder
        self.snapshot = snapshot
        self.on_snapshot = on_snapshot
        self.snapshot_taken = False
        #: Expression statements whose results never matter (``relevance``), with their names.
        self.skippable = {} if snapshot is not None else skippable_statements(program, kernel)
        bx, by, bz = context.block
        self.threads = bx * by * bz
        tid = np.arange(self.threads, dtype=np.int64)
        self.lanes = tid
        self.tx = (tid % bx).astype(np.uint32)
        self.ty = ((tid // bx) % by).astype(np.uint32)
        self.tz = (tid // (bx * by)).astype(np.uint32)
        self.frames: list[Frame] = []
        self.loops: list[LoopState] = []
        self.span: tuple[int, int] | None = None
        #: (function, call expression) of every call in progress, innermost last.
        self.call_stack: list[tuple[str, S.Node]] = []
        #: Lanes whose execution of the current code depends on a value bankism does not
        #: know (an if, ?:, &&, || or loop condition), and why; None when there are none.
        self.unsure: np.ndarray | None = None
        self.unsure_why = ""
        self._struct_types: dict[tuple, CType] = {}
        #: Named enumerations: name -> enumerator -> value (``Pad::ONE``).
        self.enum_scopes: dict[str, dict[str, Scalar]] = {}
        self._deferred: dict[int, Failure] = {}
        #: What the report should say about how this block was run (loops counted, not run).
        self.notes: list[str] = []
        #: Loops (statement ids) whose probe found iterations that differ.
        self.no_repeat: set[S.Stmt] = set()  # by object: an id can be reused
        #: The expression statement running whose value is unused (statements sets it), else None.
        self.discarded: S.Expr | None = None
        self._externs: dict[tuple[int, str], SharedVariable] = {}
        self.static_end = window_base(context.arch)
        self._constants: dict[S.Literal, Scalar] = {}
        self._branch_kinds: dict[S.If, bool] = {}  # whether an if's branches touch memory (vectorize.py)
        self.builtin_variables = self._builtin_values()
        self._expr = {
            S.Literal: self._literal, S.Name: self._name, S.Member: self._member_value,
            S.Subscript: self._load_expr, S.Call: self._call, S.Cast: self._cast, S.Unary: self._unary,
            S.IncDec: self._incdec, S.Binary: self._binary, S.Assign: self._assign,
            S.Conditional: self._conditional, S.Comma: self._comma, S.SizeOf: self._sizeof,
            S.InitList: self._init_list_value, Asm: self._asm, S.This: self._this, S.MethodCall: self._call,
            S.Lambda: self._lambda,
        }
        self._stmt = {
            S.ExprStmt: self._expr_stmt, S.Decl: self._decl, S.Block: self._block, S.If: self._if,
            S.For: self._for, S.While: self._while, S.DoWhile: self._do_while, S.Return: self._return,
            S.Break: self._break, S.Continue: self._continue, S.Refused: self._refused,
            S.TypeDef: self._typedef,
            Switch: self._switch, Goto: self._goto, Label: self._label, LabeledBlock: self._labeled_block,
        }
        self.matrices: list[GlobalMatrix] = []
        self.globals: dict[str, object] = {}
        self.shared_arrays: list[SharedVariable] = []
        self.shared: dict[int, SharedVariable] = {}
        self._unused_shared: set[int] = set()
        #: Arrays of storage a stand-in header never touches: bound to their name, outside the layout.
        self._dropped_storage: dict[int, SharedVariable] = {}
        try:
            with np.errstate(all="ignore"):
                self.bindings = self._kernel_scope(template_values, param_values)
                self._plan_shared()
        except Failure as failure:
            raise self._error(failure) from None
        end = max([a.base + a.size for a in self.shared_arrays], default=window_base(context.arch))
        check_shared_fits(self.shared_arrays, end, context.arch, context.filename)
        self.store = SharedStore(end)

    def _error(self, failure: Failure) -> BankismError:
        node = failure.node if hasattr(failure.node, "line") else self.current  # the statement running
        line = getattr(node, "line", "?")
        file = getattr(node, "file", "") or self.context.filename
        return BankismError(f"{file}:{line}: {failure.message}")

    # --- entry point ------------------------------------------------------------------------

    def run(self) -> None:
        """Execute the kernel for every thread of the block; errors name file and line."""
        try:
            full = Mask(np.ones(self.threads, bool), True, False)
            frame = Frame(self.kernel, [dict(self.bindings), {}], np.zeros(self.threads, bool), C.VOID)
            self.frames.append(frame)
            with np.errstate(all="ignore"):
                self.exec(self.program.body(self.kernel), full)
            self.frames.pop()
        except Failure as failure:
            raise self._error(failure) from None
        except RecursionError:
            raise BankismError(f"{self.context.filename}: kernel nesting too deep to interpret") from None

    def _builtin_values(self) -> dict[str, Value]:
        grid, block, index = self.context.grid, self.context.block, self.context.block_index

        def uniform(values: tuple[int, int, int]) -> Vector:
            return Vector(C.VECTORS["uint3"], [constant(C.UINT, v) for v in values])

        return {
            "threadIdx": Vector(
                C.VECTORS["uint3"],
                [Scalar(C.UINT, self.tx), Scalar(C.UINT, self.ty), Scalar(C.UINT, self.tz)],
            ),
            "blockIdx": uniform(index),
            "blockDim": uniform(block),
            "gridDim": uniform(grid) if grid is not None else Vector(
                C.VECTORS["uint3"], [unknown(C.UINT, f"gridDim.{axis}, the launch's grid (give --grid X,Y,Z)")
                                     for axis in "xyz"]),
            "warpSize": constant(C.INT, LANES),
        }

    # --- scopes -----------------------------------------------------------------------------

    @property
    def frame(self) -> Frame:
        return self.frames[-1]

    def lookup(self, name: str, node: S.Node) -> object:
        scope_name = getattr(node, "scope", "")
        if getattr(node, "scope_type", None) is not None:
            full = Mask(np.ones(self.threads, bool), True, False)
            t = self.resolve_type(node.scope_type, full)
            if t.kind == "struct" and name in t.info.bindings:
                return t.info.bindings[name]
            raise Failure(node, f"{t} has no static member {name}")
        if scope_name:
            member = self._scoped(scope_name, name, node)
            if member is not None:
                return member
        for scope in reversed(self.frame.scopes):
            if name in scope:
                return scope[name]
        frame = self.frame
        if frame.this_type is not None:
            if member_path(frame.this_type, name) is not None or name in frame.this_type.info.references:
                target = self.member_lvalue(frame.this, name, node)
                return Variable(name, self.lvalue_type(target), None, ref=target)
            if name in frame.this_type.info.bindings:
                return frame.this_type.info.bindings[name]
        if name in self.builtin_variables:
            return self.builtin_variables[name]
        if name in self.globals:
            return self.globals[name]
        if name in self.program.functions:
            raise Failure(node, f"function {name} used as a value")
        raise Failure(node, f"unknown name {name!r}")

    def _scoped(self, scope_name: str, name: str, node: S.Node) -> object | None:
        """``Type::name``: a static member or member alias of a struct; None for a namespace."""
        last = scope_name.split("::")[-1].split("<")[0].strip()
        enumerator = self.scoped_enumerator(last, name, node)
        if enumerator is not None:
            return enumerator
        full = Mask(np.ones(self.threads, bool), True, False)
        t = self._find_alias(last)
        if t is None and last in self.program.aliases:
            t = self.resolve_type(self.program.aliases[last], full)
        if t is None and last in self.program.structs and "<" not in scope_name:
            t = self.struct_type(last, None, node, full)
        if t is None or t.kind != "struct":
            return None
        binding = t.info.bindings.get(name)
        if binding is None:
            raise Failure(node, f"{t} has no static member {name}")
        return binding

    def find_variable(self, name: str) -> object | None:
        """The binding of ``name`` visible now, or None (for --when)."""
        for scope in reversed(self.frame.scopes):
            if name in scope:
                return scope[name]
        return None

    def declare(self, name: str, binding: object) -> None:
        if isinstance(binding, Variable):
            binding.born_unsure = self.unsure_lanes()
        self.frame.scopes[-1][name] = binding

    # --- types ------------------------------------------------------------------------------

    def resolve_type(self, type_name: S.TypeName, mask: Mask, init: Value | None = None) -> CType:
        """The CType a TypeName denotes now (template type parameters and array sizes resolved)."""
        base = self._base_type(type_name, init)
        t = base
        for _ in range(type_name.pointers):
            t = C.pointer_to(t)
        for dim in reversed(type_name.dims):
            if dim is None:
                raise Failure(type_name, "array without a size")
            size = self.integer_constant(dim, mask, "array size")
            if size < 0:
                raise Failure(dim, f"array size {size} is negative")
            t = C.array_of(t, size)
        for _ in range(type_name.array_pointers):  # `T (*p)[N]`: a pointer to the array
            t = C.pointer_to(t)
        return t

    def _base_type(self, type_name: S.TypeName, init: Value | None) -> CType:
        base = type_name.base
        full = Mask(np.ones(self.threads, bool), True, False)
        if type_name.decltype is not None:
            return self._static_type(type_name.decltype, full)
        if base in CONDITIONAL and type_name.args:  # `std::conditional_t<c, A, B>`
            return conditional_type(self, type_name.args, type_name, full)
        if type_name.scope_type is not None:  # `typename Traits<T>::type`
            if type_name.scope_type.base in CONDITIONAL and base == "type":
                return conditional_type(self, type_name.scope_type.args, type_name, full)
            owner = self.resolve_type(type_name.scope_type, full)
            member = owner.info.bindings.get(base) if owner.kind == "struct" else None
            if not isinstance(member, TypeAlias):
                raise Failure(type_name, f"{owner} has no member type {base}")
            return member.type
        if type_name.scope:
            scoped = self._scoped(type_name.scope, base, type_name)
            if isinstance(scoped, TypeAlias):
                return scoped.type
        alias = self._find_alias(base)
        if alias is not None:
            return alias
        named = self.globals.get(base)
        if isinstance(named, TypeAlias):  # an enumeration declared in the file
            return named.type
        if base == "auto":
            if init is None:
                raise Failure(type_name, "auto without an initializer")
            t = init.type
            for _ in range(type_name.pointers):  # `auto *p = q;`: auto is what q points to
                t = t.elem if t.kind == "ptr" else t
            return t
        if base in C.GROUP_TYPES:
            return C.GROUP
        t = C.lookup(base) or object_type(self, type_name)
        if t is not None:
            return t
        if base in self.program.structs:
            return self.struct_type(base, type_name.args, type_name, full)
        if base in self.program.aliases:
            return self.resolve_type(self.program.aliases[base], full)
        if base in C.UNSUPPORTED_TYPES:
            raise Failure(type_name, f"unsupported construct: type {base}")
        raise Failure(type_name, f"unsupported construct: unknown type {base!r}")

    def integer_constant(self, expr: S.Expr, mask: Mask, what: str) -> int:
        """A uniform, known integer (array sizes, template arguments)."""
        value = self.eval(expr, mask)
        if not isinstance(value, Scalar) or not value.type.is_integer:
            raise Failure(expr, f"{what} must be an integer")
        if not all_known(value.known, mask):
            raise Failure(expr, f"{what} depends on {value.taint}")
        data = np.asarray(value.data)
        if data.ndim and mask.arr.any():  # only the running threads' values count
            data = per_thread(data, self.threads)[mask.arr]
        if data.ndim and not (data == data.flat[0]).all():
            raise Failure(expr, f"{what} differs between threads")
        return int(data.flat[0])
