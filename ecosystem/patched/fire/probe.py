"""Ecosystem probe for python-fire: a late-bound default in the help, and at call time.

``ecosystem/corpus/fire_cli.py`` is ``fire.Fire(window)`` for
``window(items, start=>0, *, stop=>len(items))``. In the venv of the interpreter under
test, ``window [1,2,3,4] --stop 2`` must print the function's own result (Fire passes
the default it read from the signature back, and the interpreter then evaluates it), and
``-- --help`` must show ``Default: =>len(items)``, the default as the signature writes
it. A stock 0.7.1 prints ``Default: <late default: len(items)>``. Standard library only;
no network.
"""

from __future__ import annotations

import os
import pathlib
import subprocess

__all__ = ["probe"]


def _run(python: str, script: pathlib.Path, args: list[str],
         workdir: pathlib.Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(PAGER="cat", TERM="dumb", PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([python, str(script), *args], capture_output=True, text=True,
                          timeout=300, env=env, cwd=workdir, stdin=subprocess.DEVNULL)


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    corpus = pathlib.Path(corpus).absolute()
    script = (corpus if corpus.is_dir() else corpus.parent) / "fire_cli.py"
    workdir = pathlib.Path(workdir).absolute()
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        call = _run(python, script, ["[1,2,3,4]", "--stop", "2"], workdir)
        plain = _run(python, script, ["[1,2,3,4]"], workdir)
        help_ = _run(python, script, ["--", "--help"], workdir)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"fire did not run: {exc}"
    if call.returncode != 0 or call.stdout.split() != ["1", "2"]:
        return False, f"window [1,2,3,4] --stop 2: {(call.stdout + call.stderr).strip()[-200:]}"
    if plain.returncode != 0 or plain.stdout.split() != ["1", "2", "3", "4"]:
        return False, f"window [1,2,3,4]: {(plain.stdout + plain.stderr).strip()[-200:]}"
    shown = [line.strip() for line in (help_.stdout + help_.stderr).splitlines()
             if "Default:" in line]
    if shown != ["Default: =>0", "Default: =>len(items)"]:
        return False, f"--help shows {' / '.join(shown) or help_.stderr.strip()[-200:]!r}"
    return True, ("the function computes its late defaults; --help: "
                  "'Default: =>0', 'Default: =>len(items)'")
