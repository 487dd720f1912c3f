"""CPU test of benchmarks/gpu/tilegym_bench.py's plumbing on a tiny TileGym-like tree (the one of
test_pytest_tilegym.py, with TileGym's explicit ``backend=`` dispatch and DISABLE_FALLBACK, plus
a fake tests/benchmark/): the converted backend is added next to cuTile in each Benchmark without
editing the bench file, points are timed through bench_utils.profile_with_l2flush with the
harness's warmup/rep, errors are recorded per point, and the tables, geometric mean and charts
are written."""

import importlib.util
import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import test_pytest_tilegym as tp

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "gpu" / "tilegym_bench.py"

FILES = dict(tp.FILES)
# cuTile's ops launch through cuda.tile.launch; the converted double launches a Triton kernel (run by
# Triton's interpreter here): what LaunchProbe counts.
FILES["src/cuda/tile/__init__.py"] = """
    def launch(stream, grid, kernel, args):
        pass
"""
FILES["src/tilegym/ops/cutile/double.py"] = """
    import cuda.tile as ct
    from tilegym.backend import register_impl
    def helper(x):
        return 2 * x
    @register_impl("double", backend="cutile")
    def double(x):
        ct.launch(None, (1,), "double_kernel", ())
        return ("cutile", helper(x))
"""
FILES["src/tilegym/ops/cutile/neg.py"] = """
    import cuda.tile as ct
    from tilegym.backend import register_impl
    @register_impl("neg", backend="cutile")
    def neg(x):
        ct.launch(None, (1,), "neg_kernel", ())
        return ("cutile", -x)
"""
FILES["conv/ops/triton/double.py"] = """
    import torch
    import triton
    import triton.language as tl
    from tilegym.backend import register_impl
    from tilegym.ops.triton.helpers import FACTOR
    from .helpers import FACTOR as F2

    @triton.jit
    def double_kernel(X):
        tl.store(X, tl.load(X) * 2)

    def helper(x):
        return FACTOR * x + 1000  # tells the two helpers apart

    @register_impl("double", backend="triton")
    def double(x):
        double_kernel[(1,)](torch.ones(1))
        return ("c2t", helper(x), __name__, F2)
"""
FILES["src/tilegym/backend/dispatcher.py"] = """
    import os
    from .selector import get_current_backend
    _REGISTRY = {}
    def register_impl(name, backend):
        def deco(f):
            _REGISTRY.setdefault(name, {})[backend] = f
            return f
        return deco
    def dispatch(name, fallback_backend="pytorch"):
        def deco(default):
            def wrapper(*a, **k):
                cur = k.pop("backend", None) or get_current_backend()
                be = _REGISTRY.get(name, {})
                if cur in be:
                    return be[cur](*a, **k)
                if fallback_backend in be and os.environ.get("DISABLE_FALLBACK") != "1":
                    return be[fallback_backend](*a, **k)
                raise RuntimeError(f"No backend implementation found for '{name}' with backend '{cur}'")
            return wrapper
        return deco
"""
FILES["tests/benchmark/bench_utils.py"] = """
    import json, os
    import triton.testing

    def fake_do_bench(fn, warmup=25, rep=100, grad_to_none=None, quantiles=None, return_mode="mean"):
        fn()  # no GPU: the statistic asked for is the result (ms)
        return [1.0, 0.5, 2.0] if quantiles else {"mean": 4.0, "median": 2.0}[return_mode]

    triton.testing.do_bench = fake_do_bench  # imported by the harness before it wraps do_bench
    def profile_with_l2flush(fn, warmup=20, rep=100):
        for _ in range(warmup + rep):
            fn()
        with open(os.environ["FAKE_CALLS"], "a") as f:
            f.write(json.dumps([warmup, rep]) + "\\n")
        return 2.0  # ms
"""
FILES["tests/benchmark/bench_double.py"] = """
    import triton
    import tilegym
    from bench_utils import profile_with_l2flush
    from tilegym.backend import register_impl

    register_impl("double", "torch")(lambda x: ("torch", 2 * x))
    register_impl("neg", "torch")(lambda x: ("torch", -x))
    SPEED = {"cutile": 100.0, "c2t": 80.0, "handwritten": 120.0, "torch": 50.0}

    def config(op, dtype):
        return triton.testing.Benchmark(
            x_names=["N"], x_vals=[1, 2, 4, 8, 16], line_arg="backend",
            line_vals=["cutile", "torch"], line_names=["CuTile", "PyTorch"],
            styles=[("blue", "-"), ("green", "-")], ylabel="GB/s",
            plot_name=f"{op}-{dtype}-GBps", args={"op": op, "dtype": dtype})

    @triton.testing.perf_report([config("double", "fp16"), config("neg", "fp32")])
    def bench(N, backend, op, dtype):
        f = getattr(tilegym.ops, op)
        who = f(N, backend=backend)[0]
        ms = profile_with_l2flush(lambda: f(N, backend=backend))
        return SPEED[who] * N / ms

    bench.run(print_data=True)
"""
# bench_bmm.py's style: triton.testing.do_bench with no statistic asked (TileGym gets the mean), and a
# file that asks for quantiles itself.
FILES["tests/benchmark/bench_db.py"] = """
    import triton, triton.testing
    import tilegym
    import bench_utils  # noqa: F401  (the fake do_bench)

    @triton.testing.perf_report([triton.testing.Benchmark(
        x_names=["N"], x_vals=[8], line_arg="backend", line_vals=["cutile"], line_names=["CuTile"],
        ylabel="ms", plot_name=f"db-{how}", args={"how": how}) for how in ("plain", "quantiles")])
    def bench(N, backend, how):
        fn = lambda: tilegym.ops.double(N, backend=backend)
        return triton.testing.do_bench(fn) if how == "plain" else triton.testing.do_bench(fn, quantiles=[0.5, 0.2, 0.8])[0]

    bench.run(print_data=True)
"""
# bench_rmsnorm.py's style: line_arg is an index into the module's ALL_CONFIGS of
# (backend, mode, label, style), re-read through get_supported_configs() at each call.
FILES["tests/benchmark/bench_cfg.py"] = """
    import triton
    import tilegym
    from bench_utils import profile_with_l2flush

    ALL_CONFIGS = [("triton", None, "Triton", ("orange", "-")), ("cutile", "fast", "CuTile fast", ("blue", "-")),
                   ("cutile", "slow", "CuTile slow", ("red", "-"))]
    SPEED = {("cutile", "fast"): 100.0, ("cutile", "slow"): 50.0, ("c2t", "fast"): 90.0, ("c2t", "slow"): 60.0,
             ("handwritten", None): 70.0}

    def get_supported_configs():
        return [c for c in ALL_CONFIGS if c is not None]

    @triton.testing.perf_report([triton.testing.Benchmark(
        x_names=["N"], x_vals=[4], line_arg="config_idx", line_vals=list(range(3)),
        line_names=[c[2] for c in ALL_CONFIGS], ylabel="GB/s", plot_name="cfg", args={})])
    def bench(N, config_idx):
        backend, mode, _, _ = get_supported_configs()[config_idx]
        who = tilegym.ops.double(N, backend=backend)[0]
        return SPEED[(who, mode)] / profile_with_l2flush(lambda: tilegym.ops.double(N, backend=backend))

    bench.run(print_data=True)
"""

