"""What in a CPython tree is not source we write: the files the build regenerates
(committed with the change that regenerates them, as upstream's commits do, so each
patch carries its own; tools.check.series_check checks that regeneration reproduces them,
tools.dogfood leaves them alone) and the products of an in-tree build (ignored
through .git/info/exclude)."""

from __future__ import annotations

# Files written by the `make regen-*` targets that the build runs (tools.build.cpython), each
# with the target that writes it. Tracked like any file: a commit that changes their
# sources carries what regeneration then writes, as upstream's commits do.
GENERATED: dict[str, str] = {
    "Doc/library/token-list.inc": "regen-token",
    "Include/internal/pycore_ast.h": "regen-ast",
    "Include/internal/pycore_ast_state.h": "regen-ast",
    "Include/internal/pycore_global_objects_fini_generated.h": "regen-global-objects",
    "Include/internal/pycore_global_strings.h": "regen-global-objects",
    "Include/internal/pycore_opcode_metadata.h": "regen-cases",
    "Include/internal/pycore_runtime_init_generated.h": "regen-global-objects",
    "Include/internal/pycore_token.h": "regen-token",
    "Include/internal/pycore_unicodeobject_generated.h": "regen-global-objects",
    "Include/internal/pycore_uop_ids.h": "regen-cases",
    "Include/internal/pycore_uop_metadata.h": "regen-cases",
    "Include/opcode_ids.h": "regen-cases",
    "Lib/_opcode_metadata.py": "regen-cases",
    "Lib/keyword.py": "regen-keyword",
    "Lib/token.py": "regen-token",
    "Modules/_sre/sre_constants.h": "regen-sre",
    "Modules/_sre/sre_targets.h": "regen-sre",
    "Objects/typeslots.inc": "regen-typeslots",
    "Parser/parser.c": "regen-pegen",
    "Parser/token.c": "regen-token",
    "Programs/test_frozenmain.h": "regen-test-frozenmain",   # needs the built interpreter
    "Python/Python-ast.c": "regen-ast",
    "Python/executor_cases.c.h": "regen-cases",
    "Python/generated_cases.c.h": "regen-cases",
    "Python/opcode_targets.h": "regen-cases",
    "Python/optimizer_cases.c.h": "regen-cases",
}
# Argument Clinic's output, */clinic/*.c.h: `make clinic` (regen-global-objects runs it).
CLINIC = "clinic"


def is_clinic_output(path: str) -> bool:
    return "/clinic/" in path and path.endswith(".c.h")


def is_generated(path: str) -> bool:
    return path in GENERATED or is_clinic_output(path)


def regen_target(path: str) -> str | None:
    """The make target that writes path, a file the build regenerates; None for another."""
    return GENERATED.get(path) or (CLINIC if is_clinic_output(path) else None)


# Ignore rules for the build products of an in-tree build (kept in
# .git/info/exclude, so they are not part of any commit or patch).
EXCLUDE = """\
# written by tools.build.pq: products of an in-tree CPython build
*.o
*.a
*.so
*.so.*
*.pyc
*.new
__pycache__/
/build/
/python
/python-gdb.py
/_bootstrap_python
/python-config
/python-config.py
/python.exe
/Makefile
/Makefile.pre
/Misc/python.pc
/Misc/python-embed.pc
/Misc/python-config.sh
/Modules/Setup.bootstrap
/Modules/Setup.local
/Modules/Setup.stdlib
/Modules/config.c
/Modules/ld_so_aix
/Programs/_freeze_module
/Programs/_testembed
/Python/frozen_modules/*.h
/Python/deepfreeze/
/Lib/build/
/Lib/test/data/*
!/Lib/test/data/README
/config.log
/config.status
/config.status.lineno
/config.cache
/pyconfig.h
/pybuilddir.txt
/platform
/libpython*
/Tools/unicode/data/
/Tools/msi/obj/
/profile-*
/*.profraw
/*.profdata
/.pep671-*
/TAGS
/tags
/gmon.out
/@test*
/test_python_*
/Lib/test/@test*
"""
