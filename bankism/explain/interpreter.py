"""The SIMT interpreter: runs one thread block of a kernel with every statement vectorized
over the block's threads (NumPy), divergence as lane masks, and records each shared-memory
access per warp and per source-level access site."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from bankism.errors import BankismError
from bankism.explain import ctype as C
from bankism.explain import syntax as S
from bankism.explain.ctype import CType
from bankism.explain.memory import (
    GlobalMatrix,
    LocalArray,
    SharedArray,
    SharedStore,
    dynamic_base,
    global_load,
    layout_static,
    local_load,
    local_slots,
    local_store,
    window_base,
)
from bankism.explain.values import (
    Failure,
    Mask,
    Pointer,
    Scalar,
    Value,
    Vector,
    all_known,
    binary,
    bit_not,
    constant,
    convert,
    flags_per_thread,
    logical_not,
    negate,
    per_thread,
    select,
    src_per_thread,
    unknown,
)

MAX_CALL_DEPTH = 32
#: A loop that runs longer than this is reported instead of hanging the interpreter
#: (about 10 s of interpretation for a small loop body).
MAX_LOOP_ITERATIONS = 1 << 18
_COMPONENTS = {"x": 0, "y": 1, "z": 2, "w": 3}
_BUILTIN_VECTORS = ("threadIdx", "blockIdx", "blockDim", "gridDim")


# --- recording ---------------------------------------------------------------------------


@dataclass(eq=False)
class Site:
    """One source-level shared-memory access: a syntax node and an operation on it."""

    line: int
    column: int
    expression: str
    array: str
    region: SharedArray
    op: str
    width: int
    type: CType
    order: int
    atomic_op: str | None = None
    span: tuple[int, int] = (0, 0)
    blocks: list[tuple[int, int, int]] = field(default_factory=list)
    warps: list[np.ndarray] = field(default_factory=list)
    addresses: list[np.ndarray] = field(default_factory=list)
    active: list[np.ndarray] = field(default_factory=list)


class Recorder:
    """Collects, per site, every warp-instruction: block, warp, 32 addresses, active lanes."""

    def __init__(self) -> None:
        self.sites: dict[tuple[int, str], Site] = {}

    def record(self, node: S.Node, op: str, t: CType, region: SharedArray, addresses: np.ndarray,
               mask: Mask, block: tuple[int, int, int], atomic_op: str | None = None,
               span: tuple[int, int] | None = None) -> None:
        key = (id(node), op)
        site = self.sites.get(key)
        if site is None:
            site = Site(node.line, node.col, node.text, _base_name(node) or region.name, region, op, t.size,
                        t, len(self.sites), atomic_op, span or (node.line, node.line))
            self.sites[key] = site
        threads = addresses.size
        warps = -(-threads // 32)
        padded = np.zeros(warps * 32, np.int64)
        padded[:threads] = addresses
        lanes = np.zeros(warps * 32, bool)
        lanes[:threads] = mask.arr
        padded, lanes = padded.reshape(warps, 32), lanes.reshape(warps, 32)
        issued = np.flatnonzero(lanes.any(axis=1))
        site.blocks.extend([block] * issued.size)
        site.warps.append(issued)
        site.addresses.append(padded[issued])
        site.active.append(lanes[issued])


def _base_name(node: S.Node) -> str | None:
    """The variable an access expression starts from (``As`` in ``As[ty][k]``, ``p`` in ``*p``)."""
    current = node
    while True:
        if isinstance(current, S.Name):
            return current.name
        if isinstance(current, S.Subscript):
            current = current.base
        elif isinstance(current, S.Unary):
            current = current.operand
        elif isinstance(current, S.Cast):
            current = current.value
        elif isinstance(current, S.Member):
            current = current.base
        elif isinstance(current, S.Binary):
            current = current.left
        elif isinstance(current, S.Call) and current.args:
            current = current.args[0]
        else:
            return None


# --- bindings ----------------------------------------------------------------------------


class Variable:
    """A named scalar/vector/pointer variable; ``ref`` makes it an alias (C++ reference)."""

    __slots__ = ("name", "type", "value", "ref")

    def __init__(self, name: str, type: CType, value: Value | None, ref: object = None) -> None:
        self.name = name
        self.type = type
        self.value = value
        self.ref = ref


@dataclass(slots=True)
class TypeAlias:
    type: CType


@dataclass(slots=True)
class GlobalArray:
    """A file-scope __constant__ or __device__ variable: global memory with symbolic content."""

    matrix: GlobalMatrix
    type: CType


@dataclass(slots=True)
class VarLV:
    var: Variable


@dataclass(slots=True)
class MemLV:
    region: object
    offset: np.ndarray | np.generic
    type: CType
    node: S.Node


@dataclass(slots=True)
class CompLV:
    base: object
    index: int
    type: CType


LValue = VarLV | MemLV | CompLV


@dataclass
class Frame:
    """One function invocation: its scopes, the lanes that returned, and the return value."""

    function: S.Function
    scopes: list[dict[str, object]]
    returned: np.ndarray
    return_type: CType
    result: Value | None = None


@dataclass
class LoopState:
    broken: np.ndarray
    continued: np.ndarray


@dataclass(frozen=True)
class SnapshotRequest:
    """--snapshot LINE --when VAR=VALUE: take the shared memory after LINE when VARs match."""

    line: int
    when: tuple[tuple[str, int], ...] = ()


@dataclass
class BlockContext:
    """What one block run needs from the outside."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    block_index: tuple[int, int, int]
    dynamic_shared: int
    filename: str
    arch: str = "sm_90"


# --- the machine -------------------------------------------------------------------------