def _rounds_bench(plot: str, body: str, prelude: str = "") -> str:
    """A fake bench file for --rounds: one Benchmark (cuTile and PyTorch lines; the harness adds the
    converted one) at N=8 whose value for `backend`'s n-th call is what `body` (indented 8) returns."""
    body = body.lstrip("\n")
    return f"""
    import json, os, time
    import triton
    import triton.testing
    import bench_utils  # noqa: F401  (the fake do_bench)
    import tilegym
    from tilegym.backend import register_impl

    register_impl("double", "torch")(lambda x: ("torch", 2 * x))
    CALLS = {{}}
{prelude}
    @triton.testing.perf_report([triton.testing.Benchmark(
        x_names=["N"], x_vals=[8], line_arg="backend", line_vals=["cutile", "torch"], line_names=["CuTile", "PyTorch"],
        ylabel="GB/s", plot_name="{plot}", args={{}})])
    def bench(N, backend):
        triton.testing.do_bench(lambda: tilegym.ops.double(N, backend=backend))  # the launches the harness checks
        who = tilegym.ops.double(N, backend=backend)[0]  # the converted line asks for "cutile": see who ran
        backend = {{"c2t": "c2t_triton"}}.get(who, who)
        n = CALLS[backend] = CALLS.get(backend, 0) + 1
{body}

    bench.run(print_data=True)
"""


# Each call's value from a fixed sequence (the host slowing down and recovering), and the order of
# the calls: --rounds must measure the backends in turn and keep each one's best round.
FILES["tests/benchmark/bench_rounds.py"] = _rounds_bench("rounds", """
        with open(os.environ["FAKE_CALLS"], "a") as f:
            f.write(json.dumps(backend) + "\\n")
        return next(SEQ)""", prelude="    SEQ = iter([1.0, 5.0, 2.0, 9.0, 3.0, 4.0, 8.0, 7.0, 6.0])\n")
# --rounds' edges: a NaN round before a finite one, a later round that fails, and a backend that
# kills the process in round 2 (a CUDA abort): what was measured before stays.
FILES["tests/benchmark/bench_rounds_edge.py"] = _rounds_bench("edge", """
        if backend == "cutile":
            return float("nan") if n == 1 else 5.0
        if backend == "c2t_triton":
            if n == 2:
                raise RuntimeError("CUDA out of memory")
            return 4.0
        if n == 2:
            os._exit(3)
        return 3.0""")
# The file's time runs out during round 3 (cuTile's third call sleeps past it): the round is finished
# for every line, so each backend's best is over the same rounds.
FILES["tests/benchmark/bench_rounds_deadline.py"] = _rounds_bench("deadline", """
        if backend == "cutile" and n == 3:
            time.sleep(7)
        return float(n)""")


def _make_tree(root: Path):
    for rel, text in FILES.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text).lstrip("\n"))


