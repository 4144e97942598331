"""What in a CPython tree is not source we write: the files the build regenerates
(kept out of the patches by tools.pq, left alone by tools.dogfood) and the products
of an in-tree build (ignored through .git/info/exclude)."""

from __future__ import annotations

# Files written by the `make regen-*` targets that the build runs; they are
# regenerated on every build and stay out of the patches.
GENERATED = [
    "Doc/library/token-list.inc",
    "Include/internal/pycore_ast.h",
    "Include/internal/pycore_ast_state.h",
    "Include/internal/pycore_global_objects_fini_generated.h",
    "Include/internal/pycore_global_strings.h",
    "Include/internal/pycore_opcode_metadata.h",
    "Include/internal/pycore_runtime_init_generated.h",
    "Include/internal/pycore_token.h",
    "Include/internal/pycore_unicodeobject_generated.h",
    "Include/internal/pycore_uop_ids.h",
    "Include/internal/pycore_uop_metadata.h",
    "Include/opcode_ids.h",
    "Lib/_opcode_metadata.py",
    "Lib/keyword.py",
    "Lib/token.py",
    "Modules/_sre/sre_constants.h",
    "Modules/_sre/sre_targets.h",
    "Objects/typeslots.inc",
    "Parser/parser.c",
    "Parser/token.c",
    "Programs/test_frozenmain.h",
    "Python/Python-ast.c",
    "Python/executor_cases.c.h",
    "Python/generated_cases.c.h",
    "Python/opcode_targets.h",
    "Python/optimizer_cases.c.h",
]


def is_generated(path: str) -> bool:
    # Argument Clinic output (regen-global-objects runs `make clinic`).
    return path in GENERATED or ("/clinic/" in path and path.endswith(".c.h"))


# Ignore rules for the build products of an in-tree build (kept in
# .git/info/exclude, so they are not part of any commit or patch).
EXCLUDE = """\
# written by tools.pq: products of an in-tree CPython build
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
