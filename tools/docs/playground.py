"""The playground: a static page that runs build/wasm/python.wasm in the browser.

  python3 -m tools.docs.playground build          (make playground) -> build/playground/
  python3 -m tools.docs.playground test           (make playground-test)
  python3 -m tools.docs.playground dist [--only-if-built]
                          -> build/dist/pep671-playground-VERSION.tar.xz (make dist)

build writes the page: playground/index.html, worker.js and poll.js as they are; playground.js
with editor.js and CodeMirror 6 bundled into one playground.js by esbuild; examples/tour.py
(the code the editor starts with); examples.json (the examples menu, made from the
tour's sections and the PEP's examples); python.wasm and lib/python313.zip (make wasm)
gzipped; lib/black.zip.gz (the Format button: the patched black of ecosystem/patched/
and its dependencies); lib/lbdefaults.zip.gz (the Compare button: tools/lbdefaults's
rewrite, whose to_sentinel_idiom writes the code as stock Python); and the WASI shim,
@bjorn3/browser_wasi_shim. The npm packages (CodeMirror, the shim, esbuild) are those
of playground/package-lock.json, at exact versions (`npm ci` in build/playground-npm,
only when the lock changed). CodeMirror's Python grammar,
@lezer/python, is the patched one of ecosystem/patched/lezer-python, built by the
ecosystem's own build (tools.ecosystem.venvs.tool_build, kept per user like its other
builds): the bundle takes it in place of the npm release. The bundle is made again only
when its inputs' digest changes. No server code: `python3 -m http.server -d
build/playground` serves it.

test runs tests/test_wasm.py (python.wasm under Node.js's WASI) and
tests/test_playground.py (the page in Debian's headless chromium, driven by
Playwright from build/venv) with PEP671_PLAYGROUND_TEST=1, so that a missing
piece fails instead of skipping. chromium is installed first when missing (as
root, through tools.build.deps; otherwise the command to run is shown).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tools.build import deps, pq, wasm
from tools.build.install import write_sha256sums
from tools.common import (ToolError, built_python, create_venv, ensure_venv,
                          exits_on_tool_error, rel, run, say, scrubbed_env, sha256_file)
from tools.paths import (BUILD, CPYTHON_VERSION, DIST, PATCHES, PLAYGROUND, PLAYGROUND_OUT,
                         PYTHON, REPO, TEST_REQUIREMENTS, TESTS, TREE, VENV, WASM_LIB, WASM_OUT,
                         WASM_PYTHON, shown)

NPM_DIR = BUILD / "playground-npm"
SHIM = Path("node_modules/@bjorn3/browser_wasi_shim")
ESBUILD = Path("node_modules/esbuild/bin/esbuild")
PAGE_FILES = ("index.html", "worker.js", "poll.js", "favicon.svg")
BUNDLED = ("playground.js", "editor.js", "output.js", "compare.js")  # bundled: playground.js
LICENSES = "playground.js.LICENSES.txt"     # beside it: the bundled packages' licenses
TOUR = REPO / "examples" / "tour.py"
PEP_TEXT = REPO / "PEP" / "pep-0671.rst"
BROWSER_PACKAGES = ["chromium"]
TEST_FILES = [TESTS / "test_wasm.py", TESTS / "test_playground.py", TESTS / "playground"]


def npm_install() -> Path:
    """The shim's directory in build/playground-npm/node_modules, from `npm ci`."""
    npm = shutil.which("npm")
    if npm is None:
        raise ToolError("npm (Node.js 20) is not on PATH: it installs the page's CodeMirror, "
                        "WASI shim and bundler")
    lock = PLAYGROUND / "package-lock.json"
    stamp = NPM_DIR / ".lock-sha256"
    want = sha256_file(lock)
    if not (stamp.is_file() and stamp.read_text().strip() == want and (NPM_DIR / SHIM).is_dir()
            and (NPM_DIR / ESBUILD).is_file()):
        shutil.rmtree(NPM_DIR, ignore_errors=True)
        NPM_DIR.mkdir(parents=True)
        for name in ("package.json", "package-lock.json"):
            shutil.copy2(PLAYGROUND / name, NPM_DIR / name)
        say(f"[playground] npm ci in {rel(NPM_DIR)} (CodeMirror, the WASI shim, esbuild)")
        run([npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=NPM_DIR,
            capture=True)
        stamp.write_text(want + "\n")
    return NPM_DIR / SHIM


def patched_lezer_python() -> Path:
    """dist/index.js of @lezer/python 1.1.19 with ecosystem/patched/lezer-python's patch,
    from the ecosystem's own build of it (downloaded, patched and built once per key, and
    kept per user: the same build that `make ecosystem` probes)."""
    from tools.ecosystem.manifest import THIRD_PARTY, load_tool
    from tools.ecosystem.venvs import Layout, tool_build
    tool = load_tool(THIRD_PARTY / "lezer-python")
    built = tool_build(Path(sys.executable), tool, "patched", Layout())
    index = built / "dist" / "index.js"
    if not index.is_file():
        raise ToolError(f"the patched @lezer/python build has no {index}")
    return index


def bundle(lezer_python: Path) -> Path:
    """build/playground-npm/bundle/playground.js: playground.js, editor.js and what they
    import (CodeMirror), bundled by the pinned esbuild, with "@lezer/python" taken from
    lezer_python (copied beside node_modules, so that its own imports, @lezer/lr and
    @lezer/highlight, are the ones CodeMirror uses). Made again when a source, the lock,
    the patched grammar or this file changes."""
    inputs = [PLAYGROUND / "package-lock.json", lezer_python, Path(__file__),
              *(PLAYGROUND / name for name in BUNDLED)]
    key = hashlib.sha256()
    for path in inputs:
        key.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    want = key.hexdigest()
    out = NPM_DIR / "bundle" / "playground.js"
    stamp = NPM_DIR / "bundle" / ".inputs-sha256"
    if out.is_file() and stamp.is_file() and stamp.read_text().strip() == want:
        return out
    src = NPM_DIR / "src"
    shutil.rmtree(src, ignore_errors=True)
    (src / "lezer-python").mkdir(parents=True)
    for name in BUNDLED:
        shutil.copy2(PLAYGROUND / name, src / name)
    shutil.copy2(lezer_python, src / "lezer-python" / "index.js")
    stamp.unlink(missing_ok=True)
    say(f"[playground] esbuild: {', '.join(BUNDLED)} and CodeMirror 6 -> {rel(out)} "
        "(the patched @lezer/python)")
    meta = NPM_DIR / "bundle" / "meta.json"
    run(["nice", "-n", "10", "node", str(NPM_DIR / ESBUILD), str(src / "playground.js"),
         "--bundle", "--format=esm", "--minify", "--target=es2022", "--charset=utf8",
         "--legal-comments=eof", "--alias:@lezer/python=./src/lezer-python/index.js",
         f"--outfile={out}", f"--metafile={meta}", "--log-level=warning"],
        cwd=NPM_DIR, capture=True)
    write_licenses(meta, out.with_name(LICENSES))
    stamp.write_text(want + "\n")
    return out


def write_licenses(meta: Path, target: Path) -> None:
    """target: the license of each npm package that the bundle holds (from esbuild's
    metafile), the patched @lezer/python's being the release's."""
    packages = set()
    for path in json.loads(meta.read_text())["inputs"]:
        if m := re.match(r"node_modules/((?:@[^/]+/)?[^/]+)/", path):
            packages.add(m.group(1))
        elif path.startswith("src/lezer-python/"):
            packages.add("@lezer/python")
    parts = []
    for name in sorted(packages):
        root = NPM_DIR / "node_modules" / name
        version = json.loads((root / "package.json").read_text())["version"]
        texts = [p for p in sorted(root.iterdir())
                 if re.match(r"(LICEN[CS]E|COPYING)", p.name, re.I)]
        if not texts:
            raise ToolError(f"the npm package {name} {version} has no license file")
        patched = " (built with ecosystem/patched/lezer-python/late-defaults.patch)" \
            if name == "@lezer/python" else ""
        parts.append(f"== {name} {version}{patched} ==\n\n"
                     + "\n".join(p.read_text(encoding="utf-8").strip() for p in texts))
    target.write_text("The npm packages bundled into playground.js, and their licenses.\n\n"
                      + "\n\n".join(parts) + "\n", encoding="utf-8")


# --- the examples menu (examples.json): [{group, title, code}] ----------------------

def _blocks(lines: list[str]) -> dict[str, str]:
    """The top-level `def NAME` blocks of lines, by name."""
    found = {}
    for i, line in enumerate(lines):
        if m := re.match(r"(?:async\s+)?def\s+(\w+)", line):
            end = i + 1
            while end < len(lines) and (not lines[end].strip() or lines[end][0].isspace()):
                end += 1
            found[m.group(1)] = "\n".join(lines[i:end]).rstrip() + "\n"
    return found


# string literals that are not f-strings: their words are not names the code reads
STRINGS = re.compile(r'(?<![fF\w])("""[\s\S]*?"""|\'\'\'[\s\S]*?\'\'\'|"[^"\n]*"|\'[^\'\n]*\')')


def _words(text: str) -> set[str]:
    """The identifiers of code (its comments and plain strings left out)."""
    text = re.sub(r"(^|\s)#.*$", "", text, flags=re.M)
    text = re.sub(STRINGS, '""', text)
    return set(re.findall(r"[A-Za-z_]\w*", text))


def _bound(text: str) -> set[str]:
    """The names code binds anywhere (assignments, keyword arguments, parameters, for
    and as targets): a name it binds itself is not taken from an earlier section."""
    names = set(re.findall(r"(?<![.\w])([A-Za-z_]\w*)\s*=>?(?!=)", text))
    names |= set(re.findall(r"\b(?:for|as|def|class)\s+([A-Za-z_]\w*)", text))
    for params in re.findall(r"\b(?:def\s+\w+\s*\(|lambda\b)([^):]*)", text):
        names |= set(re.findall(r"(?:^|,)\s*\**([A-Za-z_]\w*)", params))
    return names


def _needed(text: str, earlier: dict[str, str], own: set[str]) -> list[str]:
    """The names of earlier (name -> code defining it) that text reads, with what they
    read in turn, in earlier's order; own are the names text defines itself."""
    want: set[str] = set()
    todo = [text]
    while todo:
        for name in _words(todo.pop()) & earlier.keys():
            if name not in want and name not in own:
                want.add(name)
                todo.append(earlier[name])
    return [name for name in earlier if name in want]


def tour_examples() -> list[dict[str, str]]:
    """Each section of examples/tour.py (a `section("TITLE")` call and the code up to the
    next one) as an example of its own: the section, after the imports and functions of
    earlier sections that it uses."""
    lines = TOUR.read_text(encoding="utf-8").splitlines()
    starts = [(i, m.group(2)) for i, line in enumerate(lines)
              if (m := re.match(r"""section\((["'])(.+)\1\)\s*$""", line))]
    imports = [line for line in lines[:starts[0][0]] if re.match(r"(import|from) ", line)]
    earlier: dict[str, str] = {}
    result = []
    for k, (i, title) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
        body = "\n".join(lines[i + 1:end]).strip("\n") + "\n"
        own = _blocks(lines[i + 1:end])
        defs = [earlier[name] for name in _needed(body, earlier, set(own))]
        used = "\n".join([body, *defs])
        head = [line for line in imports
                if _words(re.sub(r"^(import|from)\b", "", line)) & _words(used)]
        parts = [f"# {title}\n# (a section of examples/tour.py)\n",
                 "\n".join(head) + "\n" if head else "", *(d + "\n" for d in defs), body]
        result.append({"group": "Tour (examples/tour.py)", "title": title,
                       "code": "\n".join(p for p in parts if p)})
        earlier.update(own)
    return result


_STATEMENT = re.compile(r"(import|from|def|class|for|while|if|with|try|return|del|assert|"
                        r"pass|raise|global|nonlocal|async|print|help)\b|@")


def _is_expression(source: str) -> bool | str:
    """Whether a one-line doctest source is an expression whose value doctest shows (no
    keyword first, no `=` of an assignment outside brackets): "tuple" when it is a tuple
    written without its parentheses."""
    if "\n" in source.strip() or _STATEMENT.match(source):
        return False
    depth, comma = 0, False
    source = STRINGS.sub('""', source)
    for i, c in enumerate(source):
        if c == "#":
            break
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "=" and depth == 0:
            before, after = source[i - 1:i], source[i + 1:i + 2]
            if before not in "=<>!:" and after not in "=>":
                return False
        elif c == "," and depth == 0:
            comma = True
    return "tuple" if comma else True


def _defines(source: str) -> set[str]:
    """The names a doctest source binds at the top level (def, class, import, `=`)."""
    names: set[str] = set()
    for line in source.splitlines():
        if m := re.match(r"(?:async\s+)?(?:def|class)\s+(\w+)", line):
            names.add(m.group(1))
        elif m := re.match(r"import\s+(.+)", line):
            names |= {part.split(" as ")[-1].strip().split(".")[0]
                      for part in m.group(1).split(",")}
        elif m := re.match(r"from\s+\S+\s+import\s+\(?([^)]+)\)?", line):
            names |= {part.split(" as ")[-1].strip() for part in m.group(1).split(",")}
        elif m := re.match(r"([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*=(?![=>])", line):
            names |= {n.strip() for n in m.group(1).split(",")}
    return names


SHOW_ERROR = '''def show_error(source):
    """Run source, which the PEP shows raising an error (here a SyntaxError, which
    would stop the whole file): show the error instead."""
    try:
        exec(source, globals())
    except Exception as exc:
        print(f"{type(exc).__name__}: {exc}")
'''


def _script(example: Any) -> str:
    """One doctest example as the lines of a script that shows what doctest shows."""
    source = re.sub(r"\s*#\s*doctest:.*$", "", example.source.rstrip("\n"), flags=re.M)
    if re.search(r"\basyncio\b", source):
        # asyncio's event loop needs a socket pair, which WASI does not give python.wasm
        return "\n".join(f"# {line}" for line in source.splitlines()) + \
            "\n# (left out here: asyncio has no event loop in python.wasm under WASI)"
    want = example.want.rstrip("\n")
    if example.exc_msg is not None:
        error = example.exc_msg.strip().splitlines()[0] if example.exc_msg.strip() \
            else "an error"
        if re.match(r"(SyntaxError|IndentationError|TabError)\b", want.splitlines()[-1]):
            return f"show_error({source!r})\n# {want.splitlines()[-1]}"
        body = "\n".join("    " + line for line in source.splitlines())
        return (f"try:\n{body}\nexcept Exception as exc:\n"
                f"    print(f\"{{type(exc).__name__}}: {{exc}}\")\n# {error}")
    if want and (kind := _is_expression(source)):
        source = f"print(repr(({source})))" if kind == "tuple" else f"print(repr({source}))"
    shown = "\n".join(f"# {line}" for line in want.splitlines()[:6]) if want else ""
    return source + ("\n" + shown if shown else "")


def pep_examples() -> list[dict[str, str]]:
    """The PEP's examples (its doctests, which tests/test_pep.py runs as shown), one
    entry per section that has any, each written as a script: an expression's value
    printed, an expected error caught and shown, and what doctest expects as comments.
    The definitions from earlier sections that a section uses come first."""
    import doctest
    text = PEP_TEXT.read_text(encoding="utf-8")
    lines = text.splitlines()
    headings = [(i, lines[i]) for i in range(len(lines) - 1)
                if lines[i].strip() and re.fullmatch(r"([=\-])\1{2,}", lines[i + 1])
                and len(lines[i + 1]) >= len(lines[i].rstrip())]
    sections: dict[str, list[Any]] = {}
    for example in doctest.DocTestParser().get_examples(text):
        title = [t for i, t in headings if i <= example.lineno][-1].strip()
        sections.setdefault(title, []).append(example)
    earlier: dict[str, str] = {}   # name -> the script of the last example binding it
    order: list[str] = []          # those scripts, in the PEP's order
    result = []
    for title, found in sections.items():
        scripts = [_script(e) for e in found]
        body = "\n".join(scripts) + "\n"
        needed = {earlier[name] for name in _needed(body, earlier, _bound(body))}
        defs = [script for script in order if script in needed]
        helper = any(s.startswith("show_error(") for s in scripts)
        parts = [f"# PEP 671, \"{title}\": its examples as a script\n",
                 SHOW_ERROR if helper else "",
                 "# from earlier sections of the PEP\n" + "\n".join(defs) + "\n"
                 if defs else "", body]
        result.append({"group": "PEP 671's examples", "title": title,
                       "code": "\n".join(p for p in parts if p)})
        for example, script in zip(found, scripts):
            if not example.want and (names := _defines(example.source)):
                earlier.update(dict.fromkeys(names, script))
                order.append(script)
    return result


def examples() -> list[dict[str, str]]:
    """The examples menu: the tour's sections, then the PEP's."""
    return [*tour_examples(), *pep_examples()]


# --- the Format button: the patched black, in pure Python, for python.wasm ----------

# black's run-time dependencies (pure Python wheels), at ecosystem/constraints.txt's pins
FORMATTER_DEPENDENCIES = ("click", "mypy_extensions", "packaging", "pathspec")
FORMATTER_DIR = NPM_DIR / "formatter"


def formatter_zip() -> Path:
    """build/playground-npm/formatter/black.zip: the patched black and pytokens of
    ecosystem/patched/ (the wheels make ecosystem builds, kept per user) with black's
    dependencies (pip download, pinned by ecosystem/constraints.txt; pip of a venv of
    ./python in build/playground-npm/pip-venv), their .py files
    and grammars stored (python.wasm has no zlib), for the worker to unpack and import.
    platformdirs is left out: it asks os for a user id, which WASI has not (the format
    script stands in for it). Made again when a wheel changes."""
    import zipfile
    from tools.ecosystem.manifest import CONSTRAINTS, THIRD_PARTY, load_tool, \
        requirement_versions
    from tools.ecosystem.venvs import Layout, tool_wheel
    # pip from a venv of ./python (the machine's python3 may have none)
    pip_python = create_venv(built_python(PYTHON), NPM_DIR / "pip-venv")
    wheels = [tool_wheel(pip_python, load_tool(THIRD_PARTY / name), "patched", Layout())
              for name in ("black", "pytokens")]
    pins = requirement_versions(CONSTRAINTS)
    wanted = [f"{name}=={pins[name.replace('_', '-')]}" for name in FORMATTER_DEPENDENCIES]
    deps = FORMATTER_DIR / "wheels"
    key = hashlib.sha256("\0".join([*wanted, *(w.name for w in wheels),
                                     *(sha256_file(w) for w in wheels)]).encode()).hexdigest()
    out, stamp = FORMATTER_DIR / "black.zip", FORMATTER_DIR / ".inputs-sha256"
    if out.is_file() and stamp.is_file() and stamp.read_text().strip() == key:
        return out
    shutil.rmtree(FORMATTER_DIR, ignore_errors=True)
    deps.mkdir(parents=True)
    say(f"[playground] pip download {' '.join(wanted)} (black's dependencies, for Format)")
    run([str(pip_python), "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary",
         ":all:", "--dest", str(deps), *wanted], capture=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as packed:
        for wheel in sorted([*wheels, *deps.glob("*.whl")]):
            with zipfile.ZipFile(wheel) as whl:
                for name in sorted(whl.namelist()):
                    if ".dist-info/" not in name and name.endswith((".py", ".txt")):
                        packed.writestr(zipfile.ZipInfo(name, (2025, 6, 11, 12, 0, 0)),
                                        whl.read(name))
    stamp.write_text(key + "\n")
    return out


# What the Compare button imports in the page: the migration tool's rewrite (to_sentinel_idiom)
# and the module it needs, as the package `lbdefaults`.
LBDEFAULTS_FILES = ("__init__.py", "analysis.py", "rewrite.py")


def lbdefaults_zip(target: Path) -> None:
    """target: tools/lbdefaults's rewrite and what it imports, as the package lbdefaults,
    stored (python.wasm has no zlib), for the worker to import from /lib."""
    import zipfile
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as packed:
        for name in LBDEFAULTS_FILES:
            packed.writestr(zipfile.ZipInfo(f"lbdefaults/{name}", (2025, 6, 11, 12, 0, 0)),
                            (REPO / "tools" / "lbdefaults" / name).read_bytes())


def gzip_to(source: Path, target: Path) -> None:
    with open(source, "rb") as src, open(target, "wb") as raw, \
            gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0,
                          filename="") as dst:
        shutil.copyfileobj(src, dst, 1 << 20)


def build() -> Path:
    for need in (WASM_PYTHON, WASM_LIB / "python313.zip"):
        if not need.is_file():
            raise ToolError(f"{shown(need)} is missing (run `make wasm`)")
    shim = npm_install()
    bundled = bundle(patched_lezer_python())
    formatter = formatter_zip()
    t0 = time.monotonic()
    out = PLAYGROUND_OUT
    if out.exists():
        shutil.rmtree(out)
    (out / "lib").mkdir(parents=True)
    (out / "vendor" / "browser_wasi_shim").mkdir(parents=True)
    for name in PAGE_FILES:
        shutil.copy2(PLAYGROUND / name, out / name)
    shutil.copy2(bundled, out / "playground.js")
    shutil.copy2(bundled.with_name(LICENSES), out / LICENSES)
    shutil.copy2(TOUR, out / "tour.py")
    (out / "examples.json").write_text(json.dumps(examples(), ensure_ascii=False, indent=1)
                                       + "\n", encoding="utf-8")
    # gzipped (16.4 MB -> 5.7 MB to download); the page unpacks them itself, since a
    # plain static server sends them as they are
    gzip_to(WASM_PYTHON, out / "python.wasm.gz")
    gzip_to(WASM_LIB / "python313.zip", out / "lib" / "python313.zip.gz")
    gzip_to(formatter, out / "lib" / "black.zip.gz")   # fetched when Format is first pressed
    lbdefaults_zip(out / "lib" / "lbdefaults.zip")          # and this when Compare is
    gzip_to(out / "lib" / "lbdefaults.zip", out / "lib" / "lbdefaults.zip.gz")
    (out / "lib" / "lbdefaults.zip").unlink()
    for path in [*(shim / "dist").glob("*.js"), *shim.glob("LICENSE-*")]:
        shutil.copy2(path, out / "vendor" / "browser_wasi_shim" / path.name)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    say(f"[playground] {shown(out)}: {size / 1e6:.1f} MB in {time.monotonic() - t0:.1f}s; "
        f"serve it with `python3 -m http.server -d {shown(out)}`")
    return out


def ensure_chromium() -> None:
    todo = deps.missing(BROWSER_PACKAGES)
    if not todo:
        return
    if os.geteuid() != 0:
        raise ToolError("the browser test needs Debian's chromium\n"
                        "  as root: apt-get update && apt-get install chromium "
                        "(or run `make playground-test` as root)")
    deps.install(todo, dry_run=False)


def test(python: Path, pytest_args: list[str]) -> int:
    if not (PLAYGROUND_OUT / "index.html").is_file():
        raise ToolError(f"{shown(PLAYGROUND_OUT)} is missing (run `make playground`)")
    ensure_chromium()
    vpy = ensure_venv(built_python(python), VENV.absolute(), [TEST_REQUIREMENTS])
    args = [*map(str, TEST_FILES), "-v", "-s", *pytest_args]  # -s: the page's timings
    say(f"[playground] {rel(vpy)} -m pytest {' '.join(args)}")
    env = scrubbed_env({"PEP671_PLAYGROUND_TEST": "1"})
    return subprocess.run([str(vpy), "-m", "pytest", *args], cwd=REPO, env=env,
                          stdin=subprocess.DEVNULL).returncode


def dist(only_if_built: bool) -> Path | None:
    """build/dist/pep671-playground-VERSION.tar.xz: the site under one directory, VERSION
    from the wasm build's tag; SHA256SUMS written again. With only_if_built, nothing is
    built when neither build/wasm nor its cache entry is there (a cold wasm build takes
    minutes): a line says so and None is returned."""
    if not WASM_PYTHON.is_file():
        tag = pq.build_tag(TREE, PATCHES) if (TREE / ".git").is_dir() else None
        if not (tag and wasm.restore(wasm.cache_entry(wasm.inputs_digest(tag)))):
            if only_if_built:
                say("[playground] no wasm build (build/wasm, or its cache entry): the "
                    "playground archive is not written; `make wasm` first, then `make dist`")
                return None
            raise ToolError(f"{shown(WASM_PYTHON)} is missing (run `make wasm`)")
        say("[playground] build/wasm restored from its cache entry")
    build()
    tag = json.loads((WASM_OUT / "build-info.json").read_text())["build_tag"] or "untagged"
    top = f"pep671-playground-{CPYTHON_VERSION}-{tag.removeprefix('pep671-')}"
    DIST.mkdir(parents=True, exist_ok=True)
    archive = DIST.absolute() / f"{top}.tar.xz"
    partial = archive.with_name(archive.name + ".part")
    run(["tar", "--sort=name", "--owner=0", "--group=0", "--numeric-owner",
         "--mtime=2025-06-11 12:00Z", f"--transform=s,^{PLAYGROUND_OUT.name},{top},",
         "-I", "xz -T0 -6", "-cf", str(partial), "-C", str(PLAYGROUND_OUT.parent),
         PLAYGROUND_OUT.name])
    os.replace(partial, archive)
    sums = write_sha256sums(DIST)
    say(f"[playground] {rel(archive)}: {archive.stat().st_size / 1e6:.1f} MB; "
        f"checksums in {rel(sums)}")
    return archive


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.docs.playground", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("build", help=f"write {shown(PLAYGROUND_OUT)}")
    t = sub.add_parser("test", help="the wasm and browser tests (pytest, from build/venv)")
    t.add_argument("--python", type=Path, default=PYTHON,
                   help="the interpreter whose venv runs pytest (default: ./python)")
    t.add_argument("pytest_args", nargs="*", help="more arguments for pytest")
    d = sub.add_parser("dist", help="write build/dist/pep671-playground-VERSION.tar.xz")
    d.add_argument("--only-if-built", action="store_true",
                   help="write nothing (and say so) when there is no wasm build to use")
    args = ap.parse_args(argv)
    if args.cmd == "build":
        build()
    elif args.cmd == "test":
        return test(args.python, args.pytest_args)
    elif (archive := dist(args.only_if_built)) is not None:
        print(archive)
    return 0


if __name__ == "__main__":
    sys.exit(main())