def _load():
    spec = importlib.util.spec_from_file_location("tilegym_bench", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _run_harness(tmp_path, *args):
    """The harness on the fake TileGym tree written into tmp_path: (its out folder, the finished process)."""
    _make_tree(tmp_path)
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "src"), tp.PKG_PARENT]),
               FAKE_CALLS=str(tmp_path / "calls.jsonl"), TRITON_INTERPRET="1")
    env.pop("CUTILE_TUTORIALS_BACKEND", None)
    return out, subprocess.run([sys.executable, str(SCRIPT), "--tilegym", str(tmp_path), "--converted",
                                str(tmp_path / "conv"), "--out", str(out), *args],
                               env=env, capture_output=True, text=True, timeout=300)


def test_pick_x_and_line_insertion():
    m = _load()
    assert m.pick_x([1, 2, 4, 8, 16], 3) == [1, 4, 16]
    assert m.pick_x([1, 2, 4, 8, 16], 1) == [16]
    assert m.pick_x([1, 2], 3) == [1, 2]
    assert m.pick_x([1, 2, 3], 0) == [1, 2, 3]
    # --only-x: the named values first (a list value as its comma-joined items), then --max-x.
    assert m.pick_x([1024, 2048, 4096], 1, ["1024"]) == [1024]
    assert m.pick_x([1024, 2048, 4096], 0, ["1024", "4096"]) == [1024, 4096]
    assert m.pick_x([[1, 2], [3, 4]], 0, ["3,4"]) == [[3, 4]]
    assert m.pick_x([1, 2], 0, ["7"]) == []
    vals, names, sty = m.with_converted_line(["triton", "cutile", "torch"], ["T", "C", "P"], [1, 2, 3])
    assert vals == ["triton", "cutile", "c2t_triton", "torch"] and names[2] == "converted Triton" and len(sty) == 4
    assert m.with_converted_line(["torch"], ["P"], None)[0] == ["c2t_triton", "torch"]
    assert math.isclose(m.geomean([2.0, 0.5, float("nan"), 0.0]), 1.0)


def test_harness_on_fake_tilegym(tmp_path):
    out, r = _run_harness(tmp_path, "--files", "bench_double.py", "bench_cfg.py", "bench_missing.py", "--rep", "3",
                          "--warmup", "1", "--max-x", "2", "--budget", "120")
    log = r.stdout + r.stderr + (out / "bench_double.log").read_text()
    assert r.returncode == 0, log
    points = [json.loads(line) for line in (out / "points.jsonl").read_text().splitlines()]
    got = {(p["plot"], p["x"][0], p["line"]): p.get("value", p.get("error")) for p in points if p["kind"] == "point"}
    # The converted line sits next to cuTile; x values cut to 2 (the largest kept); warmup/rep from the harness.
    assert got[("double-fp16-GBps", 16, "cutile")] == 100.0 * 16 / 2.0
    assert got[("double-fp16-GBps", 16, "c2t_triton")] == 80.0 * 16 / 2.0
    assert got[("double-fp16-GBps", 1, "torch")] == 50.0 / 2.0
    assert {x for (plot, x, _) in got if plot != "cfg"} == {1, 16}
    # neg has no converted op: an error for that point, not PyTorch's fallback.
    assert "op 'neg' has no converted implementation" in got[("neg-fp32-GBps", 16, "c2t_triton")]
    calls = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert calls and all(c == [1, 3] for c in calls)
    md = (out / "tilegym-bench.md").read_text()
    assert "| benchmark | shape | cuTile | converted Triton | PyTorch | unit | converted/cuTile |" in md, md
    assert "| double-fp16-GBps | N=16 | 800.0 | 640.0 | 400.0 | GB/s | 0.80× |" in md, md
    assert "| neg-fp32-GBps | N=16 | 800.0 | err | 400.0 | GB/s | — |" in md, md
    # Configs by index: each cuTile mode gets a converted twin, TileGym Triton shows in every mode's row.
    assert "| benchmark | shape | cuTile | converted Triton | TileGym Triton | unit | converted/cuTile |" in md, md
    assert "| cfg (fast) | N=4 | 50.0 | 45.0 | 35.0 | GB/s | 0.90× |" in md, md
    assert "| cfg (slow) | N=4 | 25.0 | 30.0 | 35.0 | GB/s | 1.20× |" in md, md
    g = (0.8 * 0.8 * 0.9 * 1.2) ** 0.25
    assert f"Geometric mean converted/cuTile over all 4 shapes: {g:.2f}×" in md, md
    assert "bench_missing.py" in md  # its process failed: said so, not hidden
    summary = json.loads((out / "summary.json").read_text())
    assert summary["points"] == 4 and math.isclose(summary["geomean"], g)
    if importlib.util.find_spec("matplotlib"):
        assert (out / "bench_double.png").stat().st_size > 1000


