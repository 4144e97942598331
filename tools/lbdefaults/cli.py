"""Command line: scan, report, diff, write, census."""

from __future__ import annotations

import argparse
import fnmatch
import functools
import json
import os
import shlex
import sys
from pathlib import Path
from typing import Collection, Iterator, Sequence

from . import LIMITATIONS
from . import __doc__ as PACKAGE_DOC
from .analysis import (SAFE, SHAPE_DOC, VERDICTS, Candidate, FileResult, Index, prescan_sentinels,
                       read_source)
from .census import as_rst, as_text, build
from .rewrite import RewriteError, rewrite_all, unified_diff, write_file
from .scanner import scan_file
from .verdicts import decide

PROGRESS_EVERY = 200

EPILOG = """\
shapes recognized (after an optional docstring, anywhere at the top level of
the body; only a leading run of checks can be safe):
""" + "".join(f"  {k:<15} {v}\n" for k, v in SHAPE_DOC.items()) + """
verdicts:
  safe           no public name reaches the function and the rewrite keeps the
                 behaviour for every caller the tool can see (--diff/--write
                 apply only these, unless --apply)
  needs review   would be safe, but callers the tool cannot see may pass the
                 marker: the function is exposed (public module and name,
                 re-export, `_`-module imported by a public one, __all__, public
                 alias, a method of a class users can subclass, the private base
                 of a public class), importable sentinel, decorated, ...
  unsafe         the rewrite would change behaviour (the reason says why),
                 e.g. a caller or an override in a subclass passes the marker
Every reason of --json carries its evidence (`path:line` of the call site,
the exposure path, the override). --write also drops the None of `T | None`,
`Optional[T]`, `Union[T, None]` when None was only the marker, and says so
(--keep-annotations keeps them): type checkers then flag the callers the
analysis cannot see that still pass None.

why this is not part of the patch series: it is a project tool for users
adopting the proposal, not part of the language change, so it stays out of
the patch series (which must remain a clean upstream proposal). It needs the
patched interpreter only to verify that rewritten files compile.

""" + LIMITATIONS


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    summary = (PACKAGE_DOC or "").split("\n", 1)[0]
    ap = argparse.ArgumentParser(
        prog="python -m tools.lbdefaults", description=summary, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+", metavar="PATH", type=Path,
                    help="files and directories to scan (*.py, recursively)")
    ap.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                    help="skip files or directories whose path relative to the "
                         "PATH they were found under matches GLOB (repeatable), "
                         "e.g. --exclude test")
    ap.add_argument("--callers-from", action="append", default=[], metavar="PATH",
                    type=Path, help="also scan PATH for callers, without reporting "
                                    "its candidates (repeatable)")
    ap.add_argument("--verdict", choices=VERDICTS, action="append",
                    help="report only candidates with this verdict (repeatable)")
    ap.add_argument("--apply", type=verdict_set, default=frozenset({SAFE}),
                    metavar="VERDICTS",
                    help="the verdicts whose candidates --diff and --write rewrite, "
                         f"comma-separated, of {', '.join(VERDICT_WORDS)} (default: safe); "
                         "anything but safe may change behaviour: for testing the "
                         "analysis, not for migrating code")
    ap.add_argument("--select", type=Path, metavar="FILE",
                    help="rewrite only the candidates listed in FILE, a JSON list in the "
                         "form --json prints (path, line and parameter identify one); "
                         "each must be found and have a verdict of --apply, and a check "
                         "that follows another in the same body needs that one too")
    out = ap.add_argument_group("output (the text report is printed when none of "
                                "--json, --diff, --census is given)")
    out.add_argument("--json", action="store_true", help="print the candidates as JSON")
    out.add_argument("--diff", action="store_true",
                     help="print a unified diff of the rewrites (those of --apply and "
                          "--select; by default the safe ones)")
    out.add_argument("--write", action="store_true",
                     help="make those rewrites in place (each file is verified "
                          "to compile with the running interpreter first; prints "
                          "what was written instead of the report)")
    out.add_argument("--keep-annotations", action="store_true",
                     help="leave `T | None`, `Optional[T]`, `Union[T, None]` as they are "
                          "(by default a rewrite drops the None that was only the marker, "
                          "so that type checkers flag callers that still pass None)")
    out.add_argument("--census", action="store_true", help="print aggregate counts")
    out.add_argument("--census-rst", metavar="FILE", type=Path,
                     help="write the census as a reStructuredText fragment")
    out.add_argument("--census-command", metavar="TEXT",
                     help="command line to quote in the RST intro (default: this one)")
    out.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    return ap.parse_args(argv)


VERDICT_WORDS = {v.replace(" ", "-"): v for v in VERDICTS}


