"""Run MagicPython-style grammar tests with shiki: the tests of the patch.

MagicPython's tests (its test/**/*.py, run upstream by `syntaxdev test`) are Python
files in two parts, split by the last two blank lines: the source, then the expected
tokens, one line each, `text : scope, scope, ...` (the text padded to 13 columns, the
scopes of the token split, deduplicated and sorted). This runs such files with the
grammar tokenized by shiki (tokenize.mjs of the build), as VS Code's TextMate engine
does, and writes a JUnit XML report. The patch's own tests are the files it adds to
MagicPython's test/ (test/functions/late_defaults*.py), taken from the patch.

    python3 run_tests.py PYTHON JUNIT [--grammar PATH] (--patch PATCH | [--update] TEST...)

PYTHON: the venv whose share/magicpython/ holds the build (pin.toml's [test] commands
give the patched venv's); the grammar is its python.json unless --grammar says another
(a path, or "shiki" for @shikijs/langs' own). --patch: the tests are the test files
that PATCH (magicpython-upstream.patch) adds, and one more case checks that the grammar
differs from the python grammar of @shikijs/langs (shiki's, from the same tm-grammars)
in the rules that PATCH changes in MagicPython's YAML and in no other. TESTs: files or
directories, such as a MagicPython checkout's test/; --update writes each one's expected
part from the grammar, as `syntaxdev test --overwrite-tests` does (review the result).
Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

# MagicPython's YAML source, and a rule of its repository (at the second level)
SOURCE = "grammars/src/MagicPython.syntax.yaml"
_RULE = re.compile(r"^ {2}([\w.-]+):\s*$")
# Run by node in share/magicpython: the rules of GRAMMAR that differ from the python
# grammar of @shikijs/langs, as JSON.
_DIFFER = """
import fs from 'node:fs'
const ours = JSON.parse(fs.readFileSync(process.argv[1], 'utf8'))
const shiki = (await import('@shikijs/langs/python')).default[0]
const differ = Object.keys({...ours.repository, ...shiki.repository}).filter((k) =>
  JSON.stringify(ours.repository[k]) !== JSON.stringify(shiki.repository[k]))
for (const key of ['patterns', 'scopeName'])
  if (JSON.stringify(ours[key]) !== JSON.stringify(shiki[key])) differ.push(key)
process.stdout.write(JSON.stringify(differ.sort()))
"""


def split_test(text: str) -> tuple[str, str]:
    """(source, expected) of a test file, as syntaxdev reads them."""
    source, sep, expected = text.rpartition("\n\n\n")
    if not sep:
        source, expected = expected, ""
    return source.strip("\n"), expected.strip("\n")


def render(lines: list[list[list[str]]]) -> str:
    """Tokens as syntaxdev prints them."""
    rows = []
    for tokens in lines:
        for text, *scopes in tokens:
            names = sorted({name for scope in scopes for name in scope.split()})
            rows.append(f"{text.ljust(13)} : {', '.join(names)}")
    return "\n".join(rows)


def patch_files(patch: Path) -> dict[str, list[list[str]]]:
    """path -> the hunks of patch for that file, each a list of its lines (with their
    sign: ' ', '-' or '+'); a file the patch creates has the path "+" + path."""
    files: dict[str, list[list[str]]] = {}
    hunks: list[list[str]] | None = None
    lines = patch.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines):
        if line.startswith("diff --git "):
            path = line.rsplit(" b/", 1)[1]
            new = any(x.startswith("new file mode") for x in lines[number + 1:number + 3])
            hunks = files.setdefault(("+" if new else "") + path, [])
        elif line.startswith("@@ ") and hunks is not None:
            hunks.append([])
        elif hunks and line[:1] in (" ", "-", "+") and not line.startswith(("+++ ", "--- ")):
            hunks[-1].append(line)
    return files


def tests_of_patch(patch: Path, scratch: Path) -> list[Path]:
    """The test files that patch adds to MagicPython's test/, written under scratch."""
    tests = []
    for path, hunks in patch_files(patch).items():
        if path.startswith("+test/") and path.endswith(".py"):
            test = scratch / path[1:]
            test.parent.mkdir(parents=True, exist_ok=True)
            test.write_text("".join(line[1:] + "\n" for hunk in hunks for line in hunk),
                            encoding="utf-8")
            tests.append(test)
    if not tests:
        raise SystemExit(f"{patch} adds no test file to MagicPython's test/")
    return sorted(tests)


