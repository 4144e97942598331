"""Candidates and rewrites, through the lbdefaults command line run by ./python."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any, Iterable, Sequence

from tools.common import ToolError, scrubbed_env, tail
from tools.dogfood.tree import drop_bytecode, restore_lib
from tools.lbdefaults.cli import VERDICT_WORDS
from tools.paths import REPO

Unit = tuple[str, int]   # (path of the file relative to the tree, line of the def)


def lbdefaults(python: Path, tree: Path, *args: str, log: Path | None = None
               ) -> subprocess.CompletedProcess[str]:
    cmd = [str(python), "-m", "tools.lbdefaults", "--exclude", "test", "-q", *args,
           str(tree / "Lib")]
    proc = subprocess.run(cmd, cwd=REPO, env=scrubbed_env(), capture_output=True,
                          text=True, stdin=subprocess.DEVNULL)
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text(f"$ {shlex.join(cmd)}\n{proc.stdout}{proc.stderr}")
    return proc


def scan(python: Path, tree: Path) -> list[dict[str, Any]]:
    """Every candidate of Lib/ (outside Lib/test/), as lbdefaults --json gives it, with
    "file" (the path relative to the tree) added."""
    proc = lbdefaults(python, tree, "--json")
    if proc.returncode != 0:
        raise ToolError(f"lbdefaults --json failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    found: list[dict[str, Any]] = json.loads(proc.stdout)
    for c in found:
        c["file"] = os.path.relpath(c["path"], tree)
    return found


def chosen(candidates: Sequence[dict[str, Any]], verdicts: Iterable[str]) -> list[dict[str, Any]]:
    """The candidates whose verdict is one of `verdicts`, in scan order."""
    wanted = set(verdicts)
    return [c for c in candidates if c["verdict"] in wanted]


def units_of(candidates: Sequence[dict[str, Any]]) -> dict[Unit, list[dict[str, Any]]]:
    """The rewrites grouped by function: (file, line of the def) -> its candidates."""
    units: dict[Unit, list[dict[str, Any]]] = {}
    for c in candidates:
        units.setdefault((c["file"], c["def_line"]), []).append(c)
    return dict(sorted(units.items()))


def apply_rewrites(python: Path, tree: Path, selection: Sequence[dict[str, Any]],
                   verdicts: Iterable[str], log: Path) -> dict[str, int]:
    """Undo earlier rewrites, then rewrite exactly `selection` (candidates of the
    scan of the unrewritten Lib/). Returns file -> defaults rewritten; dies when
    lbdefaults refuses or writes another number than asked."""
    restore_lib(tree)
    if not selection:
        return {}
    select = log.with_suffix(".select.json")
    select.parent.mkdir(parents=True, exist_ok=True)
    select.write_text(json.dumps([{k: c[k] for k in ("path", "line", "function", "parameter")}
                                  for c in selection], indent=1) + "\n")
    words = ",".join(sorted(w for w, v in VERDICT_WORDS.items() if v in set(verdicts)))
    proc = lbdefaults(python, tree, "--write", "--apply", words, "--select", str(select),
                      log=log)
    written: dict[str, int] = {}
    for line in proc.stderr.splitlines():
        m = re.match(r"^(.*): rewrote (\d+) default\(s\)$", line)
        if m:
            written[os.path.relpath(m.group(1), tree)] = int(m.group(2))
    if proc.returncode != 0 or sum(written.values()) != len(selection):
        raise ToolError(f"lbdefaults --write rewrote {sum(written.values())} of {len(selection)} "
                        f"defaults (exit {proc.returncode}); see {log}:\n{tail(log, 20)}")
    drop_bytecode(tree, written)
    return written
