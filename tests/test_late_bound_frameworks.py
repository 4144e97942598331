"""Late defaults travel where programs send functions: pickled by value
(cloudpickle, dill) into another process, and wrapped by frameworks that
forward ``inspect.Parameter.default`` for an omitted argument (pydantic's
``validate_call``, FastAPI).

None of these libraries knows PEP 671.  They work because ``__defaults__``
holds a late-default object: copying the defaults copies the late default,
and passing that object back as an argument runs the function's own default.
All are pinned in tests/requirements.txt and run on the patched interpreter.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import pytest

SOURCE = textwrap.dedent('''\
    def window(a, start=0, stop=>len(a), *, seen=>[]):
        seen.append(stop)
        return a[start:stop], seen
    ''')

LOADER = textwrap.dedent('''\
    import pickle, sys, types
    {imports}
    f = {loads}(open(sys.argv[1], 'rb').read())
    assert isinstance(f.__defaults__[1], types.LateDefaultType), f.__defaults__
    print(f([1, 2, 3]), f([1, 2, 3]), f([1, 2, 3], 1, 2), f.__defaults_extra__,
          f.__kwdefaults_extra__)
    ''')

EXPECTED = ("([1, 2, 3], [3]) ([1, 2, 3], [3]) ([2], [2]) (None, 'len(a)') "
            "{'seen': '[]'}")


def run(*args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    result = subprocess.run([sys.executable, *args], capture_output=True, text=True,
                            env=env, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def dynamic_function():
    """window() defined by exec'd source, in a module no other process can
    import: the pickle libraries must send it by value."""
    namespace = {"__name__": "__main__"}
    exec(compile(SOURCE, "<dynamic>", "exec"), namespace)
    return namespace["window"]


@pytest.mark.parametrize("library", ["cloudpickle", "dill"])
def test_pickled_by_value_into_another_process(library: str, tmp_path: Path) -> None:
    module = __import__(library)
    f = dynamic_function()
    data = module.dumps(f, recurse=True) if library == "dill" else module.dumps(f)
    (tmp_path / "f.pkl").write_bytes(data)
    loads = "dill.loads" if library == "dill" else "pickle.loads"
    imports = "import dill" if library == "dill" else ""
    (tmp_path / "load.py").write_text(LOADER.format(imports=imports, loads=loads))
    assert run(str(tmp_path / "load.py"), str(tmp_path / "f.pkl")) == EXPECTED


def test_pydantic_validate_call_runs_the_late_default() -> None:
    from pydantic import validate_call

    @validate_call
    def summarize(values: list[int], count: int => len(values), *,
                  labels: list[str] => [str(count)]) -> tuple[int, list[str]]:
        return count, labels

    assert summarize([1, 2, 3]) == (3, ["3"])
    assert summarize(["1"], count="7") == (7, ["7"])
    assert summarize([1], labels=["x"]) == (1, ["x"])
    first, second = summarize([1]), summarize([1])
    assert first[1] is not second[1]


def test_fastapi_omitted_late_query_parameter() -> None:
    with warnings.catch_warnings():
        # starlette's TestClient suggests another HTTP client package; the
        # pinned httpx is the one FastAPI documents.
        warnings.simplefilter("ignore")
        from fastapi import FastAPI
        from fastapi.testclient import TestClient

    app = FastAPI()

    @app.get("/items")
    def items(q: str = "abc", limit: int => len(q) * 2) -> dict[str, object]:
        return {"q": q, "limit": limit}

    client = TestClient(app)
    assert client.get("/items", params={"q": "hello"}).json() == {"q": "hello",
                                                                   "limit": 10}
    assert client.get("/items").json() == {"q": "abc", "limit": 6}
    assert client.get("/items", params={"limit": 1}).json() == {"q": "abc", "limit": 1}
    with warnings.catch_warnings():
        # pydantic leaves the late default out of the JSON schema (it has no
        # JSON value) and says so.
        warnings.simplefilter("ignore")
        schema = client.get("/openapi.json").json()
    limit = [p for p in schema["paths"]["/items"]["get"]["parameters"]
             if p["name"] == "limit"][0]
    assert limit["required"] is False
    assert "default" not in limit["schema"]
