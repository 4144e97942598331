"""The interactive examples that the documentation patch adds run as shown.

For each page that patches/semantics/*-Document-late-bound-defaults.patch changes, every
doctest paragraph of the patched page (a block of lines starting with '>>>', up to
a blank line) that contains a line the patch adds is run with doctest on the
patched interpreter, in page order.  (Sphinx's doctest builder would run them with
the Python that runs Sphinx, which cannot parse '=>'.)
"""

from __future__ import annotations

import subprocess
import textwrap

from conftest import REPO
from tools.paths import PYTHON, TREE
from tools.common import scrubbed_env

RUNNER = textwrap.dedent('''\
    import doctest, re, sys, textwrap
    patch, tree = sys.argv[1], sys.argv[2]
    added = {}                      # page -> line numbers (1-based) the patch adds
    page = None
    for line in open(patch, encoding="utf-8").read().splitlines():
        if line.startswith("+++ b/"):
            page = line[6:]
            added[page] = set()
        elif line.startswith("@@"):
            number = int(re.match(r"@@ -\\S+ \\+(\\d+)", line)[1])
        elif page is not None and line.startswith("+"):
            added[page].add(number)
            number += 1
        elif page is not None and line.startswith(" "):
            number += 1
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for page, numbers in added.items():
        if not page.endswith(".rst") or not numbers:
            continue
        lines = open(f"{tree}/{page}", encoding="utf-8").read().splitlines()
        globs = {}
        if page.startswith("Doc/library/"):
            # What the page's testsetup imports: the module it documents.
            module = page[len("Doc/library/"):-len(".rst")]
            globs[module] = __import__(module)
        start = None
        for index, line in enumerate(lines + [""]):
            if start is None and line.lstrip().startswith(">>>"):
                start = index
            elif start is not None and not line.strip():
                if any(n - 1 in range(start, index) for n in numbers):
                    text = textwrap.dedent("\\n".join(lines[start:index]))
                    test = parser.get_doctest(text, globs, f"{page}:{start + 1}",
                                              page, start)
                    runner.run(test, clear_globs=False)
                start = None
    failed, attempted = runner.summarize(verbose=False)
    print(attempted, failed)
    ''')


def test_added_documentation_examples_run_as_shown() -> None:
    (patch,) = sorted((REPO / "patches" / "semantics").glob("*-Document-late-bound-defaults.patch"))
    result = subprocess.run([str(PYTHON), "-c", RUNNER, str(patch), str(TREE)],
                            capture_output=True, text=True, env=scrubbed_env(),
                            stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    attempted, failed = map(int, result.stdout.split()[-2:])
    assert failed == 0, result.stdout
    assert attempted >= 20, result.stdout
