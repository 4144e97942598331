"""Running both functions on the same calls and comparing the outcomes."""

from __future__ import annotations

import ast
import inspect
import random
import sys
from dataclasses import dataclass
from typing import Any, Callable

from tools.check.fuzz_late_defaults.runtime import Boom, helpers, LOG, _L
from tools.check.fuzz_late_defaults.generate import (Call, Param, gen_call, gen_signature,
                                                     late_expr, render, Signature)


Outcome = tuple[Any, ...]


def drive(func: Callable[..., Any], call: Call, form: str, ns: dict[str, Any]) -> tuple[Outcome, list[Any]]:
    del LOG[:]
    try:
        ns["f"] = func
        obj = eval(call.source, ns)
        if form == "gen":
            LOG.append(("created",))
            try:
                value = next(obj)
            finally:
                obj.close()
        elif form == "async":
            LOG.append(("created",))
            try:
                obj.send(None)
            except StopIteration as stop:
                value = stop.value
            else:
                obj.close()
                raise AssertionError("coroutine did not finish")
        else:
            value = obj
        out: Outcome = ("ok", value)
    except (TypeError, UnboundLocalError, NameError, Boom, RuntimeError) as exc:
        msg = str(exc).replace(func.__qualname__ + "()", "<F>()")
        out = ("raise", type(exc).__name__, msg)
    return out, list(LOG)


@dataclass
class Mismatch:
    what: str
    call: str
    late: Any
    sentinel: Any


def expected_extras(sig: Signature) -> tuple[Any, Any]:
    """__defaults_extra__ and __kwdefaults_extra__ as the defaults make them: the text
    of each late-default object held, the source of a late default or the text of
    _L as an early default (introspection follows the objects), None for any other
    value, and None when no default is a late-default object."""
    def text(p: Param) -> str | None:
        if p.default == "late":
            return ast.unparse(ast.parse(late_expr(p, sig, False), mode="eval"))
        return _L.text if p.early == "_L" else None
    pos_defaults = [p for p in sig.positional if p.default != "none"]
    pos_texts = tuple(text(p) for p in pos_defaults)
    pos_extra: Any = pos_texts if any(t is not None for t in pos_texts) else None
    kw_texts = {p.name: text(p) for p in sig.kwonly if p.default != "none"}
    kw_extra: Any = kw_texts if any(t is not None for t in kw_texts.values()) else None
    return pos_extra, kw_extra


def build(source: str, label: str) -> tuple[Callable[..., Any], dict[str, Any]]:
    ns = helpers()
    del LOG[:]
    exec(compile(source, label, "exec"), ns)
    return ns["f"], ns


def run_case(seed: int, case: int) -> tuple[Signature, str, str, list[Call], list[Mismatch], int]:
    rng = random.Random(seed * 1_000_003 + case)
    sig = gen_signature(rng)
    late_src = render(sig, sentinel=False)
    sent_src = render(sig, sentinel=True)
    mismatches: list[Mismatch] = []
    late_f, late_ns = build(late_src, f"<case {case}: late>")
    sent_f, sent_ns = build(sent_src, f"<case {case}: sentinel>")
    extras = (getattr(late_f, "__defaults_extra__"), getattr(late_f, "__kwdefaults_extra__"))
    want = expected_extras(sig)
    if extras != want:
        mismatches.append(Mismatch("extras", "", extras, want))
    try:
        str(inspect.signature(late_f))
    except Exception as exc:  # noqa: BLE001 - any failure is a finding
        mismatches.append(Mismatch("inspect.signature", "", repr(exc), "a signature"))
    calls = [gen_call(rng, sig) for _ in range(rng.randint(1, 6))]
    repeats = rng.choice([1, 1, 2, 12])
    n_calls = 0
    for _ in range(repeats):
        for call in calls:
            n_calls += 1
            a = drive(late_f, call, sig.form, late_ns)
            b = drive(sent_f, call, sig.form, sent_ns)
            if a != b:
                mismatches.append(Mismatch("outcome/log", call.source, a, b))
                return sig, late_src, sent_src, calls, mismatches, n_calls
    return sig, late_src, sent_src, calls, mismatches, n_calls


def report(seed: int, case: int, late_src: str, sent_src: str, mm: Mismatch) -> None:
    print(f"MISMATCH seed={seed} case={case} ({mm.what})")
    print("--- late-bound source ---")
    print(late_src, end="")
    print("--- sentinel source ---")
    print(sent_src, end="")
    if mm.call:
        print(f"--- call ---\n{mm.call}")
    print(f"late-bound: {mm.late!r}")
    print(f"sentinel:   {mm.sentinel!r}")
    print(f"(replay: {sys.executable} -m tools.check.fuzz_late_defaults --seed {seed} --case {case})")
    sys.stdout.flush()
