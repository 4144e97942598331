"""Oracles for PEP 671 that do not share the implementation's assumptions.

Our own tests and the differential fuzzer (tools.check.fuzz_late_defaults) run code that
our compiler emits, through call sites that stay with one callee. These three look
where those do not, each with an oracle that is not our code's idea of itself:

- ``specialization``: random programs of functions with late, early and no defaults
  (positional, keyword-only, methods, closures, generators), several made from one
  code object (closures of one ``def``, lambdas that compile to one code object, code
  made from a tree without positions, ``types.FunctionType``), hot call sites warmed
  with one callee and then given another, ``__defaults__``, ``__kwdefaults__`` and
  ``__code__`` reassigned or changed in place while the site is hot; each call's
  result or exception is recorded, and what a generator's frame holds before it
  starts (what the call bound). The oracle is
  the unpatched baseline interpreter for programs without ``=>``, and the same
  program with specialization kept cold (a PEP 523 frame evaluator, under which no
  call specializes) for programs with it.
- ``code-objects``: the code of functions with late defaults, rewritten the ways
  tools rewrite code while keeping upstream's invariants (stack-neutral
  instructions inserted after RESUME, at random boundaries before their labels and
  at block starts after them: NOP, EXTENDED_ARG + NOP, LOAD_CONST + POP_TOP, a probe
  call, LOAD_FAST of a parameter where it is bound; EXTENDED_ARG prefixes;
  constants appended, reordered or dropped; names appended; NOP padding) and
  rebuilt with ``replace()``, ``types.CodeType()``, ``marshal`` or the ``bytecode``
  package. A late-bound function's code is ordinary code, trusted as upstream
  trusts any (CPython does not verify bytecode): the mutations that broke upstream's
  invariants to probe a validator are gone. The oracle is differential: called in
  the same ways, each site warmed up, the mutant gives what the unmutated function
  gives (the same value, or the same exception type and message), and the process
  lives.
- ``introspection``: random functions put through ``functools.partial``,
  reassigned ``__defaults__``/``__kwdefaults__`` (shorter, longer, late-default
  objects of other functions and of none), ``__code__`` of another function,
  ``types.FunctionType`` rebuilds, ``copy`` and ``pickle`` by value; and C
  functions that Argument Clinic declares with late defaults (``bisect``'s, and
  ``_testclinic``'s), bare or under a partial. The rule: the signature says what
  the call does. ``inspect.signature()`` shows a late-default object as a late
  default (``name=>text``, the object's own text) exactly where the callee
  evaluates one (the code has a late default for the parameter, known from its
  constants; the Clinic declaration has one), and as a value elsewhere; its
  defaults are the objects the function holds, aligned as a call aligns them;
  ``__defaults_extra__``/``__kwdefaults_extra__`` are their texts; ``bind()`` +
  ``apply_defaults()`` predict the call; leaving a parameter out runs the code's
  own late default for it (each records that it ran) exactly when the value
  bound is a late-default object and the code has one; and passing any
  late-default object for a C function's late-bound parameter is leaving it out.

Each runs its cases in batches, in subprocesses of the interpreter under test, so a
crash is caught and pinned to its case; each case is a function of the seed and its
number, so ``--seed S --case N`` replays it. The last line of a run is
``oracle NAME: N cases, M failures (seed S)``; the exit status is 1 if any failed.

Modules: harness (batches, subprocesses, the loop over cases, the report),
specialization, code_objects, introspection, cli.
"""
