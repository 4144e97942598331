"""tools.build.series: the layout of patches/, two parts in one series file."""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.common import ToolError
from tools.build.series import (PART_COMMENTS, patch_files, read_series, series_digest,
                          series_text, split_series, sync_patches)

SEMANTICS = ["semantics/0001-a.patch", "semantics/0002-b.patch"]
PERFORMANCE = ["performance/0001-c.patch"]


def make(patches: Path, names: list[str]) -> None:
    for name in names:
        (patches / name).parent.mkdir(parents=True, exist_ok=True)
        (patches / name).write_text(f"patch {name}\n")
    (patches / "series").write_text(series_text(*split_series(names)))


def test_the_series_file_names_each_part_after_its_comment(tmp_path: Path) -> None:
    text = series_text(SEMANTICS, PERFORMANCE)
    assert text.splitlines() == [PART_COMMENTS["semantics"], *SEMANTICS,
                                 PART_COMMENTS["performance"], *PERFORMANCE]
    assert "semantics" in PART_COMMENTS["semantics"]
    assert "on top of the semantics" in PART_COMMENTS["performance"]
    make(tmp_path, SEMANTICS + PERFORMANCE)
    assert read_series(tmp_path) == SEMANTICS + PERFORMANCE
    assert split_series(read_series(tmp_path)) == (SEMANTICS, PERFORMANCE)


@pytest.mark.parametrize("names, message", [
    (["0001-a.patch"], "semantics/NAME.patch or performance/NAME.patch"),
    (["other/0001-a.patch"], "semantics/NAME.patch or performance/NAME.patch"),
    (["semantics/sub/0001-a.patch"], "semantics/NAME.patch or performance/NAME.patch"),
    (["semantics/0001-a.diff"], "semantics/NAME.patch or performance/NAME.patch"),
    ([*PERFORMANCE, *SEMANTICS], "the semantics part comes first"),
])
def test_a_series_outside_the_layout_is_refused(names: list[str], message: str) -> None:
    with pytest.raises(ToolError, match=message):
        split_series(names)


def test_the_digest_is_of_the_patches_and_their_parts_not_the_comments(tmp_path: Path) -> None:
    make(tmp_path, SEMANTICS + PERFORMANCE)
    digest = series_digest(tmp_path)
    (tmp_path / "series").write_text("# another comment\n" + "\n".join(SEMANTICS + PERFORMANCE))
    assert series_digest(tmp_path) == digest
    (tmp_path / SEMANTICS[0]).write_text("changed\n")
    assert series_digest(tmp_path) != digest
    # the same patches with the split one patch earlier: another series
    moved = tmp_path / "moved"
    make(moved, [SEMANTICS[0], "performance/0001-b.patch", "performance/0002-c.patch"])
    for old, new in zip(SEMANTICS + PERFORMANCE, read_series(moved)):
        (moved / new).write_bytes((tmp_path / old).read_bytes())
    assert series_digest(moved) != series_digest(tmp_path)


def test_sync_writes_only_what_changed_and_removes_the_rest(tmp_path: Path) -> None:
    source, dest = tmp_path / "source", tmp_path / "dest"
    make(source, SEMANTICS + PERFORMANCE)
    dest.mkdir()
    (dest / "0009-old-layout.patch").write_text("old\n")
    assert sync_patches(source, SEMANTICS + PERFORMANCE, dest) == 5   # 3 patches, series, 1 gone
    assert set(patch_files(dest)) == set(SEMANTICS + PERFORMANCE)
    assert read_series(dest) == SEMANTICS + PERFORMANCE
    before = (dest / SEMANTICS[0]).stat().st_mtime_ns
    assert sync_patches(source, SEMANTICS + PERFORMANCE, dest) == 0
    assert (dest / SEMANTICS[0]).stat().st_mtime_ns == before
    assert sync_patches(source, SEMANTICS, dest) == 2                 # 1 gone, series
    assert not (dest / "performance").exists()
    assert (dest / "series").read_text() == series_text(SEMANTICS, [])
    with pytest.raises(ToolError, match="missing file"):
        sync_patches(source, [*SEMANTICS, "performance/0002-gone.patch"], dest)
    assert read_series(dest) == SEMANTICS      # nothing touched
