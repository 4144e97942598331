"""tools.sdist.apply_patch counts lines as patch does, at "\\n" only."""

from __future__ import annotations

from pathlib import Path

from tools.sdist import apply_patch

PATCH = """\
--- a/t.py
+++ b/t.py
@@ -3,2 +3,3 @@
 c = 3
+d = 4
 e = 5
"""


def test_a_form_feed_in_a_line_does_not_shift_the_hunks(tmp_path: Path) -> None:
    # str.splitlines() would make two lines of the second one (autopep8's tests hold
    # such a string), and the hunk would no longer be at its line.
    (tmp_path / "t.py").write_bytes(b"a = 1\nb = '\x0c'\nc = 3\ne = 5\n")
    assert apply_patch(PATCH, tmp_path) == ["t.py"]
    assert (tmp_path / "t.py").read_bytes() == b"a = 1\nb = '\x0c'\nc = 3\nd = 4\ne = 5\n"