class Machine:
    """Runs one thread block of ``kernel``; see module docstring."""

    def __init__(self, program, kernel: S.Function, context: BlockContext,  # noqa: ANN001
                 template_values: dict[str, object], param_values: dict[str, int | float | None],
                 recorder: Recorder, snapshot: SnapshotRequest | None = None,
                 on_snapshot: Callable[[Machine], None] | None = None) -> None:
        self.program = program
        self.kernel = kernel
        self.context = context
        self.recorder = recorder
        self.snapshot = snapshot
        self.on_snapshot = on_snapshot
        self.snapshot_taken = False
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
        self._constants: dict[int, Scalar] = {}
        self._builtins = self._builtin_values()
        self._expr = {
            S.Literal: self._literal, S.Name: self._name, S.Member: self._member_value,
            S.Subscript: self._load_expr, S.Call: self._call, S.Cast: self._cast, S.Unary: self._unary,
            S.IncDec: self._incdec, S.Binary: self._binary, S.Assign: self._assign,
            S.Conditional: self._conditional, S.Comma: self._comma, S.SizeOf: self._sizeof,
            S.InitList: self._init_list_value,
        }
        self._stmt = {
            S.ExprStmt: self._expr_stmt, S.Decl: self._decl, S.Block: self._block, S.If: self._if,
            S.For: self._for, S.While: self._while, S.DoWhile: self._do_while, S.Return: self._return,
            S.Break: self._break, S.Continue: self._continue,
        }
        self.matrices: list[GlobalMatrix] = []
        self.globals: dict[str, object] = {}
        self.shared_arrays: list[SharedArray] = []
        self.shared: dict[int, SharedArray] = {}
        self._unused_shared: set[int] = set()
        try:
            with np.errstate(all="ignore"):
                self.bindings = self._kernel_scope(template_values, param_values)
                self._plan_shared()
        except Failure as failure:
            raise self._error(failure) from None
        end = max([a.base + a.size for a in self.shared_arrays], default=window_base(context.arch))
        self.store = SharedStore(end)

    def _error(self, failure: Failure) -> BankismError:
        line = getattr(failure.node, "line", "?")
        return BankismError(f"{self.context.filename}:{line}: {failure.message}")

    def _kernel_scope(self, template_values: dict[str, object],
                      param_values: dict[str, int | float | None]) -> dict[str, object]:
        """Template parameters (constants or type aliases) and parameters: pointers become
        symbolic global matrices named after the parameter, scalars take the given values."""
        scope: dict[str, object] = {}
        full = Mask(np.ones(self.threads, bool), True, False)
        self._file_scope(full)
        self.frames.append(Frame(self.kernel, [scope], np.zeros(self.threads, bool), C.VOID))
        try:
            for param in self.kernel.template_params:
                given = template_values.get(param.name, param.default)
                if given is None:
                    what = "TYPE" if param.is_type else "VALUE"
                    raise Failure(param, f"template parameter {param.name} has no value: give "
                                         f"-D {param.name}={what} or launch it with <...>")
                if param.is_type:
                    t = given if isinstance(given, CType) else self.resolve_type(given, full)
                    scope[param.name] = TypeAlias(t)
                elif isinstance(given, int):
                    scope[param.name] = constant(C.INT, given)
                else:
                    value = self.integer_constant(given, full, "template argument")
                    scope[param.name] = constant(C.INT, value)
            for param in self.kernel.params:
                t = self.resolve_type(param.type, full)
                if t.kind == "array":
                    t = C.pointer_to(t.elem)
                if param.type.reference:
                    raise Failure(param, "unsupported construct: reference parameter of a kernel")
                if t.kind == "ptr":
                    matrix = GlobalMatrix(param.name, t.elem, len(self.matrices))
                    self.matrices.append(matrix)
                    scope[param.name] = Variable(param.name, t, Pointer(t, matrix, np.int64(0)))
                elif t.is_arithmetic:
                    given = param_values.get(param.name)
                    value = (unknown(t, f"kernel parameter {param.name} (give -D {param.name}=VALUE)")
                             if given is None else constant(t, given))
                    scope[param.name] = Variable(param.name, t, value)
                else:
                    raise Failure(param, f"unsupported construct: kernel parameter of type {t}")
        finally:
            self.frames.pop()
        return scope

    def _file_scope(self, mask: Mask) -> None:
        """File-scope names a kernel may use: const/constexpr numbers (evaluated here; ones
        that cannot be are left out) and __constant__/__device__ arrays (symbolic, like
        global matrices)."""
        self.frames.append(Frame(self.kernel, [self.globals], np.zeros(self.threads, bool), C.VOID))
        try:
            for decl in self.program.globals:
                for item in decl.items:
                    self._global_item(decl, item, mask)
        finally:
            self.frames.pop()

    def _global_item(self, decl: S.Decl, item: S.Declarator, mask: Mask) -> None:
        try:
            if decl.space in ("constant", "device"):
                t = self.resolve_type(item.type, mask)
                matrix = GlobalMatrix(item.name, t.scalar if t.kind == "array" else t, len(self.matrices))
                self.matrices.append(matrix)
                self.globals[item.name] = GlobalArray(matrix, t)
            elif item.type.const and item.init is not None and _is_constant_expression(item.init):
                self._declare_local(item, mask)
        except Failure:
            return

    def _plan_shared(self) -> None:
        """Lay out the static __shared__ arrays the kernel uses (nvcc drops unused ones) and
        the extern one, before any thread runs: see memory.layout_static."""
        body = self.program.body(self.kernel)
        used = {n.name for n in S.walk(body) if isinstance(n, S.Name)}
        full = Mask(np.ones(self.threads, bool), True, False)
        static: list[tuple[S.Declarator, CType, int | None]] = []
        externs: list[tuple[S.Declarator, CType, int]] = []
        frame = Frame(self.kernel, [dict(self.bindings), {}], np.zeros(self.threads, bool), C.VOID)
        self.frames.append(frame)
        snapshot, self.snapshot = self.snapshot, None
        try:
            for node in S.walk(body):
                if not isinstance(node, S.Decl):
                    continue
                if not node.shared:
                    self._try_constant_decl(node, full)
                    continue
                for item in node.items:
                    if item.name not in used:
                        self._unused_shared.add(id(item))
                        continue
                    align = (self.integer_constant(item.type.align, full, "alignment")
                             if item.type.align is not None else None)
                    if node.extern:
                        element = self.resolve_type(S.TypeName(item.type.line, item.type.text, item.type.base,
                                                               item.type.pointers), full)
                        externs.append((item, element, align or element.align))
                    else:
                        static.append((item, self.resolve_type(item.type, full), align))
        finally:
            self.frames.pop()
            self.snapshot = snapshot
        start = window_base(self.context.arch)
        placed, end = layout_static([(item.name, t, item.line, align) for item, t, align in static], start)
        for (item, _, _), region in zip(static, placed, strict=True):
            self.shared[id(item)] = region
        self.shared_arrays = list(placed)
        for item, element, align in externs:
            count = self.context.dynamic_shared // element.size
            t = C.array_of(element, count)
            region = SharedArray(item.name, t, dynamic_base(end, align), count * element.size,
                                 item.line, extern=True)
            self.shared[id(item)] = region
            self.shared_arrays.append(region)

    def _try_constant_decl(self, stmt: S.Decl, mask: Mask) -> None:
        """Evaluate ``const int TILE = 32;``-style declarations so array sizes can use them."""
        for item in stmt.items:
            if not (item.type.const and item.init is not None and _is_constant_expression(item.init)):
                return
        try:
            self._decl(stmt, mask)
        except Failure:
            return

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
            "threadIdx": Vector(C.VECTORS["uint3"], [Scalar(C.UINT, self.tx), Scalar(C.UINT, self.ty),
                                                     Scalar(C.UINT, self.tz)]),
            "blockIdx": uniform(index), "blockDim": uniform(block), "gridDim": uniform(grid),
            "warpSize": constant(C.INT, 32),
        }

    # --- scopes -----------------------------------------------------------------------------

    @property
    def frame(self) -> Frame:
        return self.frames[-1]

    def lookup(self, name: str, node: S.Node) -> object:
        for scope in reversed(self.frame.scopes):
            if name in scope:
                return scope[name]
        if name in self._builtins:
            return self._builtins[name]
        if name in self.globals:
            return self.globals[name]
        if name in self.program.functions:
            raise Failure(node, f"function {name} used as a value")
        raise Failure(node, f"unknown name {name!r}")

    def find_variable(self, name: str) -> object | None:
        """The binding of ``name`` visible now, or None (for --when)."""
        for scope in reversed(self.frame.scopes):
            if name in scope:
                return scope[name]
        return None

    def declare(self, name: str, binding: object) -> None:
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
            t = C.array_of(t, self.integer_constant(dim, mask, "array size"))
        return t

    def _base_type(self, type_name: S.TypeName, init: Value | None) -> CType:
        base = type_name.base
        for scope in reversed(self.frame.scopes):
            binding = scope.get(base)
            if isinstance(binding, TypeAlias):
                return binding.type
        if base == "auto":
            if init is None:
                raise Failure(type_name, "auto without an initializer")
            return init.type
        t = C.lookup(base)
        if t is None:
            if base in C.UNSUPPORTED_TYPES:
                raise Failure(type_name, f"unsupported construct: type {base}")
            raise Failure(type_name, f"unsupported construct: unknown type {base!r}")
        return t

    def integer_constant(self, expr: S.Expr, mask: Mask, what: str) -> int:
        """A uniform, known integer (array sizes, template arguments)."""
        value = self.eval(expr, mask)
        if not isinstance(value, Scalar) or not value.type.is_integer:
            raise Failure(expr, f"{what} must be an integer")
        if not all_known(value.known, mask):
            raise Failure(expr, f"{what} depends on {value.taint}")
        data = np.asarray(value.data)
        if data.ndim and not (data == data.flat[0]).all():
            raise Failure(expr, f"{what} differs between threads")
        return int(data.flat[0])

    # --- statements -------------------------------------------------------------------------

    def exec(self, stmt: S.Stmt, mask: Mask) -> Mask:
        """Execute ``stmt`` for the threads of ``mask``; return the threads that continue after it."""
        return self._stmt[type(stmt)](stmt, mask)

    def _live(self, mask: Mask) -> Mask:
        """``mask`` without threads that left through return/break/continue."""
        arr = mask.arr & ~self.frame.returned
        if self.loops:
            loop = self.loops[-1]
            arr = arr & ~loop.broken & ~loop.continued
        return Mask.of(arr)

    def _block(self, stmt: S.Block, mask: Mask) -> Mask:
        self.frame.scopes.append({})
        try:
            for inner in stmt.body:
                if mask.none:
                    break
                mask = self.exec(inner, mask)
        finally:
            self.frame.scopes.pop()
        return mask

    def _expr_stmt(self, stmt: S.ExprStmt, mask: Mask) -> Mask:
        outer, self.span = self.span, (stmt.line, stmt.end_line)
        try:
            self.eval(stmt.expr, mask)
        finally:
            self.span = outer
        if self.snapshot is not None and stmt.end_line == self.snapshot.line:
            self._maybe_snapshot(stmt, mask)
        return mask

    def _maybe_snapshot(self, stmt: S.Stmt, mask: Mask) -> None:
        if self.snapshot_taken:
            return
        for name, wanted in self.snapshot.when:
            binding = self.find_variable(name)
            if binding is None:
                if name in self._builtins:
                    raise Failure(stmt, f"--when {name}: use a variable of the kernel, not a built-in")
                raise Failure(stmt, f"--when {name}={wanted}: no variable {name} in scope at this line")
            if not isinstance(binding, Variable) or not isinstance(binding.value, Scalar):
                raise Failure(stmt, f"--when {name}: {name} is not a scalar variable")
            value = binding.value
            data = per_thread(value.data, self.threads)[mask.arr]
            if not (data == wanted).all():
                return
        self.snapshot_taken = True
        if self.on_snapshot is not None:
            self.on_snapshot(self)

    def _decl(self, stmt: S.Decl, mask: Mask) -> Mask:
        outer, self.span = self.span, (stmt.line, stmt.end_line)
        try:
            for item in stmt.items:
                if stmt.shared:
                    self._declare_shared(stmt, item)
                    continue
                if stmt.extern:
                    raise Failure(item, "unsupported construct: extern declaration inside a kernel")
                self._declare_local(item, mask)
        finally:
            self.span = outer
        if self.snapshot is not None and stmt.end_line == self.snapshot.line:
            self._maybe_snapshot(stmt, mask)
        return mask

    def _declare_shared(self, stmt: S.Decl, item: S.Declarator) -> None:
        if item.init is not None:
            raise Failure(item, "a __shared__ variable cannot have an initializer")
        region = self.shared.get(id(item))
        if region is None and id(item) in self._unused_shared:
            return
        if region is None:
            raise Failure(item, "unsupported construct: __shared__ declaration outside the kernel body")
        self.declare(item.name, region)

    def _declare_local(self, item: S.Declarator, mask: Mask) -> None:
        init_value = None
        if item.init is not None and not isinstance(item.init, S.InitList) and not item.type.dims:
            if item.type.reference:
                target = self.lvalue(item.init, mask)
                t = self.lvalue_type(target)
                self.declare(item.name, Variable(item.name, t, None, ref=target))
                return
            init_value = self.eval(item.init, mask)
        t = self.resolve_type(item.type, mask, init_value)
        if t.kind == "array":
            array = LocalArray(item.name, t, self.threads)
            if t.scalar.kind not in ("int", "float", "bool"):
                raise Failure(item, f"unsupported construct: local array of {t.scalar}")
            self.declare(item.name, array)
            if item.init is not None:
                self._init_local_array(array, item.init, mask)
            return
        if t.kind == "vec" and isinstance(item.init, S.InitList):
            comps = [self.eval(e, mask) for e in item.init.items]
            init_value = self._make_vector(t, comps, item)
        elif isinstance(item.init, S.InitList):
            if len(item.init.items) != 1:
                raise Failure(item, "unsupported construct: brace initializer with several values")
            init_value = self.eval(item.init.items[0], mask)
        value = self.coerce(init_value, t, item) if init_value is not None else self._uninitialized(t)
        self.declare(item.name, Variable(item.name, t, value))

    def _uninitialized(self, t: CType) -> Value | None:
        if t.kind == "vec":
            return Vector(t, [unknown(t.elem, "an uninitialized variable") for _ in range(t.count)])
        if t.is_arithmetic:
            return unknown(t, "an uninitialized variable")
        return None

    def _init_local_array(self, array: LocalArray, init: S.Expr, mask: Mask) -> None:
        if not isinstance(init, S.InitList):
            raise Failure(init, "unsupported construct: array initialized from an expression")
        flat = _flatten_init(init)
        slots = array.data.shape[0]
        if len(flat) > slots:
            raise Failure(init, f"too many initializers for {array.name}")
        zero = constant(array.scalar, 0)
        for slot in range(slots):
            value = self.eval(flat[slot], mask) if slot < len(flat) else zero
            if not isinstance(value, Scalar):
                raise Failure(init, "unsupported construct: non-scalar array initializer")
            local_store(array, np.int64(slot), value, mask)

    def _if(self, stmt: S.If, mask: Mask) -> Mask:
        condition = self.truth(stmt.condition, mask)
        then_mask = mask & condition
        else_mask = mask & np.logical_not(condition)
        out_then = self.exec(stmt.then, then_mask) if not then_mask.none else then_mask
        if stmt.otherwise is not None and not else_mask.none:
            out_else = self.exec(stmt.otherwise, else_mask)
        else:
            out_else = else_mask
        return self._live(out_then | out_else)

    def _loop(self, body: Callable[[Mask], Mask], condition: S.Expr | None, update: S.Expr | None,
              mask: Mask, check_first: bool, node: S.Stmt) -> Mask:
        """Shared loop driver: threads stay while the condition holds; break/continue are masks."""
        running = mask
        exited = np.zeros(self.threads, bool)
        first = True
        iterations = 0
        while True:
            iterations += 1
            if iterations > MAX_LOOP_ITERATIONS:
                raise Failure(node, f"this loop did not end after {MAX_LOOP_ITERATIONS} iterations "
                                    "(an endless loop, or sizes to shrink with -D)")
            if condition is not None and (check_first or not first):
                holds = self.truth(condition, running)
                stay = running & holds
                exited |= running.arr & ~stay.arr
                running = stay
            first = False
            if running.none:
                break
            state = LoopState(np.zeros(self.threads, bool), np.zeros(self.threads, bool))
            self.loops.append(state)
            try:
                after = body(running)
            finally:
                self.loops.pop()
            exited |= state.broken
            running = Mask.of((after.arr | state.continued) & ~self.frame.returned)
            if update is not None and not running.none:
                self.eval(update, running)
            if running.none:
                break
        return self._live(Mask.of(exited & mask.arr))

    def _for(self, stmt: S.For, mask: Mask) -> Mask:
        self.frame.scopes.append({})
        try:
            if stmt.init is not None:
                self.exec(stmt.init, mask)
            return self._loop(lambda m: self.exec(stmt.body, m), stmt.condition, stmt.update, mask, True,
                              stmt)
        finally:
            self.frame.scopes.pop()

    def _while(self, stmt: S.While, mask: Mask) -> Mask:
        return self._loop(lambda m: self.exec(stmt.body, m), stmt.condition, None, mask, True, stmt)

    def _do_while(self, stmt: S.DoWhile, mask: Mask) -> Mask:
        return self._loop(lambda m: self.exec(stmt.body, m), stmt.condition, None, mask, False, stmt)

    def _return(self, stmt: S.Return, mask: Mask) -> Mask:
        frame = self.frame
        if stmt.value is not None:
            value = self.coerce(self.eval(stmt.value, mask), frame.return_type, stmt)
            frame.result = select(mask, value, frame.result, stmt) if frame.result is not None else value
        frame.returned = frame.returned | mask.arr
        return Mask(np.zeros(self.threads, bool), False, True)

    def _break(self, stmt: S.Break, mask: Mask) -> Mask:
        if not self.loops:
            raise Failure(stmt, "break outside a loop")
        self.loops[-1].broken |= mask.arr
        return Mask(np.zeros(self.threads, bool), False, True)

    def _continue(self, stmt: S.Continue, mask: Mask) -> Mask:
        if not self.loops:
            raise Failure(stmt, "continue outside a loop")
        self.loops[-1].continued |= mask.arr
        return Mask(np.zeros(self.threads, bool), False, True)

    # --- expressions ------------------------------------------------------------------------

    def eval(self, expr: S.Expr, mask: Mask) -> Value:
        """The value of ``expr`` (an rvalue) in the threads of ``mask``."""
        return self._expr[type(expr)](expr, mask)

    def truth(self, expr: S.Expr, mask: Mask) -> np.ndarray | np.bool_:
        """A condition as bool per thread; unknown values in running threads are an error."""
        value = self.eval(expr, mask)
        return self.truth_of(value, expr, mask)

    def truth_of(self, value: Value, expr: S.Node, mask: Mask) -> np.ndarray | np.bool_:
        if isinstance(value, Pointer):
            return np.bool_(True)
        if not isinstance(value, Scalar):
            raise Failure(expr, f"a {value.type} used as a condition")
        if not all_known(value.known, mask):
            raise Failure(expr, f"the condition depends on {value.taint}, which bankism does not know")
        return value.data != 0

    def _literal(self, expr: S.Literal, mask: Mask) -> Value:
        cached = self._constants.get(id(expr))
        if cached is None:
            if expr.type_name == "string":
                cached = constant(C.INT, 0)
            elif expr.type_name == "nullptr":
                cached = constant(C.LONG, 0)
            else:
                cached = constant(C.lookup(expr.type_name), expr.value)
            self._constants[id(expr)] = cached
        return cached

    def _name(self, expr: S.Name, mask: Mask) -> Value:
        binding = self.lookup(expr.name, expr)
        return self._binding_value(binding, expr, mask)

    def _binding_value(self, binding: object, expr: S.Node, mask: Mask) -> Value:
        if isinstance(binding, Variable):
            if binding.ref is not None:
                return self.load(binding.ref, mask)
            if binding.value is None:
                raise Failure(expr, f"{binding.name} is used before it has a value")
            return binding.value
        if isinstance(binding, Scalar | Vector | Pointer):
            return binding
        if isinstance(binding, GlobalArray):
            if binding.type.kind == "array":
                return self._decay(binding.matrix, binding.type, np.int64(0))
            return self.load(MemLV(binding.matrix, np.int64(0), binding.type, expr), mask)
        if isinstance(binding, SharedArray | LocalArray):
            if binding.type.kind == "array":
                return self._decay(binding, binding.type, np.int64(0))
            return self.load(MemLV(binding, np.int64(0), binding.type, expr), mask)
        if isinstance(binding, TypeAlias):
            raise Failure(expr, f"type {binding.type} used as a value")
        raise Failure(expr, "unsupported construct: this name cannot be used as a value")

    def _decay(self, region: object, t: CType, offset: np.ndarray | np.generic) -> Value:
        """An array designator as a pointer to its first element (C's array-to-pointer decay)."""
        if t.kind == "array":
            return Pointer(C.pointer_to(t.elem), region, offset)
        return Pointer(C.pointer_to(t), region, offset)

    def _member_value(self, expr: S.Member, mask: Mask) -> Value:
        if isinstance(expr.base, S.Name) and expr.base.name in _BUILTIN_VECTORS and not expr.arrow:
            binding = self._find_local(expr.base.name)
            if binding is None:
                vector = self._builtins[expr.base.name]
                return vector.comps[self._component(expr, vector.type)]
        return self.load(self.lvalue(expr, mask), mask)

    def _find_local(self, name: str) -> object | None:
        for scope in reversed(self.frame.scopes):
            if name in scope:
                return scope[name]
        return None

    def _component(self, expr: S.Member, t: CType) -> int:
        index = _COMPONENTS.get(expr.field)
        if t.kind != "vec" or index is None or index >= t.count:
            raise Failure(expr, f"unsupported construct: member .{expr.field} of {t}")
        return index

    def _load_expr(self, expr: S.Expr, mask: Mask) -> Value:
        return self.load(self.lvalue(expr, mask), mask)

    # --- lvalues, loads and stores ----------------------------------------------------------

    def lvalue(self, expr: S.Expr, mask: Mask) -> LValue:
        """The object ``expr`` designates (a variable, a memory location, a component)."""
        if isinstance(expr, S.Name):
            binding = self.lookup(expr.name, expr)
            if isinstance(binding, Variable):
                return binding.ref if binding.ref is not None else VarLV(binding)
            if isinstance(binding, SharedArray | LocalArray):
                return MemLV(binding, np.int64(0), binding.type, expr)
            if isinstance(binding, GlobalArray):
                return MemLV(binding.matrix, np.int64(0), binding.type, expr)
            raise Failure(expr, f"{expr.name} cannot be assigned")
        if isinstance(expr, S.Subscript):
            base = self.eval(expr.base, mask)
            index = self.eval(expr.index, mask)
            if isinstance(index, Pointer) and isinstance(base, Scalar):
                base, index = index, base
            if not isinstance(base, Pointer):
                raise Failure(expr, "subscript of something that is not an array or pointer")
            return self._deref(self._offset_pointer(base, index, 1, expr, mask), expr)
        if isinstance(expr, S.Unary) and expr.op == "*":
            pointer = self.eval(expr.operand, mask)
            if not isinstance(pointer, Pointer):
                raise Failure(expr, "dereference of something that is not a pointer")
            return self._deref(pointer, expr)
        if isinstance(expr, S.Member):
            if expr.arrow:
                pointer = self.eval(expr.base, mask)
                if not isinstance(pointer, Pointer):
                    raise Failure(expr, "-> on something that is not a pointer")
                base = self._deref(pointer, expr)
            else:
                base = self.lvalue(expr.base, mask)
            t = self.lvalue_type(base)
            index = self._component(expr, t)
            return self._component_lvalue(base, index, t, expr)
        if isinstance(expr, S.Cast):
            return self.lvalue(expr.value, mask)
        raise Failure(expr, "unsupported construct: this expression cannot be assigned or addressed")

    def _component_lvalue(self, base: LValue, index: int, t: CType, expr: S.Node) -> LValue:
        if isinstance(base, MemLV):
            return MemLV(base.region, base.offset + index * t.elem.size, t.elem, expr)
        return CompLV(base, index, t.elem)

    def _deref(self, pointer: Pointer, expr: S.Node) -> MemLV:
        pointee = pointer.type.elem
        if pointee.kind == "void":
            raise Failure(expr, "dereference of a void pointer")
        return MemLV(pointer.region, pointer.offset, pointee, expr)

    def lvalue_type(self, target: LValue) -> CType:
        if isinstance(target, VarLV):
            return target.var.type
        return target.type

    def load(self, target: LValue, mask: Mask) -> Value:
        """Read an lvalue; shared-memory reads are recorded as a load at the lvalue's site."""
        if isinstance(target, VarLV):
            var = target.var
            if var.value is None:
                raise Failure(None, f"{var.name} is used before it has a value")
            return var.value
        if isinstance(target, CompLV):
            base = self.load(target.base, mask)
            return base.comps[target.index]
        if target.type.kind == "array":
            return self._decay(target.region, target.type, target.offset)
        return self.memory_read(target, mask, "load")

    def memory_read(self, target: MemLV, mask: Mask, op: str) -> Value:
        region, t = target.region, target.type
        if isinstance(region, SharedArray):
            addresses = self._shared_addresses(target, mask, op)
            return self._shared_read(addresses, t)
        if isinstance(region, GlobalMatrix):
            return self._per_component(t, lambda ct, off: global_load(region, target.offset + off, ct))
        if isinstance(region, LocalArray):
            slots = local_slots(region, target.offset, t, target.node)
            if t.kind == "vec":
                return Vector(t, [local_load(region, slots + i, t.elem, mask) for i in range(t.count)])
            return local_load(region, slots, t, mask)
        raise Failure(target.node, "unsupported construct: memory access through this pointer")

    def _per_component(self, t: CType, read: Callable[[CType, int], Scalar]) -> Value:
        if t.kind == "vec":
            return Vector(t, [read(t.elem, i * t.elem.size) for i in range(t.count)])
        if t.kind == "ptr":
            raise Failure(None, "unsupported construct: pointers stored in memory")
        return read(t, 0)

    def _shared_addresses(self, target: MemLV, mask: Mask, op: str,
                          atomic_op: str | None = None) -> np.ndarray:
        """Per-thread byte addresses in the shared window; checks bounds and alignment in the
        threads that run, and records the warp-instructions at the lvalue's site."""
        region: SharedArray = target.region
        t = target.type
        if t.kind == "vec" and t.size not in (1, 2, 4, 8, 16):
            raise Failure(target.node, f"unsupported construct: {t.size}-byte {t} access to shared memory "
                                       "(the compiler splits it into several instructions)")
        if t.kind == "ptr":
            raise Failure(target.node, "unsupported construct: pointers stored in shared memory")
        offsets = per_thread(np.asarray(target.offset, np.int64), self.threads)
        if region.size == 0:
            raise Failure(target.node, f"extern __shared__ array {region.name} has no size: give "
                                       "--dynamic-smem BYTES or launch with <<<grid, block, BYTES>>>")
        running = offsets[mask.arr]
        bad = (running < 0) | (running + t.size > region.size)
        if bad.any():
            lane = int(np.flatnonzero(mask.arr)[np.argmax(bad)])
            raise Failure(target.node, f"thread {self._thread_name(lane)} accesses {region.name} at byte "
                                       f"{int(offsets[lane])}, outside its {region.size} bytes")
        addresses = offsets + region.base
        misaligned = addresses[mask.arr] % t.size != 0 if t.size in (2, 4, 8, 16) else np.zeros(0, bool)
        if misaligned.any():
            lane = int(np.flatnonzero(mask.arr)[np.argmax(misaligned)])
            raise Failure(target.node, f"thread {self._thread_name(lane)}: {t.size}-byte access to "
                                       f"{region.name} at shared byte {int(addresses[lane])} is misaligned")
        self.recorder.record(target.node, op, t, region, addresses, mask, self.context.block_index, atomic_op,
                             self.span)
        return np.where(mask.arr, addresses, region.base) if not mask.full else addresses

    def _thread_name(self, lane: int) -> str:
        return f"({int(self.tx[lane])},{int(self.ty[lane])},{int(self.tz[lane])})"

    def _shared_read(self, addresses: np.ndarray, t: CType) -> Value:
        def read(ct: CType, off: int) -> Scalar:
            data, known, src = self.store.load(addresses + off, ct)
            taint = None if known.all() else "values in shared memory that bankism does not know"
            return Scalar(ct, data, known, src, taint)

        return self._per_component(t, read)

    def store_to(self, target: LValue, value: Value, mask: Mask, node: S.Node) -> Value:
        """Write ``value`` (converted to the target's type) in the threads of ``mask``."""
        if isinstance(target, VarLV):
            var = target.var
            value = self.coerce(value, var.type, node)
            var.value = select(mask, value, var.value, node) if var.value is not None else value
            return value
        if isinstance(target, CompLV):
            base_type = self.lvalue_type(target.base)
            current = self.load(target.base, mask)
            comps = list(current.comps)
            comps[target.index] = self.coerce(value, base_type.elem, node)
            self.store_to(target.base, Vector(base_type, comps), mask, node)
            return comps[target.index]
        t = target.type
        value = self.coerce(value, t, node)
        region = target.region
        if isinstance(region, SharedArray):
            addresses = self._shared_addresses(target, mask, "store")
            self._shared_write(addresses, value, t, mask)
        elif isinstance(region, LocalArray):
            slots = local_slots(region, target.offset, t, node)
            if isinstance(value, Vector):
                for i, comp in enumerate(value.comps):
                    local_store(region, slots + i, comp, mask)
            else:
                local_store(region, slots, value, mask)
        elif not isinstance(region, GlobalMatrix):
            raise Failure(node, "unsupported construct: store through this pointer")
        return value

    def _shared_write(self, addresses: np.ndarray, value: Value, t: CType, mask: Mask) -> None:
        comps = value.comps if isinstance(value, Vector) else [value]
        step = t.elem.size if t.kind == "vec" else t.size
        for i, comp in enumerate(comps):
            data = per_thread(comp.data, self.threads)[mask.arr]
            known = flags_per_thread(comp.known, self.threads)[mask.arr]
            src = src_per_thread(comp.src, self.threads)[mask.arr]
            self.store.store(addresses[mask.arr] + i * step, comp.type, data, known, src)

    def coerce(self, value: Value, t: CType, node: S.Node) -> Value:
        """Implicit conversion of ``value`` to ``t`` (assignment, initialization, argument)."""
        if t.kind == "vec":
            if isinstance(value, Vector) and value.type.name == t.name:
                return value
            if isinstance(value, Vector) and value.type.count == t.count:
                return Vector(t, [convert(c, t.elem) for c in value.comps])
            raise Failure(node, f"cannot convert {value.type} to {t}")
        if t.kind == "ptr":
            if isinstance(value, Pointer):
                if value.type.elem != t.elem and value.type.elem.kind != "void" and t.elem.kind != "void":
                    return Pointer(t, value.region, value.offset)
                return Pointer(t, value.region, value.offset) if value.type != t else value
            if isinstance(value, Scalar) and value.type.is_integer and not np.any(value.data):
                raise Failure(node, "unsupported construct: null pointer")
            raise Failure(node, f"cannot convert {value.type} to {t}")
        if t.kind == "array":
            raise Failure(node, "unsupported construct: array assignment")
        if isinstance(value, Scalar):
            return convert(value, t)
        if isinstance(value, Vector) and t.is_arithmetic:
            raise Failure(node, f"cannot convert {value.type} to {t}")
        if isinstance(value, Pointer) and t.kind in ("int", "bool"):
            raise Failure(node, "unsupported construct: pointer converted to an integer")
        raise Failure(node, f"cannot convert {value.type} to {t}")

    # --- operators --------------------------------------------------------------------------

    def _unary(self, expr: S.Unary, mask: Mask) -> Value:
        op = expr.op
        if op == "*":
            return self.load(self.lvalue(expr, mask), mask)
        if op == "&":
            target = self.lvalue(expr.operand, mask)
            if not isinstance(target, MemLV):
                raise Failure(expr, "unsupported construct: address of a local variable")
            return Pointer(C.pointer_to(target.type), target.region, target.offset)
        value = self.eval(expr.operand, mask)
        if not isinstance(value, Scalar):
            if op == "!" and isinstance(value, Pointer):
                return constant(C.BOOL, 0)
            raise Failure(expr, f"operator {op} on a {value.type}")
        if op == "-":
            return negate(value)
        if op == "+":
            return convert(value, C.promote(value.type))
        if op == "!":
            return logical_not(value)
        if op == "~":
            return bit_not(value, expr)
        raise Failure(expr, f"unsupported construct: operator {op}")

    def _binary(self, expr: S.Binary, mask: Mask) -> Value:
        op = expr.op
        if op in ("&&", "||"):
            return self._logical(expr, mask)
        left = self.eval(expr.left, mask)
        right = self.eval(expr.right, mask)
        return self.apply(op, left, right, expr, mask)

    def apply(self, op: str, left: Value, right: Value, expr: S.Node, mask: Mask) -> Value:
        """``left op right`` for scalars, pointers (arithmetic, comparison) and vectors."""
        if isinstance(left, Pointer) or isinstance(right, Pointer):
            return self._pointer_op(op, left, right, expr, mask)
        if isinstance(left, Vector) or isinstance(right, Vector):
            raise Failure(expr, f"unsupported construct: operator {op} on vector type "
                                f"{(left if isinstance(left, Vector) else right).type}")
        return binary(op, left, right, mask, expr)

    def _pointer_op(self, op: str, left: Value, right: Value, expr: S.Node, mask: Mask) -> Value:
        if isinstance(left, Pointer) and isinstance(right, Scalar) and op in ("+", "-"):
            return self._offset_pointer(left, right, 1 if op == "+" else -1, expr, mask)
        if isinstance(right, Pointer) and isinstance(left, Scalar) and op == "+":
            return self._offset_pointer(right, left, 1, expr, mask)
        if isinstance(left, Pointer) and isinstance(right, Pointer):
            if left.region is not right.region:
                raise Failure(expr, "unsupported construct: comparing pointers into different arrays")
            a = Scalar(C.LONG, np.asarray(left.offset, np.int64))
            b = Scalar(C.LONG, np.asarray(right.offset, np.int64))
            if op == "-":
                diff = binary("-", a, b, mask, expr)
                return binary("/", diff, constant(C.LONG, left.type.elem.size), mask, expr)
            if op in ("==", "!=", "<", ">", "<=", ">="):
                return binary(op, a, b, mask, expr)
        raise Failure(expr, f"unsupported construct: operator {op} on pointers")

    def _offset_pointer(self, pointer: Pointer, index: Value, sign: int, expr: S.Node, mask: Mask) -> Pointer:
        if not isinstance(index, Scalar) or not index.type.is_integer:
            raise Failure(expr, "pointer offset must be an integer")
        if not all_known(index.known, mask):
            raise Failure(expr, f"the address depends on {index.taint}, which bankism does not know")
        step = pointer.type.elem.size
        if step == 0:
            raise Failure(expr, "arithmetic on a pointer to an incomplete type")
        delta = np.asarray(index.data).astype(np.int64) * (sign * step)
        offset = np.asarray(pointer.offset, np.int64) + delta
        return Pointer(pointer.type, pointer.region, offset if offset.ndim else offset[()])

    def _logical(self, expr: S.Binary, mask: Mask) -> Value:
        left = self.truth(expr.left, mask)
        if expr.op == "&&":
            rest = mask & left
            right = self.truth(expr.right, rest) if not rest.none else np.bool_(False)
            result = np.logical_and(left, right)
        else:
            rest = mask & np.logical_not(left)
            right = self.truth(expr.right, rest) if not rest.none else np.bool_(False)
            result = np.logical_or(left, right)
        return Scalar(C.BOOL, result)

    def _conditional(self, expr: S.Conditional, mask: Mask) -> Value:
        condition = self.truth(expr.condition, mask)
        if not isinstance(condition, np.ndarray):
            return self.eval(expr.then if condition else expr.otherwise, mask)
        then_mask = mask & condition
        else_mask = mask & np.logical_not(condition)
        if else_mask.none:
            return self.eval(expr.then, mask)
        if then_mask.none:
            return self.eval(expr.otherwise, mask)
        a = self.eval(expr.then, then_mask)
        b = self.eval(expr.otherwise, else_mask)
        if isinstance(a, Scalar) and isinstance(b, Scalar):
            t = C.common_type(a.type, b.type)
            a, b = convert(a, t), convert(b, t)
        return select(Mask.of(condition), a, b, expr)

    def _comma(self, expr: S.Comma, mask: Mask) -> Value:
        self.eval(expr.left, mask)
        return self.eval(expr.right, mask)

    def _assign(self, expr: S.Assign, mask: Mask) -> Value:
        target = self.lvalue(expr.target, mask)
        value = self.eval(expr.value, mask)
        if expr.op != "=":
            current = self.load(target, mask)
            value = self.apply(expr.op[:-1], current, value, expr, mask)
        return self.store_to(target, value, mask, expr)

    def _incdec(self, expr: S.IncDec, mask: Mask) -> Value:
        target = self.lvalue(expr.target, mask)
        current = self.load(target, mask)
        one = constant(C.INT, 1)
        updated = self.apply("+" if expr.op == "++" else "-", current, one, expr, mask)
        stored = self.store_to(target, updated, mask, expr)
        return stored if expr.prefix else current

    def _sizeof(self, expr: S.SizeOf, mask: Mask) -> Value:
        if isinstance(expr.target, S.TypeName):
            t = self.resolve_type(expr.target, mask)
        else:
            t = self._static_type(expr.target, mask)
        return constant(C.ULONG, t.size)

    def _static_type(self, expr: S.Expr, mask: Mask) -> CType:
        if isinstance(expr, S.Name) and self._find_local(expr.name) is None:
            named = C.lookup(expr.name)
            if named is not None:
                return named
        if isinstance(expr, S.Name):
            for scope in reversed(self.frame.scopes):
                if isinstance(scope.get(expr.name), TypeAlias):
                    return scope[expr.name].type
            binding = self.lookup(expr.name, expr)
            if isinstance(binding, SharedArray | LocalArray | Variable):
                return binding.type
        value = self.eval(expr, Mask(np.zeros(self.threads, bool), False, True))
        return value.type

    def _init_list_value(self, expr: S.InitList, mask: Mask) -> Value:
        raise Failure(expr, "unsupported construct: brace list used as a value")

    def _cast(self, expr: S.Cast, mask: Mask) -> Value:
        t = self.resolve_type(expr.target, mask)
        value = self.eval(expr.value, mask)
        if t.kind == "ptr":
            if isinstance(value, Pointer):
                return Pointer(t, value.region, value.offset)
            raise Failure(expr, "unsupported construct: integer converted to a pointer")
        if t.kind == "vec":
            return self.coerce(value, t, expr)
        if not t.is_arithmetic:
            if t.kind == "void":
                return constant(C.INT, 0)
            raise Failure(expr, f"unsupported construct: cast to {t}")
        if expr.style == "reinterpret":
            raise Failure(expr, "unsupported construct: reinterpret_cast to a non-pointer type")
        return self.coerce(value, t, expr)

    def _make_vector(self, t: CType, comps: list[Value], node: S.Node) -> Vector:
        if len(comps) != t.count:
            raise Failure(node, f"{t} needs {t.count} components, got {len(comps)}")
        return Vector(t, [self.coerce(c, t.elem, node) for c in comps])

    # --- calls ------------------------------------------------------------------------------

    def _call(self, expr: S.Call, mask: Mask) -> Value:
        from bankism.explain.builtins import BUILTINS, call_builtin

        name = expr.function
        if name in self.program.functions and name not in self._local_names():
            return self._call_function(expr, mask)
        if name in BUILTINS:
            return call_builtin(self, expr, mask)
        raise Failure(expr, f"unsupported construct: call to unknown function {name}()")

    def _local_names(self) -> set[str]:
        return set().union(*self.frame.scopes)

    def _call_function(self, expr: S.Call, mask: Mask) -> Value:
        candidates = [f for f in self.program.functions[expr.function]
                      if len(f.params) == len(expr.args) and not f.is_kernel]
        if len(candidates) != 1:
            what = "no device function" if not candidates else "several overloads of"
            raise Failure(expr, f"unsupported construct: {what} {expr.function} with "
                                f"{len(expr.args)} argument(s)")
        function = candidates[0]
        if len(self.frames) >= MAX_CALL_DEPTH:
            raise Failure(expr, "unsupported construct: recursion")
        scope: dict[str, object] = {}
        self._bind_template(function, expr, scope, mask)
        frame = Frame(function, [scope], np.zeros(self.threads, bool), C.VOID)
        self.frames.append(frame)
        try:
            frame.return_type = self.resolve_type(function.return_type, mask)
        finally:
            self.frames.pop()
        for param, arg in zip(function.params, expr.args, strict=True):
            self.frames.append(frame)
            try:
                ptype = self.resolve_type(param.type, mask) if param.type.base != "auto" else None
            finally:
                self.frames.pop()
            if param.type.reference:
                target = self.lvalue(arg, mask)
                scope[param.name] = Variable(param.name, self.lvalue_type(target), None, ref=target)
                continue
            value = self.eval(arg, mask)
            if ptype is None:
                ptype = value.type
            if ptype.kind == "array":
                ptype = C.pointer_to(ptype.elem)
            scope[param.name] = Variable(param.name, ptype, self.coerce(value, ptype, arg))
        self.frames.append(frame)
        try:
            self.exec(self.program.body(function), mask)
        finally:
            self.frames.pop()
        if frame.return_type.kind == "void":
            return constant(C.INT, 0)
        if frame.result is None:
            raise Failure(expr, f"{function.name}() returned no value")
        return frame.result

    def _bind_template(self, function: S.Function, expr: S.Call, scope: dict[str, object],
                       mask: Mask) -> None:
        if not function.template_params:
            return
        explicit = list(expr.template_args)
        for i, param in enumerate(function.template_params):
            given = explicit[i] if i < len(explicit) else param.default
            if given is None:
                given = self._deduce(function, param.name, expr, mask)
            if param.is_type:
                if isinstance(given, CType):
                    scope[param.name] = TypeAlias(given)
                elif isinstance(given, S.TypeName):
                    scope[param.name] = TypeAlias(self.resolve_type(given, mask))
                else:
                    raise Failure(expr, f"template argument for {param.name} must be a type")
            else:
                if isinstance(given, S.Expr):
                    value = self.integer_constant(given, mask, "template argument")
                    scope[param.name] = constant(C.INT, value)
                else:
                    raise Failure(expr, f"cannot deduce template argument {param.name}")

    def _deduce(self, function: S.Function, name: str, expr: S.Call, mask: Mask) -> CType:
        for param, arg in zip(function.params, expr.args, strict=True):
            if param.type.base == name:
                value = self.eval(arg, mask)
                t = value.type
                for _ in range(param.type.pointers):
                    if t.kind != "ptr":
                        break
                    t = t.elem
                return t
        raise Failure(expr, f"cannot deduce template argument {name} of {function.name}")


_CONSTANT_NODES = (S.Literal, S.Name, S.Binary, S.Unary, S.Conditional, S.Cast, S.SizeOf, S.TypeName)


def _is_constant_expression(expr: S.Expr) -> bool:
    """Whether ``expr`` only combines names and literals (no memory access, no call)."""
    for node in S.walk(expr):
        if not isinstance(node, _CONSTANT_NODES):
            return False
        if isinstance(node, S.Unary) and node.op in ("*", "&"):
            return False
    return True


def _flatten_init(init: S.InitList) -> list[S.Expr]:
    out: list[S.Expr] = []
    for item in init.items:
        if isinstance(item, S.InitList):
            out.extend(_flatten_init(item))
        else:
            out.append(item)
    return out
