"""The ``cutile2triton`` command line.

Exit codes (as ruff and clang-format use them):
  0  success
  1  the input has errors (diagnostics were printed), --check found changes,
     or an output file exists, differs and is not an earlier output (use --force)
  2  usage or I/O error
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import List, Optional

from . import api
from ._version import __version__
from .convert import (CONVERTED, EXISTS, EXISTS_MESSAGE, FAILED, SKIPPED, UNCHANGED, WOULD_CHANGE, UsageError,
                      convert_path, unused_rank_options)
from .report import Progress, print_analysis, print_summary

EXIT_OK, EXIT_DIAGNOSTICS, EXIT_USAGE = 0, 1, 2


def _cmd_parse(args: argparse.Namespace) -> int:
    rc = EXIT_OK
    for path in args.files:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            print(f"{path}: error: cannot read file: {e.strerror}", file=sys.stderr)
            return EXIT_USAGE
        try:
            if args.dump_ast:
                print(api.parse_dump(data, path, args.python_version, not args.no_attributes))
            elif args.python_version:
                # The parser accepts Python 3.12 syntax; the dump for an older
                # version reports nodes that version does not have.
                api.parse_dump(data, path, args.python_version, False)
                print(f"{path}: ok")
            else:
                api.check_syntax(data, path)
                print(f"{path}: ok")
        except api.ConversionError as e:
            sys.stderr.write(e.diagnostics)
            rc = EXIT_DIAGNOSTICS
    return rc


def _add_compile_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--int64-indexing", action="store_true",
                   help="compute all array offsets in int64 (arrays with 2**31 or more elements; cuTile does this "
                        "only for ct.IndexedWithInt64 arrays)")
    p.add_argument("--array-rank", action="append", default=[], metavar="[KERNEL.]PARAM=N",
                   help="rank of an array parameter whose uses do not show it (repeatable)")


def _compile_options(args: argparse.Namespace) -> dict:
    ranks = {}
    for item in args.array_rank:
        name, sep, rank = item.rpartition("=")
        if not sep or not name or not rank.isdigit() or int(rank) > api.MAX_ARRAY_RANK:
            raise UsageError(f"--array-rank {item}: expected [KERNEL.]PARAM=N with N from 0 to {api.MAX_ARRAY_RANK}")
        ranks[name] = int(rank)
    return {"int64_indexing": args.int64_indexing, "array_ranks": ranks}


def _cmd_convert(args: argparse.Namespace) -> int:
    import json

    if args.output == "" or args.out_dir == "":  # an unset shell variable: not "use the default"
        raise UsageError(f"an empty {'-o' if args.output == '' else '--out-dir'} argument (an unset shell variable?)")
    if args.output == "-":  # the usual spelling of standard output, not a file named "-"
        if args.stdout:
            raise UsageError("use only one of -o, --out-dir, --stdout")
        args.output, args.stdout = None, True
    if sum(bool(x) for x in (args.output, args.out_dir, args.stdout)) > 1:
        raise UsageError("use only one of -o, --out-dir, --stdout")
    if args.stdout and (args.check or args.diff):
        raise UsageError("--check and --diff compare with the output file: use them with -o FILE, --out-dir DIR "
                         "or the mirror path, not with --stdout")
    write = not (args.stdout or args.check or args.diff)
    progress = Progress(enabled=not args.json and not args.stdout and _many(args.paths))
    try:
        options = _compile_options(args)
        reports = convert_path(args.paths, out=args.output, out_dir=args.out_dir, check=args.check,
                               diff=args.diff, force=args.force, write=write, on_file=progress.advance, **options)
    finally:
        progress.close()
    rc = EXIT_OK
    for r in reports:
        if r.rendered:
            sys.stderr.write(r.rendered)
        if r.status == FAILED:
            rc = EXIT_USAGE if r.io_error else max(rc, EXIT_DIAGNOSTICS)
        elif r.status == EXISTS:
            if args.json or not _many(args.paths):  # a folder run's summary rows show it (--json: the report)
                print(f"{r.output}: error: {EXISTS_MESSAGE}", file=sys.stderr)
            rc = max(rc, EXIT_DIAGNOSTICS)
        elif r.status == WOULD_CHANGE:
            if args.diff:
                sys.stdout.write(r.diff)
            rc = max(rc, EXIT_DIAGNOSTICS) if args.check else rc
    if options["array_ranks"]:
        _warn_unused_ranks(options["array_ranks"], _kernel_params_of(reports))
    if args.stdout and not args.json:
        for r in reports:
            if r.status == CONVERTED:
                sys.stdout.write(r.code)
            elif r.status == SKIPPED:  # nothing on stdout: say why on stderr
                print(f"{r.source}: skipped: no cuda.tile import, nothing to convert", file=sys.stderr)
    if args.json:  # with --stdout, the code goes into the JSON (stdout stays one JSON document)
        files = [dict(r.as_dict(), **({"code": r.code} if args.stdout and r.status == CONVERTED else {})) for r in reports]
        print(json.dumps({"files": files}, indent=2))
    elif not args.stdout and not args.diff:
        print_summary(reports, verbose=_many(args.paths))
    return rc


def _kernel_params_of(reports) -> Optional[List[dict]]:
    """{kernel: [parameters]} of each file converted or failed (skipped ones have no kernels), for the
    --array-rank typo warnings; a failed file's are those the converter lowered (a typo in --array-rank
    is often why it failed). None when a failed file shows no kernel (it stopped before lowering, e.g.
    it did not parse): the run's kernels are then unknown."""
    out = []
    for r in reports:
        if r.status == SKIPPED:
            continue
        if r.status == FAILED and not r.io_error and not r.kernel_params:
            return None
        out.append(r.kernel_params)
    return out


