"""What the pep671 tools share (stdlib only, Python 3.11+).

- the download sources of the upstream pin (the pin and all paths: tools.paths);
- progress and errors: say() (a `==> ` line on stderr), ToolError and
  exits_on_tool_error() for main();
- running commands: run() (output shown or captured; ToolError on failure) and
  run_logged() (output kept in a log file, optionally streamed too);
- scrubbed_env(): the environment CPython's test suite and our interpreter
  runs get, without any PYTHON* variable (the Makefile goes through
  tools.check.scrubbed, which uses it);
- create_venv(): a venv made by a given interpreter, remade only when it no
  longer fits; ensure_venv(): the same with pinned requirements installed,
  updated only when they changed;
- sha256_file(), verify_sha256(), cache_dir().

Fetching, verifying, unpacking and patching a pinned sdist is in tools.ecosystem.sdist.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

# The pin and the paths live in tools.paths; these names stay importable from here.
from tools.paths import BUILD, CPYTHON_VERSION, REPO, TARBALL_NAME, TARBALL_SHA256, TARBALL_TOPDIR

__all__ = ["BUILD", "CPYTHON_VERSION", "REPO", "REPO_ROOT", "TARBALL_NAME", "TARBALL_SHA256",
           "TARBALL_TOPDIR", "PIP_QUIET", "TIMED_OUT", "ToolError", "base_executable",
           "built_python", "cache_dir", "create_venv", "ensure_venv", "exits_on_tool_error",
           "interpreter_info", "rel", "run", "run_logged", "say", "scrubbed_env", "sha256_file",
           "tail", "verify_sha256"]

PYTHON_ORG_URL = f"https://www.python.org/ftp/python/{CPYTHON_VERSION}/{TARBALL_NAME}"
DEBIAN_SOURCE_PACKAGE = "python3.13"
DEBIAN_SOURCE_VERSION = "3.13.5-2+deb13u5"
DEBIAN_SUITE = "trixie"
DEBIAN_ORIG_NAME = f"{DEBIAN_SOURCE_PACKAGE}_{CPYTHON_VERSION}.orig.tar.xz"

REPO_ROOT = REPO  # the older name, kept for code written against it; use tools.paths.REPO
PIP_QUIET = ["-q", "--disable-pip-version-check"]


class ToolError(Exception):
    """A step failed; the message says what happened and what to do. The only error
    type of the tools: their main() (exits_on_tool_error) turns it into exit status 1."""


def cache_dir() -> Path:
    """Per-user cache (~/.cache/pep671, or $XDG_CACHE_HOME/pep671)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pep671"


def unpack_sdist(sdist: Path, dest: Path) -> Path:
    """Unpack an sdist .tar.gz into dest; returns its one top directory."""
    with tarfile.open(sdist) as tf:
        tops = {m.name.split("/", 1)[0] for m in tf.getmembers()}
        if len(tops) != 1:
            raise ToolError(f"{sdist} has {len(tops)} top-level entries, not one directory")
        tf.extractall(dest, filter="data")
    return dest / tops.pop()


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def verify_sha256(path: Path, expected: str) -> None:
    """ToolError (naming the file and both hashes) unless path's sha256 is expected."""
    actual = sha256_file(path)
    if actual != expected:
        raise ToolError(f"checksum mismatch for {path}\n  expected sha256: {expected}\n"
                        f"  actual sha256:   {actual}\nrefusing to use it (nothing was unpacked)")


def say(msg: str) -> None:
    """A progress line, visible in make and CI logs."""
    print(f"==> {msg}", file=sys.stderr, flush=True)


def exits_on_tool_error(main: Callable[[list[str] | None], int]
                        ) -> Callable[[list[str] | None], int]:
    """Wraps a tool's main(): a ToolError becomes `error: MESSAGE` on stderr and exit
    status 1. The one place an error turns into a status; the work below main() raises."""
    @functools.wraps(main)
    def wrapper(argv: list[str] | None = None) -> int:
        try:
            return main(argv)
        except ToolError as exc:
            print(f"error: {exc}", file=sys.stderr, flush=True)
            return 1
    return wrapper


