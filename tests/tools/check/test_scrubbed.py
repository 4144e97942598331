"""tools.check.scrubbed: the environment CPython's tests get, from a process of any kind."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from tools.paths import REPO

SHOW = "import os, signal; print(signal.getsignal(signal.SIGINT), 'PYTHONX' in os.environ)"


def run_scrubbed(*, sigint_ignored: bool) -> str:
    def ignore_sigint() -> None:
        if sigint_ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    env = dict(os.environ, PYTHONX="1")
    return subprocess.run([sys.executable, "-m", "tools.check.scrubbed", "--", sys.executable, "-c",
                           SHOW], cwd=REPO, env=env, preexec_fn=ignore_sigint,
                          capture_output=True, text=True, check=True).stdout.strip()


def test_the_command_gets_no_python_variable() -> None:
    assert run_scrubbed(sigint_ignored=False) == "<built-in function default_int_handler> False"


def test_a_background_jobs_ignored_sigint_is_not_inherited() -> None:
    # As a background job of a non-interactive shell is started; test_pdb's
    # test_pdb_issue_20766 fails when its interpreter inherits SIG_IGN.
    assert run_scrubbed(sigint_ignored=True) == "<built-in function default_int_handler> False"
