"""git as the tools run it: no user or system configuration, a fixed identity.

tools.build.pq makes its trees and their commits with it, so that a series applied
anywhere gives the same commits; tools.build.cpython, tools.check.series_check and tools.dogfood
read and move those trees with it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tools.common import run

IDENTITY = {"name": "pep671", "email": "pep671@localhost"}

def git_env() -> dict[str, str]:
    """Environment for git: no user/system config, fixed identity."""
    env = dict(os.environ)
    env.update({
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_AUTHOR_NAME": IDENTITY["name"],
        "GIT_AUTHOR_EMAIL": IDENTITY["email"],
        "GIT_COMMITTER_NAME": IDENTITY["name"],
        "GIT_COMMITTER_EMAIL": IDENTITY["email"],
        "LC_ALL": "C",
    })
    for k in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        env.pop(k, None)
    return env


def git(tree: Path, *args: str, check: bool = True, capture: bool = True,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run git ARGS in tree (output captured unless capture is false); a failure raises
    ToolError unless check is false."""
    return run(["git", *args], cwd=tree, env=env or git_env(), check=check, capture=capture)

