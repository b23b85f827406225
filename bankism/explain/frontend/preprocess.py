"""The C preprocessor step of `bankism explain`: pcpp expands macros, and a line map keeps
every output line tied to the line of the file the user gave, so reports name real lines."""

from __future__ import annotations

import io
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from pcpp import Preprocessor
from pcpp.parser import Action, OutputDirective

from bankism.errors import BankismError
from bankism.explain.frontend.asm_operands import asm_operand_commas
from bankism.inputs import Budget, limit, over_limit, read_text

#: Macros nvcc's headers provide that the parser must see in a form it understands.
CUDA_MACROS = (
    "__CUDACC__ 1",
    "__CUDA_ARCH__ 900",
    "__NVCC__ 1",
    "__align__(n) alignas(n)",
    "__forceinline__ inline",
    "__noinline__ ",
    "__inline__ inline",
    "__host__ ",
    # attributes with no effect on shared-memory accesses: cluster shape, register cap, a parameter kept in
    # constant memory (explain runs one block; clusters are launched as their blocks)
    "__cluster_dims__(...) ",
    "__maxnreg__(n) ",
    "__grid_constant__ ",
    "_Pragma(x) ",
    "CUDART_INF_F __int_as_float(0x7f800000)",
    # math.h, float.h, limits.h and math_constants.h constants (a file's own #define wins)
    "INFINITY __int_as_float(0x7f800000)",
    "NAN __int_as_float(0x7fffffff)",
    "HUGE_VALF __int_as_float(0x7f800000)",
    "CUDART_NAN_F __int_as_float(0x7fffffff)",
    "FLT_MAX 3.402823466e+38F",
    "FLT_MIN 1.175494351e-38F",
    "FLT_EPSILON 1.192092896e-07F",
    "DBL_MAX 1.7976931348623158e+308",
    "DBL_MIN 2.2250738585072014e-308",
    "DBL_EPSILON 2.2204460492503131e-016",
    "INT_MAX 2147483647",
    "INT_MIN (-2147483647 - 1)",
    "UINT_MAX 0xffffffffU",
    "LLONG_MAX 9223372036854775807LL",
    "M_PI 3.14159265358979323846",
    "M_PI_2 1.57079632679489661923",
    "M_E 2.7182818284590452354",
    "M_SQRT2 1.41421356237309504880",
    "M_LN2 0.69314718055994530942",
    "M_LOG2E 1.4426950408889634074",
    "CUDART_PI_F 3.141592654f",
    "NULL 0",
)

_LINE_DIRECTIVE = re.compile(r'^\s*#line\s+(\d+)\s+"(.*)"\s*$')


@dataclass(frozen=True)
class Preprocessed:
    """Preprocessed text and, for each of its lines (0-based), the (file, line) it came from."""

    text: str
    origins: list[tuple[str, int]]
    filename: str
    #: ``#include "..."`` files that were not found (skipped), in order.
    missing: list[str] = field(default_factory=list)
    #: (file, line) of each ``#pragma unroll 1``: the loop after it is not unrolled (vectorize.py).
    no_unroll: set[tuple[str, int]] = field(default_factory=set)
    #: (file, line) of each ``#pragma unroll`` without a count or with one above 1: nvcc unrolls the loop
    #: after it whatever its size.
    forced_unroll: set[tuple[str, int]] = field(default_factory=set)

    def origin(self, row: int) -> tuple[str, int]:
        """The (file, 1-based line) of 0-based output row ``row``."""
        if not self.origins:
            return self.filename, row + 1
        return self.origins[min(row, len(self.origins) - 1)]


#: Headers of the CUDA toolkit and the C/C++ standard library: never read, even when an -I
#: directory holds them, because explain models what they declare itself (vector and half
#: types, WMMA, intrinsics); reading the toolkit's own headers would only fail to parse.
SKIPPED_HEADERS = frozenset({
    "cuda.h", "cuda_runtime.h", "cuda_runtime_api.h", "device_launch_parameters.h", "mma.h",
    "cuda_fp16.h", "cuda_fp16.hpp", "cuda_bf16.h", "cuda_bf16.hpp", "cuda_fp8.h", "cuda_fp8.hpp",
    "cuda_pipeline.h", "cuda_pipeline_primitives.h", "cuda_awbarrier.h", "cooperative_groups.h",
    "vector_types.h", "vector_functions.h", "device_functions.h", "sm_80_rt.h", "sm_90_rt.h",
    "cuda/pipeline", "cuda/barrier", "cuda/std/cstdint", "cuda/ptx", "cooperative_groups/memcpy_async.h",
    "cooperative_groups/reduce.h", "cute/tensor.hpp", "cublas_v2.h", "curand.h", "curand_kernel.h",
    "assert.h", "cassert", "stdio.h", "cstdio", "stdlib.h", "cstdlib", "stdint.h", "cstdint", "math.h",
    "cmath", "string.h", "cstring", "float.h", "cfloat", "limits.h", "climits", "stddef.h", "cstddef",
    "iostream", "vector", "algorithm", "type_traits", "utility", "array", "memory", "string", "chrono",
    "random", "functional", "limits", "numeric", "tuple", "initializer_list", "cuda/std/type_traits",
})


