"""Differential test runner: generate (seeded) -> cutile2triton.convert_source ->
run the Triton module under TRITON_INTERPRET=1 -> compare with ref.py.

Outcomes per program:
  ok        outputs match the NumPy evaluation
  mismatch  outputs differ (a miscompile, or an untouched/poisoned element)
  rejected  convert_source returned ok=False on a program the generator considers valid
  crash     the converter raised, or the converted module failed to import/run
  harness   the generator or the evaluator broke its own invariants (a test bug)
  skipped   the program is ill-conditioned on its inputs (ref.IllConditioned)
            for all input draws tried; not a converter verdict

Command line:
  python3 tests/difftest/run.py --seed 7 [--show]        one program, verbose
  python3 tests/difftest/run.py --start 0 --count 200     a range of seeds
"""

from __future__ import annotations

import argparse
import atexit
import dataclasses
import importlib.util
import os
import pathlib
import shutil
import sys
import tempfile
import time
import traceback

os.environ.setdefault("TRITON_INTERPRET", "1")

import numpy as np  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))

from difftest import gen as G  # noqa: E402
from difftest import ref as R  # noqa: E402

# Tolerances of the conversion workflow: fp32 1e-3, fp16 1e-2; x2 for programs with
# reductions / transcendentals / chained ops. Integers are compared exactly.
TOL = {"float32": 1e-3, "float16": 1e-2}
POISON_INT = -12345


@dataclasses.dataclass
class Outcome:
    seed: int
    status: str  # ok mismatch rejected crash skipped
    detail: str = ""
    source: str = ""
    input_seed: int | None = None


def _poison(shape, dtype):
    if dtype in ("float32", "float16"):
        return np.full(shape, np.nan, dtype=dtype)
    return np.full(shape, POISON_INT, dtype=dtype)


_TMP = None
_COUNTER = 0


def _tmpdir() -> pathlib.Path:
    global _TMP
    if _TMP is None:
        _TMP = pathlib.Path(tempfile.mkdtemp(prefix="c2t_difftest_"))
        # The generated modules' files are read while they run (Triton reads kernels' sources): kept
        # to the end of the process, then removed (each test run left one folder behind).
        atexit.register(shutil.rmtree, _TMP, True)
    return _TMP


def load_module(code: str):
    """Imports generated Triton code as a fresh file-backed module (Triton needs the source)."""
    global _COUNTER
    _COUNTER += 1
    name = f"c2t_difftest_{os.getpid()}_{_COUNTER}"
    path = _tmpdir() / f"{name}.py"
    path.write_text(code)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.modules.pop(name, None)
    return mod


def compare(prog, name, actual: np.ndarray, expected: np.ndarray, err: np.ndarray) -> str | None:
    """None when equal within tolerance, else a description of the first differences."""
    dt = str(expected.dtype)
    if actual.shape != expected.shape or str(actual.dtype) != dt:
        return f"{name}: shape/dtype {actual.shape}/{actual.dtype} != {expected.shape}/{dt}"
    if dt not in TOL:
        bad = actual != expected
    else:
        tol = TOL[dt] * (2 if prog.relaxed else 1)
        a = actual.astype(np.float64)
        e = expected.astype(np.float64)
        both_nan = np.isnan(a) & np.isnan(e)
        with np.errstate(invalid="ignore"):
            close = np.abs(a - e) <= tol + tol * np.abs(e) + 2 * err
        bad = ~(both_nan | close | (a == e))  # a == e: equal infinities (NEG_INF/POS_INF padding)
    if not np.any(bad):
        return None
    where = np.argwhere(bad)
    lines = [f"{name} ({dt}, shape {expected.shape}): {int(bad.sum())} of {bad.size} elements differ"]
    for ix in where[:6]:
        ix = tuple(int(i) for i in ix)
        lines.append(f"  [{', '.join(map(str, ix))}] actual={actual[ix]!r} expected={expected[ix]!r}"
                     + (f" (err bound {err[ix]:.3g})" if dt in TOL else ""))
    return "\n".join(lines)


def convert(source: str):
    import cutile2triton

    return cutile2triton.convert_source(source, filename="difftest_kernel.py")


