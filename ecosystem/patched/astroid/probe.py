"""Ecosystem probe for astroid: build the tree of the shared corpus, check that
as_string() gives the same program back, and infer calls through late defaults.

Stdlib only; runs astroid in the venv whose interpreter is `python`.
"""

from __future__ import annotations

import json
import pathlib

import probekit

# Calls of the corpus's self-test (its ``if __name__ == "__main__"`` block)
# whose value astroid can only get right by evaluating a late default in the
# called function's scope, with the arguments of that call.
EXPECTED_INFERENCES = {
    "square_or(3)": 9,  # lambda x, y=>x * x: y
    "Greeter('ada').greet('bob')": "Hello, bob",  # text=>f"{self.greeting}, {other}"
    "Greeter('a').describe()": "Greeter",  # label=>__class__.__name__
}

_CHILD = r"""
import ast, json, sys, traceback
source = open(sys.argv[1], encoding="utf-8").read()
result = {}
try:
    import astroid
    from astroid import nodes
    result["version"] = astroid.__version__
    module = astroid.parse(source, module_name="late_defaults")
    result["late_defaults"] = sum(1 for _ in module.nodes_of_class(nodes.LateDefault))
    result["expected_late_defaults"] = sum(
        isinstance(node, ast.LateDefault) for node in ast.walk(ast.parse(source))
    )
    text = module.as_string()
    result["round_trip"] = ast.dump(ast.parse(text)) == ast.dump(ast.parse(source))
    result["stable"] = astroid.parse(text).as_string() == text
    calls = {call.as_string(): call for call in module.nodes_of_class(nodes.Call)}
    inferred = {}
    for wanted in json.loads(sys.argv[2]):
        if wanted not in calls:
            inferred[wanted] = "call not found in the corpus"
            continue
        inferred[wanted] = [
            getattr(value, "value", repr(value)) for value in calls[wanted].inferred()
        ]
    result["inferred"] = inferred
except Exception:
    result["error"] = traceback.format_exc().strip().splitlines()[-1]
print(json.dumps(result))
"""


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    proc = probekit.run(
        [python, "-c", _CHILD, corpus, json.dumps(list(EXPECTED_INFERENCES))],
        workdir, timeout=600,
    )
    result = probekit.last_json(proc.stdout)
    if not isinstance(result, dict):
        tail = probekit.last_line(proc.stderr, "no output")
        return False, f"astroid probe did not run (exit {proc.returncode}): {tail}"
    version = result.get("version", "?")
    if "error" in result:
        return False, f"astroid {version}: astroid.parse(corpus) -> {result['error']}"
    problems = []
    if result["late_defaults"] != result["expected_late_defaults"]:
        problems.append(
            f"{result['late_defaults']} LateDefault nodes for "
            f"{result['expected_late_defaults']} late defaults"
        )
    if not result["round_trip"]:
        problems.append("as_string() does not parse to the same ast")
    if not result["stable"]:
        problems.append("as_string() is not stable when reparsed")
    for call, expected in EXPECTED_INFERENCES.items():
        got = result["inferred"][call]
        if got != [expected]:
            problems.append(f"{call} inferred {got!r}, expected [{expected!r}]")
    if problems:
        return False, f"astroid {version}: " + "; ".join(problems)
    return True, (
        f"astroid {version}: {result['late_defaults']} LateDefault nodes, as_string() "
        f"round-trips to the same ast; inferred "
        + ", ".join(f"{call} == {value!r}" for call, value in EXPECTED_INFERENCES.items())
    )
