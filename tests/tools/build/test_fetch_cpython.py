"""A tarball whose sha256 is not the pin is refused, and nothing is unpacked."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from conftest import REPO, tool

PIN = "93e583f243454e6e9e4588ca2c2662206ad961659863277afcdb96801647d640"


def test_pin_is_the_documented_one() -> None:
    assert f'TARBALL_SHA256 = "{PIN}"' in (REPO / "tools" / "paths.py").read_text()


def test_env_tarball_with_wrong_checksum_is_refused(tmp_path: Path) -> None:
    bogus = tmp_path / "Python-3.13.5.tar.xz"
    bogus.write_bytes(b"not the real tarball")
    out = tmp_path / "out" / "Python-3.13.5.tar.xz"
    env = dict(os.environ, CPYTHON_TARBALL=str(bogus))
    r = tool("build.fetch_cpython", "--out", str(out), "--cache-dir", str(tmp_path / "cache"),
             "--no-network", env=env)
    assert r.returncode != 0
    assert "checksum mismatch" in r.stderr
    assert str(bogus) in r.stderr
    assert PIN in r.stderr
    assert hashlib.sha256(b"not the real tarball").hexdigest() in r.stderr
    assert not out.exists()
    assert not (tmp_path / "cache").exists()


def test_cached_tarball_with_wrong_checksum_is_refused(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "Python-3.13.5.tar.xz").write_bytes(b"corrupt")
    out = tmp_path / "out.tar.xz"
    env = {k: v for k, v in os.environ.items() if k != "CPYTHON_TARBALL"}
    r = tool("build.fetch_cpython", "--out", str(out), "--cache-dir", str(cache), "--no-network",
             env=env)
    assert r.returncode != 0
    assert "checksum mismatch" in r.stderr and PIN in r.stderr
    assert not out.exists()


def test_pq_refuses_to_unpack_a_mismatching_tarball(tmp_path: Path) -> None:
    bogus = tmp_path / "Python-3.13.5.tar.xz"
    bogus.write_bytes(b"x" * 100)
    tree = tmp_path / "tree"
    patches = tmp_path / "patches"
    patches.mkdir()
    (patches / "series").write_text("")
    r = tool("build.pq", "apply", "--tarball", str(bogus), "--tree", str(tree),
             "--patches", str(patches))
    assert r.returncode != 0
    assert "checksum mismatch" in r.stderr and PIN in r.stderr
    assert not tree.exists()
    assert not any(p.name.startswith(".tree-new") for p in tmp_path.iterdir())
