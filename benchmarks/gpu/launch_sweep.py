"""Sweeps Triton launch options (num_warps, num_stages, num_ctas, the TMA path) over TileGym's ops
as converted by cutile2triton, at TileGym's benchmark shapes, to derive and check the launch
heuristics the converter emits (BENCHMARKS.md, "Launch options").

Each case runs the converted op through TileGym's dispatcher (``tilegym.ops.<op>(...,
backend="c2t_triton")``) with every kernel launch of the converted modules given the case's
options: the modules' ``_c2t_run_kernel`` is wrapped, and an option the converted launcher
already chose is overridden. ``auto`` is the launcher's own choice (what users of the converter
that made CONV get: in the 2026-11-29 results, the converter before the warps rule, i.e. Triton's
default 4 warps). Between
settings the modules' tuning caches are cleared, so host-side searches (cuTile's
``exhaustive_search`` on Triton) re-run under the new options (``--search-filter`` narrows
them). Timing is TileGym's ``profile_with_l2flush`` (kernel-only device
time, L2 flushed, median). Every result is checked against PyTorch first; each point also records
its first call's seconds (``first_s``: the compiles and host-side searches a new setting needs).

  python3 launch_sweep.py --tilegym TILEGYM --converted CONV --out OUT.jsonl [--cases rms,bmm ...]
  python3 launch_sweep.py --render OUT.jsonl     # Markdown tables
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import traceback
from pathlib import Path

C2T = "c2t_triton"


def _first_line(e: BaseException) -> str:
    s = "".join(traceback.format_exception_only(type(e), e)).strip().splitlines()
    return (s[0] if s else type(e).__name__)[:300]


class Override:
    """Launch options forced on every converted kernel launch (None: the launcher's own)."""

    options: dict | None = None


def install_override(modules) -> None:
    import triton

    for mod in modules:
        run = getattr(mod, "_c2t_run_kernel", None)
        if run is None or getattr(run, "_sweep", False):
            continue

        def wrapped(kernel, grid, *args, _run=run, **kwargs):
            if Override.options:
                kwargs.update(Override.options)
                if kwargs.get("USE_TMA"):
                    triton.set_allocator(_alloc)
            return _run(kernel, grid, *args, **kwargs)

        wrapped._sweep = True
        mod._c2t_run_kernel = wrapped


def _alloc(size, align, stream):
    import torch

    return torch.empty(size, dtype=torch.int8, device="cuda")


def limit_searches(modules, keep: str) -> None:
    """Host-side searches try only the configs `c` for which the expression `keep` is true."""
    test = eval(f"lambda c: {keep}") if keep else (lambda c: True)  # noqa: S307 -- a command-line option

    for mod in modules:
        search = getattr(mod, "_c2t_exhaustive_search", None)
        if search is None or getattr(search, "_sweep", False):
            continue

        def limited(space, *a, _s=search, **k):
            space = list(space)
            return _s([c for c in space if test(c)] or space, *a, **{**k, "quiet": True})

        limited._sweep = True
        mod._c2t_exhaustive_search = limited


def clear_caches(modules) -> None:
    for mod in modules:
        for name, v in list(vars(mod).items()):
            if isinstance(v, dict) and ("cache" in name.lower() or name == "_c2t_fitting_stages" or "tune" in name):
                v.clear()


def cases(torch, tilegym):
    """name -> list of (shape label, make() -> (fn(backend), ref(), work units, unit))."""
    dev = "cuda"
    out = {}

    def rms(M, N, mode, dt=torch.bfloat16):
        def make():
            x = torch.randn(M, N, dtype=dt, device=dev)
            w = torch.randn(N, dtype=dt, device=dev)
            fn = lambda be: tilegym.ops.rms_norm(x, (N,), w, 1e-6, mode=mode, backend=be)
            ref = lambda: torch.nn.functional.rms_norm(x.float(), (N,), w.float(), 1e-6).to(dt)
            return fn, ref, 2 * x.numel() * x.element_size(), "GB/s"
        return make

    # rms first: the quick memory-bound cases come before the searches of the GEMM/attention ones
    out["rms"] = [(f"static_persistent M=4096 N={n}", rms(4096, n, "static_persistent")) for n in (1024, 16384)]
    out["rms"] += [(f"multi_wave_cached M=4096 N={n}", rms(4096, n, "multi_wave_cached")) for n in (16384,)]
    out["rms"] += [(f"multi_wave_reload M=4096 N={n}", rms(4096, n, "multi_wave_reload")) for n in (16384,)]

    def softmax(M, N, dt, **kw):
        def make():
            x = torch.randn(M, N, dtype=dt, device=dev)
            fn = lambda be: tilegym.ops.softmax(x, backend=be, **kw)
            ref = lambda: torch.softmax(x.float(), -1).to(dt)
            return fn, ref, 2 * x.numel() * x.element_size(), "GB/s"
        return make

    out["softmax"] = [(f"bf16 M=4096 N={n} tma={t}", softmax(4096, n, torch.bfloat16, use_tma=t, use_chunked=False,
                                                              use_multi_wave=False))
                      for n in (1024, 16384) for t in (False, True)]

    def layernorm(M, N, dt=torch.bfloat16):
        def make():
            x = torch.randn(M, N, dtype=dt, device=dev)
            w = torch.randn(N, dtype=dt, device=dev)
            b = torch.randn(N, dtype=dt, device=dev)
            fn = lambda be: tilegym.ops.persistent_layer_norm(input=x, normalized_shape=(N,), weight=w, bias=b, eps=1e-6,
                                                              backend=be)[0]  # (y, mean, rstd, ...)
            ref = lambda: torch.nn.functional.layer_norm(x.float(), (N,), w.float(), b.float(), 1e-6).to(dt)
            return fn, ref, 2 * x.numel() * x.element_size(), "GB/s"
        return make

    out["layernorm"] = [(f"persistent M=30000 N={n}", layernorm(30000, n)) for n in (256, 16384)]

    def swiglu(B, M, N, dt):
        def make():
            a = torch.randn(B, M, N, dtype=dt, device=dev)
            b = torch.randn(B, M, N, dtype=dt, device=dev)
            fn = lambda be: tilegym.ops.get_swiglu(backend=be)(a, b)
            ref = lambda: (torch.nn.functional.silu(a.float()) * b.float()).to(dt)
            return fn, ref, 3 * a.numel() * a.element_size(), "GB/s"
        return make

    out["swiglu"] = [(f"B=1 M=128 N=16384 {d}", swiglu(1, 128, 16384, getattr(torch, d))) for d in ("float32", "bfloat16")]

    def bmm(Q, n, dt=torch.float16):
        def make():
            a = torch.randn(Q, n, n, dtype=dt, device=dev)
            b = torch.randn(Q, n, n, dtype=dt, device=dev)
            fn = lambda be: tilegym.ops.bmm(a, b, transpose_a=False, transpose_b=False, backend=be)
            ref = lambda: torch.bmm(a, b)
            return fn, ref, 2 * Q * n ** 3, "TFLOPS"
        return make

    out["bmm"] = [(f"batch2 {n}^3 fp16", bmm(2, n)) for n in (1024, 4096)]

    def matmul(n, dt=torch.float16):
        def make():
            a = torch.randn(n, n, dtype=dt, device=dev)
            b = torch.randn(n, n, dtype=dt, device=dev)
            fn = lambda be: tilegym.ops.matmul(a, b, use_tma=True, static_persistent=False, backend=be)
            ref = lambda: a @ b
            return fn, ref, 2 * n ** 3, "TFLOPS"
        return make

    out["matmul"] = [(f"{n}^3 fp16", matmul(n)) for n in (1024, 4096)]

    def fmha(B, H, S, D, causal, dt=torch.float16):
        def make():
            q, k, v = (torch.randn(B, H, S, D, dtype=dt, device=dev) for _ in range(3))
            sc = 1.0 / math.sqrt(D)
            fn = lambda be: tilegym.ops.fmha(q, k, v, scaling=sc, is_causal=causal, backend=be)
            ref = lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=sc)
            return fn, ref, 4 * B * H * S * S * D * (0.5 if causal else 1.0), "TFLOPS"
        return make

    out["fmha"] = [(f"B4 H32 S={s} D128 causal", fmha(4, 32, s, 128, True)) for s in (1024, 4096)]

    def gemma(S, dt=torch.bfloat16):
        def make():
            q = torch.randn(2, 8, S, 256, dtype=dt, device=dev)
            k = torch.randn(2, 1, S, 256, dtype=dt, device=dev)
            v = torch.randn(2, 1, S, 256, dtype=dt, device=dev)
            sc = 1.0 / 16
            fn = lambda be: tilegym.ops.gemma_attention(q, k, v, scaling=sc, soft_cap=50.0, is_causal=True, backend=be)
            ref = None  # checked by TileGym's tests; the soft cap has no torch one-liner
            return fn, ref, 2 * 2.0 * 2 * 8 * S * S * 256 * 0.5, "TFLOPS"
        return make

    out["gemma"] = [(f"B2 H8 KVH1 D256 S={s}", gemma(s)) for s in (512, 8192)]

    def mla(S, dt=torch.bfloat16):
        def make():
            g = lambda *sh: torch.empty(*sh, device=dev, dtype=dt).normal_(0.0, 0.3)
            q, qpe, k, kpe, v = g(4, 16, S, 128), g(4, 16, S, 64), g(4, 16, S, 128), g(4, 1, S, 64), g(4, 16, S, 128)
            sc = 1.0 / math.sqrt(192)
            fn = lambda be: tilegym.ops.mla(q, k, v, qpe, kpe, True, sc, backend=be)
            ref = None
            flops = 2 * 4 * 16 * S * S * 128 * 2 + 2 * 4 * 16 * S * S * 64
            return fn, ref, flops * 0.5, "TFLOPS"
        return make

    out["mla"] = [(f"B4 H16 S={s}", mla(s)) for s in (1024, 4096)]

    def mla_decoding(D, S, dt=torch.float16):  # bench_mla_decoding.py: split-KV, 16 heads, d_pe 64
        def make():
            g = lambda mean, std, *sh: torch.empty(*sh, device=dev, dtype=dt).normal_(mean=mean, std=std)
            q, qpe, kv, kpe = g(0.3, 0.2, 1, 16, D), g(0.3, 0.1, 1, 16, 64), g(0.3, 0.2, 1, S, D), g(0.3, 0.1, 1, S, 64)
            sc = 1.0 / math.sqrt(D + 64)
            first = lambda o: o[0] if isinstance(o, tuple) else o
            fn = lambda be: first(tilegym.ops.mla_decoding_split_kv(q, qpe, kv, kpe, sc, backend=be))

            def ref():
                qk = (torch.matmul(q, kv.transpose(1, 2)).float() + torch.matmul(qpe, kpe.transpose(1, 2)).float()) * sc
                return torch.matmul(torch.softmax(qk, -1).to(dt), kv)
            return fn, ref, sum(t.numel() * t.element_size() for t in (q, qpe, kv, kpe, q)), "GB/s"
        return make

    out["mla_decoding"] = [(f"head_dim={d} kv={s}", mla_decoding(d, s)) for d in (512, 128) for s in (256, 2048, 11043)]

    def swa(S, dt=torch.float16):  # experimental/bench_swa_attention.py: B1 H32 D128 W4096, causal
        def make():
            q, k, v = (torch.empty(1, 32, S, 128, device=dev, dtype=dt).normal_(0.0, 0.3) for _ in range(3))
            w = min(4096, S)
            fn = lambda be: tilegym.ops.swa_attention(q, k, v, window_size=w, is_causal=True, backend=be)

            def ref():
                i, j = torch.arange(S, device=dev)[:, None], torch.arange(S, device=dev)[None, :]
                keep = (j > i - w) & (j <= i)
                return torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=keep)
            return fn, ref, 2 * 32 * S * w * 128 * 2, "TFLOPS"
        return make

    out["swa"] = [(f"seq_len={s}", swa(s)) for s in (512, 4096, 16384)]

    def rms_backward(N, dt):  # experimental/bench_rmsnorm_backward.py (no dispatcher: the modules' functions)
        def make():
            import importlib

            cutile_mod = importlib.import_module("tilegym.ops.cutile.rms_norm")  # the package re-exports a function

            conv_mod = sys.modules["tilegym.ops.c2t_triton.rms_norm"]
            x = torch.rand(4096, N, dtype=dt, device=dev).mul_(0.5).add_(-2.3)
            w = torch.randn(N, dtype=dt, device=dev)
            dy = torch.randn(4096, N, dtype=dt, device=dev)
            rstd = cutile_mod.compute_rms_norm_rstd_torch(x, 1e-5)
            fn = lambda be: (conv_mod if be == C2T else cutile_mod).rms_norm_backward(x, dy, w, rstd)[0]
            ref = lambda: cutile_mod.rms_norm_backward_torch(x, dy, w, rstd)[0]
            return fn, ref, 3 * x.numel() * x.element_size(), "GB/s"
        return make

    out["rms_backward"] = [(f"M=4096 N={n} {d}", rms_backward(n, getattr(torch, d)))
                           for n, d in ((16384, "float32"), (16384, "bfloat16"), (8192, "float32"))]

    def group_gemm(G, n, dt, transpose_b, k_major=False):  # bench_group_gemm.py (lists of arrays)
        def make():
            g = lambda *sh: torch.rand(*sh, device=dev, dtype=torch.half).normal_(std=0.3).to(dt)
            A = [g(n, n) for _ in range(G)]
            # k_major: B (K x N) as a view of an N x K array, i.e. K contiguous as Hopper's fp8 wgmma
            # wants its operands (the layout a K-major copy of B in the host code would give)
            B = [g(n, n).t() if k_major else g(n, n) for _ in range(G)]
            fn = lambda be: tilegym.ops.group_gemm(A, B, transpose_b=transpose_b, backend=be)
            ref = lambda: [(a.float() @ (b.float().t() if transpose_b else b.float())) for a, b in zip(A, B)]
            return fn, ref, G * 2 * n ** 3, "TFLOPS"
        return make

    out["group_gemm"] = [(f"{d} G={G} {n}^3 transpose_b={t}{' B K-major' if km else ''}",
                          group_gemm(G, n, getattr(torch, d), t, km))
                         for d, G, n, t, km in (("float16", 4, 1024, False, False), ("float16", 4, 1024, True, False),
                                                ("float8_e5m2", 4, 1024, False, False),
                                                ("float8_e5m2", 4, 1024, True, False),
                                                ("float8_e5m2", 4, 1024, False, True),
                                                ("float8_e5m2", 4, 4096, False, False),
                                                ("float8_e5m2", 4, 4096, True, False),
                                                ("float8_e5m2", 4, 4096, False, True))]

    def silu_and_mul(M, hidden, dt):  # experimental/bench_silu_and_mul_backward.py, forward
        def make():
            x = torch.randn(M, 2 * hidden, dtype=dt, device=dev)
            fn = lambda be: tilegym.ops.silu_and_mul(x, backend=be)
            ref = lambda: (torch.nn.functional.silu(x[:, :hidden].float()) * x[:, hidden:].float()).to(dt)
            return fn, ref, 3 * M * hidden * x.element_size(), "GB/s"
        return make

    # s28 and s29 both had fp32 hidden 4096 at M=1024 at 0.59-0.60x cuTile (do_bench), 2048 and 11008 at
    # 0.99-1.15x: its 4096-element tile gets 4 warps, 11008's 16384-element tile 16
    out["silu_and_mul"] = [(f"M={m} hidden={h} {d}", silu_and_mul(m, h, getattr(torch, d)))
                           for m, h, d in ((1024, 2048, "float32"), (1024, 4096, "float32"), (1024, 11008, "float32"),
                                           (1024, 4096, "bfloat16"), (16384, 4096, "float32"))]

    def cgdr(B, T, H, K, V, dt=torch.bfloat16):  # tests/ops/test_chunk_gated_delta_rule.py's shapes
        def make():
            root = Path(tilegym.__file__).resolve().parents[2]  # TileGym's checkout (src/tilegym/__init__.py)
            if str(root) not in sys.path:
                sys.path.insert(0, str(root))
            import importlib

            reference = importlib.import_module("tests.ops.test_chunk_gated_delta_rule")._torch_chunk_gated_delta_rule
            torch.manual_seed(42)
            q, k = (torch.randn(B, T, H, K, device=dev, dtype=dt) * 0.1 for _ in range(2))
            v = torch.randn(B, T, H, V, device=dev, dtype=dt) * 0.1
            g = -torch.abs(torch.randn(B, T, H, device=dev, dtype=dt)) * 0.5
            beta = torch.sigmoid(torch.randn(B, T, H, device=dev, dtype=dt))
            s0 = torch.randn(B, H, K, V, device=dev, dtype=torch.float32) * 0.01
            args = lambda: (q.clone(), k.clone(), v.clone(), g.clone(), beta.clone())
            kw = dict(chunk_size=64, initial_state=s0, output_final_state=True, use_qk_l2norm_in_kernel=False)
            fn = lambda be: tilegym.ops.chunk_gated_delta_rule(*args(), **kw, backend=be)[0]
            ref = lambda: reference(*args(), **kw)[0]
            return fn, ref, B * T * H * (2 * K + 2 * V) * q.element_size(), "GB/s"  # q, k, v read, the output written
        return make

    # K=256: the inter-chunk kernel's products were fp32 on FMA units until bc2931f (18432 FMAs per thread at
    # 8 warps; the test case took 272 s in s22 and ran past 330 s alone in s29, most of it ptxas), TF32 since,
    # as cuTile's: first_s and the speed per setting
    out["cgdr"] = [(f"B=2 T={t} H=8 K={k} V=128", cgdr(2, t, 8, k, 128)) for t, k in ((4, 256), (2048, 256), (2048, 128))]
    return out