def _warn_unused_ranks(ranks: dict, kernel_params: Optional[List[dict]]) -> None:
    """--array-rank entries that matched nothing in the run's files (one {kernel: [params]} each):
    typos the converter would otherwise ignore, one warning per entry on stderr."""
    if not ranks or not kernel_params:
        return
    where = "the file" if len(kernel_params) == 1 else f"the {len(kernel_params)} files"
    for key in unused_rank_options(ranks, kernel_params):
        what = f"no kernel parameter {key!r}" if "." not in key else f"no kernel {key.split('.', 1)[0]!r}"
        print(f"warning: --array-rank {key}={ranks[key]}: {what} in {where}; the option did nothing", file=sys.stderr)


def _names_operation(name: str, op: dict) -> bool:
    """Whether `cutile2triton ops NAME` lists `op`: NAME (case aside, a leading `ct.` dropped) is its
    name (`load`, `Tile.astype`), a part of it (`load` for `RawArrayMemory.load_offset`, `astype` for
    `Tile.astype`) or its family (`mma`)."""
    name = name.lower().removeprefix("ct.")
    full = op["name"].lower()
    return name in (full, op["family"].lower()) or name in re.split(r"[._]", full)


def _cmd_ops(args: argparse.Namespace) -> int:
    import json

    from .report import operations_markdown, print_operations

    ops = api.operations()
    if args.names:
        ops = [op for op in ops if any(_names_operation(w, op) for w in args.names)]
        if not ops:
            print(f"error: no supported cuTile operation is named {' or '.join(map(repr, args.names))} "
                  "(`cutile2triton ops` lists them all)", file=sys.stderr)
            return EXIT_DIAGNOSTICS
    if args.json:
        print(json.dumps({"operations": ops}, indent=1))
    elif args.markdown:
        sys.stdout.write(operations_markdown(ops))
    else:
        print_operations(ops)
    return EXIT_OK


def _cmd_analyze(args: argparse.Namespace) -> int:
    import json
    import pathlib

    from .paths import iter_sources

    results = []
    options = _compile_options(args)
    for path in iter_sources(args.paths):
        try:
            data = pathlib.Path(path).read_bytes()
        except OSError as e:
            print(f"{path}: error: cannot read file: {e.strerror}", file=sys.stderr)
            return EXIT_USAGE
        results.append(api.analyze_source(data, str(path), **options))
    cutile = [r for r in results if r.get("is_cutile")]
    # A file with errors and no kernel did not parse: the run's kernels are then unknown.
    if not any(not r.get("kernels") and any(d.get("severity") == "error" for d in r.get("diagnostics", []))
               for r in cutile):
        _warn_unused_ranks(options["array_ranks"],
                           [{k["name"]: [p["name"] for p in k.get("params", [])] for k in r.get("kernels", [])}
                            for r in cutile])
    if args.json:
        print(json.dumps({"files": results}, indent=2))
    else:
        print_analysis(results)
    return EXIT_DIAGNOSTICS if any(d.get("severity") == "error" for r in results for d in r.get("diagnostics", [])) else EXIT_OK


