"""Differential testing of the converter (tests/difftest/): random valid cuTile
programs are converted, run under Triton's CPU interpreter and compared with a
direct NumPy evaluation of the program description.

* test_ci_sample: a fixed-seed sample (CI_PROGRAMS programs, reproducible; the
  failing seeds are printed with the command that reruns them). Failures whose
  signature matches a registered regression (tests/difftest/regressions/) are
  counted as that known converter bug; anything else fails the test.
* test_regression: each minimized converter bug found by the tester, marked
  xfail(strict=True) until the converter is fixed; then the module says
  FIXED = True and the test must pass.
* harness self-checks: determinism, and that a broken or no-op kernel is caught.
"""

from __future__ import annotations

import importlib
import os
import pathlib
import pkgutil
import time

import numpy as np
import pytest

os.environ.setdefault("TRITON_INTERPRET", "1")

from difftest import gen as G  # noqa: E402
from difftest import ref as REF  # noqa: E402
from difftest import run as R  # noqa: E402

CI_SEED = 20261129
CI_PROGRAMS = int(os.environ.get("C2T_DIFFTEST_PROGRAMS", "500"))
CHUNK = 50


def _regressions():
    import difftest.regressions as pkg

    mods = []
    for info in pkgutil.iter_modules(pkg.__path__):
        mods.append(importlib.import_module(f"difftest.regressions.{info.name}"))
    return sorted(mods, key=lambda m: m.NAME)


REGRESSIONS = _regressions()


def _known(o: R.Outcome):
    sig = R.signature(o) + "\n" + o.detail
    for m in REGRESSIONS:
        if not getattr(m, "FIXED", False) and o.status == m.STATUS and m.SIGNATURE in sig:
            return m.NAME
    return None


