"""Parser throughput: the C++ parser vs CPython's ast.parse, same files, one process.

Usage:  python3 benchmarks/parse_throughput.py [--repeat N] [DIR ...]
Default input: the running interpreter's standard library. Files CPython
rejects are left out of both measurements. Prints MB/s for each and the ratio
(target: >= 3x CPython). The C++ side runs in one call without the GIL and
includes building the full AST; CPython's side builds its AST objects.
"""

from __future__ import annotations

import argparse
import ast
import pathlib
import platform
import sys
import time
import warnings

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))
from conformance import stdlib_files  # noqa: E402

from cutile2triton import __version__, _core  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dirs", nargs="*", help="folders of .py files (default: the standard library)")
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs for each parser")
    args = ap.parse_args()
    files = [p for d in args.dirs for p in sorted(pathlib.Path(d).rglob("*.py"))] if args.dirs else stdlib_files()
    data = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for p in files:
            b = p.read_bytes()
            try:
                ast.parse(b)
            except (SyntaxError, ValueError):
                continue
            data.append(b)
    mb = sum(map(len, data)) / 1e6

    def best(fn):
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        return min(times)

    def cpython():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for b in data:
                ast.parse(b)

    rejected = _core.parse_many(data)
    t_ours = best(lambda: _core.parse_many(data))
    t_cpy = best(cpython)
    print(f"cutile2triton {__version__}; Python {platform.python_version()}; {platform.machine()}; "
          f"{len(data)} files, {mb:.1f} MB (best of {args.repeat})")
    print(f"{'parser':<24}{'seconds':>10}{'MB/s':>10}")
    print(f"{'cutile2triton (C++)':<24}{t_ours:>10.3f}{mb / t_ours:>10.1f}")
    print(f"{'CPython ast.parse':<24}{t_cpy:>10.3f}{mb / t_cpy:>10.1f}")
    print(f"ratio: {t_cpy / t_ours:.2f}x   (files our parser rejected: {rejected})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
