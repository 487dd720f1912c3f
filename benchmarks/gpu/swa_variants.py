"""Where the converted SWA attention kernel loses to cuTile (BENCHMARKS.md, "SWA attention").

Times TileGym's experimental swa_attention op at its bench file's shapes (B=1, H=32, D=128, W=4096, fp16,
causal) for cuTile and for edited copies of the converted module, in one process, interleaved rounds,
median of triton.testing.do_bench (ms -> TFLOPS as the bench file counts them). Each variant is checked
against an fp32 PyTorch reference at a ragged length first (atol 5e-2, rtol 1e-2, the bench file's).

Variants (the module's text, as converted or edited; an edit that does not apply stops the script):
  conv          the converted module as it is (from cutile2triton 0.1 of 2026-12-01 s27 on, the mask's
                select is skipped on KV blocks where every element is true: lower/index_bounds.h)
  conv s1 / conv s1 tma   the same at num_stages=1 (two blocks per SM fit), with TMA descriptors
  conv+fuse     `acc = alpha[:, None] * acc + tl.dot(p, v, zeros)` -> `acc = tl.dot(p, v, alpha[:, None] * acc)`
  before        the module as converted before that (BEFORE, e.g. .diag/swa_before.py), if given
  before+guard  it with the select and the mask behind a hand-written test of the KV block (what s27's
                first measurement timed)
  conv w8       the converted module at num_warps=8
SWA_GRAPH=1 times CUDA graph replays (triton.testing.do_bench_cudagraph: device time, no host launch cost)
instead; SWA_SEQS="512 1024" picks the lengths (default 512 4096 16384).

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 swa_variants.py TILEGYM CONVERTED [ROUNDS [BEFORE]]
(as scripts_on_device.sh runs it)"""
import functools
import math
import os
import statistics
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("DISABLE_FALLBACK", "1")
import torch  # noqa: E402
import triton  # noqa: E402
import triton.testing  # noqa: E402

from script_util import load_module  # noqa: E402

P = functools.partial(print, flush=True)
CONVERTED = Path(sys.argv[2]) / "ops/triton/experimental/swa_attention.py"
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
BEFORE = Path(sys.argv[4]) if len(sys.argv) > 4 else None

ACC_OLD = ("acc = tl.expand_dims(alpha, 1) * acc + (tl.dot(p_fp16, v_tile, tl.zeros([TILE_M, TILE_D], tl.float32))"
           " if TILE_N >= 16 else tl.zeros([TILE_M, TILE_D], tl.float32) + tl.sum(p_fp16.to(tl.float32)[:, :, None]"
           " * v_tile.to(tl.float32)[None, :, :], axis=1))")
ACC_NEW = "acc = tl.dot(p_fp16, v_tile, tl.expand_dims(alpha, 1) * acc)"
MASK_OLD = """        mask = offs_n_2d > offs_m_2d - window_size
        if CAUSAL:
            mask = mask & (offs_n_2d <= offs_m_2d)
        mask = mask & (offs_n_2d < seq_k)
        qk = tl.where(mask, qk, tl.full([TILE_M, TILE_N], -1e+30, tl.float32))
"""
MASK_NEW = """        need = (kv_start <= q_start + TILE_M - 1 - window_size) | (kv_start + TILE_N > seq_k)
        if CAUSAL:
            need = need | (kv_start + TILE_N - 1 > q_start)
        if need:
            mask = offs_n_2d > offs_m_2d - window_size
            if CAUSAL:
                mask = mask & (offs_n_2d <= offs_m_2d)
            mask = mask & (offs_n_2d < seq_k)
            qk = tl.where(mask, qk, tl.full([TILE_M, TILE_N], -1e+30, tl.float32))
"""


def edited(text, fuse=False, guard=False):
    for on, old, new in ((fuse, ACC_OLD, ACC_NEW), (guard, MASK_OLD, MASK_NEW)):
        if on:
            if text.count(old) != 1:
                raise SystemExit(f"edit not found once: {old[:60]}...")
            text = text.replace(old, new)
    # each copy is its own module: TileGym's registry keeps the mounted converted op
    return text.replace('@register_impl("swa_attention", backend="triton")\n', "")


def load(name, text, tmp):
    return load_module(f"swa_{name}", text, tmp)


