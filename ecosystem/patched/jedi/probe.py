"""Ecosystem probe for jedi: a signature and a completion on the shared corpus.

In the venv of the interpreter under test, jedi works on ``late_defaults.py``
and the probe passes when:

- the signature at ``bisect_right(`` (a call added after the corpus) is
  ``bisect_right(a, x, lo=0, hi=>len(a), *, key=None)``, both from static
  analysis (``jedi.Script``) and at run time (``jedi.Interpreter`` with the
  corpus imported as a module, where jedi reads ``inspect.signature``);
- completing ``a`` inside the late default ``hi=>len(a)`` offers the parameter
  ``a`` of ``bisect_right`` (the corpus has no other name ``a``: it is found only
  if the default is looked up in the function's scope).

jedi's cache goes to workdir.  Standard library only; no network.
"""

from __future__ import annotations

import pathlib

import probekit

EXPECTED_SIGNATURE = "bisect_right(a, x, lo=0, hi=>len(a), *, key=None)"
LATE_DEFAULT = "hi=>len(a)"

# Run by the interpreter under test, with jedi from its venv.
_SCRIPT = r'''
import importlib.util, json, pathlib, sys

import jedi

path, cache, late_default = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
jedi.settings.cache_directory = cache
source = path.read_text(encoding="utf-8")

code = source + "\nbisect_right("
last = code.splitlines()
signatures = jedi.Script(code, path=path).get_signatures(len(last), len(last[-1]))

sys.dont_write_bytecode = True  # no __pycache__ next to the corpus
spec = importlib.util.spec_from_file_location("late_defaults", path)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
runtime = jedi.Interpreter("late_defaults.bisect_right(", [{"late_defaults": module}])

line_nr, line = next((i, l) for i, l in enumerate(source.splitlines(), 1)
                     if "def bisect_right(" in l)
column = line.index(late_default) + len(late_default) - 1  # after the "a" of "len(a"
completions = jedi.Script(source, path=path).complete(line_nr, column)

print(json.dumps({
    "jedi": jedi.__version__,
    "signatures": [s.to_string() for s in signatures],
    "runtime": [s.to_string() for s in runtime.get_signatures()],
    "completions": [[c.name, c.type] for c in completions],
    "position": [line_nr, column],
}))
'''


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    cache = workdir / "jedi-cache"
    cache.mkdir(parents=True, exist_ok=True)
    result = probekit.run([python, "-c", _SCRIPT, corpus, cache, LATE_DEFAULT], workdir,
                          timeout=600)
    r = probekit.last_json(result.stdout)
    if result.returncode != 0 or not isinstance(r, dict):
        return False, "jedi did not run: %s" % probekit.error_line(result)

    signature_ok = r["signatures"] == r["runtime"] == [EXPECTED_SIGNATURE]
    completion_ok = ["a", "param"] in r["completions"]
    static = " | ".join(r["signatures"]) or "none"
    runtime = " | ".join(r["runtime"]) or "none"
    if static == runtime:
        signature = "signature (static and run time) %s" % static
    else:
        signature = "signature: static %s, run time %s" % (static, runtime)
    offered = sorted({name for name, _ in r["completions"]})
    completion = "completing 'a' in '%s' (line %d) offers %s" % (
        LATE_DEFAULT, r["position"][0],
        "the parameter 'a'" if completion_ok else (
            ", ".join(offered[:5]) + (" ..." if len(offered) > 5 else "")
            if offered else "nothing"))
    return signature_ok and completion_ok, "%s; %s" % (signature, completion)
