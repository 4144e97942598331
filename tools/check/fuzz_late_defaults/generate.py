"""Random signatures, their late-bound and sentinel-idiom sources, random calls."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from tools.check.fuzz_late_defaults.runtime import VALUES


@dataclass
class Ref:
    target: str
    how: str  # 'direct' | 'lambda' | 'await'


@dataclass
class Param:
    name: str
    kind: str  # 'posonly' | 'pos' | 'kwonly'
    default: str  # 'none' | 'early' | 'late'
    early: str = ""
    refs: list[Ref] = field(default_factory=list)
    fails: bool = False
    annotation: str = ""


@dataclass
class Signature:
    params: list[Param]
    varargs: str | None
    varkw: str | None
    form: str  # 'def' | 'lambda' | 'gen' | 'async'
    outer: bool  # nested in a function with a local 'z' read by defaults

    @property
    def positional(self) -> list[Param]:
        return [p for p in self.params if p.kind != "kwonly"]

    @property
    def kwonly(self) -> list[Param]:
        return [p for p in self.params if p.kind == "kwonly"]

    def param(self, name: str) -> Param | None:
        for p in self.params:
            if p.name == name:
                return p
        return None

    def is_late(self, name: str) -> bool:
        p = self.param(name)
        return p is not None and p.default == "late"


def gen_signature(rng: random.Random) -> Signature:
    n_posonly = rng.choice([0, 0, 1, 2, 3])
    n_pos = rng.choice([0, 1, 2, 3, 4])
    n_kwonly = rng.choice([0, 0, 1, 2, 3])
    if n_posonly + n_pos + n_kwonly == 0:
        n_pos = 1
    r = rng.random()
    form = "def" if r < 0.6 else "lambda" if r < 0.75 else "gen" if r < 0.9 else "async"
    params: list[Param] = []
    i = 0
    seen_default = False
    for kind, n in (("posonly", n_posonly), ("pos", n_pos), ("kwonly", n_kwonly)):
        for _ in range(n):
            if kind != "kwonly" and seen_default:
                choices = ["early", "late", "late"]
            else:
                choices = ["none", "early", "late", "late"]
            d = rng.choice(choices)
            if kind != "kwonly" and d != "none":
                seen_default = True
            params.append(Param(f"p{i}", kind, d))
            i += 1
    varargs = "va" if rng.random() < 0.3 else None
    varkw = "vk" if rng.random() < 0.3 else None
    sig = Signature(params, varargs, varkw, form, outer=rng.random() < 0.2)
    names = [p.name for p in params]
    extra_names = [n for n in (varargs, varkw) if n] + (["z"] if sig.outer else [])
    for p in params:
        if form != "lambda" and rng.random() < 0.15:
            p.annotation = rng.choice(["int", "'x'", "None"])
        if p.default == "early":
            p.early = rng.choice(VALUES)
        elif p.default == "late":
            k = rng.choice([0, 1, 1, 2, 2, 3])
            for _ in range(k):
                if extra_names and rng.random() < 0.15:
                    target = rng.choice(extra_names)
                elif rng.random() < 0.05:
                    target = p.name  # reads itself: always UnboundLocalError
                else:
                    target = rng.choice(names)
                how = "direct"
                x = rng.random()
                if x < 0.15 and target not in ("va", "vk"):
                    how = "lambda"
                elif x < 0.35 and form == "async":
                    how = "await"
                p.refs.append(Ref(target, how))
            p.fails = rng.random() < 0.05
    return sig


def late_expr(p: Param, sig: Signature, sentinel: bool) -> str:
    parts = [repr(p.name)]
    for ref in p.refs:
        t = ref.target
        late = sig.is_late(t)
        if ref.how == "direct":
            parts.append(f"_chk({t}, {t!r})" if sentinel and late else t)
        elif ref.how == "lambda":
            parts.append(f"(lambda: _chkf({t}, {t!r}))()" if sentinel and late
                         else f"(lambda: {t})()")
        else:
            parts.append(f"(await _aid(_chk({t}, {t!r})))" if sentinel and late
                         else f"(await _aid({t}))")
    fn = "_boom" if p.fails else "_rec"
    return f"{fn}({', '.join(parts)})"


def param_list(sig: Signature, sentinel: bool) -> str:
    out: list[str] = []
    have_star = False
    for p in sig.params:
        if p.kind == "kwonly" and not have_star:
            out.append(f"*{sig.varargs}" if sig.varargs else "*")
            have_star = True
        s = p.name + (f": {p.annotation}" if p.annotation else "")
        if p.default == "early":
            s += (" = " if p.annotation else "=") + p.early
        elif p.default == "late":
            if sentinel:
                s += (" = " if p.annotation else "=") + "_S"
            else:
                s += (" => " if p.annotation else "=>") + late_expr(p, sig, False)
        out.append(s)
        if p.kind == "posonly" and (p is sig.params[-1] or sig.params[sig.params.index(p) + 1].kind != "posonly"):
            out.append("/")
    if not have_star and sig.varargs:
        out.append(f"*{sig.varargs}")
    if sig.varkw:
        out.append(f"**{sig.varkw}")
    return ", ".join(out)


def result_expr(sig: Signature) -> str:
    names = [p.name for p in sig.params] + [n for n in (sig.varargs, sig.varkw) if n]
    return "(" + "".join(f"{n}, " for n in names) + ")"


def render(sig: Signature, sentinel: bool) -> str:
    plist = param_list(sig, sentinel)
    lines: list[str] = []
    ind = ""
    if sig.outer:
        lines.append("def _outer():")
        lines.append("    z = 'zz'")
        ind = "    "
    if sig.form == "lambda" and not sentinel:
        lines.append(f"{ind}f = lambda {plist}: {result_expr(sig)}")
    else:
        kw = "async def" if sig.form == "async" else "def"
        lines.append(f"{ind}{kw} f({plist}):")
        if sentinel:
            for p in sig.params:  # already in order: positional, then keyword-only
                if p.default == "late":
                    lines.append(f"{ind}    if {p.name} is _S or type({p.name}) is _LT:")
                    lines.append(f"{ind}        {p.name} = {late_expr(p, sig, True)}")
        if sig.form == "gen":
            lines.append(f"{ind}    yield {result_expr(sig)}")
        else:
            lines.append(f"{ind}    return {result_expr(sig)}")
    if sig.outer:
        lines.append("    return f")
        lines.append("f = _outer()")
    return "\n".join(lines) + "\n"


@dataclass
class Call:
    source: str  # e.g. "f(1, *[2], p3=None, **{'p4': 5})"


def gen_call(rng: random.Random, sig: Signature) -> Call:
    pos = sig.positional
    kwo = sig.kwonly
    omit_required = rng.random() < 0.1
    n_pos = rng.randint(0, len(pos))
    # Required positional parameters beyond the positional prefix: keyword or omitted.
    positional: list[str] = [rng.choice(VALUES) for _ in range(n_pos)]
    if rng.random() < (0.5 if sig.varargs else 0.05):
        if n_pos == len(pos):
            positional += [rng.choice(VALUES) for _ in range(rng.randint(1, 3))]
    keywords: list[tuple[str, str]] = []
    for p in pos[n_pos:]:
        required = p.default == "none"
        if p.kind == "posonly":
            if rng.random() < 0.05:
                keywords.append((p.name, rng.choice(VALUES)))  # error, or into **vk
            continue
        if required and not omit_required:
            keywords.append((p.name, rng.choice(VALUES)))
        elif rng.random() < 0.4:
            keywords.append((p.name, rng.choice(VALUES)))
    for p in kwo:
        required = p.default == "none"
        if (required and not omit_required) or rng.random() < 0.4:
            keywords.append((p.name, rng.choice(VALUES)))
    if rng.random() < (0.3 if sig.varkw else 0.03):
        keywords.append((rng.choice(["zz", "va", "vk", "q"]), rng.choice(VALUES)))
    if rng.random() < 0.04 and n_pos:
        dup = pos[rng.randrange(n_pos)]
        keywords.append((dup.name, rng.choice(VALUES)))
    # Duplicate keyword names cannot both be literal; keep the first only.
    seen: set[str] = set()
    uniq: list[tuple[str, str]] = []
    for k, v in keywords:
        if k not in seen:
            seen.add(k)
            uniq.append((k, v))
    keywords = uniq
    rng.shuffle(keywords)
    args: list[str] = []
    cut = rng.randint(0, len(positional)) if rng.random() < 0.3 else len(positional)
    args += positional[:cut]
    if cut < len(positional) or rng.random() < 0.05:
        rest = positional[cut:]
        args.append("*[" + "".join(f"{v}, " for v in rest) + "]")
    kcut = rng.randint(0, len(keywords)) if rng.random() < 0.3 else len(keywords)
    args += [f"{k}={v}" for k, v in keywords[:kcut]]
    if kcut < len(keywords) or rng.random() < 0.05:
        rest_kw = keywords[kcut:]
        args.append("**{" + ", ".join(f"{k!r}: {v}" for k, v in rest_kw) + "}")
    return Call(f"f({', '.join(args)})")
