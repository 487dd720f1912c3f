"""What an fp8 product with B laid out K x N (N contiguous) costs on the H200, and what would close it
(BENCHMARKS.md, "group_gemm fp8 with B K x N").

Hopper's wgmma reads 8-bit operands from shared memory only K-major; TileGym's group_gemm with
transpose_b=False gives B as K x N with N contiguous, so Triton 3.6 transposes each B tile through
registers, unpipelined (s25: 54 us of kernel at 4 x 1024^3 against 22 us with B K-major). Times, for
the op at the bench file's fp8 shapes (float8_e5m2, transpose_b=False), in one process, interleaved
rounds, median of triton.testing.do_bench (host launch included, as bench_group_gemm.py) and of
do_bench_cudagraph (device time alone):
  conv          the converted module as it is (from s28 on: one launch of the runtime's own transposing
                copy for the list, from 2^22 elements per operand; _c2t_k_major_copies)
  copy always   the same with the copy at every size (_C2T_K_MAJOR_MIN_ELEMENTS = 0)
  no copy       the same with the copy turned off (B read N-contiguous, transposed through registers)
  copy torch    PyTorch's transposing copy per array at every size (the runtime before s28)
  swap          the kernel edited to compute C^T = B^T A^T: B's tile becomes the product's left
                operand, which wgmma may read from registers, and A (K contiguous) the right one
                (copies off)
  cutile        TileGym's cuTile op
and the copy alone (_c2t_k_major_copies of B, CUDA graph replays) against PyTorch's per-array copies.
cuTile cannot launch a list under CUDA graph capture: its column gives its do_bench time in both.
Each variant is checked first against an fp32 product of the same fp8 inputs, at ragged sizes and on
a ragged list, and byte for byte against "no copy" (the copy changes where B is read from, not the
product's order).

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 fp8_kn_variants.py TILEGYM CONVERTED [ROUNDS]
(as scripts_on_device.sh runs it)"""
import functools
import statistics
import sys
import tempfile
from pathlib import Path

import torch  # noqa: E402
import triton  # noqa: E402
import triton.testing  # noqa: E402

from script_util import load_module  # noqa: E402

P = functools.partial(print, flush=True)
CONVERTED = Path(sys.argv[2]) / "ops/triton/group_gemm.py"
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 3
FP8 = torch.float8_e5m2
DEVICE = "cuda"

ACC_INIT_OLD = "            acc = tl.zeros([TILE_M, TILE_N], tl.float32)\n"
ACC_INIT_NEW = """            if TRANSPOSE_B:
                acc = tl.zeros([TILE_M, TILE_N], tl.float32)
            else:
                acc = tl.zeros([TILE_N, TILE_M], tl.float32)
"""
DOT_OLD = """                acc = (
                    tl.dot(ta, tb, acc, input_precision='ieee', max_num_imprecise_acc=TILE_K)
                    if TILE_K >= 16
                    else acc + tl.sum(ta.to(tl.float32)[:, :, None] * tb.to(tl.float32)[None, :, :], axis=1)
                )
"""
DOT_NEW = """                if TRANSPOSE_B:
                    acc = tl.dot(ta, tb, acc, input_precision='ieee', max_num_imprecise_acc=TILE_K)
                else:
                    acc = tl.dot(tl.trans(tb), tl.trans(ta), acc, input_precision='ieee', max_num_imprecise_acc=TILE_K)
"""
CAST_OLD = "            acc = acc.to(Cs_first.dtype.element_ty)\n"
CAST_NEW = """            if not TRANSPOSE_B:
                acc = tl.trans(acc)
            acc = acc.to(Cs_first.dtype.element_ty)
"""


def edited(text, swap=False):
    if swap:
        for old, new in ((ACC_INIT_OLD, ACC_INIT_NEW), (DOT_OLD, DOT_NEW), (CAST_OLD, CAST_NEW)):
            if text.count(old) != 1:
                raise SystemExit(f"edit not found once: {old[:70]}...")
            text = text.replace(old, new)
    return text.replace('@register_impl("group_gemm", backend="triton")\n', "")


def inputs(groups, m, n, k, seed):
    g = torch.Generator(device=DEVICE).manual_seed(seed)
    mk = lambda *s: torch.empty(s, device=DEVICE, dtype=torch.float16).normal_(0.0, 0.3, generator=g).to(FP8)
    return [mk(m, k) for _ in range(groups)], [mk(k, n) for _ in range(groups)]


def check(name, fn, dims, same_as=None):
    """fn's product of fp8 lists of (M, K) x (K, N) for each (M, N, K) in dims against fp32's: each
    element within one fp8 step (Hopper accumulates fp8 products of a K tile in fewer bits than fp32,
    cuTile's alike: at most one element in a million may be further), and, with same_as (another
    variant's fn), the bytes that variant gives for the same inputs, counted where they differ.
    Returns fn's output."""
    g = torch.Generator(device=DEVICE).manual_seed(sum(sum(d) for d in dims))
    mk = lambda *s: torch.empty(s, device=DEVICE, dtype=torch.float16).normal_(0.0, 0.3, generator=g).to(FP8)
    a, b = [mk(m, k) for m, n, k in dims], [mk(k, n) for m, n, k in dims]
    out = fn(a, b)
    far, exact, total = 0, 0, 0
    for ai, bi, ci in zip(a, b, out):
        ref = (ai.float() @ bi.float()).to(FP8).float()
        got = ci.float()
        # one e5m2 step is at most 25% of the value: the sum's order may move the final rounding by one
        far += ((got - ref).abs() > 0.25 * ref.abs() + 1e-3).sum().item()
        exact += (got == ref).sum().item()
        total += got.numel()
    if far > total // 1_000_000:
        raise SystemExit(f"check {name} {dims}: {far} elements off by more than one fp8 step")
    same = ""
    if same_as is not None:
        other = same_as(a, b)
        differ = sum((x.view(torch.uint8) != y.view(torch.uint8)).sum().item() for x, y in zip(out, other))
        same = f", {differ} bytes differ from no copy's"
    P(f"check {name:12s} {dims}: ok ({far} elements beyond one step, {exact / total:.4f} equal to the rounded "
      f"fp32 product{same})")


