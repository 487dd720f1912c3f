"""Host time per call of TileGym's silu_and_mul at M=1024, cuTile against the converted op (s30).

Why: TileGym's experimental/bench_silu_and_mul_backward.py times each call with `triton.testing.do_bench`
(events around the call), and at M=1024 its converted/cuTile ratios spread from 0.57x to 1.59x between runs.
This probe separates the kernel from the host: per backend and shape it prints the kernel-only time
(TileGym's profile_with_l2flush), three do_bench medians and two means, the host's enqueue time per call
(script_util.host_us: 400 calls, no synchronization in between) and the median of 50 call+synchronize round trips, all in
microseconds; each backend is measured twice, interleaved. `--count-native` instead counts, per shape, how
many calls of the converted op went through the runtime's native reused launch (`_c2t_run_native`
returning non-None) and prints the enqueue time alone.

Needs a CUDA machine with TileGym, the converted tree and cuTile importable (benchmarks/gpu/silu_host_on_device.sh
sets that up). Usage: python3 silu_host_probe.py TILEGYM CONVERTED [--count-native]
"""
import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from script_util import host_us  # this folder's shared helpers (on sys.path when run as a script)

SHAPES = ((1024, 2048, "float32"), (1024, 4096, "float32"), (1024, 11008, "float32"), (1024, 4096, "bfloat16"))
NATIVE_SHAPES = ((4096, "float32"), (2048, "float32"), (4096, "float32"), (2048, "bfloat16"), (2048, "float32"))


def timings(torch, tilegym, profile_with_l2flush):
    import triton.testing

    for M, h, d in SHAPES:
        x = torch.randn(M, 2 * h, dtype=getattr(torch, d), device="cuda")
        for be in ("cutile", "c2t_triton", "cutile", "c2t_triton"):
            fn = lambda: tilegym.ops.silu_and_mul(x, backend=be)  # noqa: E731
            for _ in range(20):
                fn()
            torch.cuda.synchronize()
            kern = profile_with_l2flush(fn, warmup=5, rep=50) * 1000
            db = [triton.testing.do_bench(fn, warmup=25, rep=100) * 1000 for _ in range(3)]
            dbm = [triton.testing.do_bench(fn, warmup=25, rep=100, return_mode="mean") * 1000 for _ in range(2)]
            tq = host_us(fn, n=400)
            rt = []
            for _ in range(50):
                torch.cuda.synchronize()
                t = time.perf_counter()
                fn()
                torch.cuda.synchronize()
                rt.append((time.perf_counter() - t) * 1e6)
            print(f"M={M} h={h} {d:9s} {be:10s} kernel {kern:6.1f} us | do_bench median "
                  f"{' '.join(f'{v:6.1f}' for v in db)} mean {' '.join(f'{v:6.1f}' for v in dbm)} | host enqueue "
                  f"{tq:5.1f} us/call | call+sync median {statistics.median(rt):5.1f}", flush=True)
    import triton

    cache = triton.runtime.driver.active.get_empty_cache_for_benchmark()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(3):
        cache.zero_()
    s.record()
    for _ in range(10):
        cache.zero_()
    e.record()
    torch.cuda.synchronize()
    print(f"do_bench's L2 flush: {cache.numel() * cache.element_size() / 2**20:.0f} MiB zero_ "
          f"{s.elapsed_time(e) / 10 * 1000:.1f} us")


def count_native(torch, tilegym, mod):
    orig, stats = mod._c2t_run_native, {}

    def counted(*args, **kwargs):
        r = orig(*args, **kwargs)
        stats[r is None] = stats.get(r is None, 0) + 1
        return r

    mod._c2t_run_native = counted
    for h, d in NATIVE_SHAPES:
        x = torch.randn(1024, 2 * h, dtype=getattr(torch, d), device="cuda")
        for be in ("c2t_triton", "cutile"):
            fn = lambda: tilegym.ops.silu_and_mul(x, backend=be)  # noqa: E731
            for _ in range(20):
                fn()
            stats.clear()
            tq = host_us(fn, n=400, warmup=0)
            print(f"h={h} {d} {be:10s} enqueue {tq:5.1f} us/call; native None/not: {stats}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tilegym", type=Path)
    ap.add_argument("converted", type=Path)
    ap.add_argument("--count-native", action="store_true")
    a = ap.parse_args()
    os.environ["DISABLE_FALLBACK"] = "1"
    sys.path.insert(0, str(a.tilegym / "tests" / "benchmark"))
    import torch
    import tilegym
    from bench_utils import profile_with_l2flush
    from cutile2triton.pytest_tilegym import load_converted

    mounts = load_converted(a.converted)
    if a.count_native:
        count_native(torch, tilegym, next(sys.modules[m] for m in mounts.loaded if m.endswith("silu_and_mul")))
    else:
        timings(torch, tilegym, profile_with_l2flush)
    return 0


if __name__ == "__main__":
    sys.exit(main())
