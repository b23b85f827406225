"""Which definition of a class template its arguments name, as C++ chooses: the arguments
completed with the primary template's defaults, each partial or explicit (full) specialization's
pattern matched against them (its own parameters deduced from types, values, nested template-ids
``Foo<T, 4>`` and pointers ``T*``; a pattern such as ``N * 2`` is checked once the others are
deduced), the most specialized match kept (one whose pattern another's matches is more specialized;
two that match each other's refuse as ambiguous), else the primary template.

Limits: ``const`` is not part of a type here, so a matching pattern that writes it refuses; a
nested template-id's omitted (default) arguments are not compared."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from bankism.errors import BankismError
from bankism.explain.frontend import syntax as S
from bankism.explain.simt import ctype as C
from bankism.explain.simt.bindings import Frame, TypeAlias
from bankism.explain.simt.ctype import CType
from bankism.explain.simt.values import Failure, Mask, constant


@dataclass(frozen=True)
class Term:
    """A template argument as matching sees it: a ``value`` (name: the integer), a ``type`` (name:
    its name), a ``ptr`` (args: the pointee), a ``template`` instance (name: the template, args: its
    arguments) or, in partial ordering, an ``opaque`` stand-in for another pattern's parameter
    (name: (pattern, parameter, is_type))."""

    kind: str
    name: object
    args: tuple = ()
    #: The type itself, for binding a deduced type parameter (not compared).
    type: CType | None = field(default=None, compare=False)


def term_of(value: CType | int) -> Term:
    """The term of a resolved template argument (a type or an integer)."""
    if not isinstance(value, CType):
        return Term("value", int(value))
    if value.kind == "ptr" and value.elem is not None:
        return Term("ptr", "", (term_of(value.elem),), value)
    arguments = getattr(value.info, "arguments", ())
    if value.kind == "struct" and arguments:
        return Term("template", value.info.definition.name, tuple(term_of(a) for a in arguments), value)
    return Term("type", value.name, (), value)


def _opaque_inside(term: Term) -> bool:
    return term.kind == "opaque" or any(_opaque_inside(a) for a in term.args)


def _mentions(pattern: S.Node, params: dict[str, S.TemplateParam]) -> bool:
    """Whether a pattern names one of the specialization's own parameters."""
    for node in S.walk(pattern):
        if isinstance(node, S.Name) and node.name in params and not node.scope:
            return True
        if isinstance(node, S.TypeName) and node.base in params and not node.scope:
            return True
    return False


def _consts(pattern: S.Node) -> bool:
    """Whether a pattern writes ``const`` somewhere (``S<const T>``)."""
    return any(isinstance(node, S.TypeName) and node.const for node in S.walk(pattern))


