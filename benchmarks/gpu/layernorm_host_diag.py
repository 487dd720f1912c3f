"""Why persistent layernorm over 256-wide rows measures slower converted than cuTile under do_bench
(BENCHMARKS.md, "Host time per call"): per backend, in the order bench_layernorm.py runs them, the
tuning search's choice, do_bench's median three times, the host µs per call, the kernel's device
time (do_bench_cudagraph: graph replays, no host), and do_bench's L2-flush memset alone. do_bench
times the host when the host's time per call exceeds memset + kernel (its queue runs dry); the
difference do_bench - device time is the host time it exposes.

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 layernorm_host_diag.py TILEGYM CONVERTED"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from host_layers import P, converted, host_us, profile_text  # noqa: E402  (mounts the converted tree)
import tilegym, torch, triton.testing  # noqa: E402

cache = torch.empty(256 * 1024 * 1024 // 4, dtype=torch.int32, device="cuda")  # do_bench's L2 flush buffer
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
memset = []
for _ in range(20):
    s.record(); cache.zero_(); e.record(); torch.cuda.synchronize(); memset.append(s.elapsed_time(e) * 1000)
P(f"do_bench's memset of 256 MB: median {sorted(memset)[10]:.1f} us")


def chosen(backend):
    for name, m in sys.modules.items():
        if name.endswith("layer_norm_legacy") and (".c2t_triton." if backend != "cutile" else ".cutile.") in name:
            cache_ = getattr(m, "_layer_norm_legacy_tune_cache", None)
            if cache_:
                return [v[0] for v in cache_.values()]
    return "?"


for M in (30000, 128000):
    x = torch.randn((M, 256), dtype=torch.bfloat16, device="cuda")
    w = torch.randn((256,), dtype=torch.bfloat16, device="cuda")
    b = torch.randn((256,), dtype=torch.bfloat16, device="cuda")
    for be in ("cutile", "c2t_triton"):
        fn = lambda: tilegym.ops.persistent_layer_norm(input=x, normalized_shape=(256,), weight=w, bias=b, eps=1e-6,
                                                       backend=be)
        try:
            fn(); torch.cuda.synchronize()
            med = [triton.testing.do_bench(fn, return_mode="median") * 1000 for _ in range(3)]
            host = host_us(fn)
            try:
                graph = triton.testing.do_bench_cudagraph(fn, return_mode="median") * 1000
            except Exception as ex:  # noqa: BLE001
                graph = f"graph error {type(ex).__name__}"
            P(f"{M}x256 {be:11s} do_bench median {' '.join(f'{v:6.1f}' for v in med)} us | host {host:6.1f} us/call | "
              f"device (graph) {graph if isinstance(graph, str) else f'{graph:6.1f}'} us | config {chosen(be)}")
        except Exception as ex:  # noqa: BLE001
            P(f"{M}x256 {be:11s} error {type(ex).__name__}: {str(ex)[:120]}")

# The converted kernel's device time per tile config at 30000x256 (graph replays), as the search
# would time it, and the host µs per call of both ops interleaved five times (the host's drift
# hits both alike).
lm = converted("layer_norm_legacy")
x = torch.randn((30000, 256), dtype=torch.bfloat16, device="cuda")
w = torch.randn((256,), dtype=torch.bfloat16, device="cuda")
b = torch.randn((256,), dtype=torch.bfloat16, device="cuda")
y, mean, rstd = torch.empty_like(x), torch.empty(30000, device="cuda"), torch.empty(30000, device="cuda")
sms = torch.cuda.get_device_properties(0).multi_processor_count
for block_n in (8, 16, 32):
    for warps in (4, 8):
        grid = (min(sms, (30000 + block_n - 1) // block_n), 1, 1)
        f = lambda: lm.launch__persistent_layer_norm_fwd_kernel(grid, x, y, w, b, mean, rstd, 30000, 256, 1e-6, 256,
                                                                 256, 0, 1, block_n, 256, 1, grid[0], num_warps=warps)
        f(); torch.cuda.synchronize()
        P(f"30000x256 converted kernel BLOCK_N={block_n:2d} w{warps}: "
          f"{triton.testing.do_bench_cudagraph(f, return_mode='median') * 1000:6.1f} us (graph)")
ops = {be: (lambda be=be: tilegym.ops.persistent_layer_norm(input=x, normalized_shape=(256,), weight=w, bias=b,
                                                            eps=1e-6, backend=be)) for be in ("cutile", "c2t_triton")}
for i in range(5):
    P("30000x256 host us/call interleaved: " + " | ".join(f"{be} {host_us(op):6.1f}" for be, op in ops.items()))
for be, op in ops.items():
    P(f"== cProfile, 2000 calls, {be}\n" + profile_text(op, 2000, 12)[-2200:])