def reference(q, k, v, w):
    s_q, s_k = q.shape[2], k.shape[2]
    scores = torch.matmul(q.float(), k.float().transpose(-2, -1)) / math.sqrt(q.shape[-1])
    i = torch.arange(s_q, device=q.device)[:, None]
    j = torch.arange(s_k, device=q.device)[None, :]
    mask = (j > i - w) & (j <= i)
    scores = scores.masked_fill(~mask, float("-inf"))
    return torch.matmul(torch.softmax(scores, dim=-1), v.float()).to(q.dtype)


def main():
    text = CONVERTED.read_text()
    tmp = tempfile.mkdtemp()
    conv = load("conv", edited(text), tmp)
    ops = {"conv": (conv, {}), "conv s1": (conv, {"num_stages": 1}),
           "conv s1 tma": (conv, {"num_stages": 1, "use_tma": True}),
           "conv+fuse": (load("conv_fuse", edited(text, fuse=True), tmp), {}),
           "conv w8": (conv, {"num_warps": 8})}
    if BEFORE:
        before = BEFORE.read_text()
        ops["before"] = (load("before", edited(before), tmp), {})
        ops["before+guard"] = (load("before_guard", edited(before, guard=True), tmp), {})

    def call(name, q, k, v, w):
        mod, opts = ops[name]
        orig = mod.launch__swa_fwd_kernel
        mod.launch__swa_fwd_kernel = functools.partial(orig, **opts)
        try:
            return mod.tile_swa_attention(q, k, v, window_size=w, is_causal=True)
        finally:
            mod.launch__swa_fwd_kernel = orig

    try:
        from tilegym.ops.cutile.experimental import swa_attention as cutile_mod
        cutile = lambda q, k, v, w: cutile_mod.tile_swa_attention(q, k, v, window_size=w, is_causal=True)
    except Exception as e:  # noqa: BLE001  (reported, the converted variants still run)
        P(f"cuTile unavailable: {type(e).__name__}: {e}")
        cutile = None

    torch.manual_seed(0)
    mk = lambda s: torch.empty(1, 32, s, 128, device="cuda", dtype=torch.float16).normal_(0.0, 0.3)
    for s, w in ((1009, 300), (777, 4096)):  # ragged: not a multiple of TILE_M / TILE_N
        q, k, v = mk(s), mk(s), mk(s)
        ref = reference(q, k, v, w)
        for name in ops:
            out = call(name, q, k, v, w)
            err = (out.float() - ref.float()).abs().max().item()
            ok = torch.allclose(out.float(), ref.float(), atol=5e-2, rtol=1e-2)
            P(f"check seq={s} W={w} {name:18s} max|diff| {err:.4f} {'ok' if ok else 'FAIL'}")
            if not ok:
                raise SystemExit(1)

    names = list(ops) + (["cutile"] if cutile else [])
    graph = os.environ.get("SWA_GRAPH") == "1"
    timer = triton.testing.do_bench_cudagraph if graph else functools.partial(triton.testing.do_bench,
                                                                             return_mode="median")
    P(f"timer: {'do_bench_cudagraph (device time)' if graph else 'do_bench median (host launch included)'}")
    for s in [int(x) for x in os.environ.get("SWA_SEQS", "512 4096 16384").split()]:
        q, k, v = mk(s), mk(s), mk(s)
        w = min(4096, s)
        flops = 2 * 32 * s * w * 128 * 2
        times = {n: [] for n in names}
        for _ in range(ROUNDS):
            for n in names:
                f = (lambda: cutile(q, k, v, w)) if n == "cutile" else (lambda n=n: call(n, q, k, v, w))
                times[n].append(timer(f))
        base = statistics.median(times["cutile"]) if cutile else None
        for n in names:
            ms = statistics.median(times[n])
            ratio = f"  {base / ms:.2f}x cuTile" if base else ""
            P(f"seq={s:6d} {n:18s} {ms * 1e3:9.1f} us {flops / ms / 1e9:7.1f} TFLOPS{ratio}")
    seen = set()
    for n, (mod, _) in ops.items():
        if id(mod) in seen:
            continue
        seen.add(id(mod))
        for cache in getattr(mod._swa_fwd_kernel, "device_caches", {}).values():
            for compiled in cache[0].values():
                md = compiled.metadata
                P(f"kernel {n:18s} warps={md.num_warps} stages={md.num_stages} shared={md.shared} "
                  f"regs={getattr(compiled, 'n_regs', '?')} spills={getattr(compiled, 'n_spills', '?')}")
            break


if __name__ == "__main__":
    main()