def verdict_set(text: str) -> frozenset[str]:
    """`safe,needs-review` -> {"safe", "needs review"} (for --apply)."""
    words = [w.strip() for w in text.split(",") if w.strip()]
    unknown = [w for w in words if w not in VERDICT_WORDS]
    if unknown or not words:
        raise argparse.ArgumentTypeError(
            f"unknown verdict(s) {', '.join(unknown) or '(none given)'}: "
            f"use a comma-separated list of {', '.join(VERDICT_WORDS)}")
    return frozenset(VERDICT_WORDS[w] for w in words)


class SelectionError(Exception):
    """--select names a candidate that cannot be rewritten as asked."""


def candidate_key(item: Candidate | dict[str, object]) -> tuple[str, int, str]:
    """What identifies a candidate in a --select list: its file, the line of its
    check and its parameter."""
    if isinstance(item, Candidate):
        return item.path, item.line, item.parameter
    try:
        return str(item["path"]), int(item["line"]), str(item["parameter"])  # type: ignore[call-overload]
    except (KeyError, TypeError, ValueError):
        raise SelectionError(f"not a candidate (needs path, line, parameter): {item!r}") from None


def choose(results: Sequence[FileResult], apply: Collection[str],
           selection: Sequence[dict[str, object]] | None = None
           ) -> dict[str, list[Candidate]]:
    """path -> the candidates to rewrite: those whose verdict is in `apply` and,
    with a selection, listed in it. Raises SelectionError for a selected
    candidate that is not found or whose verdict is not applied, and for a check
    selected without a check that comes before it in the same body (moving only
    the later one would change the order in which the defaults are computed)."""
    wanted = None if selection is None else {candidate_key(i) for i in selection}
    chosen: dict[str, list[Candidate]] = {}
    found: set[tuple[str, int, str]] = set()
    problems: list[str] = []
    for r in results:
        keep = []
        for c in r.candidates:
            key = candidate_key(c)
            if wanted is not None and key not in wanted:
                continue
            found.add(key)
            if c.verdict not in apply:
                if wanted is not None:
                    problems.append(f"{c.path}:{c.line}: {c.function}({c.parameter}) is "
                                    f"{c.verdict}, not one of --apply")
                continue
            keep.append(c)
        kept = {id(c) for c in keep}
        for c in keep:
            missing = [r.candidates[j] for j in c.run_before if id(r.candidates[j]) not in kept]
            if missing:
                m = missing[0]
                problems.append(f"{c.path}:{c.line}: {c.function}({c.parameter}) follows the "
                                f"check of '{m.parameter}' (line {m.line}), which is not "
                                f"rewritten: select it too")
        if keep:
            chosen[r.path] = keep
    for key in sorted((wanted or set()) - found):
        problems.append(f"{key[0]}:{key[1]}: no candidate for parameter '{key[2]}' there")
    if problems:
        raise SelectionError("\n".join(problems))
    return chosen


def _excluded(rel: str, patterns: Sequence[str]) -> bool:
    parts = Path(rel).parts
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    return any(fnmatch.fnmatch(p, pat) for p in prefixes for pat in patterns)


def iter_files(paths: Sequence[Path], exclude: Sequence[str]) -> Iterator[tuple[Path, str]]:
    """(file, path relative to the PATH argument) for every *.py file."""
    for root in paths:
        if root.is_file():
            yield root, root.name
            continue
        if not root.is_dir():
            raise FileNotFoundError(f"no such file or directory: {root}")
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames.sort()
            rel_dir = Path(dirpath).relative_to(root)
            dirnames[:] = [d for d in dirnames
                           if not _excluded((rel_dir / d).as_posix(), exclude)]
            for name in sorted(filenames):
                rel = (rel_dir / name).as_posix()
                if name.endswith(".py") and not _excluded(rel, exclude):
                    yield Path(dirpath) / name, rel


def analyse(paths: Sequence[Path], exclude: Sequence[str] = (),
            callers_from: Sequence[Path] = (), progress: bool = False
            ) -> tuple[list[FileResult], int]:
    """Scan everything; return the results of the reported files and the
    number of files that failed to parse."""
    reported = list(iter_files(paths, exclude))
    context = [f for f in iter_files(callers_from, exclude=())
               if f[0].resolve() not in {r[0].resolve() for r in reported}]
    index = Index()
    sources: list[tuple[Path, str, str, str | None, str, bool]] = []
    failed = 0
    for path, rel in [*reported, *context]:
        is_reported = len(sources) < len(reported)
        try:
            text, encoding = read_source(path)
        except (OSError, SyntaxError, UnicodeDecodeError, LookupError) as exc:
            if is_reported:
                print(f"{path}: skipped: cannot read: {exc}", file=sys.stderr)
                failed += 1
            text, encoding = None, "utf-8"
        if text is not None:
            index.sentinel_names |= prescan_sentinels(text)
        sources.append((path, rel, str(path), text, encoding, is_reported))
    results: list[FileResult] = []
    for n, (path, rel, display, text, encoding, is_reported) in enumerate(sources, 1):
        if progress and n % PROGRESS_EVERY == 0:
            print(f"lbdefaults: scanned {n} of {len(sources)} files", file=sys.stderr)
        if text is None:
            continue
        result = scan_file(path, display, rel, text, index, is_reported)
        result.encoding = encoding
        if result.error is not None:
            if is_reported:
                print(f"{display}: skipped: {result.error}", file=sys.stderr)
                failed += 1
            continue
        if is_reported:
            results.append(result)
    for result in results:
        decide(result.candidates, index)
    return results, failed


