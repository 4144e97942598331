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

import os
import pathlib
import subprocess

__all__ = ["probe"]

_TIMEOUT = 300


def _run(python: str, script: pathlib.Path, args: list[str],
         workdir: pathlib.Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["COLUMNS"] = "200"
    return subprocess.run([python, str(script), *args], capture_output=True, text=True,
                          timeout=_TIMEOUT, env=env, cwd=workdir, stdin=subprocess.DEVNULL)


def _last(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"


def probe(python: str, corpus: pathlib.Path, workdir: pathlib.Path) -> tuple[bool, str]:
    corpus = pathlib.Path(corpus).absolute()
    script = (corpus if corpus.is_dir() else corpus.parent) / "jsonargparse_cli.py"
    workdir = pathlib.Path(workdir).absolute()
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        plain = _run(python, script, ["[1,2,3,4]"], workdir)
        if plain.returncode != 0:
            return False, f"window [1,2,3,4]: {_last(plain.stderr)}"[:300]
        wanted = "{'window': [1, 2, 3, 4], 'tags': [0]}"
        if plain.stdout.strip() != wanted:
            return False, f"window [1,2,3,4] printed {plain.stdout.strip()!r}, not {wanted}"
        bad = _run(python, script, ["[1,2,3,4]", "--stop", "x"], workdir)
        if bad.returncode == 0 or "Expected a <class 'int'>" not in bad.stderr:
            return False, f"--stop x was not rejected as not an int: {_last(bad.stderr)}"[:300]
        printed = _run(python, script, ["[1,2,3,4]", "--stop", "3", "--print_config"], workdir)
        if printed.returncode != 0:
            return False, f"--print_config: {_last(printed.stderr)}"[:300]
        config = printed.stdout
        if "late default" in config:
            line = next(line for line in config.splitlines() if "late default" in line)
            return False, f"--print_config wrote {line.strip()!r}"
        path = workdir / "config.yaml"
        path.write_text(config, encoding="utf-8")
        again = _run(python, script, ["--config", str(path)], workdir)
        wanted = "{'window': [1, 2, 3], 'tags': [0]}"
        if again.returncode != 0 or again.stdout.strip() != wanted:
            return False, (f"--config of the printed config: "
                           f"{_last(again.stderr) if again.returncode else again.stdout.strip()}")[:300]
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, f"jsonargparse did not run: {exc}"
    keys = ", ".join(line.split(":")[0] for line in config.splitlines()
                     if line and not line.startswith((" ", "-")))
    return True, ("omitted late defaults computed by window() (tags=>[start] gives [0]); "
                  f"--stop x rejected; --print_config writes only {keys}, read back by --config")
