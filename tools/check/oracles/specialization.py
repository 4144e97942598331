"""The specialization oracle: hot call sites given other callees and changed defaults.

A case is a program: a few groups of functions, each group made from ONE code object
with different defaults (the closures of one ``def``, lambdas on one line that compile
to one code object under ``-X no_debug_ranges``, code compiled from a tree without
positions whose defaults the making code gets by hand, a ``types.FunctionType``
rebuild), plain functions, methods and generator functions among them; call sites
warmed with one callee past the specializing threshold, then called with another;
``__defaults__``, ``__kwdefaults__`` (reassigned and changed in place: values set, keys deleted, their
order reversed) and ``__code__`` changed while a site is hot. Every call's result or exception is
recorded, and for a generator what its frame holds before it starts: a call binds an
omitted late-bound parameter to its late-default object as it binds any default,
whichever way it binds its arguments (the generic binding, CALL_PY_WITH_DEFAULTS,
CALL_PY_WITH_KWDEFAULTS, the other specialized calls).

The same program runs in the interpreter under test and in an oracle: the unpatched
baseline when no function of the batch has a late default (the specializations must
not change what ordinary code does), else the same interpreter with call
specialization kept cold: a PEP 523 frame evaluator (``_testinternalcapi.
set_eval_frame_record``) is installed, and while one is, no call specializes and
every specialized call deoptimizes. The two transcripts must be equal.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from tools.check.oracles.harness import (BatchResult, Failure, RUNNER, Run, first_unfinished,
                                   run_script)

# Interpreter flags of every run: lambdas on one line then compile to one code object.
FLAGS = ("-X", "no_debug_ranges")

HEADER = '''\
import ast, copy, sys, types

import re
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")

def _show(value):
    if isinstance(value, types.GeneratorType):
        # What the call bound, as the code starts (an omitted late-bound
        # parameter holds its late-default object, as any default), then the
        # values it yields.
        bound = sorted(dict(value.gi_frame.f_locals).items())
        value = [bound, list(value)]
    return _ADDRESS.sub(" at 0x?", repr(value))

def _recorder(out):
    def rec(label, thunk):
        try:
            out.append([label, "ok", _show(thunk())])
        except Exception as exc:
            out.append([label, type(exc).__name__, _ADDRESS.sub(" at 0x?", str(exc))])
    return rec

def _hot(site, callee, times):
    # Warm a call site past the specializing threshold: the last outcome, and how
    # many distinct outcomes there were on the way.
    seen = set()
    result = None
    for _ in range(times):
        try:
            result = _show(site(callee))
        except Exception as exc:
            result = type(exc).__name__ + ": " + _ADDRESS.sub(" at 0x?", str(exc))
        seen.add(result)
    return [result, len(seen)]

def _reverse_in_place(kwdefaults):
    # The same dict, its entries in the reverse order (None: nothing to do).
    if kwdefaults is not None:
        items = list(kwdefaults.items())[::-1]
        kwdefaults.clear()
        kwdefaults.update(items)
    return kwdefaults

def _shared_from_tree(params, names, defaults):
    # Lambdas 'lambda PARAMS: (NAMES,)' made by MAKE_FUNCTION from one code object
    # (a tree without positions compiles its equal lambdas to one code object), each
    # with a tuple of defaults of its own, which the making code gets by hand: that is
    # how a late-bound parameter gets an ordinary default with the same code.
    template = ast.parse(f"lambda {params}: ({names},)", mode="eval").body
    for node in ast.walk(template):
        for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if hasattr(node, attr):
                delattr(node, attr)
    def compiled(node):
        return compile(ast.fix_missing_locations(ast.Expression(node)), "<shared>", "eval")
    # The lambdas' code, with its prologue when PARAMS has a late-bound default; the
    # making code is compiled with a constant placeholder for every default, so that
    # each tuple of defaults is a constant of its own, which is then replaced.
    (lambda_code,) = (c for c in compiled(copy.deepcopy(template)).co_consts
                      if isinstance(c, types.CodeType))
    elts = []
    for k in range(len(defaults)):
        elt = copy.deepcopy(template)
        elt.args.defaults = [ast.Constant(f"{k}.{j}") for j in range(len(elt.args.defaults))]
        elts.append(elt)
    code = compiled(ast.List(elts, ast.Load()))
    tuples = iter(defaults)
    consts = tuple(next(tuples) if type(c) is tuple else
                   lambda_code if isinstance(c, types.CodeType) else c
                   for c in code.co_consts)
    return eval(code.replace(co_consts=consts))

_COLD = None

def _keep_cold():
    # A PEP 523 frame evaluator: no call specializes while it is installed.
    global _COLD
    import _testinternalcapi
    _COLD = []
    _testinternalcapi.set_eval_frame_record(_COLD)
'''


@dataclass
class Param:
    name: str
    kind: str      # 'posonly', 'pos', 'kwonly'
    default: str   # 'none', 'early', 'late'
    text: str = ""  # the default's source


@dataclass
class Group:
    """Functions made from one code object."""
    name: str
    form: str      # 'closure', 'lambdas', 'tree', 'method', 'plain'
    params: list[Param]
    generator: bool
    members: list[str]


class CaseWriter:
    """The source of one case: a function case_N() returning its transcript."""

    def __init__(self, rng: random.Random, number: int, late: bool) -> None:
        self.rng = rng
        self.number = number
        self.late = late      # may the case's functions have late defaults?
        self.lines: list[str] = []
        self.groups: list[Group] = []
        self.sites: list[tuple[str, str]] = []   # (site name, what it calls: 'f' or 'o.m')
        self.counter = 0

    def late_object(self, text: str) -> str:
        """A late-default object, in a case that may have them; else a plain value
        (the baseline, the oracle of those cases, has no types.LateDefaultType)."""
        return f"types.LateDefaultType({text!r})" if self.late else repr(f"<{text}>")

    def emit(self, line: str) -> None:
        self.lines.append("    " + line)

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    # ---- signatures ----------------------------------------------------------

    def params(self) -> list[Param]:
        rng = self.rng
        names = iter("abcdefgh")
        params: list[Param] = []
        npos = rng.choice([1, 1, 2, 2, 3, 4])
        nposonly = rng.choice([0, 0, 0, 1]) if npos > 1 else 0
        nkw = rng.choice([0, 0, 0, 1, 2])
        defaulted = False
        for i in range(npos):
            kind = "posonly" if i < nposonly else "pos"
            choice = rng.choice(["none", "early", "late"] if self.late else ["none", "early"])
            if defaulted and choice == "none":
                choice = "early"
            if choice != "none":
                defaulted = True
            params.append(Param(next(names), kind, choice))
        for _ in range(nkw):
            params.append(Param(next(names), "kwonly",
                                rng.choice(["none", "early", "late"] if self.late
                                           else ["none", "early"])))
        for index, param in enumerate(params):
            if param.default == "early":
                param.text = rng.choice(["0", "1", "None", "...", "'e'", "(1, 2)", "[]"])
            elif param.default == "late":
                others = [p.name for p in params if p is not param]
                reads = rng.sample(others, k=min(len(others), rng.choice([0, 1, 1, 2])))
                param.text = "(" + ", ".join([repr("L" + param.name), *reads]) + ",)"
        return params

    @staticmethod
    def signature(params: list[Param], *, drop: int = 0) -> str:
        """The parameter list; the defaults of the first `drop` positional parameters
        with an early default are left out (the lambdas of one line)."""
        parts: list[str] = []
        dropped = 0
        positional = [p for p in params if p.kind != "kwonly"]
        for p in positional:
            text = p.name
            if p.default == "early":
                if dropped < drop:
                    dropped += 1
                else:
                    text += "=" + p.text
            elif p.default == "late":
                text += "=>" + p.text
            parts.append(text)
            if p.kind == "posonly" and (positional.index(p) + 1 == len(positional)
                                        or positional[positional.index(p) + 1].kind != "posonly"):
                parts.append("/")
        kwonly = [p for p in params if p.kind == "kwonly"]
        if kwonly:
            parts.append("*")
            for p in kwonly:
                text = p.name
                if p.default == "early":
                    text += "=" + p.text
                elif p.default == "late":
                    text += "=>" + p.text
                parts.append(text)
        return ", ".join(parts)

    # ---- groups ---------------------------------------------------------------

    def members_of(self, name: str, count: int) -> list[str]:
        """Names for the items of the list `name` of functions."""
        members = []
        for i in range(count):
            member = self.fresh(f"{name}_")
            self.emit(f"{member} = {name}[{i}]")
            members.append(member)
        return members

    def group(self) -> Group:
        rng = self.rng
        params = self.params()
        names = ", ".join(p.name for p in params)
        name = self.fresh("g")
        generator = rng.random() < 0.15
        body = f"yield ({names},)" if generator else f"return ({names},)"
        forms = ["closure", "lambdas", "tree", "method", "plain"]
        form = rng.choice(forms)
        if form in ("lambdas", "tree") and generator:
            form = "closure"
        if form == "tree" and any(p.kind != "pos" for p in params):
            form = "lambdas"
        members: list[str] = []
        if form == "closure":
            # One def run twice: one code object, defaults of other values.
            early = [p for p in params if p.default == "early"]
            self.emit(f"def make_{name}(v):")
            sig = ", ".join(self.signature(params).split(", "))
            for p in early:
                sig = sig.replace(f"{p.name}={p.text}", f"{p.name}=(v, {p.text})", 1)
            self.emit(f"    def {name}({sig}):")
            self.emit(f"        {body}")
            self.emit(f"    return {name}")
            for value in rng.sample(["0", "'x'", "None", "(1,)", "[2]"], k=rng.choice([2, 3])):
                member = self.fresh(f"{name}_")
                self.emit(f"{member} = make_{name}({value})")
                members.append(member)
        elif form == "lambdas":
            # Lambdas on one line that differ only in which early defaults they
            # have: one code object under -X no_debug_ranges.
            # Only the early defaults before any late one can go.
            nearly = 0
            for p in params:
                if p.kind == "kwonly" or p.default == "late":
                    break
                nearly += p.default == "early"
            drops = sorted({rng.randint(0, nearly) for _ in range(rng.choice([2, 3]))})
            if len(drops) == 1:
                drops.append(0 if drops[0] else nearly)
            lambdas = ", ".join(f"lambda {self.signature(params, drop=d)}: ({names},)"
                                for d in drops)
            self.emit(f"{name} = [{lambdas}]")
            members += self.members_of(name, len(drops))
        elif form == "tree":
            # Defaults handed to one code object by hand: with late-bound
            # parameters, ordinary values and other late-default objects too.
            positional = [p for p in params if p.default != "none"]
            choices = []
            for _ in range(rng.choice([2, 3])):
                values = []
                for p in positional:
                    pick = rng.random()
                    if p.default == "late" and pick < 0.6:
                        values.append(self.late_object(p.text))
                    elif pick < 0.8:
                        values.append(repr(rng.choice([0, 5, "v", None])))
                    else:
                        values.append(self.late_object("other"))
                if values and rng.random() < 0.3:
                    values = values[rng.randint(0, len(values)):]   # fewer defaults
                choices.append("(" + "".join(v + ", " for v in values) + ")")
            sig = self.signature(params)
            self.emit(f"{name} = _shared_from_tree({sig!r}, {names!r}, [{', '.join(choices)}])")
            members += self.members_of(name, len(choices))
        elif form == "method":
            cls = self.fresh("C")
            self.emit(f"class {cls}:")
            self.emit(f"    def m(self, {self.signature(params)}):")
            self.emit(f"        {body}")
            member = self.fresh(f"{name}_")
            self.emit(f"{member} = {cls}()")
            members.append(member)
            other = self.fresh(f"{name}_")
            self.emit(f"{other} = {cls}()")
            members.append(other)
        else:
            self.emit(f"def {name}({self.signature(params)}):")
            self.emit(f"    {body}")
            members.append(name)
            if rng.random() < 0.5:
                # The same code with other defaults, by types.FunctionType.
                member = self.fresh(f"{name}_")
                defaults = rng.choice(["None", "(7,)", "(7, 8)", f"{name}.__defaults__"])
                self.emit(f"{member} = types.FunctionType({name}.__code__, globals(), "
                          f"'{member}', {defaults}, {name}.__closure__)")
                if any(p.kind == "kwonly" for p in params):
                    self.emit(f"{member}.__kwdefaults__ = {name}.__kwdefaults__")
                members.append(member)
        group = Group(name, form, params, generator, members)
        self.groups.append(group)
        return group

    def site(self, group: Group) -> str:
        rng = self.rng
        positional = [p for p in group.params if p.kind != "kwonly"]
        required = sum(1 for p in positional if p.default == "none")
        count = rng.randint(max(0, required - 1), len(positional))
        args = [str(10 * (i + 1)) for i in range(count)]
        if rng.random() < 0.1:
            args.append("L")   # a late-default object passed
        for p in group.params:
            if p.kind == "kwonly" and (p.default == "none" or rng.random() < 0.3):
                args.append(f"{p.name}={rng.choice(['1', 'None', 'L'])}")
        site = self.fresh("site")
        call = "o.m" if group.form == "method" else "f"
        self.emit(f"def {site}({'o' if call == 'o.m' else 'f'}):")
        self.emit(f"    return {call}({', '.join(args)})")
        self.sites.append((site, call))
        return site

    # ---- the schedule -----------------------------------------------------------

    def schedule(self) -> None:
        rng = self.rng
        callees = [(g, m) for g in self.groups for m in g.members]
        sites = {g.name: [self.site(g) for _ in range(rng.choice([1, 2]))]
                 for g in self.groups}
        for step in range(rng.randint(4, 10)):
            group, member = rng.choice(callees)
            site = rng.choice(sites[group.name])
            pick = rng.random()
            if pick < 0.35:
                times = rng.choice([50, 1100, 2100])
                self.emit(f"rec('hot {site} {member}', "
                          f"lambda: _hot({site}, {member}, {times}))")
            elif pick < 0.55:
                # The same site, another callee (of the same code, or any).
                if rng.random() < 0.7:
                    member = rng.choice(group.members)
                else:
                    group, member = rng.choice(callees)
                self.emit(f"rec('call {site} {member}', lambda: {site}({member}))")
            elif group.form == "method":
                # Another function as the method, while the site is hot.
                other_group, other = rng.choice(callees)
                target = other if other_group.form != "method" else f"type({other}).m"
                self.emit(f"rec('set m of {member}', lambda: setattr(type({member}), 'm', "
                          f"{target}))")
            else:
                self.mutate(group, member, callees)

    def mutate(self, group: Group, member: str, callees: list[tuple[Group, str]]) -> None:
        rng = self.rng
        pick = rng.random()
        func = member
        if pick < 0.35:
            new = rng.choice(["None", "()", "(1,)", "(1, 2)", "(1, 2, 3, 4, 5)", "(L,)", "(L, L)",
                              f"{rng.choice(callees)[1]}.__defaults__",
                              f"({self.late_object('t')}, 3)"])
            if group.form == "method":
                return
            self.emit(f"rec('defaults {func}', lambda: setattr({func}, '__defaults__', {new}))")
        elif pick < 0.6:
            kwonly = [p.name for p in group.params if p.kind == "kwonly"] or ["zz"]
            key = rng.choice(kwonly + ["zz"])
            value = rng.choice(["0", "None", "L", self.late_object("k")])
            how = rng.random()
            if how < 0.3:
                self.emit(f"rec('kwdefaults {func}', lambda: setattr({func}, '__kwdefaults__', "
                          f"{{{key!r}: {value}}}))")
            elif how < 0.6:
                self.emit(f"rec('kwdefaults[] {func}', lambda: ({func}.__kwdefaults__ or {{}})"
                          f".__setitem__({key!r}, {value}))")
            elif how < 0.8:
                self.emit(f"rec('del kwdefaults[] {func}', lambda: ({func}.__kwdefaults__ or "
                          f"{{}}).pop({key!r}, None))")
            else:
                # The same keys and values in the reverse order, in place: the
                # function's version stays, the order of its dict's entries does not.
                self.emit(f"rec('reverse kwdefaults {func}', lambda: _reverse_in_place("
                          f"{func}.__kwdefaults__))")
        else:
            other = rng.choice(callees)
            if other[0].form == "method":
                return
            self.emit(f"rec('code {func}', lambda: setattr({func}, '__code__', "
                      f"{other[1]}.__code__))")

    def source(self) -> str:
        n_groups = self.rng.choice([1, 2, 2, 3])
        for _ in range(n_groups):
            self.group()
        self.schedule()
        head = [f"def case_{self.number}():",
                "    out = []",
                "    rec = _recorder(out)",
                f"    L = {self.late_object('passed')}"]
        return "\n".join(head + self.lines + ["    return out", ""])


def case_source(seed: int, number: int) -> tuple[str, bool]:
    """The source of case `number` of `seed`, and whether it may use `=>`. Every other
    case (by number) has late defaults, so a batch of either kind is at hand."""
    late = number % 2 == 1
    rng = random.Random(f"specialization:{seed}:{number}")
    return CaseWriter(rng, number, late).source(), late


def script(cases: list[tuple[int, str]], cold: bool) -> str:
    body = "\n".join(source for _, source in cases)
    run = ", ".join(f"({number}, case_{number})" for number, _ in cases)
    return (HEADER + "\n" + body + RUNNER
            + ("\n_keep_cold()\n" if cold else "\n")
            + f"_run_cases([{run}])\n")


@dataclass
class Config:
    python: Path
    baseline: Path | None   # the unpatched interpreter, for cases without =>
    timeout: float = 300.0


def check_batch(config: Config, seed: int, numbers: list[int]) -> BatchResult:
    result = BatchResult()
    sources = {n: case_source(seed, n) for n in numbers}
    for late in (False, True):
        cases = [(n, sources[n][0]) for n in numbers if sources[n][1] == late]
        if not cases:
            continue
        if not late and config.baseline is None:
            result.counts["without => skipped (no baseline)"] = (
                result.counts.get("without => skipped (no baseline)", 0) + len(cases))
            continue
        subject = run_script(config.python, script(cases, cold=False), flags=FLAGS,
                             timeout=config.timeout)
        oracle_python = config.python if late else config.baseline
        assert oracle_python is not None
        oracle = run_script(oracle_python, script(cases, cold=late), flags=FLAGS,
                            timeout=config.timeout)
        result.add(compare(subject, oracle, cases, late))
    return result


def compare(subject: Run, oracle: Run, cases: list[tuple[int, str]], late: bool) -> BatchResult:
    result = BatchResult()
    numbers = [n for n, _ in cases]
    source = dict(cases)
    which = "cold (PEP 523)" if late else "baseline"
    for run, name in ((subject, "interpreter under test"), (oracle, which)):
        if run.crashed or run.timed_out or run.returncode != 0:
            case = first_unfinished(run, numbers)
            kind = "crash" if run.crashed else "hang" if run.timed_out else "error"
            if case is None:
                case = numbers[-1]
            result.failures.append(Failure(case, kind, f"{name}: {run.why()}\n"
                                           + run.stderr[-3000:], source.get(case, "")))
            return result
    got, expected = subject.outcomes(), oracle.outcomes()
    for number in numbers:
        if got.get(number) != expected.get(number):
            lines = [f"transcripts differ (interpreter under test vs {which}):"]
            for step, (a, b) in enumerate(zip(got.get(number) or [], expected.get(number) or [])):
                if a != b:
                    lines.append(f"  step {step}: {a!r}\n      {which}: {b!r}")
                    break
            result.failures.append(Failure(number, "mismatch", "\n".join(lines),
                                           source[number]))
        else:
            result.done += 1
    result.counts["with =>" if late else "without =>"] = len(numbers)
    return result
