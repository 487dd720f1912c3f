"""Conversion throughput on the real corpus: prints numbers, asserts nothing.

    C2T_CORPUS=/work/corpus python3 benchmarks/convert_corpus.py [--repeat 5] [--cpu-time]

Converts every TileGym cuTile file (ops/cutile/**, suites/*/cutile/**, the skill
examples) in one process with cutile2triton.convert_source, and times CPython's
ast.parse of the same files in the same run (the bar: our whole conversion --
parse, analysis, lowering, emission, host rewrite -- should take less than
CPython's parse alone). Best of --repeat runs each. Peak memory is the process's
peak resident set size (resource.getrusage ru_maxrss, which includes the Python
interpreter, torch-free: only cutile2triton is imported), read at the end.
--cpu-time times with the process's CPU time instead of wall-clock time: on a
machine shared with other busy processes it is much less noisy (the ratio of
two wall-clock timings swung 0.7-1.3 at load 7 on 2 cores; CPU time stayed
within ~0.06).
"""

from __future__ import annotations

import argparse
import ast
import os
import pathlib
import resource
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests"))
from corpus_tree import corpus_sources  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cpu-time", action="store_true", help="time with process CPU time, not wall-clock")
    args = ap.parse_args()
    root = os.environ.get("C2T_CORPUS")
    if not root:
        print("set C2T_CORPUS to the folder holding the TileGym and cutile-python checkouts", file=sys.stderr)
        return 2
    import cutile2triton

    files = [p for p in corpus_sources(pathlib.Path(root)) if "TileGym" in p.parts]
    data = [(str(p), p.read_bytes()) for p in files]
    total_bytes = sum(len(b) for _, b in data)
    total_lines = sum(b.count(b"\n") for _, b in data)

    def run_convert():
        ok = 0
        for name, b in data:
            ok += cutile2triton.convert_source(b, name).ok
        return ok

    def run_parse():
        for name, b in data:
            ast.parse(b, name)

    clock = time.process_time if args.cpu_time else time.perf_counter

    def best(fn):
        times = []
        for _ in range(args.repeat):
            t0 = clock()
            fn()
            times.append(clock() - t0)
        return min(times)

    ok = run_convert()  # warm-up (and the count)
    t_conv = best(run_convert)
    t_parse = best(run_parse)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB
    print(f"TileGym corpus: {len(data)} files, {total_lines} lines, {total_bytes / 1e6:.2f} MB; {ok} converted")
    print(f"cutile2triton.convert_source (all stages): {t_conv * 1e3:8.1f} ms  ({total_bytes / t_conv / 1e6:.1f} MB/s)")
    print(f"CPython ast.parse (parse only):            {t_parse * 1e3:8.1f} ms  ({total_bytes / t_parse / 1e6:.1f} MB/s)")
    clock_name = "process CPU time" if args.cpu_time else "wall-clock"
    print(f"ratio conversion / CPython parse: {t_conv / t_parse:.2f}  (best of {args.repeat}, {clock_name})")
    print(f"peak RSS of this process (ru_maxrss): {peak_mb:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