def changed_rules(patch: Path) -> list[str]:
    """The rules of MagicPython's repository that patch changes in its YAML source."""
    changed = set()
    for hunk in patch_files(patch).get(SOURCE, []):
        rule = None
        for line in hunk:
            if match := _RULE.match(line[1:]):
                rule = match[1]
            if line[0] != " ":
                if rule is None:
                    raise SystemExit(f"{patch}: a hunk of {SOURCE} does not hold the name "
                                     "of the rule it changes (README.md)")
                changed.add(rule)
    return sorted(changed)


def tokenize(share: Path, grammar: str, sources: dict[Path, str],
             scratch: Path) -> dict[Path, list[list[list[str]]]]:
    """Each source tokenized by shiki (one node process for all)."""
    scratch.mkdir(parents=True, exist_ok=True)
    paths = {}
    for number, (test, source) in enumerate(sorted(sources.items())):
        path = scratch / f"{number}-{test.name}"
        path.write_text(source, encoding="utf-8")
        paths[test] = path
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    proc = subprocess.run(["node", str(share / "tokenize.mjs"), grammar,
                           *map(str, paths.values())], cwd=share, capture_output=True,
                          text=True, env=env, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise SystemExit(f"node tokenize.mjs failed: {proc.stderr.strip()[-2000:]}")
    found = json.loads(proc.stdout)
    return {test: found[str(path)] for test, path in paths.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("python", type=Path)
    ap.add_argument("junit", type=Path)
    ap.add_argument("tests", nargs="*", type=Path)
    ap.add_argument("--grammar", help="a grammar's JSON, or 'shiki' (default: the build's)")
    ap.add_argument("--patch", type=Path, help="run the tests that this patch adds")
    ap.add_argument("--update", action="store_true", help="write the expected tokens")
    args = ap.parse_args(argv)
    if bool(args.patch) == bool(args.tests) or (args.update and not args.tests):
        ap.error("give either --patch or TESTs (--update: with TESTs)")
    share = Path(os.path.abspath(args.python)).parent.parent / "share" / "magicpython"
    grammar = args.grammar or str(share / "python.json")
    scratch = args.junit.parent / f"{args.junit.stem}-tests"
    if args.patch:
        files = tests_of_patch(args.patch, scratch)
    else:
        files = sorted(f for t in args.tests
                       for f in ([t] if t.is_file() else t.rglob("*.py")))
    parts = {f: split_test(f.read_text(encoding="utf-8")) for f in files}
    tokens = tokenize(share, grammar, {f: source for f, (source, _) in parts.items()},
                      args.junit.parent / f"{args.junit.stem}-sources")
    suite = ET.Element("testsuite", name="magicpython")
    failed = 0
    for test in files:
        source, expected = parts[test]
        got = render(tokens[test])
        case = ET.SubElement(suite, "testcase", classname="magicpython",
                             name=test.relative_to(scratch).as_posix() if args.patch
                             else str(test))
        if args.update:
            test.write_text(f"{source}\n\n\n{got}\n", encoding="utf-8")
        elif got != expected:
            failed += 1
            wrong = [f"{n + 1}: expected {e!r}, got {g!r}" for n, (e, g) in
                     enumerate(zip(expected.splitlines(), got.splitlines())) if e != g]
            ET.SubElement(case, "failure", message=(wrong or ["the token counts differ"])[0])
            print(f"FAIL {test}: {(wrong or ['the token counts differ'])[0]}")
    if args.patch:
        # the grammar is shiki's python but for the rules the patch changes
        wanted = changed_rules(args.patch)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        proc = subprocess.run(["node", "--input-type=module", "-e", _DIFFER, grammar],
                              cwd=share, capture_output=True, text=True, env=env,
                              stdin=subprocess.DEVNULL)
        differ = [] if grammar == "shiki" else json.loads(proc.stdout) \
            if proc.returncode == 0 else proc.stderr[-500:]
        case = ET.SubElement(suite, "testcase", classname="magicpython",
                             name="the late-default rules are all that differ from shiki's")
        if differ != wanted:
            failed += 1
            ET.SubElement(case, "failure", message=f"rules that differ: {differ}")
            print(f"FAIL: the rules that differ from @shikijs/langs' python: {differ}, "
                  f"not those the patch changes in {SOURCE}, {wanted}")
    total = len(suite)
    suite.set("tests", str(total))
    suite.set("failures", str(failed))
    args.junit.parent.mkdir(parents=True, exist_ok=True)
    ET.ElementTree(suite).write(args.junit, encoding="utf-8", xml_declaration=True)
    print(f"{total - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