def rel(path: Path) -> str:
    """path relative to the current directory when it is below it, for messages."""
    try:
        return os.path.relpath(path) if Path(path).resolve().is_relative_to(Path.cwd()) \
            else str(path)
    except ValueError:
        return str(path)


def scrubbed_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment without any PYTHON* variable, plus `extra`.

    CPython's own tests and our interpreter runs get this: PYTHONDONTWRITEBYTECODE
    would stop .pyc files from being written, PYTHONUNBUFFERED and
    PYTHONDONTWRITEBYTECODE break test_cmd_line and test_compileall, and any other
    PYTHON* variable changes what an interpreter under test does."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(extra or {})
    return env


def restore_sigint() -> None:
    """Let CPython's tests that interrupt themselves run from a background job.

    A background job of a non-interactive shell starts with SIGINT ignored, and an
    ignored signal stays ignored across exec: the tests that interrupt themselves
    then hang (test_asyncio.test_runners) or fail (test_pdb's test_pdb_issue_20766
    finds SIG_IGN where it expects the default handler). With a handler installed
    here, the children that a tool starts get SIGINT's default action."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def run(
    cmd: Sequence[str | os.PathLike[str]],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    check: bool = True,
    capture: bool = False,
    stdin_text: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run cmd (output shown, or captured); with check, a failure raises ToolError."""
    args = [str(c) for c in cmd]
    proc = subprocess.run(
        args,
        cwd=cwd,
        env=dict(env) if env is not None else None,
        text=True,
        input=stdin_text,
        stdin=None if stdin_text is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE if capture else None,
        stderr=subprocess.PIPE if capture else None,
    )
    if check and proc.returncode != 0:
        detail = ""
        if capture:
            detail = "\n" + (proc.stdout or "") + (proc.stderr or "")
        raise ToolError(f"command failed (exit {proc.returncode}): {shlex.join(args)}"
                        f"{' in ' + str(cwd) if cwd else ''}{detail}")
    return proc


TIMED_OUT = 124  # run_logged's status for a command it stopped at its timeout


def run_logged(cmd: Sequence[str | os.PathLike[str]], log: Path, *,
               env: Mapping[str, str] | None = None, cwd: Path | None = None,
               echo: bool = False, append: bool = False,
               timeout: float | None = None) -> int:
    """Run cmd with stdout and stderr going to log, after a `$ cmd` line.

    echo also streams the output to stdout as it comes. append adds to the log
    instead of replacing it. After `timeout` seconds the command is killed, the
    log says so, and the status is TIMED_OUT. Returns the exit status."""
    args = [str(c) for c in cmd]
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "a" if append else "w", encoding="utf-8", errors="replace") as fh:
        fh.write(f"$ {shlex.join(args)}\n")
        fh.flush()
        proc = subprocess.Popen(args, cwd=cwd, env=dict(env) if env is not None else None,
                                text=True, errors="replace", stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE if echo else fh,
                                stderr=subprocess.STDOUT)
        timed_out = threading.Event()

        def stop() -> None:
            timed_out.set()
            proc.kill()

        timer = threading.Timer(timeout, stop) if timeout is not None else None
        if timer is not None:
            timer.start()
        try:
            if echo:
                assert proc.stdout is not None
                for line in proc.stdout:
                    fh.write(line)
                    sys.stdout.write(line)
                    sys.stdout.flush()
            rc = proc.wait()
        finally:
            if timer is not None:
                timer.cancel()
        if timed_out.is_set():
            fh.write(f"TIMEOUT after {timeout}s\n")
            return TIMED_OUT
    return rc


