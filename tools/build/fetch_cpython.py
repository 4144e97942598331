"""Find, verify and cache the pinned upstream CPython tarball.

Sources, tried in order; every candidate is checked against the pinned
sha256 and a mismatch is a hard error (the file and both hashes are named,
nothing is copied or unpacked):

  1. the file named by $CPYTHON_TARBALL, then the per-user cache
     (~/.cache/pep671/Python-3.13.5.tar.xz);
  2. the python.org release URL (short timeout);
  3. Debian's source package python3.13 (its .orig.tar.xz is the python.org
     file), fetched by apt-get with a private configuration and state
     directory (nothing of the system's apt state is changed).

Every successful download is stored in the cache. The verified tarball is
copied to --out, and the source that was used is printed.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import urllib.request
from pathlib import Path

from tools.common import (DEBIAN_ORIG_NAME, DEBIAN_SOURCE_PACKAGE, DEBIAN_SOURCE_VERSION,
                          DEBIAN_SUITE, PYTHON_ORG_URL, ToolError, cache_dir,
                          exits_on_tool_error, run, say, sha256_file, verify_sha256)
from tools.paths import APT_DIR, TARBALL, TARBALL_NAME, TARBALL_SHA256, shown

KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"


def install_into_cache(src: Path, cache: Path, name: str) -> Path:
    cache.mkdir(parents=True, exist_ok=True)
    dest = cache / name
    tmp = cache / f".{name}.tmp{os.getpid()}"
    shutil.copyfile(src, tmp)
    os.replace(tmp, dest)
    return dest


def from_python_org(url: str, workdir: Path, timeout: float) -> Path | None:
    dest = workdir / "python-org.tar.xz"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp, open(dest, "wb") as out:
            shutil.copyfileobj(resp, out)
    except Exception as exc:  # network errors of every kind
        say(f"python.org not reachable ({type(exc).__name__}: {exc}); trying Debian")
        return None
    return dest


def debian_mirror() -> str | None:
    """First Debian archive URI configured on this machine (deb822 or one-line)."""
    sources_d = Path("/etc/apt/sources.list.d")
    for f in sorted(sources_d.glob("*.sources")) if sources_d.is_dir() else []:
        for line in f.read_text(errors="replace").splitlines():
            m = re.match(r"\s*URIs:\s*(\S+)", line)
            if m and "security" not in m.group(1):
                return m.group(1)
    lists = [Path("/etc/apt/sources.list")]
    if sources_d.is_dir():
        lists += sorted(sources_d.glob("*.list"))
    for f in lists:
        if not f.is_file():
            continue
        for line in f.read_text(errors="replace").splitlines():
            m = re.match(r"\s*deb(?:-src)?\s+(?:\[[^\]]*\]\s+)?(\S+)", line)
            if m and "security" not in m.group(1):
                return m.group(1)
    return None


def from_debian(aptdir: Path, workdir: Path) -> Path | None:
    if not shutil.which("apt-get"):
        say("apt-get not found; cannot use Debian's source package")
        return None
    mirror = debian_mirror()
    if mirror is None:
        say("no Debian archive URI found in /etc/apt; cannot use Debian's source package")
        return None
    for sub in ("lists/partial", "cache/archives/partial"):
        (aptdir / sub).mkdir(parents=True, exist_ok=True)
    (aptdir / "status").touch()
    sources = aptdir / "sources.list"
    sources.write_text(f"deb-src [signed-by={KEYRING}] {mirror} {DEBIAN_SUITE} main\n")
    opts = [
        "-o", f"Dir::Etc::SourceList={sources}",
        "-o", "Dir::Etc::SourceParts=/dev/null",
        "-o", f"Dir::State::Lists={aptdir / 'lists'}",
        "-o", f"Dir::Cache={aptdir / 'cache'}",
        "-o", f"Dir::State::status={aptdir / 'status'}",
    ]
    say(f"fetching Debian source package {DEBIAN_SOURCE_PACKAGE}={DEBIAN_SOURCE_VERSION}")
    if run(["apt-get", "-q", *opts, "update"], check=False).returncode != 0:
        say("apt-get update failed")
        return None
    dl = workdir / "debian"
    dl.mkdir()
    spec = f"{DEBIAN_SOURCE_PACKAGE}={DEBIAN_SOURCE_VERSION}"
    if run(["apt-get", "-q", *opts, "source", "--download-only", spec],
           cwd=dl, check=False).returncode != 0:
        say("apt-get source failed")
        return None
    orig = dl / DEBIAN_ORIG_NAME
    if not orig.is_file():
        say(f"{DEBIAN_ORIG_NAME} was not among the downloaded files")
        return None
    return orig


def fetch(out: Path = TARBALL, *, cache: Path | None = None, apt_dir: Path = APT_DIR,
          sha256: str = TARBALL_SHA256, url: str = PYTHON_ORG_URL, timeout: float = 15.0,
          network: bool = True) -> str:
    """Put the verified tarball at out, from the first source of the module's docstring
    that has it; returns which source that was. Raises ToolError."""
    if out.is_file() and sha256_file(out) == sha256:
        return "already verified"
    out.unlink(missing_ok=True)
    cache = cache or cache_dir()
    env_path = os.environ.get("CPYTHON_TARBALL")
    cached = cache / TARBALL_NAME
    if env_path:
        got, source = Path(env_path), f"$CPYTHON_TARBALL={env_path}"
        if not got.is_file():
            raise ToolError(f"$CPYTHON_TARBALL names {got}, which is not a file")
    elif cached.is_file():
        got, source = cached, f"cache {cached}"
    elif not network:
        raise ToolError(f"no tarball in $CPYTHON_TARBALL or {cached}, and --no-network was given")
    else:
        got, source = download(cache, apt_dir, sha256, url, timeout)
    verify_sha256(got, sha256)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    shutil.copyfile(got, tmp)
    os.replace(tmp, out)
    return source


def download(cache: Path, apt_dir: Path, sha256: str, url: str, timeout: float
             ) -> tuple[Path, str]:
    """The tarball from python.org, else from Debian, verified and kept in cache."""
    with tempfile.TemporaryDirectory(prefix="pep671-fetch-") as tmp:
        work = Path(tmp)
        say(f"downloading {url}")
        got = from_python_org(url, work, timeout)
        source = f"python.org {url}"
        if got is None:
            got = from_debian(apt_dir.resolve(), work)
            source = (f"Debian source package {DEBIAN_SOURCE_PACKAGE} "
                      f"{DEBIAN_SOURCE_VERSION} ({DEBIAN_ORIG_NAME})")
        if got is None:
            raise ToolError("could not obtain the CPython tarball from any source; put it at "
                            f"{cache / TARBALL_NAME} or point $CPYTHON_TARBALL at it")
        verify_sha256(got, sha256)
        kept = install_into_cache(got, cache, TARBALL_NAME)
    say(f"cached as {kept}")
    return kept, source


@exits_on_tool_error
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python3 -m tools.build.fetch_cpython", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=TARBALL,
                    help=f"where to put the verified tarball (default: {shown(TARBALL)})")
    ap.add_argument("--cache-dir", type=Path, default=cache_dir(),
                    help="per-user cache directory (default: %(default)s)")
    ap.add_argument("--apt-dir", type=Path, default=APT_DIR,
                    help=f"private apt configuration and state (default: {shown(APT_DIR)})")
    ap.add_argument("--sha256", default=TARBALL_SHA256, help="expected sha256 (the pin)")
    ap.add_argument("--url", default=PYTHON_ORG_URL, help="python.org URL")
    ap.add_argument("--timeout", type=float, default=15.0,
                    help="network timeout for python.org, seconds (default: %(default)s)")
    ap.add_argument("--no-network", action="store_true",
                    help="only use $CPYTHON_TARBALL or the cache")
    args = ap.parse_args(argv)
    source = fetch(args.out, cache=args.cache_dir, apt_dir=args.apt_dir, sha256=args.sha256,
                   url=args.url, timeout=args.timeout, network=not args.no_network)
    print(f"tarball: {args.out} ({source})" if source == "already verified"
          else f"tarball: {args.out} (source: {source})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