def _many(paths: List[str]) -> bool:
    import os

    return len(paths) > 1 or any(os.path.isdir(p) for p in paths)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cutile2triton",
        description="Convert NVIDIA cuTile Python kernels (@ct.kernel) into Triton kernels (@triton.jit).",
        epilog="Exit codes: 0 ok, 1 diagnostics (or --check found changes, or an output exists, differs and is not "
        "an earlier output of its source, "
        "without --force), 2 usage or I/O error.",
    )
    p.add_argument("--version", action="version", version=f"cutile2triton {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    ps = sub.add_parser("parse", help="parse Python files with the C++ parser (syntax check or AST dump)",
                        description="Parse Python files with cutile2triton's C++ parser: by default a syntax check "
                        "(errors in file:line:col form, exit 1); --dump-ast prints the tree as Python's ast.dump "
                        "would, for comparing with CPython.")
    ps.add_argument("files", nargs="+", metavar="FILE")
    ps.add_argument("--dump-ast", action="store_true", help="print the AST as ast.dump(..., include_attributes=True)")
    ps.add_argument("--no-attributes", action="store_true", help="omit positions from --dump-ast")
    ps.add_argument("--python-version", metavar="3.X", help="ast field set to print (3.11 or 3.12; default: running Python)")
    ps.set_defaults(func=_cmd_parse)

    pc = sub.add_parser("convert", help="convert cuTile files or folders to Triton",
                        description="Convert cuTile files (folders: every *.py using cuda.tile) to Triton. "
                        "Output goes to the /cutile/ -> /triton/ mirror path unless -o, --out-dir or --stdout is given. "
                        "An existing output is replaced if cutile2triton wrote it from the same source (its header), "
                        "other files and symbolic links only with --force; writes are atomic.")
    pc.add_argument("paths", nargs="+", metavar="PATH")
    pc.add_argument("-o", "--output", metavar="FILE", help="output file (one input only; - for standard output)")
    pc.add_argument("--out-dir", metavar="DIR", help="write outputs under DIR, keeping relative paths")
    pc.add_argument("--stdout", action="store_true", help="print the converted code instead of writing files")
    pc.add_argument("--check", action="store_true", help="write nothing; exit 1 if any output would change")
    pc.add_argument("--diff", action="store_true", help="write nothing; print a unified diff of what would change")
    pc.add_argument("--force", action="store_true", help="also overwrite existing outputs that are not cutile2triton's earlier output of the same source")
    pc.add_argument("--json", action="store_true", help="print a machine-readable report of every file and diagnostic")
    _add_compile_options(pc)
    pc.set_defaults(func=_cmd_convert)

    pa = sub.add_parser("analyze", help="pre-flight report: kernels, loads/stores, TMA candidates, unsupported constructs",
                        description="Pre-flight report of cuTile files or folders, without writing anything: each "
                        "kernel's parameters and line, its 1-D and N-D loads and stores, gathers and scatters, TMA "
                        "candidates and helpers, and every construct the converter rejects (as convert would report "
                        "it). Exit 1 when a file would not convert.")
    pa.add_argument("paths", nargs="+", metavar="PATH")
    pa.add_argument("--json", action="store_true", help="machine-readable output")
    _add_compile_options(pa)
    pa.set_defaults(func=_cmd_analyze)

    po = sub.add_parser("ops", help="list the cuTile operations the converter supports",
                        description="List the cuTile operations the converter supports, from its registry: each "
                        "one as written in cuTile code and what the converted Triton code does, by family.")
    po.add_argument("names", nargs="*", metavar="NAME",
                    help="only the operations named NAME (e.g. load, ct.sum, Tile.astype), with NAME as a part of their "
                    "name (load: load_offset) or as their family (mma)")
    fmt = po.add_mutually_exclusive_group()
    fmt.add_argument("--markdown", action="store_true", help="Markdown tables (docs/OPERATIONS.md is this output)")
    fmt.add_argument("--json", action="store_true", help="machine-readable output")
    po.set_defaults(func=_cmd_ops)
    return p


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse exits 2 on usage errors, 0 on --help/--version
        return int(e.code or 0)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return args.func(args)
    except (ValueError, UsageError) as e:
        print(f"cutile2triton: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # output piped into `head` and closed early: not an error of ours
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