class Specializations:
    """Choosing a class template's definition for its arguments (a mixin of ``Machine``)."""

    def choose_definition(self, definitions: list[S.StructDef], values: list,
                          node: S.Node) -> tuple[S.StructDef, dict[str, object], list]:
        """The definition ``name<values>`` names, the bindings of its parameters, and the
        arguments completed with the primary template's defaults."""
        name = definitions[0].name
        primaries = [d for d in definitions if d.specialization is None]
        params = self._primary_params(primaries)
        arguments, primary_bindings = self._complete_arguments(name, params, values, node) if primaries \
            else (list(values), {})
        terms = [term_of(v) for v in arguments]
        defaults = [p.default for p in params] if primaries else []
        matches = []
        for definition in definitions:
            if not definition.specialization:  # the primary, or arguments the parser could not read
                continue
            pattern = _padded(definition.specialization, len(terms), defaults)
            deduced = None if pattern is None else self._match_all(definition, pattern, terms)
            if deduced is None:
                continue
            if any(_consts(p) for p in pattern):
                raise Failure(node, f"unsupported construct: the specialization of {name} at line "
                                    f"{definition.line} writes const in its arguments")
            matches.append((definition, deduced))
        if matches:
            definition, deduced = self._most_specialized(name, matches, len(terms), defaults, node)
            return definition, self._deduced_bindings(deduced), arguments
        defined = [d for d in primaries if d.defined]
        if not defined:
            raise Failure(node, f"unsupported construct: no definition of {name} for these "
                                "template arguments")
        return defined[-1], primary_bindings, arguments

    @staticmethod
    def _primary_params(primaries: list[S.StructDef]) -> list[S.TemplateParam]:
        """The primary template's parameters, each with the default any declaration gives it."""
        if not primaries:
            return []
        chosen = next((d for d in reversed(primaries) if d.defined), primaries[-1])
        params = []
        for i, param in enumerate(chosen.template_params):
            default = next((d.template_params[i].default for d in primaries
                            if i < len(d.template_params) and d.template_params[i].default is not None), None)
            params.append(replace(param, default=default) if default is not None else param)
        return params

    def _complete_arguments(self, name: str, params: list[S.TemplateParam], values: list,
                            node: S.Node) -> tuple[list, dict[str, object]]:
        """The arguments with the defaults of those not given, and the primary's bindings."""
        if len(values) > len(params):
            raise Failure(node, f"{name} takes {len(params)} template argument(s), not {len(values)}")
        mask = Mask(np.ones(self.threads, bool), True, False)
        bindings: dict[str, object] = {}
        arguments = []
        for i, param in enumerate(params):
            if i < len(values):
                value = values[i]
            elif param.default is not None:  # it may name the parameters before it: `int S = kCols`
                self.frames.append(Frame(self.kernel, [dict(self.globals), dict(bindings)],
                                         np.zeros(self.threads, bool), None))
                try:
                    value = self._template_argument_value(param.default, mask)
                finally:
                    self.frames.pop()
            else:
                raise Failure(node, f"template parameter {param.name} of {name} has no value")
            if param.is_type:
                if not isinstance(value, CType):
                    raise Failure(node, f"template argument for {param.name} must be a type")
                bindings[param.name] = TypeAlias(value)
            else:
                if isinstance(value, CType):
                    raise Failure(node, f"template argument for {param.name} must be a value")
                bindings[param.name] = constant(C.INT, int(value))
            arguments.append(value)
        return arguments, bindings

    def _most_specialized(self, name: str, matches: list, count: int, defaults: list,
                          node: S.Node) -> tuple[S.StructDef, dict[str, Term]]:
        """The match more specialized than every other (an explicit specialization first)."""
        full = [m for m in matches if not m[0].template_params]
        if full or len(matches) == 1:
            return (full or matches)[0]
        synthesized = {id(d): [self._synthesize(d, p) for p in _padded(d.specialization, count, defaults)]
                       for d, _ in matches}

        def covers(general: S.StructDef, special: S.StructDef) -> bool:
            pattern = _padded(general.specialization, count, defaults)
            return self._match_all(general, pattern, synthesized[id(special)]) is not None

        best = [m for m in matches if all(o is m or (covers(o[0], m[0]) and not covers(m[0], o[0]))
                                          for o in matches)]
        if len(best) != 1:
            lines = ", ".join(str(d.line) for d, _ in matches)
            raise Failure(node, f"ambiguous partial specializations of {name} for these template "
                                f"arguments (lines {lines})")
        return best[0]

    def _synthesize(self, definition: S.StructDef, pattern: S.TypeName | S.Expr) -> Term:
        """A pattern as an argument, its own parameters standing as opaque unique values."""
        params = {p.name: p for p in definition.template_params}
        if not _mentions(pattern, params):
            return term_of(self._evaluate_pattern(pattern, {}))
        if isinstance(pattern, S.Name) and pattern.name in params:
            return Term("opaque", (id(definition), pattern.name, params[pattern.name].is_type))
        if isinstance(pattern, S.TypeName) and not pattern.dims and pattern.decltype is None:
            if pattern.base in params and pattern.args is None:
                term = Term("opaque", (id(definition), pattern.base, params[pattern.base].is_type))
            elif pattern.args is not None:
                inner = tuple(self._synthesize(definition, a) for a in pattern.args)
                term = Term("template", pattern.base, inner)
            else:
                return Term("opaque", (id(definition), pattern.text, True))
            for _ in range(pattern.pointers):
                term = Term("ptr", "", (term,))
            return term
        return Term("opaque", (id(definition), pattern.text, isinstance(pattern, S.TypeName)))

    def _match_all(self, definition: S.StructDef, pattern: list, terms: list[Term],
                   complete: bool = True) -> dict[str, Term] | None:
        """The parameters of ``definition`` deduced from matching ``pattern`` against ``terms``
        (None where it does not match). ``complete``: every parameter must be deduced."""
        params = {p.name: p for p in definition.template_params}
        return self.deduce_pattern(params, pattern, terms, complete)

    def deduce_pattern(self, params: dict[str, S.TemplateParam], pattern: list, terms: list[Term],
                       complete: bool = True) -> dict[str, Term] | None:
        """Template parameters ``params`` deduced from written arguments matched against terms."""
        if len(pattern) != len(terms):
            return None
        deduced: dict[str, Term] = {}
        deferred: list[tuple[S.Node, Term]] = []
        if not all(self._match(p, t, params, deduced, deferred) for p, t in zip(pattern, terms, strict=True)):
            return None
        if not complete:
            return deduced
        if any(name not in deduced for name in params):
            return None
        for written, term in deferred:  # `N * 2`: checked with the parameters deduced elsewhere
            if _opaque_inside(term) or any(_opaque_inside(d) for d in deduced.values()):
                return None
            if term_of(self._evaluate_pattern(written, self._deduced_bindings(deduced))) != term:
                return None
        return deduced

    def _match(self, pattern: S.Node, term: Term, params: dict[str, S.TemplateParam],
               deduced: dict[str, Term], deferred: list) -> bool:
        """Whether one written argument matches one term, deducing parameters into ``deduced``."""
        if not _mentions(pattern, params):
            if _opaque_inside(term):
                return False
            try:
                written = self._evaluate_pattern(pattern, {})
            except (Failure, BankismError):  # a type explain does not know (wmma::precision::tf32) is no
                return False  # argument it was given: that specialization is not the one named
            return term_of(written) == term
        if isinstance(pattern, S.Name) and pattern.name in params and not pattern.scope:
            return _bind(params[pattern.name], term, deduced)
        if isinstance(pattern, S.TypeName) and not pattern.dims and pattern.decltype is None \
                and pattern.scope_type is None:
            for _ in range(pattern.pointers):
                if term.kind != "ptr":
                    return False
                term = term.args[0]
            if pattern.base in params and pattern.args is None and not pattern.scope:
                return _bind(params[pattern.base], term, deduced)
            if pattern.args is not None and pattern.base not in params:
                if term.kind != "template" or term.name != pattern.base or len(pattern.args) > len(term.args):
                    return False
                return all(self._match(p, t, params, deduced, deferred)
                           for p, t in zip(pattern.args, term.args, strict=False))
        deferred.append((pattern, term))
        return True

    def _evaluate_pattern(self, pattern: S.TypeName | S.Expr, bindings: dict[str, object]) -> CType | int:
        """A written argument's type or value at file scope, with ``bindings`` for the parameters."""
        mask = Mask(np.ones(self.threads, bool), True, False)
        self.frames.append(Frame(self.kernel, [dict(self.globals), dict(bindings)],
                                 np.zeros(self.threads, bool), None))
        try:
            return self._template_argument_value(pattern, mask)
        finally:
            self.frames.pop()

    def deduce_from_instance(self, function: S.Function, written: S.TypeName,
                             value: object) -> dict[str, object] | None:
        """A function template's parameters deduced from one parameter written as a template-id
        (``const frag<use_a, N> &f``) and its argument, an instance of that template: the ones it
        deduces, or None where the argument is no such instance."""
        t = value if isinstance(value, CType) else getattr(value, "type", None)
        if not isinstance(t, CType) or t.kind != "struct" or written.pointers or not written.args:
            return None
        params = {p.name: p for p in function.template_params}
        pattern = replace(written, reference=False, const=False)
        deduced = self.deduce_pattern(params, [pattern], [term_of(t)], complete=False)
        return None if deduced is None else self._deduced_bindings(deduced)

    def instance_candidates(self, candidates: list[S.Function], expr: S.Call, mask: Mask) -> list[S.Function]:
        """The overloads whose parameters written as a template-id (``const frag<use_b, N> &``) match
        their arguments that are instances of that template, the arguments' types read without
        loading them (a shared fragment is not copied to choose); the others are kept."""
        types = []
        for arg in expr.args:
            t = None
            if isinstance(arg, S.Name | S.Subscript | S.Member) and not any(
                    isinstance(n, S.Assign | S.IncDec | S.Call | S.MethodCall) for n in S.walk(arg)):
                try:
                    t = self.lvalue_type(self.lvalue(arg, mask))
                except (Failure, BankismError):
                    t = None
            instance = t is not None and t.kind == "struct" and getattr(t.info, "arguments", ())
            types.append(t if instance else None)

        def fits(function: S.Function) -> bool:
            for param, t in zip(function.params, types, strict=False):
                written = param.type
                if t is None or not written.args or written.pointers or \
                        written.base != t.info.definition.name:
                    continue  # not a template-id of the argument's template: left to overloading
                if self.deduce_from_instance(function, written, t) is None:
                    return False
            return True

        return [f for f in candidates if fits(f)]

    @staticmethod
    def _deduced_bindings(deduced: dict[str, Term]) -> dict[str, object]:
        """What the deduced parameters mean inside the specialization (types and constants)."""
        return {name: TypeAlias(term.type) if term.kind != "value" else constant(C.INT, term.name)
                for name, term in deduced.items()}


def _padded(pattern: list | None, count: int, defaults: list) -> list | None:
    """A specialization's written arguments with the primary's defaults after them (None if
    they cannot make ``count`` arguments)."""
    if pattern is None or len(pattern) > count:
        return None
    extra = list(defaults[len(pattern):count])
    if len(pattern) + len(extra) != count or any(d is None for d in extra):
        return None
    return list(pattern) + extra


def _bind(param: S.TemplateParam, term: Term, deduced: dict[str, Term]) -> bool:
    """Deduce ``param`` as ``term``: a type for a type parameter, a value for a non-type one,
    the same each time it appears."""
    if term.kind == "opaque":
        if term.name[2] != param.is_type:
            return False
    elif (term.kind == "value") == param.is_type:
        return False
    return deduced.setdefault(param.name, term) == term
