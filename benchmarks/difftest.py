"""Differential-testing benchmark: N random cuTile programs (tests/difftest/gen.py)
converted by cutile2triton, run under Triton's CPU interpreter and compared with
the direct NumPy evaluation (tests/difftest/ref.py).

    python3 benchmarks/difftest.py [-n 10000] [--seed S] [--fail-log FILE]

Programs are seeds S, S+1, ... (S is random unless given, and printed); input
values are fresh random draws every run unless --fixed-inputs.  Prints the
counts: programs, ok, mismatches, rejected, crashes, skipped (ill-conditioned
on their inputs: no verdict), harness (generator/evaluator bugs), programs/s.
Failing programs are written to --fail-log with their source and details.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
os.environ.setdefault("TRITON_INTERPRET", "1")

from difftest import run as R  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", "--programs", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=None, help="first program seed (default: random)")
    ap.add_argument("--fixed-inputs", action="store_true", help="derive inputs from the program seed")
    ap.add_argument("--fail-log", default=None, help="file for failing programs (default: none)")
    ap.add_argument("--progress", type=int, default=500, help="print counts every N programs")
    args = ap.parse_args(argv)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(3), "little")
    input_base = None if args.fixed_inputs else int.from_bytes(os.urandom(4), "little")
    print(f"difftest: {args.programs} programs from seed {seed}"
          f" (inputs {'from program seeds' if input_base is None else f'base {input_base}'})", flush=True)
    log = open(args.fail_log, "w") if args.fail_log else None
    outs = []
    t0 = time.time()
    for i in range(args.programs):
        s = seed + i
        o = R.run_seed(s, None if input_base is None else input_base + 7 * i)
        outs.append(o)
        if o.status not in ("ok", "skipped"):
            line = f"seed {s}: {o.status}: {R.signature(o)}"
            print(line, flush=True)
            if log:
                log.write(R.format_failure(o) + "\n\n")
                log.flush()
        if args.progress and (i + 1) % args.progress == 0:
            print(f"  {json.dumps(R.summarize(outs, time.time() - t0))}", flush=True)
    counts = R.summarize(outs, time.time() - t0)
    print("RESULT " + json.dumps({"first_seed": seed, **counts}), flush=True)
    if log:
        log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