def check_program(prog, input_seed: int, converted=None) -> Outcome:
    """Runs one program on one input draw. `converted` caches (result) across draws."""
    import torch

    inputs = G.make_inputs(prog, input_seed)
    outs_ref = {a.name: _poison(a.shape, a.dtype) for a in prog.arrays if a.role == "out"}
    try:
        errs = R.evaluate(prog, inputs, outs_ref)
    except R.IllConditioned as e:
        return Outcome(prog.seed, "skipped", str(e), prog.source, input_seed)
    try:
        res = converted if converted is not None else convert(prog.source)
    except Exception:
        return Outcome(prog.seed, "crash", "convert_source raised:\n" + traceback.format_exc(), prog.source,
                       input_seed)
    if not res.ok:
        return Outcome(prog.seed, "rejected", res.rendered, prog.source, input_seed)
    try:
        mod = load_module(res.code)
        args = []
        outs = {}
        for a in prog.arrays:
            if a.role == "in":
                t = torch.from_numpy(inputs[a.name].copy())
            else:
                t = torch.from_numpy(_poison(a.shape, a.dtype))
                outs[a.name] = t
            args.append(t)
        mod.launch(*args)
    except Exception:
        return Outcome(prog.seed, "crash", "converted module failed:\n" + traceback.format_exc(limit=6)
                       + "\n--- converted code ---\n" + res.code, prog.source, input_seed)
    msgs = []
    for name, t in outs.items():
        m = compare(prog, name, t.numpy(), outs_ref[name], errs[name])
        if m:
            msgs.append(m)
    if msgs:
        return Outcome(prog.seed, "mismatch", "\n".join(msgs) + "\n--- converted code ---\n" + res.code,
                       prog.source, input_seed)
    return Outcome(prog.seed, "ok", "", prog.source, input_seed)


def run_seed(seed: int, input_seed: int | None = None, draws: int = 3) -> Outcome:
    """Program `seed`; inputs from `input_seed` (default: derived from seed), up to
    `draws` input draws while the program is ill-conditioned on them."""
    try:
        prog = G.generate(seed)
    except Exception:
        return Outcome(seed, "harness", "generator failed (harness bug):\n" + traceback.format_exc())
    base = seed * 1000003 + 17 if input_seed is None else input_seed
    out = None
    converted = None
    for d in range(draws):
        try:
            out = check_program(prog, base + d, converted)
        except (R.HarnessError, ValueError, TypeError, IndexError, KeyError, AttributeError):
            # the evaluator failed: a harness bug, never blamed on the converter
            return Outcome(seed, "harness", "evaluator invariant (harness bug):\n" + traceback.format_exc(),
                           prog.source, base + d)
        if out.status != "skipped":
            return out
        if prog.features & {"load_nopad", "load_pad_inf"}:
            # undetermined padded lanes reach an output, or infinities from NEG_INF/POS_INF padding
            # turn into NaN: run the same program with zero padding instead
            prog = G.with_zero_padding(prog)
    return out


def summarize(outcomes, elapsed: float) -> dict:
    counts = {k: 0 for k in ("ok", "mismatch", "rejected", "crash", "skipped", "harness")}
    for o in outcomes:
        counts[o.status] += 1
    counts["programs"] = len(outcomes)
    counts["seconds"] = round(elapsed, 1)
    counts["programs_per_s"] = round(len(outcomes) / elapsed, 2) if elapsed > 0 else 0.0
    return counts


def signature(o: Outcome) -> str:
    """One line that identifies the failure (the exception message for crashes)."""
    text = o.detail.split("--- converted code ---")[0].strip()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return o.status
    if o.status in ("crash", "harness"):
        return lines[-1].strip()[:200]
    return lines[0].strip()[:200]


def format_failure(o: Outcome) -> str:
    return (f"=== seed {o.seed} (inputs {o.input_seed}): {o.status} ===\n{o.detail}\n"
            f"--- cuTile program (python3 tests/difftest/run.py --seed {o.seed} --show) ---\n{o.source}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, help="run one program")
    ap.add_argument("--input-seed", type=int)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--show", action="store_true", help="print the program and the outcome detail")
    args = ap.parse_args(argv)
    if args.seed is not None:
        o = run_seed(args.seed, args.input_seed)
        print(format_failure(o) if (args.show or o.status != "ok") else f"seed {o.seed}: ok")
        return 0 if o.status in ("ok", "skipped") else 1
    t0 = time.time()
    outs = []
    for s in range(args.start, args.start + args.count):
        o = run_seed(s)
        outs.append(o)
        if o.status not in ("ok", "skipped"):
            print(format_failure(o), flush=True)
    print(summarize(outs, time.time() - t0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
