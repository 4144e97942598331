"""tools.measure.pyperformance: pyperformance benchmarks counted by callgrind.

The 1% pyperformance target is judged on instructions per benchmark loop, because
wall-clock time on a shared machine does not repeat to 1%.  This checks the method on
one small benchmark: run as pyperf workers under callgrind with L and 2L loops, it
gives a per-loop count, and counting the same interpreter twice (standing in for the
patched and the baseline build) gives the same figure.  It installs bench's pinned
requirements (pyperf, pyperformance) from PyPI into a fresh venv of the interpreter
under test, and needs valgrind.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from tools.measure.model import State
from tools.measure.pyperformance import run_pyperformance_callgrind
from conftest import REPO
from tools.common import ensure_venv


def test_pyperformance_benchmark_counted_per_loop(tmp_path: Path) -> None:
    assert shutil.which("valgrind"), "valgrind is needed: apt-get install valgrind"
    exe = Path(sys._base_executable)  # the interpreter behind this test venv
    venv_py = ensure_venv(exe, tmp_path / "venv", [REPO / "bench" / "requirements.txt"],
                          log=tmp_path / "venv.log")
    st = State(tmp_path, tmp_path / "logs")
    run_pyperformance_callgrind(st, {"patched": venv_py, "baseline": venv_py}, 2,
                                names=("unpack_sequence",))
    part = st.parts["pyperformance (callgrind)"]
    assert part.status == "ok", part.why
    row = st.data["pyperformance_callgrind"]["rows"]["unpack_sequence"]
    # a loop of unpack_sequence runs its unpacking statements 400 times (inner_loops)
    assert 10_000 < row["patched"] < 10_000_000, row
    assert row["loops"] >= 1
    assert abs(row["ratio"] - 1) < 1e-3, row