def check(torch, got, want) -> None:
    """got against want (tensors, or lists of them as group_gemm returns); fp8 outputs at their own
    rounding (e5m2 keeps 2 mantissa bits: 12.5% apart at most)."""
    if isinstance(got, (list, tuple)):
        assert len(got) == len(want), (len(got), len(want))
        for x, y in zip(got, want):
            check(torch, x, y)
        return
    fp8 = got.dtype in (torch.float8_e5m2, torch.float8_e4m3fn)
    torch.testing.assert_close(got.float(), want.float(), atol=0.5 if fp8 else 2e-2, rtol=0.15 if fp8 else 2e-2)



SETTINGS = {
    # per case: launch-option settings to try (None = the launcher's own choice)
    "rms": [None, {"num_warps": 4}, {"num_warps": 8}, {"num_warps": 16}, {"num_warps": 32}],
    "softmax": [None, {"num_warps": 1}, {"num_warps": 2}, {"num_warps": 4}, {"num_warps": 8}, {"num_warps": 16}],
    "layernorm": [None, {"num_warps": 1}, {"num_warps": 2}, {"num_warps": 4}, {"num_warps": 8}, {"num_warps": 16}],
    "swiglu": [None, {"num_warps": 4}, {"num_warps": 8}, {"num_warps": 16}],
    "bmm": [None, {"num_warps": 4}, {"num_warps": 8}, {"num_warps": 8, "num_ctas": 2}, {"num_warps": 8, "USE_TMA": True},
            {"num_warps": 8, "num_stages": 4}],
    "matmul": [None, {"num_warps": 4}, {"num_warps": 8}, {"num_warps": 8, "num_ctas": 2}, {"num_warps": 8, "num_stages": 4}],
    "fmha": [None, {"num_warps": 4}, {"num_warps": 8}, {"num_warps": 8, "num_stages": 2}],
    "gemma": [None, {"num_warps": 4}, {"num_warps": 8}],
    "mla": [None, {"num_warps": 4}, {"num_warps": 8}],
    "mla_decoding": [None, {"num_warps": 4}, {"num_warps": 8}, {"num_warps": 8, "num_stages": 2},
                     {"num_warps": 8, "num_stages": 4}, {"num_warps": 16}],
    "swa": [None, {"num_warps": 4}, {"num_warps": 8}, {"num_warps": 4, "num_stages": 2}, {"num_warps": 8, "num_stages": 2},
            {"num_warps": 4, "num_stages": 4}, {"num_warps": 4, "USE_TMA": True}, {"num_warps": 8, "USE_TMA": True},
            {"num_warps": 4, "num_stages": 2, "USE_TMA": True}, {"num_warps": 4, "num_stages": 1},
            {"num_warps": 4, "num_stages": 1, "USE_TMA": True}],
    # the grid-stride loop's prefetch stages (C2T_PREFETCH_STAGES) with the launch's
    "rms_backward": [None] + [{"num_warps": w, "num_stages": s, "C2T_PREFETCH_STAGES": s}
                              for w in (8, 16, 32) for s in (1, 2, 3)],
    "group_gemm": [None, {"num_warps": 4}, {"num_warps": 8}],
    "silu_and_mul": [None, {"num_warps": 4}, {"num_warps": 8}, {"num_warps": 16}],
    "cgdr": [None, {"num_warps": 8}, {"num_warps": 16}],
}