def main():
    text = CONVERTED.read_text()
    tmp = tempfile.mkdtemp()
    conv, always, no_copy, copy_torch, swap = (load_module(f"gg_{n}", edited(text, swap=(n == "swap")), tmp)
                                               for n in ("conv", "always", "no_copy", "copy_torch", "swap"))
    if not hasattr(conv, "_c2t_k_major_copies"):
        raise SystemExit("the converted module has no _c2t_k_major_copies: convert it with s28's cutile2triton")
    for mod in (no_copy, swap):
        mod._C2T_K_MAJOR_MIN_ELEMENTS = 1 << 62
    for mod in (always, copy_torch):
        mod._C2T_K_MAJOR_MIN_ELEMENTS = 0
    copy_torch._c2t_k_major_copies = lambda items, k, other: [copy_torch._c2t_k_major_array(t, k, other)
                                                              for t in items]
    ops = {"conv": conv.group_gemm, "copy always": always.group_gemm, "no copy": no_copy.group_gemm,
           "copy torch": copy_torch.group_gemm, "swap": swap.group_gemm}
    try:
        from tilegym.ops.cutile import group_gemm as cutile_mod

        # TileGym's 5 s compile timeout drops cuTile's best config on a cold machine (tileiras takes
        # longer there): cuTile is timed at the config it would choose with time to compile it.
        timeout = cutile_mod.ct.compiler_timeout
        cutile_mod.ct.compiler_timeout = lambda seconds: timeout(max(seconds, 120))
        ops["cutile"] = cutile_mod.group_gemm
    except Exception as e:  # noqa: BLE001  (reported, the converted variants still run)
        P(f"cuTile unavailable: {type(e).__name__}: {e}")

    for name, op in list(ops.items()):
        # ragged: not multiples of a tile; B of 2^22 elements and more (the copy as converted) and fewer
        for dims in ([(1009, 2100, 2050)] * 2, [(1009, 777, 513)] * 3, [(64, 4095, 300)] * 2,
                     [(300, 1500, 1200), (1024, 2048, 2100), (513, 2047, 700)]):
            try:
                check(name, lambda a, b: op(a, b, transpose_b=False), dims,
                      None if name in ("no copy", "cutile") else lambda a, b: no_copy.group_gemm(a, b, transpose_b=False))
            except (Exception, SystemExit) as e:  # noqa: BLE001  (reported; the variant is not timed)
                P(f"{name} left out: {type(e).__name__}: {str(e)[:300]}")
                del ops[name]
                break

    for groups, size in ((4, 1024), (16, 1024), (4, 4096)):
        _, b = inputs(groups, size, size, size, seed=2)
        for name, fn in (("runtime", conv._c2t_k_major_copies), ("torch", copy_torch._c2t_k_major_copies)):
            out = fn(b, 0, 1)
            ok = all(torch.equal(x.view(torch.uint8), y.view(torch.uint8)) and y.stride(0) == 1 for x, y in zip(b, out))
            us = triton.testing.do_bench_cudagraph(lambda: fn(b, 0, 1)) * 1e3
            P(f"copy alone {groups:2d} x {size}^2 fp8 {name:8s} {us:7.1f} us {2 * groups * size * size / us / 1e3:6.0f} GB/s "
              f"{'ok' if ok else 'WRONG'}")
    timers = {"do_bench": functools.partial(triton.testing.do_bench, return_mode="median"),
              "graph": triton.testing.do_bench_cudagraph}
    for groups, size in ((4, 1024), (16, 1024), (4, 4096)):
        a, b = inputs(groups, size, size, size, seed=1)
        flops = 2 * groups * size ** 3
        times = {(n, t): [] for n in ops for t in timers}
        for _ in range(ROUNDS):
            for n, op in ops.items():
                for t, timer in timers.items():
                    if n == "cutile" and t == "graph":  # cuTile's launch of a list cannot be captured
                        times[n, t].append(float("nan"))
                        continue
                    try:
                        times[n, t].append(timer(lambda: op(a, b, transpose_b=False)))
                    except Exception as e:  # noqa: BLE001  (reported as nan; the other timings go on)
                        P(f"{n} {t}: {type(e).__name__}: {str(e)[:200]}")
                        times[n, t].append(float("nan"))
        base = {t: statistics.median(times["cutile", t]) for t in timers} if "cutile" in ops else None
        if base:
            base["graph"] = base["do_bench"]  # ratios to cuTile's do_bench time, its device time and more
        for n in ops:
            cols = []
            for t in timers:
                ms = statistics.median(times[n, t])
                ratio = f" {base[t] / ms:.2f}x" if base else ""
                cols.append(f"{t} {ms * 1e3:7.1f} us {flops / ms / 1e9:6.1f} TFLOPS{ratio}")
            P(f"{groups:2d} x {size}^3 {n:12s} " + " | ".join(cols))


if __name__ == "__main__":
    main()
