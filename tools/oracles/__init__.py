"""Oracles for PEP 671 that do not share the implementation's assumptions.

Our own tests and the differential fuzzer (tools.fuzz_late_defaults) run code that
our compiler emits, through call sites that stay with one callee. These three look
where those do not, each with an oracle that is not our code's idea of itself:

- ``specialization``: random programs of functions with late, early and no defaults
  (positional, keyword-only, methods, closures, generators), several made from one
  code object (closures of one ``def``, lambdas that compile to one code object, code
  made from a tree without positions, ``types.FunctionType``), hot call sites warmed
  with one callee and then given another, ``__defaults__``, ``__kwdefaults__`` and
  ``__code__`` reassigned or changed in place while the site is hot. The oracle is
  the unpatched baseline interpreter for programs without ``=>``, and the same
  program with specialization kept cold (a PEP 523 frame evaluator, under which no
  call specializes) for programs with it.
- ``code-objects``: the code of functions with late defaults, mutated (opcode swaps,
  changed arguments, inserted and deleted instructions, a changed exception table,
  parameters moved in and out of cells, changed constants) and rebuilt with
  ``replace()``, ``types.CodeType()`` and ``marshal``. Every mutation keeps the
  upstream instructions as upstream CPython needs them (the stack effects, the
  arguments, the jump targets, the locals they read), so that only the fork's own
  instructions and its unbound parameters can go wrong; the oracle is that the
  interpreter gives a Python exception or a result, never a crash.
- ``introspection``: random functions put through ``functools.partial``,
  reassigned ``__defaults__``/``__kwdefaults__`` (shorter, longer, late-default
  objects of other functions and of none), ``types.FunctionType`` rebuilds,
  ``copy`` and ``pickle`` by value; the oracle is the call itself: what
  ``inspect.signature()`` shows and what ``bind()`` + ``apply_defaults()``
  predict must be what the call does, default by default (each late default
  records that it ran).

Each runs its cases in batches, in subprocesses of the interpreter under test, so a
crash is caught and pinned to its case; each case is a function of the seed and its
number, so ``--seed S --case N`` replays it. The last line of a run is
``oracle NAME: N cases, M failures (seed S)``; the exit status is 1 if any failed.

Modules: harness (batches, subprocesses, the loop over cases, the report),
specialization, code_objects, introspection, cli.
"""