def test_bench_files_below_the_top_level(tmp_path):
    # experimental/ and suites/*/ hold bench files whose names repeat the top level's (bench_swiglu.py):
    # each is named by its path under tests/benchmark in the points, tables, logs and charts.
    FILES["tests/benchmark/suites/unsloth/bench_double.py"] = FILES["tests/benchmark/bench_double.py"].replace(
        "SPEED = {\"cutile\": 100.0, \"c2t\": 80.0", "SPEED = {\"cutile\": 100.0, \"c2t\": 120.0")
    try:
        out, r = _run_harness(tmp_path, "--files", "bench_double.py", "suites/unsloth/bench_double.py", "--rep",
                              "1", "--warmup", "0", "--max-x", "1", "--budget", "120")
    finally:
        del FILES["tests/benchmark/suites/unsloth/bench_double.py"]
    assert r.returncode == 0, r.stdout + r.stderr
    points = [json.loads(line) for line in (out / "points.jsonl").read_text().splitlines()]
    got = {(p["file"], p["line"]): p["value"] for p in points if p["kind"] == "point" and p["plot"] == "double-fp16-GBps"}
    assert got[("bench_double.py", "c2t_triton")] == 640.0
    assert got[("suites/unsloth/bench_double.py", "c2t_triton")] == 960.0
    md = (out / "tilegym-bench.md").read_text()
    assert "### suites/unsloth/bench_double.py" in md and "### bench_double.py" in md, md
    assert (out / "suites__unsloth__bench_double.log").is_file() and (out / "bench_double.log").is_file()
    m = _load()
    everything = m.bench_files(["all"])
    assert everything[:len(m.DEFAULT_FILES)] == m.DEFAULT_FILES and "suites/unsloth/bench_swiglu.py" in everything
    assert "experimental/bench_mhc.py" in everything and len(everything) == len(set(everything))
    assert m.bench_files(["bench_rope.py", "all"])[0] == "bench_rope.py"


# TileGym's experimental files: PyTorch for any backend but "cutile", names imported from cuTile's modules
# at the top (also as a dict's values) or inside the function, and a cuTile kernel the file launches itself.
FILES["tests/benchmark/experimental/bench_branch.py"] = """
    import triton
    import triton.testing
    import tilegym
    from tilegym.ops.cutile.double import helper
    import cuda.tile as ct

    IMPLS = {"cutile": helper}

    @triton.testing.perf_report([triton.testing.Benchmark(
        x_names=["N"], x_vals=[8], line_arg="backend", line_vals=["cutile", "torch"], line_names=["CuTile", "PyTorch"],
        ylabel="GB/s", plot_name=f"branch-{how}", args={"how": how}) for how in ("registry", "names", "local", "direct", "untimed")])
    def bench(N, backend, how):
        if backend == "cutile":
            tilegym.set_backend("cutile")
            if how in ("registry", "untimed"):
                fn = lambda: tilegym.ops.double(N)
            elif how == "names":
                fn = lambda: (helper(N), IMPLS["cutile"](N), tilegym.ops.double(N))
            elif how == "local":
                def fn():
                    from tilegym.ops.cutile import double as mod
                    return mod.double(N)
            else:
                fn = lambda: ct.launch(None, (1,), "own_kernel", ())
        else:
            fn = lambda: 2 * N
        if how != "untimed":
            triton.testing.do_bench(fn)
        if how == "names" and backend == "cutile":
            return float(helper(N) + IMPLS["cutile"](N))
        return 1.0 if backend == "torch" else float(len(str(fn())))

    bench.run(print_data=True)
"""


def test_the_converted_line_runs_the_cutile_line_on_the_conversion(tmp_path):
    out, r = _run_harness(tmp_path, "--files", "experimental/bench_branch.py", "--budget", "120")
    assert r.returncode == 0, r.stdout + r.stderr + (out / "experimental__bench_branch.log").read_text()
    points = [json.loads(line) for line in (out / "points.jsonl").read_text().splitlines()]
    got = {(p["plot"], p["line"]): p for p in points if p["kind"] == "point"}
    # The converted line took the file's cuTile branch, every way of reaching cuTile led to the conversion,
    # and the probe saw converted launches only (and cuTile's only on the cuTile line).
    for how in ("registry", "names", "local"):
        c2t, cutile = got[(f"branch-{how}", "c2t_triton")], got[(f"branch-{how}", "cutile")]
        assert "value" in c2t and c2t["launches"] == {"converted": 1, "cutile": 0}, c2t
        assert cutile["launches"] == {"converted": 0, "cutile": 1}, cutile
    # Names imported at the top and a dict's values were the converted helper during the converted line only.
    assert got[("branch-names", "cutile")]["value"] == 32.0 and got[("branch-names", "c2t_triton")]["value"] == 2032.0
    assert got[("branch-registry", "c2t_triton")]["value"] != got[("branch-registry", "cutile")]["value"]
    # A kernel the bench file launches itself through cuTile has no conversion: an error, not a number.
    direct = got[("branch-direct", "c2t_triton")]
    assert "value" not in direct and direct["launches"] == {"converted": 0, "cutile": 1}, direct
    assert direct["error"].startswith("not the converted op: the timed call launched 0 converted and 1 cuTile"), direct
    assert "value" in got[("branch-direct", "cutile")]
    # A point timed without the harness's timers: its launches were not seen, so no converted number.
    assert got[("branch-untimed", "c2t_triton")]["error"].startswith("unchecked:"), got[("branch-untimed", "c2t_triton")]
    assert "value" in got[("branch-untimed", "cutile")] and got[("branch-untimed", "cutile")]["launches"] is None
    md = (out / "tilegym-bench.md").read_text()
    assert "### experimental/bench_branch.py" in md and "not the converted op" in md, md


