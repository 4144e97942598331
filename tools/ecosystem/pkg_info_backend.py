"""A stand-in PEP 517 build backend that prepares a wheel's metadata from the sdist's
PKG-INFO, and builds nothing.

`pip download` of an sdist asks its build backend for the wheel's metadata, to check
the name and version. Some backends cannot answer offline: pyrefly's maturin runs `cargo
metadata`, which resolves the manifest's dependencies, one of them a git revision of a
repository this machine cannot reach. tools.ecosystem.sdist.download copies this file, as
a package named after that backend (pin.toml's [package] pkg_info_backend), into a
directory on PYTHONPATH and runs pip with --no-build-isolation, so that pip imports it
instead. Only the download uses it; the sdist is checked against its pinned sha256, and
its wheel is built later by the real backend.

Standard library only: it runs in the pip's interpreter, outside this repository.
"""

from __future__ import annotations

import email.parser
import os
from typing import Any, Mapping


def get_requires_for_build_wheel(config_settings: Mapping[str, Any] | None = None
                                 ) -> list[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str,
                                     config_settings: Mapping[str, Any] | None = None) -> str:
    """A .dist-info in metadata_directory whose METADATA has PKG-INFO's name and version
    (the current directory is the top of the unpacked sdist)."""
    with open("PKG-INFO", encoding="utf-8") as f:
        info = email.parser.Parser().parse(f, headersonly=True)
    name, version = info["Name"], info["Version"]
    if not name or not version:
        raise RuntimeError("PKG-INFO has no Name or no Version")
    dist_info = f"{name.replace('-', '_')}-{version}.dist-info"
    os.makedirs(os.path.join(metadata_directory, dist_info), exist_ok=True)
    with open(os.path.join(metadata_directory, dist_info, "METADATA"), "w",
              encoding="utf-8") as f:
        f.write(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    return dist_info


def build_wheel(wheel_directory: str, config_settings: Mapping[str, Any] | None = None,
                metadata_directory: str | None = None) -> str:
    raise RuntimeError("the stand-in backend of tools.ecosystem prepares metadata for pip "
                       "download only; it builds no wheel")
