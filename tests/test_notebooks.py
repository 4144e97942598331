"""A Jupyter notebook whose cells use `=>`, run on the patched interpreter.

The notebook is built with nbformat, saved, and executed by nbclient on an
ipykernel kernel whose kernel spec (installed in a temporary JUPYTER_PATH) starts
this venv's python, the patched interpreter; then the outputs the saved notebook
holds are checked. None of these packages knows PEP 671: the kernel compiles a
cell with the interpreter's own compiler, and IPython's `?` prints
`inspect.signature`, which renders a late default as written. All are pinned in
tests/requirements.txt. On a stock interpreter the cells using `=>` fail with
SyntaxError, and every test below fails.
"""

from __future__ import annotations

import asyncio
import re
import sys
import textwrap
from typing import Any

import nbformat
import pytest
from ipykernel.kernelspec import install as install_kernelspec
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook

KERNEL = "pep671-late-defaults"
ANSI = re.compile(r"\x1b\[[0-9;]*m")

CELLS: dict[str, str] = {
    "interpreter": """\
        import sys, types
        print(sys.executable, hasattr(types, "LateDefaultType"))
        """,
    "define": '''\
        def window(a, lo=0, hi=>len(a)):
            """The items of a from lo up to hi."""
            return a[lo:hi]
        ''',
    "call": """\
        window([1, 2, 3, 4], 1), window("abcdef", 2), window([1, 2, 3, 4], 1, 2)
        """,
    "fresh": """\
        def tagged(item, tags=>[]):
            tags.append(item)
            return tags
        tagged(1), tagged(2), tagged(3, [0])
        """,
    "global-before": """\
        def scaled(x, k=>FACTOR):
            return x * k
        FACTOR = 2
        scaled(5)
        """,
    "global-after": """\
        FACTOR = 10
        scaled(5), scaled(5, 3)
        """,
    "pinfo": "window?",
    "raises": """\
        def first(items, head=>items[0]):
            return head
        first([])
        """,
}


def strip(text: str) -> str:
    return ANSI.sub("", text)