def render(points: Path) -> str:
    """A Markdown table per case from the points file: one row per shape, one column per setting
    (value and unit, with --host's points "kernel-only / host-timed"; the best converted setting in
    bold)."""
    rows: dict = {}
    for line in points.read_text().splitlines():
        r = json.loads(line)
        label = r["backend"] if r["backend"] != C2T else (
            "auto" if r["setting"] == "auto" else ", ".join(f"{k}={v}" for k, v in r["setting"].items()))
        cell = f"{r['value']:.0f}" if "value" in r else "error: " + r["error"].split(":")[0]
        if "value" in r and "ms_host" in r:  # kernel-only / host-timed (--host)
            cell += f" / {r['value'] * r['ms'] / r['ms_host']:.0f}"
        rows.setdefault(r["case"], {}).setdefault(r["shape"], {})[label] = (cell, r.get("value"), r["unit"])
    out = []
    for case, shapes in rows.items():
        cols = list(dict.fromkeys(c for cells in shapes.values() for c in cells))
        unit = next(iter(next(iter(shapes.values())).values()))[2]
        out += [f"#### {case} ({unit})", "", "| shape | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
        for shape, cells in shapes.items():
            best = max((v for c, (_, v, _) in cells.items() if v is not None and c != "cutile"), default=None)
            fmt = [("**" + cells[c][0] + "**" if cells[c][1] == best and best is not None else cells[c][0])
                   if c in cells else "" for c in cols]
            out.append(f"| {shape} | " + " | ".join(fmt) + " |")
        out.append("")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--render", type=Path, metavar="POINTS.jsonl", help="print the Markdown tables of a points "
                    "file and exit (no GPU needed)")
    ap.add_argument("--tilegym", type=Path, help="TileGym checkout (required unless --render)")
    ap.add_argument("--converted", type=Path, help="converted tree (tilegym_prepare.sh; required unless --render)")
    ap.add_argument("--out", type=Path, help="points file to append to (required unless --render)")
    ap.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    ap.add_argument("--cutile", action="store_true", help="also time cuTile once per shape")
    ap.add_argument("--search-filter", default="", help="Python expression of a config `c`: host-side searches "
                    "try only the configs for which it is true (all when none is)")
    ap.add_argument("--host", action="store_true", help="also time each setting with triton.testing.do_bench "
                    "(host launch cost included, as TileGym's bench files do): ms_host")
    ap.add_argument("--max-settings", type=int, default=0, help="only the first N settings of each case (1: the "
                    "launcher's own choice); 0: all")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--rep", type=int, default=20)
    ap.add_argument("--budget", type=float, default=400.0, help="seconds; later points are skipped")
    a = ap.parse_args()
    if a.render:
        print(render(a.render))
        return 0
    if not (a.tilegym and a.converted and a.out):
        ap.error("--tilegym, --converted and --out are required (or --render POINTS.jsonl)")
    t0 = time.time()
    os.environ["DISABLE_FALLBACK"] = "1"
    sys.path.insert(0, str(a.tilegym / "tests" / "benchmark"))
    import torch
    import tilegym
    from bench_utils import profile_with_l2flush
    from cutile2triton.pytest_tilegym import load_converted

    mounts = load_converted(a.converted)
    modules = [sys.modules[m] for m in mounts.loaded]
    install_override(modules)
    limit_searches(modules, a.search_filter)
    all_cases = cases(torch, tilegym)
    names = [c for c in a.cases.split(",") if c] or list(all_cases)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    with a.out.open("a") as out:
        for cname in names:
            for label, make in all_cases[cname]:
                if time.time() - t0 > a.budget:
                    print(f"{cname} {label}: budget spent", flush=True)
                    continue
                try:
                    fn, ref, work, unit = make()
                except Exception as e:  # noqa: BLE001
                    print(f"{cname} {label}: inputs: {_first_line(e)}", flush=True)
                    continue
                settings = SETTINGS[cname][:a.max_settings] if a.max_settings > 0 else SETTINGS[cname]
                runs = [(C2T, s) for s in settings] + ([("cutile", None)] if a.cutile else [])
                for backend, setting in runs:
                    if time.time() - t0 > a.budget:
                        break
                    Override.options = setting
                    clear_caches(modules)
                    rec = {"case": cname, "shape": label, "backend": backend,
                           "setting": "auto" if setting is None else setting, "unit": unit}
                    ts = time.time()
                    try:
                        got = fn(backend)
                        rec["first_s"] = round(time.time() - ts, 1)  # the first call: compiles and searches
                        if ref is not None:
                            check(torch, got, ref())
                        ms = profile_with_l2flush(lambda: fn(backend), warmup=a.warmup, rep=a.rep)
                        rec["ms"] = ms
                        rec["value"] = work / ms / 1e6 if unit == "GB/s" else work / ms / 1e9
                        if a.host:  # as TileGym's bench files time: do_bench, the host's launch cost included
                            import triton.testing

                            rec["ms_host"] = triton.testing.do_bench(lambda: fn(backend), warmup=a.warmup, rep=a.rep)
                    except Exception as e:  # noqa: BLE001
                        rec["error"] = _first_line(e)
                    rec["wall_s"] = round(time.time() - ts, 1)
                    out.write(json.dumps(rec) + "\n")
                    out.flush()
                    val = f"{rec['value']:.1f} {unit} ({rec['ms'] * 1000:.1f} us)" if "value" in rec else rec["error"]
                    if "ms_host" in rec:
                        val += f" host-timed {rec['ms_host'] * 1000:.1f} us"
                    if "first_s" in rec:
                        val += f" first call {rec['first_s']} s"
                    print(f"{cname:9s} {label:32s} {backend:10s} {str(rec['setting']):45s} {val} [{rec['wall_s']}s]",
                          flush=True)
    Override.options = None
    return 0


if __name__ == "__main__":
    sys.exit(main())
