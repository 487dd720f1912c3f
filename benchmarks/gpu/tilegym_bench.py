"""Times TileGym's own ops with TileGym's own benchmark scripts, with the converted ops as one
more backend: cuTile vs cutile2triton's conversion vs TileGym's hand-written Triton (where TileGym
benchmarks one) vs PyTorch.

TileGym's tests/benchmark/bench_*.py each build ``triton.testing.Benchmark``s whose ``line_arg`` is
``backend`` (values "cutile", "torch", sometimes "triton"/"tilecpp") and time with a timer each
file chooses (TIMERS below): ``bench_utils.profile_with_l2flush`` (kernel-only device time from
torch.profiler, median of ``rep`` runs, L2 flushed before each; its rep/warmup are this script's
options), ``triton.testing.do_bench_cudagraph`` (device time of CUDA-graph replays), or
``triton.testing.do_bench`` (CUDA events around each call: when the host takes longer to launch
than the kernel runs, this times the host). Nothing in TileGym is edited. In each bench file's own
process, this script

* mounts the converted tree and registers its ops under the backend ``c2t_triton``
  (``cutile2triton.pytest_tilegym.load_converted``, with cuda.tile left importable, so the
  "cutile" backend stays cuTile itself);
* replaces ``triton.testing.Mark.run`` (what the file's last line calls): every Benchmark gets
  ``c2t_triton`` right after ``cutile`` in ``line_vals`` and is run point by point by this script;
  each point is one line of JSON written at once (a file that runs out of time keeps its points);
  an exception (a mismatch in the file's own ``assert_close``, a compile error) is recorded, not
  fatal;
* measures the GPU's ceilings once per process (device copy bandwidth, cuBLAS fp16 GEMM) for the
  report's "converted / ceiling" column;
* makes ``triton.testing.do_bench`` return the median of its calls where the file asks for no
  statistic (``--do-bench``; TileGym's files get the mean, which one slow call moves);
* sets ``DISABLE_FALLBACK=1``, so that a backend without the op raises instead of TileGym's
  dispatcher silently timing its PyTorch fallback;
* with ``--rounds N``, measures each point's backends N times in turn in the same process and
  reports each one's best round: a slow stretch of the host lowers one round of every backend
  alike rather than one backend's only number;
* with ``--repeat N``, runs each file N times, each in a fresh process, and reports each point's
  best value (every backend alike): where ``do_bench`` times the host (small shapes, whose host
  launch time exceeds the device time hidden behind its L2-flush memset), the same op's number moved
  by 2-4x between processes on the H200's host (BENCHMARKS.md, "Host time per call").

Options that shrink the run (``--max-x``, ``--rep``, ``--warmup``, time limits) are written
into the report. The parent process runs every file in its own process with a timeout, then
writes a Markdown table per op (shape, cuTile, converted Triton, TileGym Triton, PyTorch, unit,
converted/cuTile), the geometric mean, and a PNG bar chart per bench file (op family).

  python3 tilegym_bench.py --tilegym TILEGYM --converted CONV --out OUT [--files bench_softmax.py ...]
  python3 tilegym_bench.py --render OUT   # tables and charts again from OUT/points.jsonl
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path

C2T = "c2t_triton"
# Column order and titles; other backends (tilecpp, ...) follow under their own names.
COLUMNS = [("cutile", "cuTile"), (C2T, "converted Triton"), ("triton", "TileGym Triton"), ("torch", "PyTorch")]
# Heavy files last; the first ones are the quick memory-bound ops.
DEFAULT_FILES = [
    "bench_softmax.py", "bench_rmsnorm.py", "bench_layernorm.py", "bench_silu_and_mul.py", "bench_swiglu.py",
    "bench_rope.py", "bench_dropout.py", "bench_matrix_multiplication.py", "bench_bmm.py",
    "bench_persistent_matmul.py", "bench_group_gemm.py", "bench_fused_attention.py", "bench_mla.py",
    "bench_mla_decoding.py", "bench_gemma_attention.py",
]
# The bench files below tests/benchmark's top level (a file is named by its path relative to it).
EXPERIMENTAL_FILES = [f"experimental/bench_{n}.py" for n in (
    "rmsnorm_backward", "silu_and_mul_backward", "swiglu_backward", "fused_swiglu_mlp", "mhc",
    "fused_linear_cross_entropy", "swa_attention", "sparse_mla", "attention_backward")]
UNSLOTH_FILES = [f"suites/unsloth/bench_{n}.py" for n in (
    "geglu", "swiglu", "layernorm", "rms_layernorm", "rope_embedding", "cross_entropy_loss", "fp8", "grouped_gemm")]
# The timer each bench file calls (TileGym 75a14307), for the report: small shapes timed with do_bench
# measure host launch cost as much as the kernel (BENCHMARKS.md, "Host launch cost").
TIMERS = {
    "bench_softmax.py": "profile_with_l2flush", "bench_rmsnorm.py": "profile_with_l2flush",
    "bench_bmm.py": "do_bench", "bench_gemma_attention.py": "do_bench", "bench_layernorm.py": "do_bench",
    "bench_group_gemm.py": "do_bench", "bench_nvfp4_quantize.py": "do_bench",
    **{f: "do_bench" for f in EXPERIMENTAL_FILES if not f.endswith(("rmsnorm_backward.py", "mhc.py"))},
    **{f: "do_bench_cudagraph (forward), do_bench (backward)" for f in UNSLOTH_FILES
       if f.endswith(("cross_entropy_loss.py", "layernorm.py", "rope_embedding.py"))},
    UNSLOTH_FILES[-1]: "do_bench",
}  # the others: do_bench_cudagraph
# Not run by default: bench_mix_triton_cutile.py (a demo mixing both in one model, its backends are not
# ops), bench_nvfp4_quantize.py (48 shapes), EXPERIMENTAL_FILES and UNSLOTH_FILES (name them in --files,
# or --files all).


def bench_files(names: list | None) -> list[str]:
    """The bench files to run, as paths relative to tests/benchmark: DEFAULT_FILES when none are
    named; "all" stands for DEFAULT_FILES, EXPERIMENTAL_FILES and UNSLOTH_FILES."""
    if not names:
        return list(DEFAULT_FILES)
    out = []
    for n in names:
        for f in (DEFAULT_FILES + EXPERIMENTAL_FILES + UNSLOTH_FILES if n == "all" else [n]):
            if f not in out:
                out.append(f)
    return out


def file_stem(name: str) -> str:
    """A bench file's name as a file name of its own (logs, charts): suites/unsloth/bench_swiglu.py ->
    suites__unsloth__bench_swiglu (the top level's bench_swiglu.py stays bench_swiglu)."""
    return str(Path(name).with_suffix("")).replace("/", "__")


def bench_root(path: Path) -> Path:
    """tests/benchmark, the nearest folder above a bench file that holds bench_utils.py (the
    experimental and suites files live below it and import tilegym only)."""
    for d in path.parents:
        if (d / "bench_utils.py").is_file():
            return d
    return path.parent


def _first_line(exc: BaseException) -> str:
    lines = "".join(traceback.format_exception_only(type(exc), exc)).strip().splitlines()
    return lines[0][:300] if lines else type(exc).__name__


def x_text(x) -> str:
    """An x value as --only-x names it: 1024, or 1024,1024,512 for a list of values."""
    return ",".join(map(str, x)) if isinstance(x, (list, tuple)) else str(x)


def pick_x(x_vals: list, max_x: int, only: list | None = None) -> list:
    """The x_vals named in ``only`` (x_text; all when None), then at most max_x of them, evenly
    spread, always with the largest (last)."""
    xs = [x for x in x_vals if only is None or x_text(x) in only]
    if max_x <= 0 or len(xs) <= max_x:
        return xs
    if max_x == 1:
        return [xs[-1]]
    idx = sorted({round(i * (len(xs) - 1) / (max_x - 1)) for i in range(max_x)})
    return [xs[i] for i in idx]


def with_converted_line(line_vals: list, line_names: list, styles) -> tuple[list, list, list | None]:
    """line_vals with c2t_triton right after cutile (or first, if cuTile is not there)."""
    vals, names = list(line_vals), list(line_names)
    sty = list(styles) if styles else None
    if C2T in vals:
        return vals, names, sty
    at = vals.index("cutile") + 1 if "cutile" in vals else 0
    vals.insert(at, C2T)
    names.insert(at, "converted Triton")
    if sty is not None:
        sty.insert(at, ("black", "--"))
    return vals, names, sty


def converted_lines(bench, module_globals: dict) -> dict:
    """{line value: (backend, variant)} for a Benchmark, with the converted backend added.

    Most bench files pass the backend itself (line_arg "backend"): c2t_triton goes after cutile.
    bench_rmsnorm.py passes an index into its module's ALL_CONFIGS of (backend, mode, label,
    style), re-read through get_supported_configs() at each call: there every cuTile config
    gets a converted twin appended to ALL_CONFIGS (same mode), and the indices follow."""
    configs = module_globals.get("ALL_CONFIGS")
    if bench.line_arg not in ("backend", "framework") and isinstance(configs, list) and any(
            isinstance(c, tuple) and c and c[0] == "cutile" for c in configs):
        if not any(isinstance(c, tuple) and c and c[0] == C2T for c in configs):
            for c in [c for c in configs if isinstance(c, tuple) and c and c[0] == "cutile"]:
                label = c[2].replace("CuTile", "converted") if len(c) > 2 and isinstance(c[2], str) else C2T
                configs.append((C2T, *c[1:2], label, *c[3:]))
        supported = module_globals["get_supported_configs"]() if callable(
            module_globals.get("get_supported_configs")) else [c for c in configs if c is not None]
        return {i: (c[0], c[1] if len(c) > 1 else None) for i, c in enumerate(supported)}
    vals, _, _ = with_converted_line(bench.line_vals, bench.line_names, bench.styles)
    return {v: (v, None) for v in vals}


# ------------------------------------------------------------------ child: one bench file


def measure_ceilings() -> dict:
    """The GPU's measured ceilings, once per bench file's process: device copy bandwidth (GB/s,
    read + write of a 1 GiB tensor, ``Tensor.copy_``) and cuBLAS fp16 GEMM (TFLOPS, ``torch.matmul``
    at 8192^3), each the median of ``triton.testing.do_bench``. {} without a CUDA device or when a
    measurement fails (the report then has no ceiling column)."""
    try:
        import torch
        import triton.testing

        if not torch.cuda.is_available():
            return {}
        src = torch.empty(2**30, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        ms = triton.testing.do_bench(lambda: dst.copy_(src), return_mode="median")
        copy_gbs = 2 * src.numel() / (ms * 1e-3) / 1e9
        del src, dst
        a = torch.randn(8192, 8192, dtype=torch.float16, device="cuda")
        b = torch.randn_like(a)
        ms = triton.testing.do_bench(lambda: torch.matmul(a, b), return_mode="median")
        return {"kind": "ceiling", "copy_gbs": copy_gbs, "cublas_fp16_tflops": 2 * 8192**3 / (ms * 1e-3) / 1e12}
    except Exception:  # noqa: BLE001 -- the ceilings are extra; the benchmarks still run
        return {}


def ceiling_of(ylabel: str, plot: str, ceiling: dict):
    """(value, name) of the ceiling a point's converted speed is compared with, or None: GB/s against
    the copy bandwidth; fp16/bf16 TFLOPS against cuBLAS fp16 (fp8, and units whose scale the file
    does not state, e.g. bench_mla.py's "FLOPS": none)."""
    if ylabel in ("GB/s", "GBps"):
        return ceiling["copy_gbs"], "copy"
    if ylabel == "TFLOPS" and ("float16" in plot or "bfloat16" in plot) and "float8" not in plot:
        return ceiling["cublas_fp16_tflops"], "cuBLAS"
    return None


def check_launches(backend: str, counts: dict | None) -> str | None:
    """Why a point's number is not the backend's, from its LaunchProbe counts (summed over its timer
    calls), or None. The converted line must launch at least one converted kernel and no cuTile
    kernel, through one of the timers the harness wraps; the cuTile line, when probed, at least one
    cuTile kernel and no converted one."""
    if backend == C2T:
        if counts is None:
            return "unchecked: the point called none of the timers the harness wraps (its launches were not seen)"
        if counts["converted"] == 0 or counts["cutile"]:
            return (f"not the converted op: the timed call launched {counts['converted']} converted and "
                    f"{counts['cutile']} cuTile kernels (the bench file does not reach the conversion here)")
    if backend == "cutile" and counts is not None and (counts["converted"] or not counts["cutile"]):
        return (f"not cuTile's op: the timed call launched {counts['cutile']} cuTile and {counts['converted']} "
                "converted kernels")
    return None


def run_child(args) -> int:
    path = Path(args.child).resolve()
    os.environ["DISABLE_FALLBACK"] = "1"
    root = bench_root(path)
    sys.path[:0] = list(dict.fromkeys([str(path.parent), str(root)]))
    name = path.relative_to(root).as_posix()
    out = open(args.points, "a", buffering=1)
    deadline = time.time() + args.child_budget

    def emit(rec):
        rec["file"] = name
        if args.attempt:
            rec["attempt"] = args.attempt  # a --repeat run: collect() keeps each point's best
        out.write(json.dumps(rec, default=str) + "\n")

    try:
        import torch
        import triton.testing

        import bench_utils
        from cutile2triton.pytest_tilegym import load_converted
        from cutile2triton.tilegym_as_cutile import LaunchProbe, converted_as_cutile

        mounts = load_converted(Path(args.converted))
        probe = LaunchProbe(mounts)
    except BaseException as e:  # noqa: BLE001
        emit({"kind": "setup_error", "error": _first_line(e)})
        raise
    emit({"kind": "mounted", "ops": len(mounts.impls), "import_errors": mounts.import_errors})
    ceiling = measure_ceilings()
    if ceiling:
        emit(ceiling)

    # Before a point's timer runs, its function is called once with LaunchProbe (untimed): which
    # kernels the line launches, checked after the measurement (check_launches).
    probing: dict = {"on": False, "counts": None}

    def probed(fn):  # every timer call of a probed point: the counts add up
        if probing["on"]:
            got = probe(fn)
            seen = probing["counts"] or {"converted": 0, "cutile": 0}
            probing["counts"] = {k: seen[k] + got[k] for k in seen}

    real_profile = bench_utils.profile_with_l2flush

    def profile_with_l2flush(fn, warmup=None, rep=None):
        probed(fn)
        return real_profile(fn, warmup=args.warmup, rep=args.rep)

    bench_utils.profile_with_l2flush = profile_with_l2flush

    # The statistic is do_bench's median; TileGym's files take do_bench's default, the mean,
    # which one slow call (a garbage collection, another process on the host) moves. A file that asks
    # for quantiles or a return mode keeps what it asked for.
    real_do_bench = triton.testing.do_bench

    def do_bench(fn, *a, **kw):
        probed(fn)
        if args.do_bench != "mean" and len(a) < 4 and "quantiles" not in kw and "return_mode" not in kw:
            kw["return_mode"] = args.do_bench
        return real_do_bench(fn, *a, **kw)

    triton.testing.do_bench = do_bench
    real_cudagraph = triton.testing.do_bench_cudagraph

    def do_bench_cudagraph(fn, *a, **kw):
        probed(fn)
        return real_cudagraph(fn, *a, **kw)

    triton.testing.do_bench_cudagraph = do_bench_cudagraph

    namespace: dict = {}  # the bench file's globals, for converted_as_cutile

    def measure(rec, call):
        """One measurement of a point into rec: its rounds and their best finite value (higher is
        better in every unit), or the error; a later round's failure is kept beside the rounds."""
        t0 = time.time()
        try:
            ret = call()
            rounds = rec.setdefault("rounds", [])
            rounds.append(float(ret[0] if isinstance(ret, (tuple, list)) else ret))
            finite = [v for v in rounds if math.isfinite(v)]
            rec["value"] = max(finite) if finite else rounds[-1]
        except BaseException as e:  # noqa: BLE001 -- recorded per point
            if isinstance(e, KeyboardInterrupt):
                raise
            if "value" in rec:  # a later round's failure: the rounds measured stand
                rec.setdefault("round_errors", []).append(_first_line(e))
            else:
                rec["error"] = _first_line(e)
            try:
                torch.cuda.synchronize()
            except BaseException:  # noqa: BLE001 -- a broken context: later points say so
                pass
        rec["seconds"] = round(rec.get("seconds", 0) + time.time() - t0, 2)

    def measure_line(rec, call, line, backend, lines):
        """measure() of one line. The converted line of a file whose lines are backends runs the file's
        cuTile line with "cutile" meaning the converted ops (converted_as_cutile; TileGym's files
        branch on backend == "cutile"); its first round's launches are probed (LaunchProbe): a point
        that launched no converted kernel, or a cuTile one, is an error, not a number."""
        cutile_line = "cutile" if "cutile" in lines else None  # a line value "cutile": the file's cuTile line
        first = "rounds" not in rec and "error" not in rec
        probing.update(on=first and backend in (C2T, "cutile"), counts=None)
        try:
            if backend == C2T and line == C2T and cutile_line is not None:
                def run():
                    with converted_as_cutile(mounts, namespace):
                        return call(cutile_line)
            else:
                def run():
                    return call(line)
            measure(rec, run)
        finally:
            probing["on"] = False
        counts = probing["counts"]
        if first and backend in (C2T, "cutile"):
            rec["launches"] = counts
            problem = check_launches(backend, counts)
            if problem and "value" in rec:
                rec["error"] = problem
                rec["unchecked_value"] = rec.pop("value")
                rec.pop("rounds", None)

    def mark_run(self, *a, **kw):
        benches = [self.benchmarks] if isinstance(self.benchmarks, triton.testing.Benchmark) else self.benchmarks
        nonlocal namespace
        namespace = self.fn.__globals__
        for bench in benches:
            if bench is None:
                continue
            lines = converted_lines(bench, self.fn.__globals__)
            for x in pick_x(bench.x_vals, args.max_x, args.only_x):
                xs = list(x) if isinstance(x, (list, tuple)) else [x] * len(bench.x_names)
                x_args = dict(zip(bench.x_names, xs))
                recs = {}
                # --rounds N: every line measured N times in turn (cuTile, converted, ..., then again),
                # each point the best round: a slow stretch of the host lowers one round of every
                # backend alike instead of one backend's only measurement. A round after the first
                # starts only while the file has time left, so every line gets the same rounds.
                for round_ in range(max(1, args.rounds)):
                    if round_ and time.time() > deadline:
                        break
                    for line, (backend, variant) in lines.items():
                        rec = recs.setdefault(line, {
                            "kind": "point", "plot": bench.plot_name, "ylabel": bench.ylabel,
                            "x_names": list(bench.x_names), "x": xs, "line": line, "backend": backend,
                            "variant": variant, "args": {k: str(v) for k, v in bench.args.items()}})
                        if round_ and "value" not in rec:  # failed or not run in the first round: not again
                            continue
                        if not round_ and time.time() > deadline:
                            rec["error"] = "not run: the file's time was spent"
                        else:
                            measure_line(rec, lambda value: self.fn(**x_args, **{bench.line_arg: value},
                                                                    **bench.args), line, backend, lines)
                        # Written at once (the later record wins): a backend that hangs or kills the
                        # process later loses no point measured before it.
                        emit({k: v for k, v in rec.items() if k != "rounds" or args.rounds > 1})
        return None

    triton.testing.Mark.run = mark_run
    import runpy

    try:
        runpy.run_path(str(path), run_name="__main__")
    except BaseException as e:  # noqa: BLE001
        emit({"kind": "file_error", "error": _first_line(e)})
        return 1
    return 0


# ------------------------------------------------------------------ parent: all files, then render


def run_parent(args) -> int:
    root = Path(args.tilegym).resolve()
    bench_dir = root / "tests" / "benchmark"
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    points = out / "points.jsonl"
    points.unlink(missing_ok=True)
    files = bench_files(args.files)
    t_end = time.time() + args.budget
    runs = []
    for i, name in enumerate([f for f in files for _ in range(max(1, args.repeat))]):
        attempt = i % max(1, args.repeat)
        i = i // max(1, args.repeat)  # the file's index, for the budget's share
        left = t_end - time.time()
        f = bench_dir / name
        if left < 15:
            runs.append({"file": name, "rc": None, "seconds": 0, "note": "not run: out of time"})
            continue
        # Share what is left among the files still to run, at most --file-timeout each.
        budget = min(args.file_timeout, left, max(15.0, left / ((len(files) - i) * max(1, args.repeat) - attempt)
                                                          * args.share))
        cmd = [sys.executable, __file__, "--child", str(f), "--points", str(points), "--converted", args.converted,
               "--rep", str(args.rep), "--warmup", str(args.warmup), "--max-x", str(args.max_x),
               "--do-bench", args.do_bench, "--child-budget", str(budget - 10), "--attempt", str(attempt),
               "--rounds", str(args.rounds),
               *(["--only-x", *args.only_x] if args.only_x else [])]
        t0 = time.time()
        with open(out / f"{file_stem(name)}.log", "w") as log:
            try:
                rc = subprocess.run(cmd, cwd=bench_dir, stdout=log, stderr=subprocess.STDOUT,
                                    timeout=budget + 5).returncode
                note = ""
            except subprocess.TimeoutExpired:
                rc, note = None, f"killed after {budget + 5:.0f} s"
        runs.append({"file": name, "rc": rc, "seconds": round(time.time() - t0, 1), "note": note})
        print(f"{time.strftime('%H:%M:%S')} {name} rc={rc} {runs[-1]['seconds']}s {note}", flush=True)
    meta = {"argv": sys.argv, "runs": runs, "rep": args.rep, "warmup": args.warmup, "max_x": args.max_x,
            "only_x": args.only_x, "repeat": args.repeat, "rounds": args.rounds,
            "file_timeout": args.file_timeout, "budget": args.budget, "do_bench": args.do_bench}
    (out / "runs.json").write_text(json.dumps(meta, indent=1))
    render(out)
    return 0


def _fmt(v) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    return f"{v:.1f}" if abs(v) >= 10 else f"{v:.2f}" if abs(v) >= 0.01 else f"{v:.3g}"


def geomean(xs: list[float]) -> float:
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def collect(records: list[dict]) -> dict:
    """{file: {benchmark: {"ylabel", "x_names", "rows": {x tuple: {backend: value or error}}}}} in run order.

    A point with a variant (bench_rmsnorm's cuTile modes) belongs to the row "<plot> (<variant>)";
    a point without one (TileGym Triton, PyTorch) is shown in every variant row of its plot."""
    points = [r for r in records if r.get("kind") == "point"]
    variants: dict = {}
    for r in points:
        if r.get("variant"):
            variants.setdefault((r["file"], r["plot"]), [])
            if r["variant"] not in variants[(r["file"], r["plot"])]:
                variants[(r["file"], r["plot"])].append(r["variant"])
    files: dict = {}
    for r in points:
        vs = variants.get((r["file"], r["plot"]))
        names = [f"{r['plot']} ({r['variant']})"] if r.get("variant") else [f"{r['plot']} ({v})" for v in vs] if vs \
            else [r["plot"]]
        backend = str(r.get("backend", r["line"]))
        for name in names:
            plots = files.setdefault(r["file"], {})
            p = plots.setdefault(name, {"ylabel": r["ylabel"], "x_names": r["x_names"], "rows": {}, "args": r["args"]})
            row = p["rows"].setdefault(tuple(r["x"]), {})
            value, before = r.get("value", r.get("error", "?")), row.get(backend)
            # A --repeat run's point: the best of the file's processes (higher is better in every unit);
            # otherwise the later record wins (a re-run, or a later session's point in a merged table).
            finite = lambda v: isinstance(v, float) and math.isfinite(v)  # noqa: E731
            if r.get("attempt") and finite(before) and not (finite(value) and value > before):
                continue
            row[backend] = value
    return files


def _lines_of(plots: dict) -> list[str]:
    seen = []
    for p in plots.values():
        for row in p["rows"].values():
            for line in row:
                if line not in seen:
                    seen.append(line)
    known = [c for c, _ in COLUMNS]
    return [c for c in known if c in seen] + [line for line in seen if line not in known]


def render(out: Path) -> dict:
    """tilegym-bench.md, summary.json and one chart per bench file, from points.jsonl."""
    out = Path(out)
    records = [json.loads(line) for line in (out / "points.jsonl").read_text().splitlines() if line.strip()]
    meta = json.loads((out / "runs.json").read_text()) if (out / "runs.json").is_file() else {}
    files = collect(records)
    ceilings = {r["file"]: r for r in records if r.get("kind") == "ceiling" and r.get("file")
                and all(isinstance(r.get(k), (int, float)) and math.isfinite(r[k]) and r[k] > 0
                        for k in ("copy_gbs", "cublas_fp16_tflops"))}  # a damaged record is left out
    title = dict(COLUMNS)
    md = []
    all_ratios, per_file, errors = [], {}, {}
    for fname, plots in files.items():
        lines = _lines_of(plots)
        ceiling = ceilings.get(fname) or next(iter(ceilings.values()), None)
        extra = " converted / ceiling |" if ceiling else ""
        md += [f"### {fname}", "", "| benchmark | shape | " + " | ".join(title.get(c, c) for c in lines) +
               " | unit | converted/cuTile |" + extra, "|---|---|" + "---|" * len(lines) + "---|---|" +
               ("---|" if ceiling else "")]
        ratios = []
        for plot, p in plots.items():
            for x, row in p["rows"].items():
                shape = ", ".join(f"{n}={v}" for n, v in zip(p["x_names"], x))
                cells = []
                for c in lines:
                    v = row.get(c)
                    if isinstance(v, str):
                        errors.setdefault((fname, c, v), []).append(f"{plot} {shape}")
                        cells.append("err" if not v.startswith("not run") else "not run")
                    else:
                        cells.append(_fmt(v))
                a, b = row.get("cutile"), row.get(C2T)
                ratio = b / a if isinstance(a, float) and isinstance(b, float) and a > 0 else None
                if ratio is not None and math.isfinite(ratio) and ratio > 0:
                    ratios.append(ratio)
                frac = ""
                if ceiling:
                    ref = ceiling_of(p["ylabel"], plot, ceiling)
                    frac = (f" {b / ref[0]:.0%} of {ref[1]} |" if ref and isinstance(b, float) and math.isfinite(b)
                            and b >= 0 else " — |")
                md.append(f"| {plot} | {shape} | " + " | ".join(cells) + f" | {p['ylabel']} | " +
                          (f"{ratio:.2f}×" if ratio is not None else "—") + " |" + frac)
        g = geomean(ratios)
        per_file[fname] = {"geomean": g, "points": len(ratios), "below_0_8": sum(r < 0.8 for r in ratios)}
        all_ratios += ratios
        md += ["", f"Geometric mean converted/cuTile over {len(ratios)} shapes: "
               + (f"**{g:.2f}×**" if ratios else "—") + ".", ""]
    g_all = geomean(all_ratios)
    # A table merged from several runs' points has no one run's options: each run's report gives its own.
    merged = "warmup" not in meta
    head = ["# TileGym's benchmarks: cuTile vs converted Triton vs TileGym Triton vs PyTorch", "",
            f"Higher is better in every unit used (GB/s, TFLOPS, FLOPS); converted/cuTile > 1 means the "
            f"converted op is faster. Timing: each bench file's own timer (column `timer`): TileGym's "
            f"`profile_with_l2flush` (kernel-only device time, L2 flushed, median"
            + ("" if merged else f"; here warmup={meta['warmup']}, rep={meta.get('rep', '?')}")
            + "), `do_bench_cudagraph` (device time of "
            f"graph replays) or `do_bench` (events around each call, host launch cost included when it "
            f"exceeds the kernel's time"
            + ("" if merged else f"; here its {meta.get('do_bench', 'mean')} over the calls")
            + "; TileGym's files take the mean)"
            + ("; points merged from several runs (their `session` field), each run's options in its own report"
               if merged else f"; at most {meta.get('max_x', '?')} x values per Benchmark (evenly "
                              f"spread, largest included)")
            + (f"; each file run {meta['repeat']} times in fresh processes, each point's best shown"
               if meta.get("repeat", 1) > 1 else "")
            + (f"; each point the best of {meta['rounds']} rounds in one process, the backends measured in turn"
               if meta.get("rounds", 1) > 1 else "") + ".", "",
            "| bench file | timer | shapes with both | geomean converted/cuTile | shapes < 0.8× |",
            "|---|---|---|---|---|"]
    for fname, s in per_file.items():
        head.append(f"| {fname} | {TIMERS.get(fname, 'do_bench_cudagraph')} | {s['points']} | " +
                    (f"{s['geomean']:.2f}×" if s["points"] else "—") + f" | {s['below_0_8']} |")
    head += ["", f"**Geometric mean converted/cuTile over all {len(all_ratios)} shapes: "
             + (f"{g_all:.2f}×" if all_ratios else "—") + "**", ""]
    if ceilings:
        c = next(iter(ceilings.values()))
        head += [f"Measured ceilings (each bench file's process; e.g. {c['file']}): device copy "
                 f"{c['copy_gbs']:.0f} GB/s (read + write), cuBLAS fp16 GEMM 8192³ {c['cublas_fp16_tflops']:.0f} TFLOPS; "
                 "the last column compares the converted op with them (GB/s: copy; fp16/bf16 TFLOPS: cuBLAS).", ""]
    if meta.get("runs"):
        head += ["Files: " + "; ".join(f"{r['file']} rc={r['rc']} {r['seconds']}s {r['note']}".strip()
                                      for r in meta["runs"]), ""]
    tail = ["### Errors (first line, per backend)", ""]
    for (fname, line, err), where in errors.items():
        tail.append(f"- {fname} `{line}` ({len(where)} points, e.g. {where[0]}): {err}")
    other = [r for r in records if r.get("kind") in ("setup_error", "file_error")]
    tail += [f"- {r['file']}: {r['kind']}: {r['error']}" for r in other]
    (out / "tilegym-bench.md").write_text("\n".join(head + md + tail) + "\n")
    summary = {"geomean": g_all, "points": len(all_ratios), "per_file": per_file}
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    try:
        charts(files, out)
    except ImportError as e:
        print(f"no charts: {e}")
    return summary


def _pairs(out: Path) -> dict:
    """{(file, benchmark, shape): (cuTile value, converted value)} of OUT/points.jsonl, as render rows them;
    only shapes where both are finite and positive."""
    records = [json.loads(line) for line in (Path(out) / "points.jsonl").read_text().splitlines() if line.strip()]
    good = lambda v: isinstance(v, float) and math.isfinite(v) and v > 0  # noqa: E731
    return {(f, plot, ", ".join(f"{n}={v}" for n, v in zip(p["x_names"], x))): (row["cutile"], row[C2T])
            for f, plots in collect(records).items() for plot, p in plots.items()
            for x, row in p["rows"].items() if good(row.get("cutile")) and good(row.get(C2T))}


def compare(before: Path, after: Path) -> str:
    """Markdown: converted/cuTile per shape in two runs' points (e.g. two sessions' converters), over the
    shapes both measured, with each side's own drift (after / before of the cuTile and of the converted
    value: cuTile's moving shows the machine or its tuning moved, not the converter), the geometric means
    over those shapes and the count below 0.8x in each. Higher is better in every unit."""
    a, b = _pairs(before), _pairs(after)
    common = [k for k in b if k in a]
    rows = ["| bench file | benchmark | shape | before: converted/cuTile | after | cuTile after/before | "
            "converted after/before |", "|---|---|---|---|---|---|---|"]
    ra, rb = [], []
    for k in common:
        (ca, xa), (cb, xb) = a[k], b[k]
        ra.append(xa / ca)
        rb.append(xb / cb)
        rows.append(f"| {k[0]} | {k[1]} | {k[2]} | {xa / ca:.2f}× | {xb / cb:.2f}× | {cb / ca:.2f} | {xb / xa:.2f} |")
    head = [f"Shapes in both runs: {len(common)} (only before: {len(set(a) - set(b))}, only after: "
            f"{len(set(b) - set(a))}). Geometric mean converted/cuTile over them: before **{geomean(ra):.2f}×**, "
            f"after **{geomean(rb):.2f}×**; below 0.8×: before {sum(r < 0.8 for r in ra)}, after "
            f"{sum(r < 0.8 for r in rb)}.", ""]
    return "\n".join(head + rows) + "\n"


def charts(files: dict, out: Path) -> None:
    """One PNG per bench file: each backend's speed relative to cuTile (= 1), per benchmark and shape."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = {"cutile": "tab:blue", C2T: "black", "triton": "tab:red", "torch": "tab:green"}
    for fname, plots in files.items():
        lines = _lines_of(plots)
        labels, series = [], {c: [] for c in lines}
        for plot, p in plots.items():
            for x, row in p["rows"].items():
                base = row.get("cutile")
                if not isinstance(base, float) or base <= 0:
                    continue
                short = plot if len(plot) <= 48 else "…" + plot[-47:]  # the tail tells configs apart
                labels.append(f"{short}\n" + ",".join(str(v) for v in dict.fromkeys(x)))
                for c in lines:
                    v = row.get(c)
                    series[c].append(v / base if isinstance(v, float) else 0.0)
        if not any(v > 0 for v in series.get(C2T, [])):  # nothing to compare
            continue
        fig, ax = plt.subplots(figsize=(min(18, max(6, 0.4 * len(labels) * len(lines))), 5.5))
        w = 0.8 / len(lines)
        for i, c in enumerate(lines):
            ax.bar([k + i * w for k in range(len(labels))], series[c], w, label=dict(COLUMNS).get(c, c),
                   color=colors.get(c))
        ax.axhline(1.0, color="gray", lw=0.8, ls=":")
        ax.set_xticks([k + w * (len(lines) - 1) / 2 for k in range(len(labels))])
        ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=6)
        ax.set_ylabel("speed relative to cuTile (higher is faster)")
        ax.set_title(f"TileGym {fname} on the H200")
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(out / f"{file_stem(fname)}.png", dpi=110)
        plt.close(fig)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tilegym", help="TileGym checkout (with src/ and tests/benchmark/)")
    ap.add_argument("--converted", help="converted tree (CONV/ops/triton, CONV/suites/...), as for the pytest plug-in")
    ap.add_argument("--out", help="output folder")
    ap.add_argument("--files", nargs="*", help="bench files, relative to tests/benchmark (default: the top-level op "
                    "benchmarks; 'all' adds experimental/ and suites/unsloth/)")
    ap.add_argument("--rep", type=int, default=100, help="profile_with_l2flush repetitions (TileGym: 100)")
    ap.add_argument("--warmup", type=int, default=20, help="profile_with_l2flush warm-up runs (TileGym: 20)")
    ap.add_argument("--max-x", type=int, default=0, help="at most this many x values per Benchmark (0: all)")
    ap.add_argument("--only-x", nargs="+", metavar="X",
                    help="only these x values (e.g. 1024, or 1024,1024,512 for a list), before --max-x; "
                         "to re-run chosen shapes (--max-x always keeps each Benchmark's largest)")
    ap.add_argument("--do-bench", choices=("median", "mean"), default="median",
                    help="what triton.testing.do_bench returns when the file asks for no statistic (TileGym: mean)")
    ap.add_argument("--file-timeout", type=float, default=300, help="seconds per bench file at most")
    ap.add_argument("--budget", type=float, default=3600, help="seconds for all files")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run each file this many times, each in a fresh process; each point's best is reported")
    ap.add_argument("--rounds", type=int, default=1,
                    help="measure each point's backends this many times in turn in one process (cuTile, "
                         "converted, ..., then again); each point's best round is reported")
    ap.add_argument("--attempt", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--share", type=float, default=1.6,
                    help="a file may take this many times its equal share of the time left")
    ap.add_argument("--render", metavar="OUT", help="only write the tables and charts from OUT/points.jsonl")
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"),
                    help="only print, as Markdown, converted/cuTile per shape of two output folders' points")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--points", help=argparse.SUPPRESS)
    ap.add_argument("--child-budget", type=float, default=300, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.render:
        print(json.dumps(render(Path(args.render)), indent=1))
        return 0
    if args.compare:
        print(compare(Path(args.compare[0]), Path(args.compare[1])), end="")
        return 0
    if args.child:
        return run_child(args)
    if not (args.tilegym and args.converted and args.out):
        ap.error("--tilegym, --converted and --out are needed (or --render OUT)")
    return run_parent(args)


if __name__ == "__main__":
    sys.exit(main())