def tail(path: Path, n: int = 12) -> str:
    """The last n lines of a log file ('' if it cannot be read)."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-n:])
    except OSError:
        return ""


def built_python(python: Path) -> Path:
    """python as an absolute path (Path("./python") would be looked up on PATH); ends the
    ToolError when it does not exist yet."""
    python = python.absolute()
    if not python.exists():
        raise ToolError(f"{python} does not exist (run `make`)")
    return python


_INFO = ("import json, sys, sysconfig, types; print(json.dumps({'version': sys.version, "
         "'tag': getattr(sys, '_git', ('', ''))[1], 'prefix': sys.prefix, "
         "'platform': sysconfig.get_platform(), "
         "'late_defaults': hasattr(types, 'LateDefaultType')}))")


def interpreter_info(python: Path) -> dict[str, Any]:
    """What python says it is: version (sys.version), tag (the build tag, sys._git[1]),
    prefix, platform, late_defaults (whether it has types.LateDefaultType). The one place
    the tools ask an interpreter about itself; ToolError when it does not run."""
    try:
        proc = subprocess.run([str(python), "-c", _INFO], capture_output=True, text=True,
                              env=scrubbed_env(), stdin=subprocess.DEVNULL)
    except OSError as exc:
        raise ToolError(f"{python} does not run (run `make`): {exc}") from None
    if proc.returncode != 0:
        raise ToolError(f"{python} does not run (run `make`):\n{proc.stderr}")
    try:
        info: dict[str, Any] = json.loads(proc.stdout)
    except ValueError:
        raise ToolError(f"{python} does not answer as a Python does: {proc.stdout[:200]!r}"
                        ) from None
    return info


def base_executable(python: Path) -> Path:
    """The interpreter binary behind python (./python is a shell wrapper, a venv's
    python a link): what `-m venv` records as the venv's home."""
    try:
        proc = subprocess.run([str(python), "-c", "import sys; print(sys._base_executable)"],
                              capture_output=True, text=True, env=scrubbed_env(),
                              stdin=subprocess.DEVNULL)
    except OSError as exc:
        raise ToolError(f"{python} does not run (run `make`): {exc}") from None
    if proc.returncode != 0 or not proc.stdout.strip():
        raise ToolError(f"{python} does not run (run `make`):\n{proc.stderr}")
    return Path(proc.stdout.strip())


def create_venv(python: Path, venv: Path, *, log: Path | None = None) -> Path:
    """The python of the venv `python -m venv` made at venv, made anew when it is missing,
    does not run, or belongs to another interpreter; otherwise left as it is."""
    home = base_executable(python).parent
    vpy = venv / "bin" / "python"
    cfg = venv / "pyvenv.cfg"
    usable = vpy.exists() and cfg.is_file() and f"home = {home}" in cfg.read_text() and \
        subprocess.run([str(vpy), "-c", "pass"], capture_output=True,
                       env=scrubbed_env()).returncode == 0
    if not usable:
        if venv.exists():
            shutil.rmtree(venv)
        say(f"creating {rel(venv)} with {rel(python)} -m venv")
        _venv_step([str(python), "-m", "venv", str(venv)], log, None,
                   f"{python} -m venv {venv} failed")
    return vpy


def ensure_venv(python: Path, venv: Path, requirements: Sequence[Path | str], *,
                hash_also: Sequence[Path] = (), log: Path | None = None,
                pip_cwd: Path | None = None) -> Path:
    """The python of a venv made by `python -m venv`, with `requirements` installed.

    requirements: requirements files (installed with -r) and requirement
    specifiers such as "name==1.0". The venv is remade when it is missing, does
    not run, or belongs to another interpreter; the requirements are installed
    again when they (or the files in hash_also, e.g. a constraints file they
    name) changed since the last install. pip's output goes to log (else to the
    terminal). Raises ToolError, with what to do, when a step fails."""
    vpy = create_venv(python, venv, log=log)
    digest = hashlib.sha256()
    args: list[str] = []
    for req in requirements:
        if isinstance(req, Path):
            digest.update(req.read_bytes())
            args += ["-r", str(req)]
        else:
            digest.update(req.encode())
            args.append(req)
        digest.update(b"\0")
    for extra in hash_also:
        digest.update(extra.read_bytes() if extra.exists() else b"<missing>")
    stamp = venv / ".requirements-sha256"
    if not stamp.is_file() or stamp.read_text().strip() != digest.hexdigest():
        names = ", ".join(rel(r) if isinstance(r, Path) else r for r in requirements)
        say(f"installing {names} into {rel(venv)}")
        _venv_step([str(vpy), "-m", "pip", "install", *PIP_QUIET, *args], log, pip_cwd,
                   f"pip could not install {names} into {venv} (it needs PyPI)")
        stamp.write_text(digest.hexdigest() + "\n")
    return vpy


