"""Differential fuzzer for PEP 671 late-bound parameter defaults.

Run it from the repository root with the PATCHED interpreter:

    ./python -m tools.check.fuzz_late_defaults --seed 1 --cases 2000 --seconds 60

Each case generates a random signature (positional-only, ordinary and
keyword-only parameters, optionally *args and **kwargs; every parameter has
no default, an early default, or a late default `p3=>_rec('p3', p0, p5)`
that reads random other parameters, to its left or right, directly or
through a lambda, and records in a log that it ran), as a def, a lambda, a
generator or a coroutine, sometimes nested in a function whose local the
defaults read.

The same function is also written with the sentinel idiom that defines the
semantics: passed arguments and early defaults are bound first, then the
late defaults run left to right in parameter order (positional, then
keyword-only), each under `if p is _S or type(p) is LateDefaultType:` (passing
a late-default object is leaving the argument out); reading an omitted parameter whose
default has not run yet raises UnboundLocalError (NameError through a
lambda), emulated with a check around each read of a late parameter.

Both are called with the same random calls (positional, keywords in random
order, *args/**kwargs unpacking, None/Ellipsis values, a late-default object, missing,
unknown and
duplicated arguments), each call repeated so that the specializing
interpreter warms up.  The outcomes are compared: the returned tuple of all
parameters, the exception type and message, and the evaluation log.  The
late-bound function's __defaults_extra__/__kwdefaults_extra__ are checked
against the source texts too (and against the text of _L where it is an early
default: they follow the late-default objects that the defaults hold).

Deterministic for a seed: case N of seed S is the same on every run
(replay one with --seed S --case N).  On a mismatch the seed, the case
number, both sources, the call and both outcomes are printed and the exit
status is 1.  The last line is `fuzz: N cases, M calls, K mismatches (seed S)`.

Modules: runtime (the helpers the generated code calls), generate, compare, cli.
"""