class Executed:
    """The executed notebook, read back from its file, with each cell's
    execute_reply and the reply to a frontend's inspect request."""

    def __init__(self, nb: Any, replies: dict[int, dict[str, Any]],
                 inspect_reply: dict[str, Any]) -> None:
        self.nb = nb
        self.replies = replies
        self.inspect_reply = inspect_reply

    def index(self, name: str) -> int:
        return list(CELLS).index(name)

    def outputs(self, name: str) -> list[dict[str, Any]]:
        return self.nb.cells[self.index(name)].outputs

    def result(self, name: str) -> str:
        """The text/plain of the cell's only output, an execute_result; a cell that
        raised fails the test with its traceback."""
        outputs = self.outputs(name)
        errors = [strip("\n".join(o.traceback)) for o in outputs if o.output_type == "error"]
        assert not errors, f"cell {name!r} raised:\n" + "\n".join(errors)
        assert [o.output_type for o in outputs] == ["execute_result"], outputs
        return outputs[0].data["text/plain"]

    def stdout(self, name: str) -> str:
        outputs = self.outputs(name)
        errors = [strip("\n".join(o.traceback)) for o in outputs if o.output_type == "error"]
        assert not errors, f"cell {name!r} raised:\n" + "\n".join(errors)
        return "".join(o.text for o in outputs
                       if o.output_type == "stream" and o.name == "stdout")

    def page(self, name: str) -> str:
        """What the kernel sent the pager for the cell (IPython's `?`), without colors."""
        reply = self.replies[self.index(name)]["content"]
        assert reply["status"] == "ok", reply
        pages = [p["data"]["text/plain"] for p in reply.get("payload", [])
                 if p.get("source") == "page"]
        assert len(pages) == 1, reply
        return strip(pages[0])


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> Executed:
    tmp = tmp_path_factory.mktemp("notebooks")
    with pytest.MonkeyPatch.context() as mp:
        # Jupyter's and IPython's files go to tmp, not the home directory; the kernel
        # spec is found in JUPYTER_PATH before any other directory.
        for var, sub in [("JUPYTER_PATH", "prefix/share/jupyter"), ("JUPYTER_CONFIG_DIR", "config"),
                         ("JUPYTER_DATA_DIR", "data"), ("JUPYTER_RUNTIME_DIR", "runtime"),
                         ("IPYTHONDIR", "ipython")]:
            mp.setenv(var, str(tmp / sub))
        mp.setenv("JUPYTER_PLATFORM_DIRS", "1")
        # The kernel spec's argv starts with sys.executable: build/venv/bin/python.
        install_kernelspec(kernel_name=KERNEL, display_name="Python (PEP 671)",
                           prefix=str(tmp / "prefix"))

        nb = new_notebook(cells=[new_code_cell(textwrap.dedent(source).rstrip())
                                 for source in CELLS.values()])
        # The tag lets the saved notebook run to the end under `jupyter execute` too.
        nb.cells[list(CELLS).index("raises")].metadata["tags"] = ["raises-exception"]
        # nbclient starts the kernel this names.
        nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": "Python (PEP 671)",
                                     "language": "python"}
        path = tmp / "late_defaults.ipynb"
        nbformat.write(nb, path)

        nb = nbformat.read(path, as_version=4)
        replies: dict[int, dict[str, Any]] = {}

        def on_cell_executed(cell: Any, cell_index: int, execute_reply: dict[str, Any]) -> None:
            replies[cell_index] = execute_reply

        # allow_errors: a cell that raises is reported by the test that reads it.
        client = NotebookClient(nb, timeout=120, startup_timeout=120, allow_errors=True,
                                resources={"metadata": {"path": str(tmp)}},
                                on_cell_executed=on_cell_executed)

        async def run() -> dict[str, Any]:
            async with client.async_setup_kernel(cwd=str(tmp)):
                for index, cell in enumerate(nb.cells):
                    await client.async_execute_cell(cell, index, execution_count=index + 1)
                # What a frontend asks for the contextual help (Shift+Tab) with the cursor
                # just inside `window(`.
                code = "window("
                return await client.kc.inspect(code, cursor_pos=len(code), detail_level=0,
                                               reply=True, timeout=120)

        inspect_reply = asyncio.run(run())
        nbformat.validate(nb)
        nbformat.write(nb, path)
    return Executed(nbformat.read(path, as_version=4), replies, inspect_reply)


def test_the_kernel_runs_the_patched_interpreter(executed: Executed) -> None:
    assert executed.stdout("interpreter") == f"{sys.executable} True\n"


def test_a_late_default_is_computed_from_the_calls_arguments(executed: Executed) -> None:
    assert executed.result("call") == "([2, 3, 4], 'cdef', [2])"


def test_each_call_gets_a_fresh_late_default(executed: Executed) -> None:
    assert executed.result("fresh") == "([1], [2], [0, 3])"


def test_a_late_default_reads_the_notebooks_globals_when_called(executed: Executed) -> None:
    assert (executed.result("global-before"), executed.result("global-after")) == \
        ("10", "(50, 15)")


def test_question_mark_shows_the_signature_as_written(executed: Executed) -> None:
    page = executed.page("pinfo")
    assert page.splitlines()[0] == "Signature: window(a, lo=0, hi=>len(a))", page
    assert "The items of a from lo up to hi." in page


def test_contextual_help_shows_the_signature_as_written(executed: Executed) -> None:
    content = executed.inspect_reply["content"]
    assert content["status"] == "ok" and content["found"], content
    text = strip(content["data"]["text/plain"])
    assert text.splitlines()[0] == "Signature: window(a, lo=0, hi=>len(a))", text


def test_a_raising_late_default_shows_its_traceback(executed: Executed) -> None:
    [error] = [o for o in executed.outputs("raises") if o.output_type == "error"]
    assert (error.ename, error.evalue) == ("IndexError", "list index out of range")
    # The last frame is the function's own, at the line of the default that raised.
    last_frame = strip(error.traceback[-2])
    assert "in first(items, head)" in last_frame, last_frame
    assert "----> 1 def first(items, head=>items[0]):" in last_frame, last_frame