#: Stand-ins for library headers explain interprets (``cub/cub.cuh``: CUB's block and warp reductions),
#: searched before the -I directories; their accesses are reported at their own lines.
STAND_IN_HEADERS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "cuda",
                                "headers")


def stand_in_name(path: str) -> str | None:
    """``<cub/block/block_reduce.cuh>`` for a stand-in header's path (how the report names it), else None."""
    full = os.path.abspath(path)
    if not full.startswith(STAND_IN_HEADERS + os.sep):
        return None
    return "<" + os.path.relpath(full, STAND_IN_HEADERS).replace(os.sep, "/") + ">"


class _QuietPreprocessor(Preprocessor):
    """pcpp that skips unknown and toolkit #includes, lets -D/-U win over a file's #define,
    turns errors into one-line BankismErrors, and keeps to the work budgets of bankism.inputs:
    the tokens macro expansion produces, the depth of nested #includes, each file's size."""

    def __init__(self, overrides: set[str], filename: str = "") -> None:
        super().__init__()
        self.overrides = overrides
        self.errors: list[str] = []
        self.missing: list[str] = []
        self.expansion = Budget("expansion", f"{filename}: macro expansion")
        #: The ``source`` cap holds for the file and everything it includes, together.
        self.read = Budget("source", f"{filename} with its #include and -include files")
        self.include_depth = 0
        self.no_unroll: set[tuple[str, int]] = set()
        self.forced_unroll: set[tuple[str, int]] = set()

    def text_of(self, path: str, label: str) -> str:
        """A header's text, read as a regular file and counted against the ``source`` cap."""
        text = read_text(path, "source", label, errors="replace")
        self.read.spend(len(text))
        return text

    def expand_macros(self, tokens, expanding_from=[]):  # noqa: ANN001, ANN201, B006 (pcpp's signature)
        expanded = super().expand_macros(tokens, expanding_from)
        if expanding_from:  # the replacement of a macro: count what it expanded to
            self.expansion.spend(len(expanded))
        return expanded

    def include(self, tokens, original_line):  # noqa: ANN001, ANN201
        self.include_depth += 1
        try:
            if self.include_depth > limit("includes"):
                where = f"{tokens[0].source}:{tokens[0].lineno}" if tokens else "#include"
                raise over_limit("includes", None, f"{where}: #include (an include cycle?)")
            yield from super().include(tokens, original_line)
        finally:
            self.include_depth -= 1

    def on_include_not_found(self, is_malformed, is_system_include, curdir, includepath):  # noqa: ANN001
        # a toolkit header written with quotes (`#include "cuda_fp16.h"`) is not missing: explain models it
        if not is_system_include and includepath not in self.missing and not _toolkit_header(includepath):
            self.missing.append(includepath)
        raise OutputDirective(Action.IgnoreAndRemove)

    def on_file_open(self, is_system_include, includepath):  # noqa: ANN001
        if _toolkit_header(includepath):
            raise OSError(f"{includepath}: a toolkit header explain models itself")
        if os.path.isdir(includepath):
            raise OSError(f"{includepath}: a directory")
        if os.path.exists(includepath):  # a FIFO, a device or a huge file: refused, not read
            return io.StringIO(self.text_of(includepath, f"#include {includepath}"))
        return super().on_file_open(is_system_include, includepath)

    def on_error(self, file, line, msg):  # noqa: ANN001
        self.errors.append(f"{file}:{line}: {msg}")
        self.return_code += 1

    def on_directive_handle(self, directive, toks, ifpassthru, precedingtoks):  # noqa: ANN001
        if directive.value in ("define", "undef"):
            names = [tok.value for tok in toks if not tok.value.isspace()]
            if names and names[0] in self.overrides:
                raise OutputDirective(Action.IgnoreAndRemove)
        return super().on_directive_handle(directive, toks, ifpassthru, precedingtoks)

    def on_directive_unknown(self, directive, toks, ifpassthru, precedingtoks):  # noqa: ANN001
        if directive.value == "error":
            text = "".join(tok.value for tok in toks).strip()
            self.errors.append(f"{directive.source}:{directive.lineno}: #error {text}")
            return True
        if directive.value == "pragma":
            words = "".join(tok.value for tok in toks).split()
            if words[:2] == ["unroll", "1"] or words[:1] == ["nounroll"]:
                self.no_unroll.add((directive.source, directive.lineno))
            elif words[:1] == ["unroll"]:
                self.forced_unroll.add((directive.source, directive.lineno))
            raise OutputDirective(Action.IgnoreAndRemove)
        return super().on_directive_unknown(directive, toks, ifpassthru, precedingtoks)


