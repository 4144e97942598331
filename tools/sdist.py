"""A pinned sdist from PyPI: download it, check its sha256, unpack it, apply our patch,
build its wheel, install.

Used by tools.ecosystem, which builds every third_party/<tool>/ from its pin.toml
(and so by tests/test_third_party.py): the steps are separate so that a caller can
build a stock and a patched wheel from one download.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Mapping

from tools.common import PIP_QUIET, ToolError, scrubbed_env, sha256_file

# Without a network, fail in seconds rather than after pip's configured timeout.
PIP_NETWORK = ["--timeout", "30", "--retries", "2"]


def download(python: Path, name: str, version: str, sha256: str, dest: Path,
             env: Mapping[str, str] | None = None) -> Path:
    """The sdist name==version, fetched by python's pip into dest and verified. pip
    prepares its metadata, so its build backend is installed (as wheels: `--no-binary`
    names the package alone; pytokens' backend needs mypy, which would not build from
    source in an isolated environment); env adds variables, e.g. PIP_CONSTRAINT."""
    pip([str(python), "-m", "pip", "download", *PIP_QUIET, *PIP_NETWORK, "--no-deps",
         "--no-binary", name, "-d", str(dest), f"{name}=={version}"],
        f"downloading the {name} {version} sdist", env)
    stem = normalize(f"{name}-{version}")
    found = [p for p in dest.iterdir() if p.name.endswith(".tar.gz")
             and normalize(p.name.removesuffix(".tar.gz")) == stem]
    if len(found) != 1:
        raise ToolError(f"pip download of {name}=={version} left {sorted(p.name for p in found)}"
                        f" in {dest}; expected one sdist")
    verify(found[0], sha256)
    return found[0]


def install(venv_python: Path, *targets: str | Path, deps: bool = False,
            env: Mapping[str, str] | None = None, pip_python: Path | None = None) -> None:
    """pip-install targets (trees, sdists, requirement specifiers) into the venv of
    venv_python, with the pip of pip_python (default: this interpreter's), so that the
    venv needs no pip of its own. env adds variables (a pin.toml's install_env)."""
    pip([str(pip_python or sys.executable), "-m", "pip", "--python", str(venv_python),
         "install", *PIP_QUIET, *PIP_NETWORK, *([] if deps else ["--no-deps"]),
         *map(str, targets)], f"pip-installing {', '.join(map(str, targets))}", env)


def build_wheel(python: Path, target: Path, dest: Path,
                env: Mapping[str, str] | None = None) -> Path:
    """The wheel of target (an sdist or an unpacked source tree), built by python's pip
    (with build isolation: the build backend comes from PyPI) into dest, which must not
    hold another wheel. env adds variables (a pin.toml's install_env)."""
    pip([str(python), "-m", "pip", "wheel", *PIP_QUIET, *PIP_NETWORK, "--no-deps",
         "-w", str(dest), str(target)], f"building the wheel of {target}", env)
    wheels = sorted(dest.glob("*.whl"))
    if len(wheels) != 1:
        raise ToolError(f"building the wheel of {target} left {[w.name for w in wheels]} "
                        f"in {dest}; expected one wheel")
    return wheels[0]


def pip(cmd: list[str], what: str, env: Mapping[str, str] | None = None) -> None:
    """Run a pip command in the scrubbed environment; ToolError with its output if it fails."""
    proc = subprocess.run(cmd, capture_output=True, text=True, env=scrubbed_env(env),
                          stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        raise ToolError(f"{what} failed (exit {proc.returncode}); it needs pip to reach "
                        f"PyPI.\n$ {' '.join(cmd)}\n{proc.stdout[-2000:]}{proc.stderr[-3000:]}")


def normalize(text: str) -> str:
    """A distribution file's stem as PEP 625 spells it (runs of -_. as one _, lower case)."""
    return re.sub(r"[-_.]+", "_", text).lower()


def verify(path: Path, sha256: str) -> None:
    actual = sha256_file(path)
    if actual != sha256:
        raise ToolError(f"checksum mismatch for {path}\n  expected sha256: {sha256}\n"
                        f"  actual sha256:   {actual}\nrefusing to use it (nothing was unpacked)")


def unpack(sdist: Path, dest: Path) -> Path:
    """Unpack an sdist .tar.gz into dest; returns its top directory."""
    with tarfile.open(sdist) as tf:
        tops = {m.name.split("/", 1)[0] for m in tf.getmembers()}
        if len(tops) != 1:
            raise ToolError(f"{sdist} has {len(tops)} top-level entries, not one directory")
        tf.extractall(dest, filter="data")
    return dest / tops.pop()


HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,(\d+))? @@")
LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")


def _lines(text: str) -> list[str]:
    """The lines of text, each with its "\\n", as patch counts them: str.splitlines()
    also breaks at a form feed and other separators, which a test's string may hold
    (autopep8's test_autopep8.py does), and would shift every line after it."""
    return LINE.findall(text)


def apply_patch(patch: str, root: Path) -> list[str]:
    """Apply a unified diff (`diff -ruN` or git style) under root like `patch -p1`.

    Each hunk must match exactly at the line its header gives (no fuzz, no offset):
    the patch is made for one release. Returns the paths it wrote."""
    lines = _lines(patch)
    written = []
    i = 0
    while i < len(lines):
        if not (lines[i].startswith("--- ") and lines[i + 1].startswith("+++ ")):
            i += 1
            continue
        rel = lines[i + 1][4:].split("\t")[0].strip().split("/", 1)[1]
        target = root / rel
        i += 2
        old = _lines(target.read_bytes().decode()) if target.exists() else []
        new: list[str] = []
        pos = 0
        while i < len(lines) and lines[i].startswith("@@ "):
            m = HUNK.match(lines[i])
            if not m:
                raise ToolError(f"{rel}: bad hunk header: {lines[i]!r}")
            old_len, new_len = int(m[2] or 1), int(m[3] or 1)
            start = int(m[1]) - 1 if old_len else int(m[1])
            if start == 0 and not old_len and old:
                raise ToolError(f"{rel}: the patch creates it, but it exists")
            new += old[pos:start]
            pos = start
            i += 1
            while old_len or new_len:
                tag, text = lines[i][:1], lines[i][1:]
                if tag in (" ", "-"):
                    if old[pos:pos + 1] != [text]:
                        raise ToolError(f"{rel}: hunk does not apply at line {pos + 1}")
                    pos += 1
                    old_len -= 1
                if tag in (" ", "+"):
                    new.append(text)
                    new_len -= 1
                if tag not in (" ", "-", "+"):
                    raise ToolError(f"{rel}: unexpected line in hunk: {lines[i]!r}")
                i += 1
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes("".join(new + old[pos:]).encode())
        written.append(rel)
    return written
