"""Grammar fuzzer for PEP 671 late-bound defaults.

Run it from the repository root with the PATCHED interpreter (the hypothesmith
mode needs the venv that tools.check.run_pytest makes, build/venv, where
tests/requirements.txt installs it):

    ./python -m tools.check.fuzz_grammar stdlib --seed 1 --seconds 60
    build/venv/bin/python -m tools.check.fuzz_grammar hypothesmith --seed 1 --seconds 60
    build/venv/bin/python -m tools.check.fuzz_grammar check FILE.py    # a reproducer

Programs come from two places; `=>` gets into them by injection:

stdlib        The .py files of the running interpreter's Lib/ (the directory
              of os.py).  Each case picks a function or lambda in a random
              file and cuts out the top-level statement holding it (a big
              class keeps only the member on the path), then either
                ast:       at the AST level, turns random defaults into
                           ast.LateDefault and adds late defaults to
                           parameters without one (positional defaults stay
                           contiguous at the end, keyword-only anywhere, a new
                           keyword-only parameter when nothing else fits),
                           with expressions that read other parameters
                           (later ones too, *args/**kwargs, enclosing
                           parameters, body locals), nested lambdas with
                           their own late defaults, comprehensions, f-strings,
                           displays, __class__/super(), a rare walrus, await
                           in an async def, and rarely yield or await where
                           they are SyntaxErrors;
                source:    in the real source text, with tokenize: rewrites
                           the `=` of existing defaults, keeping comments,
                           line continuations and spacing, as `=>`, `x=>1`,
                           `x => 1`, `=> \\<newline>`, `=>` then a newline or
                           a comment inside the parentheses of a def; in a
                           quarter of the cases one of them is spelled wrongly
                           instead (`= >`, `=\\<newline>>`, `=<newline>>`,
                           `=>=`), which must be a SyntaxError;
                misplaced: puts a LateDefault where the AST may not have one
                           (any other expression slot, a LateDefault inside a
                           LateDefault, more defaults than parameters);
                plain:     the unmodified statement (a control).
hypothesmith  Programs from hypothesmith.from_grammar() and from_node() (see
              --strategy), generated under Hypothesis' @given with a seed per
              batch (one worker subprocess per batch).  The lark grammar knows
              nothing of `=>`, and few generated programs have a def, so late
              defaults are injected at the AST level into every def/lambda of
              the program (as above) and into a def/lambda/method added to
              it whose late defaults are expressions taken from the program
              (the program sometimes becoming the body of a def with late
              defaults); or that def is appended to the generated text kept
              verbatim (its comments, form feeds, CRLF, odd unicode); or the
              `=` of an existing default is rewritten in the text, as above.
              A failure other than a crash is shrunk by Hypothesis.

The checks, for every case:
  * compile() never crashes or hangs the interpreter (the checks run in a
    worker subprocess per batch; a worker that dies or stops responding is
    reported with the case it was checking);
  * compile() of the source, of its AST and of the injected AST either succeed
    or raise SyntaxError/ValueError (anything else is a failure; a misplaced
    tree may also get the TypeError upstream's validator raises for some
    malformed trees), and the source and its AST agree; a misplaced
    LateDefault must be rejected; symtable and compile(optimize=2) behave;
  * ast.parse(ast.unparse(tree)) gives the same ast.dump, for the parsed and
    for the injected tree, and ast.unparse is idempotent; a source rewrite
    parses to exactly the original tree with those defaults made late, and a
    wrong spelling is a SyntaxError; tokenize yields one FATARROW token per
    LateDefault;
  * the code object survives marshal and dis; the rewritten function itself
    (only its def statement, decorators removed, the names it uses stubbed,
    nothing else of the module run) is created; its __defaults_extra__ and
    __kwdefaults_extra__ hold None for each early default and, for each late
    one, the text `from __future__ import annotations` makes of the
    expression (the PEP's definition; when the expression cannot be an
    annotation, text that parses back to it); an annotation holding a lambda
    with `=>` is rendered parsably under future annotations; and
    inspect.signature() renders the function.  Where the C unparser fails the
    same way without `=>` (upstream: nested f-strings that need triple
    quotes), the case is counted, not failed.

Deterministic for a seed: stdlib case N of seed S is the same on every run
(replay it with `stdlib --seed S --case N --show`); a hypothesmith batch is
the same for the same seed.  A failure is confirmed in a fresh interpreter,
minimized (lines, then AST nodes) and printed with the seed, the case, the
file and function, the reproducer (also saved under --artifacts, for the
`check` command); the exit status is then 1.  --tolerate CHECK counts the
failures of a known bug instead (e.g. "extras text is constant-folded": a late
default's text is rendered from the constant-folded AST, `a=>1 + 2` shows as
`a=>3`).  The last line is `fuzz-grammar: N cases, K failures (MODE, seed S)`.

The package, by concern: cases (Case, Outcome, shared AST helpers), checks
and functions (what is checked), generate and inject (getting `=>` in),
corpus (the stdlib and hypothesmith programs), worker (the subprocess and
its event protocol), supervisor (scheduling, findings, reports), minimize,
cli.
"""

from __future__ import annotations
