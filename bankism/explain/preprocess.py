"""The C preprocessor step of `bankism explain`: pcpp expands macros, and a line map keeps
every output line tied to the line of the file the user gave, so reports name real lines."""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass

from pcpp import Preprocessor
from pcpp.parser import Action, OutputDirective

from bankism.errors import BankismError

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

    def origin(self, row: int) -> tuple[str, int]:
        """The (file, 1-based line) of 0-based output row ``row``."""
        if not self.origins:
            return self.filename, row + 1
        return self.origins[min(row, len(self.origins) - 1)]


class _QuietPreprocessor(Preprocessor):
    """pcpp that passes unknown #includes through, lets -D win over a file's #define and
    turns errors into one-line BankismErrors."""

    def __init__(self, overrides: set[str]) -> None:
        super().__init__()
        self.overrides = overrides
        self.errors: list[str] = []

    def on_include_not_found(self, is_malformed, is_system_include, curdir, includepath):  # noqa: ANN001
        raise OutputDirective(Action.IgnoreAndRemove)

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
            raise OutputDirective(Action.IgnoreAndRemove)
        return super().on_directive_unknown(directive, toks, ifpassthru, precedingtoks)


def preprocess(source: str, filename: str, defines: dict[str, str] | None = None) -> Preprocessed:
    """Run the C preprocessor over ``source`` with ``defines`` (-D NAME=VALUE, which win over
    the file's own #define of NAME) and return the text with its line map."""
    defines = defines or {}
    preprocessor = _QuietPreprocessor({name.split("(")[0].strip() for name in defines})
    preprocessor.line_directive = "#line"
    directory = os.path.dirname(os.path.abspath(filename))
    preprocessor.add_path(directory)
    for macro in CUDA_MACROS:
        preprocessor.define(macro)
    for name, value in defines.items():
        preprocessor.define(f"{name} {value}")
    preprocessor.parse(source, filename)
    out = io.StringIO()
    preprocessor.write(out)
    if preprocessor.errors:
        raise BankismError(preprocessor.errors[0])
    return _strip_line_directives(out.getvalue(), filename)


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