def report_line(c: Candidate) -> str:
    ann = ""
    if c.annotation_change is not None and c.verdict == SAFE:
        ann = f" (annotation `{c.annotation_change[0]}` -> `{c.annotation_change[1]}`)"
    return (f"{c.path}:{c.line}: {c.function}({c.parameter}): {c.verdict} — "
            f"{c.reason} — {c.shape}: {c.parameter}=>{c.expr}{ann}")


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # output piped into `head` and the like
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def _main(argv: Sequence[str] | None) -> int:
    args = parse_args(argv)
    try:
        results, failed = analyse(args.paths, args.exclude, args.callers_from,
                                  progress=not args.quiet)
    except FileNotFoundError as exc:
        print(f"lbdefaults: {exc}", file=sys.stderr)
        return 2
    files = len(results) + failed
    everything = [c for r in results for c in r.candidates]
    shown = [c for c in everything if not args.verdict or c.verdict in args.verdict]
    status = 0

    if args.json:
        json.dump([c.to_json() for c in shown], sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
    chosen: dict[str, list[Candidate]] = {}
    if args.diff or args.write:
        try:
            selection = None
            if args.select is not None:
                selection = json.loads(args.select.read_text(encoding="utf-8"))
                if not isinstance(selection, list):
                    raise SelectionError(f"{args.select}: not a JSON list")
            chosen = choose(results, args.apply, selection)
        except (OSError, ValueError, SelectionError) as exc:
            print(f"lbdefaults: --select: {exc}", file=sys.stderr)
            return 2
    if args.diff:
        for r in results:
            if r.text is not None and r.path in chosen:
                sys.stdout.write(unified_diff(
                    r.path, r.text,
                    rewrite_all(r.text, chosen[r.path], not args.keep_annotations)))
    if args.census or args.census_rst:
        census = build(everything, files, failed)
        if args.census:
            sys.stdout.write(as_text(census))
        if args.census_rst:
            command = args.census_command or "./python -m tools.lbdefaults " + shlex.join(
                sys.argv[1:] if argv is None else list(argv))
            excluded = ""
            if args.exclude:
                where = ", ".join(f"``{root.resolve().name}/{pat}``"
                                  for root in args.paths if root.is_dir()
                                  for pat in args.exclude)
                excluded = f" It excludes {where} (``--exclude``)."
            intro = (f"Produced with ``{command}`` over {files} files "
                     f"({failed} failed to parse); {census.files_with} of them have "
                     f"candidates.{excluded} *Safe* means that the "
                     f"rewrite keeps the behaviour for every caller the tool can see and "
                     f"that no public name reaches the function (no re-export, public "
                     f"subclass, alias or ``__all__`` entry); *needs review* that it would "
                     f"be safe but callers the tool cannot see may pass the marker (public "
                     f"API, methods of classes users can subclass, importable sentinel, "
                     f"decorated or escaping functions).")
            args.census_rst.parent.mkdir(parents=True, exist_ok=True)
            args.census_rst.write_text(as_rst(census, intro), encoding="utf-8")
    if not (args.json or args.diff or args.census or args.census_rst or args.write):
        for c in shown:
            print(report_line(c))
        if not args.quiet:
            counts = ", ".join(f"{sum(c.verdict == v for c in shown)} {v}" for v in VERDICTS)
            with_cands = len({c.path for c in shown})
            print(f"lbdefaults: {len(shown)} candidates ({counts}) in {with_cands} files "
                  f"({files} scanned)", file=sys.stderr)
    if args.write:
        for r in results:
            if r.text is None or r.path not in chosen:
                continue
            try:
                n = write_file(Path(r.path), r.path, r.text, r.encoding, chosen[r.path],
                               rewriter=functools.partial(
                                   rewrite_all, annotations=not args.keep_annotations),
                               apply=args.apply)
            except (RewriteError, OSError) as exc:
                print(f"{r.path}: not rewritten: {exc}", file=sys.stderr)
                status = 1
            else:
                print(f"{r.path}: rewrote {n} default(s)", file=sys.stderr)
                if not args.keep_annotations:
                    for c in chosen[r.path]:
                        if c.annotation_change is not None:
                            old, new = c.annotation_change
                            print(f"{r.path}:{c.def_line}: {c.function}({c.parameter}): "
                                  f"annotation `{old}` -> `{new}`", file=sys.stderr)
    return status
