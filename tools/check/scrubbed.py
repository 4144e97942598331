"""Run a command in the environment CPython's tests get: without any PYTHON* variable.

    python3 -m tools.check.scrubbed [--set NAME=VALUE]... -- COMMAND [ARG]...

The environment is tools.common.scrubbed_env(), the one definition that
tools.check.regrtest_parity, tools.check.run_pytest, bench and tests/ use too; --set adds a
variable after the scrub (e.g. PYTHON_GIL=0 for the free-threaded build). SIGINT
gets its default action, even in a background job (tools.common.restore_sigint).
"""

from __future__ import annotations

import argparse
import os
import sys

from tools.common import ToolError, exits_on_tool_error, restore_sigint, scrubbed_env


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.check.scrubbed", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="set a variable after the scrub (repeatable)")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="the command and its arguments")
    args = ap.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("no command given")
    extra = {}
    for item in args.set:
        name, sep, value = item.partition("=")
        if not sep or not name:
            ap.error(f"--set takes NAME=VALUE, not {item!r}")
        extra[name] = value
    restore_sigint()
    try:
        os.execvpe(command[0], command, scrubbed_env(extra))
    except OSError as exc:
        raise ToolError(f"cannot run {command[0]}: {exc}")


if __name__ == "__main__":
    sys.exit(main())