def _venv_step(cmd: list[str], log: Path | None, cwd: Path | None, what: str) -> None:
    if log is not None:
        if run_logged(cmd, log, env=scrubbed_env(), cwd=cwd, append=True):
            raise ToolError(f"{what}; the end of {log}:\n{tail(log)}")
    elif subprocess.run(cmd, env=scrubbed_env(), cwd=cwd,
                        stdin=subprocess.DEVNULL).returncode != 0:
        raise ToolError(f"{what} (output above)")


CLANG_PACKAGES = "apt-get install clang libclang-rt-14-dev (Debian 12)"
PROBE_TIMEOUT = 120  # seconds a probe program may take (it does nothing)


def require_clang_sanitizer(sanitize: str, source: str, what: str,
                            args: Sequence[str] = (),
                            env: Mapping[str, str] | None = None) -> None:
    """Raise ToolError naming the Debian packages unless clang links `source` with
    -fsanitize=`sanitize` (a sanitizer's runtime ships apart from clang), and
    ToolError with the program's error and what to do unless the linked program
    then runs with `args` (in `env`, default scrubbed_env()) and exits 0: a
    sanitizer's runtime can fail at start on some kernels (ThreadSanitizer's
    "unexpected memory mapping"). A libFuzzer probe, which defines
    LLVMFuzzerTestOneInput, needs args=["-runs=1"] (it runs the empty input
    once and exits) or it would fuzz until stopped."""
    say(f"{what}: checking clang")
    if shutil.which("clang") is None or shutil.which("clang++") is None:
        raise ToolError(f"clang is not installed: {CLANG_PACKAGES}")
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "probe.c"
        exe = Path(tmp) / "probe"
        src.write_text(source)
        proc = run(["clang", f"-fsanitize={sanitize}", src, "-o", exe],
                   check=False, capture=True)
        if proc.returncode != 0:
            raise ToolError(f"clang cannot link a program with -fsanitize={sanitize} (its "
                            f"runtime is missing?): {CLANG_PACKAGES}\n{proc.stderr}")
        cmd = [str(exe), *args]
        try:
            ran = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True,
                                 errors="replace", stdin=subprocess.DEVNULL,
                                 env=dict(env) if env is not None else scrubbed_env(),
                                 timeout=PROBE_TIMEOUT)
            status, output = ran.returncode, ran.stderr or ran.stdout
            how = (f"exited {status}" if status >= 0 else f"was killed by signal {-status}")
        except subprocess.TimeoutExpired as exc:
            status, output = -1, ""
            how = f"did not end in {PROBE_TIMEOUT} s"
            if exc.stderr:
                output = (exc.stderr.decode(errors="replace") if isinstance(exc.stderr, bytes)
                          else exc.stderr)
        except OSError as exc:
            status, output, how = -1, str(exc), "did not start"
        if status != 0:
            last = "\n".join(output.strip().splitlines()[-12:])
            raise ToolError(
                f"a program that clang links with -fsanitize={sanitize} does not run here: "
                f"the probe ({shlex.join(['probe', *args])}) {how}, so the sanitizer's "
                f"runtime fails at start on this system. Runtimes of LLVM 17 and older fail "
                f"under the larger address-space randomization of newer kernels (\"FATAL: "
                f"ThreadSanitizer: unexpected memory mapping\", \"Shadow memory range "
                f"interleaves with an existing memory mapping\"): lower it (sudo sysctl "
                f"vm.mmap_rnd_bits=28), run the tool without it (setarch \"$(uname -m)\" -R "
                f"python3 -m ...), or install a newer clang with its runtime. The probe's "
                f"output ends:\n{last}")
