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

import pathlib

import probekit

__all__ = ["probe"]


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    fire = [python, str(corpus.with_name("fire_cli.py"))]
    env = probekit.clean_env(PAGER="cat", TERM="dumb", PYTHONDONTWRITEBYTECODE="1")
    try:
        call = probekit.run([*fire, "[1,2,3,4]", "--stop", "2"], workdir, env=env)
        plain = probekit.run([*fire, "[1,2,3,4]"], workdir, env=env)
        help_ = probekit.run([*fire, "--", "--help"], workdir, env=env)
    except probekit.RUN_ERRORS as exc:
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
