"""The native reused launch (cutile2triton.fast_launch) on the GPU: TileGym ops, converted, called 6
times each with fresh random inputs of one shape (launches 3 to 6 take the native path once the
second has set its plan), then a misaligned view and, for ops without a tuning search, a ragged size
(both fall back to Triton's launch), then the first shape again, every output compared with PyTorch at the workflow's tolerances. Per
op: how many kernels hold a native plan, mismatches, and the host µs per call with the native
launch on and off ("off" drops the op's kernels' plans before each call, so each call goes through
the reuse table, Triton's binder and Triton's C launcher, and sets the plan again). BENCHMARKS.md, "Host time per call".

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 fast_launch_check.py TILEGYM CONVERTED"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from host_layers import P, host_us, mods  # noqa: E402  (mounts the converted tree)
import tilegym, torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

dev, BE = "cuda", "c2t_triton"


def kernels():
    return [v for m in mods for v in vars(m).values() if hasattr(v, "device_caches")]


def planned():
    return sum("_c2t_fast" in getattr(k, "__dict__", {}) for k in kernels())


def cases():
    """(name, make(variant) -> inputs, op(inputs), reference(inputs), atol, rtol, variants). "misaligned":
    the same shapes as views 2 bytes past an aligned base (another specialization, same tuning cache
    entry); "ragged": rows that are no multiple of the tile (ops without a tuning search only)."""
    def view(shape, dtype, misaligned):
        base = torch.randn(*shape[:-1], shape[-1] + 8, dtype=dtype, device=dev)
        return base[..., 1:shape[-1] + 1] if misaligned else base[..., :shape[-1]].contiguous()

    def mm(v):
        return view((1024, 512), torch.float16, v == "misaligned"), torch.randn(512, 256, dtype=torch.float16, device=dev)
    yield "matmul", mm, lambda i: tilegym.ops.matmul(i[0], i[1], backend=BE), lambda i: i[0] @ i[1], 1e-2, 1e-2, ()

    def bmm(v):
        return (view((2, 1024, 256), torch.float16, v == "misaligned"),
                torch.randn(2, 256, 512, dtype=torch.float16, device=dev))
    yield "bmm", bmm, lambda i: tilegym.ops.bmm(i[0], i[1], backend=BE), lambda i: torch.bmm(i[0], i[1]), 1e-2, 1e-2, ()

    def rows(v, d=256):
        x = view((3001 if v == "ragged" else 4096, d), torch.bfloat16, v == "misaligned")
        return x, torch.randn(d, dtype=torch.bfloat16, device=dev), torch.randn(d, dtype=torch.bfloat16, device=dev)
    ln = lambda i: F.layer_norm(i[0].float(), (256,), i[1].float(), i[2].float(), 1e-6).to(i[0].dtype)
    yield ("layer_norm_legacy", rows, lambda i: tilegym.ops.layer_norm_legacy(i[0], (256,), i[1], i[2], 1e-6, backend=BE),
           ln, 5e-2, 1e-2, ("ragged",))
    yield ("persistent_layer_norm", rows,
           lambda i: tilegym.ops.persistent_layer_norm(input=i[0], normalized_shape=(256,), weight=i[1], bias=i[2], eps=1e-6,
                                                       backend=BE)[0], ln, 5e-2, 1e-2, ())
    yield ("rms_norm", rows, lambda i: tilegym.ops.rms_norm(i[0], (256,), i[1], 1e-5, backend=BE),
           lambda i: F.rms_norm(i[0].float(), (256,), i[1].float(), 1e-5).to(i[0].dtype), 5e-2, 1e-2, ("ragged",))
    yield ("softmax", lambda v: (rows(v, 1024)[0],), lambda i: tilegym.ops.softmax(i[0], backend=BE),
           lambda i: torch.softmax(i[0].float(), -1).to(i[0].dtype), 1e-2, 1e-2, ("ragged",))


bad = 0
for name, make, op, ref, atol, rtol, extra in cases():
    try:
        errs, variants = [], ["same"] * 6 + ["misaligned", *extra, "same", "same"]
        for i, v in enumerate(variants):
            inp = make(v)
            out = op(inp)
            torch.cuda.synchronize()
            try:
                torch.testing.assert_close(out, ref(inp), atol=atol, rtol=rtol)
            except AssertionError as e:
                errs.append(f"call {i} ({v}): {str(e).splitlines()[0]}")
        plans = planned()
        inp = make("same")
        on = host_us(lambda: op(inp))
        used = [k for k in kernels() if "_c2t_fast" in k.__dict__]  # the op's kernels: dropping their plans is cheap

        def drop():
            for k in used:
                k.__dict__.pop("_c2t_fast", None)

        def off():
            drop()
            op(inp)

        off_us, drop_us = host_us(off), host_us(drop)
        bad += bool(errs) or plans == 0
        P(f"{name:22s} kernels with a native plan {plans} | mismatches {len(errs)} {errs[:2]} | host us/call native "
          f"{on:6.1f}, without {off_us - drop_us:6.1f}")
    except Exception as e:  # noqa: BLE001
        bad += 1
        P(f"{name}: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")
P(f"fast_launch_check: {'FAILED' if bad else 'ok'} ({bad} ops with mismatches or no native plan)")
