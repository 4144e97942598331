"""Ecosystem probe for jsonargparse: an omitted late-bound default is the function's.

Runs ``ecosystem/corpus/jsonargparse_cli.py`` (a ``CLI(window)`` of
``window(items: list[int], start: int => 0, stop: int => len(items), tags=>[start])``)
with the venv of the interpreter under test:

1. ``[1,2,3,4]``: the function computes its late defaults, so it prints
   ``{'window': [1, 2, 3, 4], 'tags': [0]}`` (a stock release rejects the late
   default itself: ``Expected a <class 'int'>. Got value: <late default: 0>``);
2. ``[1,2,3,4] --stop x`` must still fail on the type of the given value;
3. ``[1,2,3,4] --stop 3 --print_config`` must write YAML without the omitted late
   defaults (no ``<late default ...>`` value), which ``--config`` then reads back to
   the same result as ``--stop 3``.

Standard library only; no network.
"""

from __future__ import annotations

import pathlib
import subprocess

import probekit

__all__ = ["probe"]

_TIMEOUT = 300


def _run(python: str, script: pathlib.Path, args: list[str],
         workdir: pathlib.Path) -> subprocess.CompletedProcess[str]:
    env = probekit.clean_env(PYTHONDONTWRITEBYTECODE="1", COLUMNS="200")
    return probekit.run([python, script, *args], workdir, env=env, timeout=_TIMEOUT)


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    python, corpus, workdir = probekit.paths(python, corpus, workdir)
    script = corpus.with_name("jsonargparse_cli.py")
    try:
        plain = _run(python, script, ["[1,2,3,4]"], workdir)
        if plain.returncode != 0:
            return False, f"window [1,2,3,4]: {probekit.last_line(plain.stderr)}"[:300]
        wanted = "{'window': [1, 2, 3, 4], 'tags': [0]}"
        if plain.stdout.strip() != wanted:
            return False, f"window [1,2,3,4] printed {plain.stdout.strip()!r}, not {wanted}"
        bad = _run(python, script, ["[1,2,3,4]", "--stop", "x"], workdir)
        if bad.returncode == 0 or "Expected a <class 'int'>" not in bad.stderr:
            why = probekit.last_line(bad.stderr)
            return False, f"--stop x was not rejected as not an int: {why}"[:300]
        printed = _run(python, script, ["[1,2,3,4]", "--stop", "3", "--print_config"], workdir)
        if printed.returncode != 0:
            return False, f"--print_config: {probekit.last_line(printed.stderr)}"[:300]
        config = printed.stdout
        if "late default" in config:
            line = next(line for line in config.splitlines() if "late default" in line)
            return False, f"--print_config wrote {line.strip()!r}"
        path = workdir / "config.yaml"
        path.write_text(config, encoding="utf-8")
        again = _run(python, script, ["--config", str(path)], workdir)
        wanted = "{'window': [1, 2, 3], 'tags': [0]}"
        if again.returncode != 0 or again.stdout.strip() != wanted:
            got = probekit.last_line(again.stderr) if again.returncode else again.stdout.strip()
            return False, f"--config of the printed config: {got}"[:300]
    except probekit.RUN_ERRORS as exc:
        return False, f"jsonargparse did not run: {exc}"
    keys = ", ".join(line.split(":")[0] for line in config.splitlines()
                     if line and not line.startswith((" ", "-")))
    return True, ("omitted late defaults computed by window() (tags=>[start] gives [0]); "
                  f"--stop x rejected; --print_config writes only {keys}, read back by --config")
