"""Build the PEP and the CPython documentation of the patched tree with Sphinx.

Commands:
  pep      render PEP/pep-0671.rst (PEP/conf.py) into build/docs/pep/, warnings
           being errors
  cpython  build the documentation of build/cpython into build/docs/html/, build
           the pristine documentation too (once; its warnings are cached), and
           fail on any warning that the pristine documentation does not have
  check    the fast check that `make test` runs: the PEP with warnings as errors
           (no output kept), sphinx-lint on the .rst files that the patch
           series changes, and the links of the Markdown files (README.md,
           CONTRIBUTING.md, docs/, ...): every relative link and #anchor resolves
           (md-dead-link-check; web links are not fetched, pyproject.toml says so)
  autodoc  the autodoc page of examples/autodoc/ (a module with late defaults)
           into build/docs/autodoc/, with the patched Sphinx of ecosystem/patched/sphinx/
           from build/ecosystem/venv (made by ./python, see tools.ecosystem),
           warnings being errors; fails unless every late default shows as `=>`
           with the class late_default_value

Sphinx and its extensions come from the patched tree's Doc/requirements.txt,
installed with sphinx-lint and md-dead-link-check into a venv (build/docs-venv) made by the Python
running this program; the venv is reused while the requirements are unchanged.
The autodoc page needs an interpreter that parses `=>`, hence the other venv.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tarfile
import tokenize
from pathlib import Path

from tools.common import (ToolError, built_python, ensure_venv, exits_on_tool_error, rel, run,
                          run_logged, say, scrubbed_env)
from tools.ecosystem.manifest import load_tools, load_unpatched
from tools.ecosystem.venvs import prepare_venv
from tools.paths import DOCS_OUT, DOCS_VENV, PYTHON, REPO, TARBALL, TREE, shown

SPHINX_LINT = "sphinx-lint==1.0.2"
MD_LINK_CHECK = "md-dead-link-check==1.3.0"


def docs_venv(venv: Path, tree: Path) -> Path:
    """The docs venv's python: Sphinx from the tree's Doc/requirements.txt, sphinx-lint and
    md-dead-link-check."""
    requirements = tree / "Doc" / "requirements.txt"
    if not requirements.exists():
        raise ToolError(f"{requirements} is missing; run `make` first to create the tree")
    return ensure_venv(Path(sys.executable), venv, [requirements, SPHINX_LINT, MD_LINK_CHECK],
                       hash_also=[tree / "Doc" / "constraints.txt"],
                       pip_cwd=requirements.parent)


def build_pep(python: Path, out: Path | None) -> int:
    """Render the PEP with warnings as errors; out=None builds without output."""
    builder, target = ("html", out) if out is not None else ("dummy", DOCS_OUT / "pep-check")
    say(f"PEP: sphinx-build -b {builder} -W PEP/ {target.relative_to(REPO)}")
    result = run([str(python), "-m", "sphinx", "-b", builder, "-W", "--keep-going", "-q",
                  "-d", str(DOCS_OUT / "pep-doctrees"),
                  str(REPO / "PEP"), str(target)], check=False)
    if result.returncode == 0 and out is not None:
        say(f"PEP: {out.relative_to(REPO)}/pep-0671.html")
    return result.returncode


def changed_rst_files(tree: Path) -> list[Path]:
    out = run(["git", "-C", str(tree), "diff", "--name-only", "--diff-filter=AM",
               "upstream", "HEAD", "--", "*.rst"], capture=True).stdout
    return [tree / name for name in out.split()]


def lint(python: Path, tree: Path) -> int:
    files = changed_rst_files(tree) + [REPO / "PEP" / "pep-0671.rst"]
    say(f"sphinx-lint on {len(files)} changed .rst file(s)")
    result = run([str(python), "-m", "sphinxlint", "--enable=default-role",
                  *map(str, files)], check=False)
    return result.returncode


def check_links(python: Path) -> int:
    """The relative links and #anchors of the Markdown files git tracks, checked by
    md-dead-link-check from the repository root (its settings: pyproject.toml)."""
    say("links: every relative link and #anchor of the Markdown files git tracks")
    result = run([str(python), "-m", "md_dead_link_check", "--no-color"], cwd=REPO,
                 check=False)
    return result.returncode


WARNING = re.compile(r"^(?P<path>[^:\s]+\.rst)(?::\d+)?: (?P<kind>WARNING|ERROR): (?P<text>.*)$")


def sphinx_warnings(python: Path, doc: Path, out: Path, log: Path) -> set[str]:
    """Build the docs in doc/ into out/; return its warnings without line numbers."""
    say(f"sphinx-build -b html {doc} -> {out.relative_to(REPO)} (log: {log.relative_to(REPO)})")
    returncode = run_logged([str(python), "-m", "sphinx", "-b", "html", "-j",
                             str(os.cpu_count() or 2), "-q", "--keep-going", "-d",
                             str(out.parent / (out.name + "-doctrees")), str(doc), str(out)], log)
    warnings = set()
    for line in log.read_text().splitlines():
        match = WARNING.match(line)
        if match:
            path = match["path"]
            path = path[path.find("/Doc/") + 5:] if "/Doc/" in path else path
            warnings.add(f"{path}: {match['kind']}: {match['text']}")
    if returncode != 0 and not warnings:
        raise ToolError(f"the documentation build failed; see {log}")
    return warnings


def pristine_doc(tarball: Path, dest: Path) -> Path:
    if not (dest / "Doc" / "conf.py").exists():
        say(f"unpacking the pristine documentation into {dest.relative_to(REPO)}")
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        with tarfile.open(tarball) as tf:
            top = tf.getnames()[0].split("/")[0]
            members = [m for m in tf.getmembers()
                       if m.name.split("/")[1:2] and m.name.split("/")[1] in ("Doc", "Include", "Misc", "Lib")]
            tf.extractall(dest, members=members, filter="data")
        for child in (dest / top).iterdir():
            child.rename(dest / child.name)
        (dest / top).rmdir()
    return dest / "Doc"


def build_cpython(python: Path, tree: Path, tarball: Path, out: Path) -> int:
    docs = DOCS_OUT
    docs.mkdir(parents=True, exist_ok=True)
    patched = sphinx_warnings(python, tree / "Doc", out, docs / "cpython-html.log")
    cache = docs / "baseline-warnings.txt"
    if cache.exists():
        baseline = set(cache.read_text().splitlines())
    else:
        doc = pristine_doc(tarball, docs / "pristine")
        baseline = sphinx_warnings(python, doc, docs / "pristine-html",
                                   docs / "pristine-html.log")
        cache.write_text("".join(f"{w}\n" for w in sorted(baseline)))
    new = sorted(patched - baseline)
    say(f"CPython docs: {out.relative_to(REPO)}/index.html; {len(patched)} warning(s), "
        f"{len(baseline)} in the pristine docs, {len(new)} new")
    for warning in new:
        print(f"new warning: {warning}")
    return 1 if new else 0


AUTODOC = REPO / "examples" / "autodoc"


def late_default_count(module: Path) -> int:
    """How many `=>` the module's code has (not its docstrings), from tokens: one token
    on the patched interpreter, `=` and `>` side by side on a stock one."""
    with open(module, "rb") as f:
        tokens = [t for t in tokenize.tokenize(f.readline) if t.type == tokenize.OP]
    return sum(t.string == "=>" for t in tokens) + \
        sum(1 for first, second in zip(tokens, tokens[1:])
            if first.string == "=" and second.string == ">" and first.end == second.start)


def build_autodoc(python: Path, out: Path) -> int:
    """The autodoc page of examples/autodoc/ with the patched Sphinx, checked for `=>`."""
    vpy, _ = prepare_venv(built_python(python), "patched", load_tools(), load_unpatched())
    say(f"autodoc: sphinx-build -b html -W {rel(AUTODOC)} {rel(out)}")
    if out.exists():
        shutil.rmtree(out)
    # no __pycache__ in examples/autodoc/ from autodoc's import of the module
    result = run([vpy, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-q",
                  "-d", str(out.parent / "autodoc-doctrees"), str(AUTODOC), str(out)],
                 check=False, env=scrubbed_env({"PYTHONDONTWRITEBYTECODE": "1"}))
    if result.returncode != 0:
        return result.returncode
    page = (out / "index.html").read_text(encoding="utf-8")
    wanted = late_default_count(AUTODOC / "sequences.py")
    shown = page.count('<span class="o"><span class="pre">=&gt;</span></span>')
    marked = page.count("late_default_value")
    if not wanted or shown != wanted or marked != wanted:
        print(f"error: {rel(out)}/index.html shows {shown} `=>` and {marked} "
              f"late_default_value for the {wanted} late defaults of "
              f"{rel(AUTODOC)}/sequences.py: is Sphinx in {rel(vpy)} the patched one?",
              file=sys.stderr)
        return 1
    say(f"autodoc: {rel(out)}/index.html, {wanted} late defaults shown as `=>`")
    return 0


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m tools.docs.build_docs",
                                     description=__doc__.split("\n\n")[0],
                                     epilog=__doc__.split("\n\n", 1)[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("pep", "cpython", "check", "autodoc"))
    parser.add_argument("--tree", type=Path, default=TREE,
                        help=f"the patched tree (default: {shown(TREE)})")
    parser.add_argument("--tarball", type=Path, default=TARBALL,
                        help="the verified upstream tarball (for the pristine docs)")
    parser.add_argument("--venv", type=Path, default=DOCS_VENV,
                        help=f"where to install Sphinx (default: {shown(DOCS_VENV)})")
    parser.add_argument("--python", type=Path, default=PYTHON,
                        help="autodoc: the patched interpreter (default: ./python)")
    args = parser.parse_args(argv)
    if args.command == "autodoc":
        return build_autodoc(args.python, DOCS_OUT / "autodoc")
    python = docs_venv(args.venv.resolve(), args.tree.resolve())
    docs = DOCS_OUT
    if args.command == "pep":
        return build_pep(python, docs / "pep")
    if args.command == "check":
        status = build_pep(python, None)
        status |= lint(python, args.tree.resolve())
        status |= check_links(python)
        say("docs check: " + ("OK" if status == 0 else "FAILED"))
        return status
    status = build_pep(python, docs / "pep")
    status |= build_cpython(python, args.tree.resolve(), args.tarball.resolve(), docs / "html")
    return status


if __name__ == "__main__":
    sys.exit(main())