# A cuTile module that nothing imported before a converted line imports it inside the timed function.
FILES["src/tilegym/ops/cutile/lazy.py"] = """
    import cuda.tile as ct
    def triple(x):
        ct.launch(None, (1,), "triple_kernel", ())
        return ("cutile", 3 * x)
"""
FILES["conv/ops/triton/lazy.py"] = """
    from tilegym.ops.triton.double import double_kernel
    import torch
    def triple(x):
        double_kernel[(1,)](torch.ones(1))
        return ("c2t", 3 * x)
"""


# TileGym's ops/cutile/__init__.py re-exports functions under their submodules' names (`from .softmax
# import softmax`); a cuTile module whose conversion fails to import.
FILES["src/tilegym/ops/cutile/__init__.py"] = "from . import double, neg\nfrom .softmax import softmax\n"
FILES["src/tilegym/ops/cutile/softmax.py"] = """
    import cuda.tile as ct
    SCALE = 1
    def softmax(x):
        return ("cutile", x * SCALE)
"""
FILES["conv/ops/triton/softmax.py"] = """
    SCALE = 1
    def softmax(x):
        return ("c2t", x * SCALE)
"""
FILES["src/tilegym/ops/cutile/bad.py"] = """
    import cuda.tile as ct
    def bad(x):
        return ("cutile", x)
"""
FILES["conv/ops/triton/bad.py"] = "raise ImportError('this conversion does not import')\n"