@pytest.mark.parametrize("chunk", range((CI_PROGRAMS + CHUNK - 1) // CHUNK))
def test_ci_sample(chunk):
    seeds = range(CI_SEED + chunk * CHUNK, CI_SEED + min((chunk + 1) * CHUNK, CI_PROGRAMS))
    outcomes = [R.run_seed(s) for s in seeds]
    counts = R.summarize(outcomes, 1.0)
    unknown = [o for o in outcomes if o.status not in ("ok", "skipped") and not _known(o)]
    known = [(o.seed, _known(o)) for o in outcomes if o.status not in ("ok", "skipped") and _known(o)]
    if known:
        print(f"known converter bugs hit (xfail regressions): {known}")
    assert counts["ok"] >= len(outcomes) // 2, f"too few programs ran to completion: {counts}"
    assert not unknown, (f"{len(unknown)} differential-test failures (rerun one with "
                         f"`python3 tests/difftest/run.py --seed SEED --show`, shrink with "
                         f"`python3 tests/difftest/minimize.py SEED`):\n\n"
                         + "\n\n".join(R.format_failure(o) for o in unknown[:3]))


def _run_regression(m, tmp_path):
    import torch

    res = R.convert(m.SOURCE)
    assert res.ok, f"{m.NAME}: converter rejected a valid program:\n{res.rendered}"
    mod = R.load_module(res.code)
    rng = np.random.default_rng(int.from_bytes(os.urandom(4), "little"))
    args, out_idx, expected = m.case(rng)
    tensors = [torch.from_numpy(a.copy()) for a in args]
    mod.launch(*tensors)
    for i, exp in zip(out_idx, expected):
        got = tensors[i].numpy()
        if exp.dtype.kind == "f":
            np.testing.assert_allclose(got, exp, rtol=1e-3, atol=1e-3, equal_nan=True)
        else:
            np.testing.assert_array_equal(got, exp)


@pytest.mark.parametrize(
    "reg", [pytest.param(m, id=m.NAME, marks=() if getattr(m, "FIXED", False) else pytest.mark.xfail(strict=True, reason=m.REASON))
            for m in REGRESSIONS])
def test_regression(reg, tmp_path):
    _run_regression(reg, tmp_path)


def test_generator_is_deterministic():
    for s in (0, 1, 99):
        a, b = G.generate(s), G.generate(s)
        assert a.source == b.source and a.grid == b.grid
        ia, ib = G.make_inputs(a, 5), G.make_inputs(b, 5)
        assert ia.keys() == ib.keys() and all(np.array_equal(ia[k], ib[k]) for k in ia)


def test_noop_or_perturbed_kernels_are_caught(monkeypatch):
    """Poisoned outputs and small perturbations must be reported as mismatches."""
    import types

    orig = R.load_module
    monkeypatch.setattr(R, "load_module", lambda code: types.SimpleNamespace(launch=lambda *a: None))
    st = [R.run_seed(s).status for s in range(CI_SEED, CI_SEED + 10)]
    assert st.count("mismatch") >= 9, st

    def perturbed(code):
        m = orig(code)

        def launch(*args):
            m.launch(*args)
            for a in args:
                if a.dtype.is_floating_point:
                    a.add_(0.25)
                else:
                    a.add_(1)
        return types.SimpleNamespace(launch=launch)

    monkeypatch.setattr(R, "load_module", perturbed)
    st = [R.run_seed(s).status for s in range(CI_SEED, CI_SEED + 10)]
    assert st.count("mismatch") >= 9, st


def test_reference_semantics():
    """The evaluator's own rules on a hand-written description: Python floor
    division/modulo on negative ints, float % with the divisor's sign, int/int
    -> float32, reductions keep the dtype, gather bounds per dimension."""
    A = G.ArraySpec("A", (6,), "int32", "in")
    F = G.ArraySpec("F", (6,), "float32", "in")
    outs = [G.ArraySpec(n, (6,), dt, "out") for n, dt in
            (("Q", "int32"), ("M", "int32"), ("FM", "float32"), ("TD", "float32"), ("S", "int32"), ("Gt", "int32"))]
    ld = ("load", "A", (("const", 0),), (8,), None, "ZERO")
    ldf = ("load", "F", (("const", 0),), (8,), None, "ZERO")
    idx = ("bin", "-", ("arange", 8, "int32"), ("const", 1), "op")
    stmts = [
        ("store", "Q", (("const", 0),), ("bin", "//", ld, ("const", -4), "op")),
        ("store", "M", (("const", 0),), ("bin", "%", ld, ("const", -4), "op")),
        ("store", "FM", (("const", 0),), ("bin", "%", ldf, ("const", 2.5), "op")),
        ("store", "TD", (("const", 0),), ("bin", "/", ld, ("const", 4), "op")),
        ("store", "S", (("const", 0),), ("bcast", ("expand", ("reduce", "sum", ld, 0, False), 0, "fn"), (8,))),
        ("store", "Gt", (("const", 0),), ("gather", "A", (idx,), -7, None)),
    ]
    prog = G.Program(seed=0, source="", arrays=[A, F] + outs, grid=(1,), consts={"T0": 8}, stmts=stmts,
                     relaxed=False, features=set())
    a = np.array([-7, 7, -1, 0, 9, -12], dtype=np.int32)
    f = np.array([-7.0, 7.0, -1.0, 0.5, 9.0, -12.0], dtype=np.float32)
    res = {o.name: np.zeros(6, dtype=o.dtype) for o in outs}
    REF.evaluate(prog, {"A": a, "F": f}, res)
    assert res["Q"].tolist() == [x // -4 for x in a.tolist()]  # Python floor division
    assert res["M"].tolist() == [x % -4 for x in a.tolist()]  # sign of the divisor
    assert res["FM"].tolist() == [x % 2.5 for x in f.tolist()]
    assert res["TD"].dtype == np.float32 and np.allclose(res["TD"], a / 4)
    assert res["S"].tolist() == [int(a.sum())] * 6  # padded lanes add 0; int32 kept
    assert res["Gt"].tolist() == [-7] + a[:5].tolist()  # index -1 is out of bounds


def test_ci_sample_timing_budget():
    """The CI sample must stay cheap: measure a few programs and extrapolate."""
    t0 = time.time()
    n = 10
    for s in range(CI_SEED, CI_SEED + n):
        R.run_seed(s)
    per = (time.time() - t0) / n
    # generous bound (shared, loaded CI machines): the full sample well under 3 minutes of CPU
    assert per * CI_PROGRAMS < 180 * 2, f"{per:.2f}s per program"