def _toolkit_header(path: str) -> bool:
    """Whether ``path`` names a header of the toolkit or the C++ library that explain models itself."""
    parts = os.path.normpath(path).split(os.sep)
    return any("/".join(parts[-n:]) in SKIPPED_HEADERS for n in (1, 2, 3))


def preprocess(source: str, filename: str, defines: dict[str, str] | None = None,
               include_dirs: Sequence[str] = (), pre_includes: Sequence[str] = (),
               undefines: Sequence[str] = (), once: Sequence[str] = ()) -> Preprocessed:
    """Run the C preprocessor over ``source`` with ``defines`` (-D NAME=VALUE) and
    ``undefines`` (-U NAME), which win over the file's own #define of NAME, and return the
    text with its line map.

    Includes are searched as nvcc searches them: ``#include "..."`` in the directory of the
    including file, then the ``include_dirs`` (-I, in order); ``#include <...>`` in the
    ``include_dirs`` only. ``pre_includes`` (-include FILE) are read first, as if included
    at the top of the file, FILE taken relative to the working directory, else searched like
    ``"..."``. Headers not found, and the toolkit's own (``SKIPPED_HEADERS``), are skipped, as is
    an ``#include`` of a file in ``once`` (read already: the kernel's file under a runner appended to it)."""
    defines = defines or {}
    both = sorted(set(defines) & set(undefines))
    if both:
        raise BankismError(f"-D {both[0]} and -U {both[0]}: give one of them")
    overrides = {name.split("(")[0].strip() for name in defines} | set(undefines)
    preprocessor = _QuietPreprocessor(overrides, filename)
    preprocessor.line_directive = "#line"
    preprocessor.add_path(STAND_IN_HEADERS)  # before -I: a real CUB there would not parse
    for path in once:
        preprocessor.include_once[os.path.abspath(path)] = None
    for directory in include_dirs:
        if not os.path.isdir(directory):
            raise BankismError(f"-I {directory}: no such directory")
        preprocessor.add_path(os.path.abspath(directory))
    for macro in CUDA_MACROS:
        preprocessor.define(macro)
    for name, value in defines.items():
        preprocessor.define(f"{name} {value}")
    for name in undefines:
        preprocessor.undef(name)
    text = ""
    for header in pre_includes:
        path = _find_pre_include(header, filename, include_dirs)
        preprocessor.parse(preprocessor.text_of(path, f"-include {path}"), path)
        out = io.StringIO()
        preprocessor.write(out)
        text += out.getvalue()
        preprocessor.temp_path = []
    preprocessor.read.spend(len(source))
    preprocessor.parse(source, filename)
    out = io.StringIO()
    preprocessor.write(out)
    if preprocessor.errors:
        raise BankismError(preprocessor.errors[0])
    pre = _strip_line_directives(text + out.getvalue(), filename)
    return replace(pre, text=asm_operand_commas(pre.text), missing=list(preprocessor.missing),
                   no_unroll={(os.path.abspath(name), line) for name, line in preprocessor.no_unroll},
                   forced_unroll={(os.path.abspath(name), line) for name, line in preprocessor.forced_unroll})


def _find_pre_include(header: str, filename: str, include_dirs: Sequence[str]) -> str:
    """Where -include FILE is: the working directory, then the source's directory, then -I."""
    candidates = [header, os.path.join(os.path.dirname(filename), header)]
    candidates += [os.path.join(d, header) for d in include_dirs]
    for candidate in candidates:
        if os.path.exists(candidate) and not os.path.isdir(candidate):
            return candidate
    raise BankismError(f"-include {header}: file not found (searched the working directory, the "
                       "source's directory and the -I directories)")


def _strip_line_directives(text: str, filename: str) -> Preprocessed:
    """Drop pcpp's #line directives and record the (file, line) each remaining row came from."""
    lines = text.split("\n")
    origins: list[tuple[str, int]] = []
    kept: list[str] = []
    current_file, current_line = filename, 1
    given = os.path.abspath(filename)
    for line in lines:
        match = _LINE_DIRECTIVE.match(line)
        if match:
            current_line, current_file = int(match.group(1)), match.group(2)
            if os.path.abspath(current_file) == given:
                current_file = filename
            continue
        kept.append(line)
        origins.append((current_file, current_line))
        current_line += 1
    return Preprocessed("\n".join(kept), origins, filename)