def test_converted_as_cutile_restores_what_it_aliased(tmp_path):
    # Every cuTile module is imported first and seen through a view of its conversion: names a package
    # re-exports are the converted functions, an object without a conversion raises instead of running
    # cuTile, a test's setattr reaches the converted module. A cuTile module that appears only later is
    # served as its conversion during the call and dropped after (module, package attribute), the
    # converted module keeping its own spec. Everything is cuTile's again afterwards.
    _make_tree(tmp_path)
    script = f"""
import importlib, pathlib, sys
from cutile2triton.pytest_tilegym import load_converted
from cutile2triton.tilegym_as_cutile import LaunchProbe, converted_as_cutile
import tilegym.ops.cutile as pkg
import tilegym.ops.cutile.double as cutile_double
root = pathlib.Path({str(tmp_path)!r})
mounts = load_converted(root / "conv")
conv_lazy = sys.modules["tilegym.ops.c2t_triton.lazy"]
namespace = {{"helper": cutile_double.helper, "table": {{"h": cutile_double.helper}}, "pkg": pkg}}
with converted_as_cutile(mounts, namespace):
    from tilegym.ops.cutile.lazy import triple
    import tilegym.ops.cutile.double as inside
    assert triple(2)[0] == "c2t" and inside.double(1)[0] == "c2t"
    assert namespace["helper"](1) == 1002 and namespace["table"]["h"](1) == 1002
    assert namespace["pkg"].softmax(2) == ("c2t", 2) and tilegym.ops.cutile.softmax(2)[0] == "c2t"
    from tilegym.ops.cutile import softmax
    assert softmax(2)[0] == "c2t"
    try:
        tilegym.ops.cutile.bad.bad(1)
        raise AssertionError("a cuTile function without a conversion ran")
    except NotImplementedError as e:
        assert "has no converted counterpart" in str(e) and "does not import" in str(e), e
    tilegym.ops.cutile.softmax_module = None  # noqa: a name the package did not have: set on the conversion
    sys.modules["tilegym.ops.cutile.softmax"].SCALE = 5
    assert sys.modules["tilegym.ops.c2t_triton.softmax"].SCALE == 5 and softmax(1) == ("c2t", 5)
    counts = LaunchProbe(mounts)(lambda: (triple(2), inside.double(1)))
    assert counts == {{"converted": 2, "cutile": 0}}, counts
sys.modules["tilegym.ops.c2t_triton.softmax"].SCALE = 1
assert sys.modules["tilegym.ops.cutile.double"] is cutile_double and namespace["helper"] is cutile_double.helper
assert namespace["table"]["h"] is cutile_double.helper and namespace["pkg"] is pkg and pkg.softmax(2)[0] == "cutile"
assert sys.modules["tilegym.ops.c2t_triton.lazy"] is conv_lazy
import tilegym.ops.cutile.lazy as real
assert real.triple(2)[0] == "cutile" and real.__file__.endswith("src/tilegym/ops/cutile/lazy.py")
assert LaunchProbe(mounts)(lambda: real.triple(2)) == {{"converted": 0, "cutile": 1}}
assert tilegym.ops.cutile.bad.bad(1)[0] == "cutile"

# A cuTile module that appears after the first call (not imported up front): the finder's alias, dropped.
(root / "src/tilegym/ops/cutile/late.py").write_text("import cuda.tile\\ndef late():\\n    return 'cutile'\\n")
(root / "conv/ops/triton/late.py").write_text("def late():\\n    return 'c2t'\\n")
importlib.invalidate_caches()
with converted_as_cutile(mounts):
    from tilegym.ops.cutile.late import late
    assert late() == "c2t"
assert "tilegym.ops.cutile.late" not in sys.modules and "late" not in vars(pkg)
conv_late = sys.modules["tilegym.ops.c2t_triton.late"]
assert conv_late.__spec__.name == "tilegym.ops.c2t_triton.late", conv_late.__spec__
from tilegym.ops.cutile.late import late
assert late() == "cutile"
print("ok")
"""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path / "src"), tp.PKG_PARENT]), TRITON_INTERPRET="1")
    env.pop("CUTILE_TUTORIALS_BACKEND", None)
    r = subprocess.run([sys.executable, "-c", "import tilegym\n" + script], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0 and r.stdout.strip().endswith("ok"), r.stdout + r.stderr


def test_only_x_reruns_the_named_shapes(tmp_path):
    # --max-x 1 keeps each Benchmark's largest x; --only-x picks the shapes to re-run (e.g. the host-bound ones).
    out, r = _run_harness(tmp_path, "--files", "bench_double.py", "--rep", "3", "--warmup", "1", "--only-x", "2", "4",
                          "--budget", "120")
    assert r.returncode == 0, r.stdout + r.stderr
    points = [json.loads(line) for line in (out / "points.jsonl").read_text().splitlines()]
    assert {p["x"][0] for p in points if p["kind"] == "point"} == {2, 4}
    assert json.loads((out / "runs.json").read_text())["only_x"] == ["2", "4"]


@pytest.mark.parametrize("mode, plain", [(None, 2.0), ("mean", 4.0), ("median", 2.0)])
def test_do_bench_reports_the_median_unless_asked(tmp_path, mode, plain):
    # The statistic is do_bench's median; TileGym's files call do_bench(fn), the mean. A file
    # that asks for quantiles gets them unchanged.
    out, r = _run_harness(tmp_path, "--files", "bench_db.py", "--budget", "120", *(["--do-bench", mode] if mode else []))
    assert r.returncode == 0, r.stdout + r.stderr
    points = [json.loads(line) for line in (out / "points.jsonl").read_text().splitlines()]
    got = {(p["plot"], p["line"]): p.get("value", p.get("error")) for p in points if p["kind"] == "point"}
    assert got[("db-plain", "cutile")] == plain and got[("db-plain", "c2t_triton")] == plain, got
    assert got[("db-quantiles", "cutile")] == 1.0, got
    assert f"its {mode or 'median'} over the calls" in (out / "tilegym-bench.md").read_text()


def test_render_again(tmp_path):
    pts = [{"kind": "point", "file": "bench_x.py", "plot": "p", "ylabel": "TFLOPS", "x_names": ["M", "N"], "x": [4, 4],
            "line": line, "args": {}, "value": v} for line, v in (("cutile", 2.0), ("c2t_triton", 1.0), ("torch", 4.0))]
    (tmp_path / "points.jsonl").write_text("".join(json.dumps(p) + "\n" for p in pts))
    s = _load().render(tmp_path)
    assert math.isclose(s["geomean"], 0.5) and s["per_file"]["bench_x.py"]["below_0_8"] == 1
    assert "| p | M=4, N=4 | 2.00 | 1.00 | 4.00 | TFLOPS | 0.50× |" in (tmp_path / "tilegym-bench.md").read_text()


def test_compare_two_runs_per_shape(tmp_path):
    def run(name, points):
        d = tmp_path / name
        d.mkdir()
        (d / "points.jsonl").write_text("".join(
            json.dumps({"kind": "point", "file": "bench_x.py", "plot": "p", "ylabel": "GB/s", "x_names": ["N"],
                        "x": [n], "line": line, "args": {}, "value": v}) + "\n" for n, line, v in points))
        return d
    before = run("b", [(4, "cutile", 2.0), (4, "c2t_triton", 1.0), (8, "cutile", 1.0), (8, "c2t_triton", 1.0),
                       (16, "cutile", 1.0)])
    after = run("a", [(4, "cutile", 4.0), (4, "c2t_triton", 4.0), (8, "cutile", 1.0), (8, "c2t_triton", 2.0),
                      (32, "cutile", 1.0), (32, "c2t_triton", 1.0)])
    md = _load().compare(before, after)
    assert "Shapes in both runs: 2 (only before: 0, only after: 1)" in md  # N=16 has no converted value
    assert "before **0.71×**, after **1.41×**; below 0.8×: before 1, after 0." in md
    assert "| bench_x.py | p | N=4 | 0.50× | 1.00× | 2.00 | 4.00 |" in md
    assert "| bench_x.py | p | N=8 | 1.00× | 2.00× | 1.00 | 2.00 |" in md


def test_repeat_reports_each_points_best_of_fresh_processes(tmp_path):
    out, r = _run_harness(tmp_path, "--files", "bench_double.py", "--rep", "3", "--warmup", "1", "--only-x", "16",
                          "--repeat", "2", "--budget", "120")
    assert r.returncode == 0, r.stdout + r.stderr
    runs = json.loads((out / "runs.json").read_text())
    assert runs["repeat"] == 2 and [x["file"] for x in runs["runs"]] == ["bench_double.py"] * 2
    points = [json.loads(line) for line in (out / "points.jsonl").read_text().splitlines()]
    assert sorted({p.get("attempt", 0) for p in points if p["kind"] == "point"}) == [0, 1]
    assert "each file run 2 times in fresh processes, each point's best shown" in (out / "tilegym-bench.md").read_text()
    # The rule: within a repeated run the higher value wins, whatever its order; an error loses to a value.
    pts = [{"kind": "point", "file": "bench_x.py", "plot": "p", "ylabel": "GB/s", "x_names": ["N"], "x": [4],
            "line": line, "args": {}, "value": v, **({"attempt": a} if a else {})}
           for line, v, a in (("cutile", 2.0, 0), ("c2t_triton", 3.0, 0), ("cutile", 1.0, 1), ("c2t_triton", 4.0, 1))]
    pts.append({**pts[0], "attempt": 2, "value": None, "error": "boom"})
    pts[-1].pop("value")
    (tmp_path / "points.jsonl").write_text("".join(json.dumps(p) + "\n" for p in pts))
    (tmp_path / "runs.json").unlink(missing_ok=True)
    assert "| p | N=4 | 2.00 | 4.00 | GB/s | 2.00× |" in (_load().render(tmp_path), (tmp_path / "tilegym-bench.md").read_text())[1]
    # NaN or inf from a later attempt does not replace a finite best.
    m = _load()
    nan_pts = [{**pts[0], "value": 10.0}, {**pts[0], "value": float("nan"), "attempt": 1},
               {**pts[0], "value": float("inf"), "attempt": 2}, {**pts[0], "value": 5.0, "attempt": 3}]
    assert m.collect(nan_pts)["bench_x.py"]["p"]["rows"][(4,)]["cutile"] == 10.0
    assert m.collect([{**pts[0], "value": float("nan")}, {**pts[0], "value": 3.0, "attempt": 1}]
                     )["bench_x.py"]["p"]["rows"][(4,)]["cutile"] == 3.0
    # Without attempts (a later session's re-run merged in), the later record wins.
    for q in pts:
        q.pop("attempt", None)
    (tmp_path / "points.jsonl").write_text("".join(json.dumps(p) + "\n" for p in pts[:4]))
    _load().render(tmp_path)
    assert "| p | N=4 | 1.00 | 4.00 | GB/s | 4.00× |" in (tmp_path / "tilegym-bench.md").read_text()


def test_rounds_measure_the_backends_in_turn_and_keep_each_best(tmp_path):
    out, r = _run_harness(tmp_path, "--files", "bench_rounds.py", "--rounds", "3", "--budget", "120")
    assert r.returncode == 0, r.stdout + r.stderr
    calls = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert calls == ["cutile", "c2t_triton", "torch"] * 3
    points = [json.loads(line) for line in (out / "points.jsonl").read_text().splitlines()]
    got = {p["line"]: (p["value"], p["rounds"]) for p in points if p["kind"] == "point"}
    # values in call order 1 5 2 | 9 3 4 | 8 7 6: cuTile 1, 9, 8; converted 5, 3, 7; PyTorch 2, 4, 6
    assert got == {"cutile": (9.0, [1.0, 9.0, 8.0]), "c2t_triton": (7.0, [5.0, 3.0, 7.0]), "torch": (6.0, [2.0, 4.0, 6.0])}
    assert json.loads((out / "runs.json").read_text())["rounds"] == 3
    md = (out / "tilegym-bench.md").read_text()
    assert "each point the best of 3 rounds in one process" in md and "| rounds | N=8 | 9.00 | 7.00 | 6.00 | GB/s | 0.78× |" in md, md


def test_rounds_keep_what_was_measured(tmp_path):
    out, r = _run_harness(tmp_path, "--files", "bench_rounds_edge.py", "--rounds", "3", "--budget", "120")
    assert r.returncode == 0, r.stdout + r.stderr
    points = [json.loads(line) for line in (out / "points.jsonl").read_text().splitlines()]
    last = {p["line"]: p for p in points if p["kind"] == "point"}  # the later record wins
    assert last["cutile"]["value"] == 5.0  # a NaN round does not hide a finite one
    assert last["c2t_triton"]["value"] == 4.0 and last["c2t_triton"]["round_errors"] == ["RuntimeError: CUDA out of memory"]
    assert last["torch"]["value"] == 3.0  # measured in round 1, before the process died in round 2
    assert "| edge | N=8 | 5.00 | 4.00 | 3.00 | GB/s | 0.80× |" in (out / "tilegym-bench.md").read_text()


def test_rounds_end_together_when_time_runs_out(tmp_path):
    # --budget 16: the file gets 16 s, its process 6 s of benchmarks; rounds 4 and 5 never start.
    out, r = _run_harness(tmp_path, "--files", "bench_rounds_deadline.py", "--rounds", "5", "--budget", "16")
    assert r.returncode == 0, r.stdout + r.stderr
    points = [json.loads(line) for line in (out / "points.jsonl").read_text().splitlines()]
    last = {p["line"]: p for p in points if p["kind"] == "point"}
    assert {line: p["rounds"] for line, p in last.items()} == {line: [1.0, 2.0, 3.0] for line in last}, last


def test_ceiling_column(tmp_path):
    # The converted op against the measured ceilings: GB/s vs the copy bandwidth, fp16/bf16 TFLOPS vs
    # cuBLAS; fp8 TFLOPS has none measured. Without a ceiling record the column is left out.
    def pts(plot, ylabel, v):
        return [{"kind": "point", "file": "bench_x.py", "plot": plot, "ylabel": ylabel, "x_names": ["N"], "x": [8],
                 "line": line, "args": {}, "value": val} for line, val in (("cutile", 2 * v), ("c2t_triton", v))]
    records = pts("copy-float16-GBps", "GB/s", 3000.0) + pts("mm-float16-TFLOPS", "TFLOPS", 600.0) + \
        pts("mm-float8_e5m2-TFLOPS", "TFLOPS", 150.0)
    (tmp_path / "points.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    m = _load()
    m.render(tmp_path)
    assert "converted / ceiling" not in (tmp_path / "tilegym-bench.md").read_text()
    records.append({"kind": "ceiling", "file": "bench_x.py", "copy_gbs": 4000.0, "cublas_fp16_tflops": 750.0})
    (tmp_path / "points.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    m.render(tmp_path)
    md = (tmp_path / "tilegym-bench.md").read_text()
    assert "| copy-float16-GBps | N=8 | 6000.0 | 3000.0 | GB/s | 0.50× | 75% of copy |" in md, md
    assert "| mm-float16-TFLOPS | N=8 | 1200.0 | 600.0 | TFLOPS | 0.50× | 80% of cuBLAS |" in md, md
    assert "| mm-float8_e5m2-TFLOPS | N=8 | 300.0 | 150.0 | TFLOPS | 0.50× | — |" in md, md
    assert "device copy 4000 GB/s (read + write), cuBLAS fp16 GEMM 8192³ 750 TFLOPS" in md, md
    # A damaged ceiling record (hand-edited) is left out, not a crash; a NaN speed gets no percentage.
    records[-1] = dict(records[-1], cublas_fp16_tflops=None)
    records.append(dict(records[0], line="c2t_triton", value=float("nan"), x=[9]))
    (tmp_path / "points.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    m.render(tmp_path)
    assert "converted / ceiling" not in (tmp_path / "tilegym-bench.md").read_text()
    records.append({"kind": "ceiling", "file": "bench_x.py", "copy_gbs": 4000.0, "cublas_fp16_tflops": 750.0})
    (tmp_path / "points.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    m.render(tmp_path)
    assert "| copy-float16-GBps | N=9 | — | — | GB/s | — | — |" in (tmp_path / "tilegym-bench.md").read_text()
    import torch

    if not torch.cuda.is_available():  # no device: no ceilings, and no error
        assert m.measure_ceilings() == {}


def test_summary_counts_partial_logs_with_spaces_in_ids(tmp_path):
    """tilegym_summary.from_log (a file killed before its JUnit): ids may hold spaces."""
    spec = importlib.util.spec_from_file_location("tilegym_summary", ROOT / "benchmarks" / "gpu" / "tilegym_summary.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    log = tmp_path / "x.log"
    log.write_text("tests/a.py::T::test_op[c2t_triton-torch.bfloat16-3-(1, 1, 16, 32)] PASSED [ 48%]\n"
                   "tests/a.py::T::test_op[c2t_triton-7-(2, 4, 32, 64)] FAILED [ 51%]\n"
                   "tests/a.py::test_b[c2t_triton] SKIPPED (reason) [ 60%]\n")
    counts, fails = mod.from_log(log)
    assert (counts["passed"], counts["failed"], counts["skipped"]) == (1, 1, 1)
    assert fails[0][0] == "T::test_op[c2t_triton-7-(2, 4, 32, 64)]"


def test_summary_adds_up_the_shards_of_a_file(tmp_path):
    """tilegym_summary: NAME.shardKofN runs (--c2t-shard) become one row per file, notes kept."""
    spec = importlib.util.spec_from_file_location("tilegym_summary", ROOT / "benchmarks" / "gpu" / "tilegym_summary.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    d = tmp_path / "triton"
    d.mkdir()
    (d / "ops__test_x.shard1of2.log").write_text("")
    (d / "ops__test_x.shard1of2.rc").write_text("0\n")
    (d / "ops__test_x.shard1of2.xml").write_text(
        '<testsuites><testsuite name="pytest"><testcase classname="t" name="a"/>'
        '<testcase classname="t" name="b"><skipped message="why"/></testcase></testsuite></testsuites>')
    (d / "ops__test_x.shard2of2.log").write_text("tests/ops/test_x.py::c[c2t_triton] PASSED [ 50%]\n"
                                                 "tests/ops/test_x.py::d[c2t_triton] FAILED [ 60%]\n")
    (d / "ops__test_x.shard2of2.rc").write_text("124\n")
    (d / "ops__test_y.log").write_text("")
    (d / "ops__test_y.rc").write_text("0\n")
    (d / "ops__test_y.xml").write_text('<testsuites><testsuite name="pytest"><testcase classname="t" name="a"/>'
                                       '</testsuite></testsuites>')
    rows, _ = mod.summarize(tmp_path)
    by = {r["file"]: r for r in rows}
    assert sorted(by) == ["ops/test_x.py", "ops/test_y.py"]
    x = by["ops/test_x.py"]
    assert (x["passed"], x["failed"], x["skipped"]) == (2, 1, 1), x
    assert x["note"] == "2 shards; shard 2/2: timed out (partial, from -v log)", x["note"]
    assert (by["ops/test_y.py"]["passed"], by["ops/test_y.py"]["note"]) == (1, ""), by["ops/test_y.py"]
    assert "| ops/test_x.py | 2 | 1 | 1 | 0 |" in mod.markdown(rows)
