"""GPU benchmark: original cuTile kernels vs their cutile2triton conversion vs PyTorch.

Runs on a CUDA machine (the H200 in BENCHMARKS.md), in one process:
  python3 benchmarks/gpu/bench.py --original benchmarks/gpu/kernels.py \
      --converted converted_kernels.py [--out DIR]
where converted_kernels.py is `cutile2triton convert benchmarks/gpu/kernels.py -o converted_kernels.py`
(made on any machine; the GPU machine needs only torch + triton, and cuda.tile for the cuTile column).

For every case: correctness first (converted vs torch reference at the workflow's tolerances, cuTile
vs the same reference, on fresh random inputs with ragged sizes), then the median time of
triton.testing.do_bench for each implementation, inputs rotated between two sets. Prints a
Markdown table (GB/s or TFLOP/s, ratio Triton/cuTile, fraction of the measured ceiling: device copy
bandwidth, or cuBLAS through torch.matmul for GEMM) and writes bench.md, bench.json and bench.png
to --out. Also checks the TMA precondition guard: misaligned row strides and offset views must give
correct results.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import pathlib
import sys
import traceback

import torch
import triton
import triton.testing


def load_module(path: str, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def enable_tma(mod):
    """Make every generated launcher of `mod` use TMA tensor descriptors
    wherever the actual tensors meet the preconditions (use_tma=None; the
    generated default is the pointer path), so the same kernels can be timed
    both ways. Returns the number of launchers changed."""
    import functools
    import inspect

    n = 0
    for name, fn in list(vars(mod).items()):
        if name.startswith("launch_") and callable(fn) and "use_tma" in inspect.signature(fn).parameters:
            setattr(mod, name, functools.partial(fn, use_tma=None))
            n += 1
    return n


def tol(dtype, relaxed=False):
    t = 1e-3 if dtype == torch.float32 else 1e-2
    t = 2 * t if relaxed else t
    return dict(rtol=t, atol=t)


def close(a, b, dtype, relaxed=False):
    try:
        torch.testing.assert_close(a.float(), b.float(), **tol(dtype, relaxed))
        return "ok"
    except AssertionError as e:
        return "MISMATCH: " + str(e).splitlines()[0]


def bench(fn, sets):
    i = [0]

    def call():
        i[0] = (i[0] + 1) % len(sets)
        fn(*sets[i[0]])

    return triton.testing.do_bench(call, warmup=25, rep=100, return_mode="median")


def cases(dev):
    """(name, dtype, function name, make inputs(), reference(*inputs), work(*inputs) -> (amount, unit),
    relaxed tolerance, PyTorch implementation timed in the PyTorch column).

    The reference computes in fp32 (independent of both implementations); the
    PyTorch column times the native-dtype PyTorch op, which is what a user
    would otherwise call."""
    g = torch.Generator(device=dev).manual_seed(int.from_bytes(os.urandom(4), "little"))

    def rn(*shape, dtype=torch.float32):
        return torch.randn(*shape, device=dev, generator=g, dtype=torch.float32).to(dtype)

    n = (1 << 28) + 17
    yield ("vector add fp32, n=2^28+17", torch.float32, "add", lambda: (rn(n), rn(n)),
           lambda a, b: a + b, lambda a, b: (3 * a.numel() * 4, "GB/s"), False, torch.add)
    for dt, nm in ((torch.float16, "fp16"), (torch.float32, "fp32")):
        yield (f"softmax {nm} 32768x4096", dt, "softmax", lambda dt=dt: (rn(32768, 4096, dtype=dt),),
               lambda x: torch.softmax(x.float(), 1).to(x.dtype), lambda x: (2 * x.numel() * x.element_size(), "GB/s"), True,
               lambda x: torch.softmax(x, 1))
    yield ("rms norm bf16 32768x4096", torch.bfloat16, "rms_norm", lambda: (rn(32768, 4096, dtype=torch.bfloat16), rn(4096, dtype=torch.bfloat16)),
           lambda x, w: (x.float() * torch.rsqrt((x.float() ** 2).mean(1, keepdim=True) + 1e-6) * w.float()).to(x.dtype),
           lambda x, w: (2 * x.numel() * x.element_size(), "GB/s"), True,
           lambda x, w: torch.nn.functional.rms_norm(x, (x.shape[1],), w, 1e-6))
    for dt, nm in ((torch.float16, "fp16"), (torch.bfloat16, "bf16")):
        yield (f"matmul {nm} 8192x8192x8192", dt, "matmul", lambda dt=dt: (rn(8192, 8192, dtype=dt), rn(8192, 8192, dtype=dt)),
               lambda a, b: (a.float() @ b.float()).to(a.dtype), lambda a, b: (2 * a.shape[0] * a.shape[1] * b.shape[1], "TFLOP/s"), True,
               torch.matmul)
    yield ("matmul fp16 ragged 4097x4095x4093", torch.float16, "matmul",
           lambda: (rn(4097, 4093, dtype=torch.float16), rn(4093, 4095, dtype=torch.float16)),
           lambda a, b: (a.float() @ b.float()).to(a.dtype), lambda a, b: (2 * a.shape[0] * a.shape[1] * b.shape[1], "TFLOP/s"), True,
           torch.matmul)
    yield ("transpose fp32 16384x16384", torch.float32, "transpose", lambda: (rn(16384, 16384),),
           lambda x: x.t().contiguous(), lambda x: (2 * x.numel() * 4, "GB/s"), False, lambda x: x.t().contiguous())


def guard_checks(conv, dev):
    """Inputs that violate TMA preconditions must still be right (the pointer path runs)."""
    out = []
    x = torch.randn(1000, 4097, device=dev, dtype=torch.float16)  # row stride 8194 B: not a multiple of 16
    out.append(("softmax, row stride 8194 B", close(conv.softmax(x), torch.softmax(x.float(), 1).half(), torch.float16, True)))
    base = torch.randn(1001, 4097, device=dev)
    v = base[1:, 1:]  # offset view: base pointer not 16-byte aligned
    out.append(("transpose, offset view", close(conv.transpose(v), v.t(), torch.float32)))
    a = torch.randn(513, 1031, device=dev, dtype=torch.float16)[:, 1:]
    b = torch.randn(1030, 257, device=dev, dtype=torch.float16)
    out.append(("matmul, offset view A", close(conv.matmul(a, b), (a.float() @ b.float()).half(), torch.float16, True)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description="cuTile vs converted Triton vs PyTorch on the GPU")
    ap.add_argument("--original", required=True, help="the cuTile module (needs cuda.tile to run)")
    ap.add_argument("--converted", required=True, help="its cutile2triton conversion")
    ap.add_argument("--out", default=os.environ.get("OUT", "."), help="folder for bench.md/json/png")
    args = ap.parse_args()
    dev = "cuda"
    props = torch.cuda.get_device_properties(0)
    conv = load_module(args.converted, "converted_kernels")
    conv_tma = load_module(args.converted, "converted_kernels_tma")
    n_tma = enable_tma(conv_tma)
    print(f"launchers with a TMA descriptor path: {n_tma}")
    try:
        orig = load_module(args.original, "cutile_kernels")
        import cuda.tile as ct  # noqa: F401
        ct_version = getattr(ct, "__version__", "?")
    except Exception as e:  # cuTile absent or unusable: still benchmark the rest
        orig, ct_version = None, f"unavailable ({type(e).__name__}: {e})"
    print(f"GPU {props.name}, torch {torch.__version__}, triton {triton.__version__}, cuda.tile {ct_version}")

    x = torch.empty(1 << 30, dtype=torch.uint8, device=dev)
    copy_gbs = 2 * x.numel() / (triton.testing.do_bench(lambda: x.clone(), return_mode="median") * 1e-3) / 1e9
    del x
    print(f"ceiling: device copy {copy_gbs:.0f} GB/s (read + write)")

    rows = []
    for name, dtype, fn, make, ref, work, relaxed, torch_impl in cases(dev):
        row = {"case": name}
        try:
            sets = [make(), make()]
            expected = ref(*sets[0])
            row["triton_check"] = close(getattr(conv, fn)(*sets[0]), expected, dtype, relaxed)
            if orig is not None:
                try:
                    row["cutile_check"] = close(getattr(orig, fn)(*sets[0]), expected, dtype, relaxed)
                    row["cutile_ms"] = bench(getattr(orig, fn), sets)
                except Exception as e:
                    row["cutile_check"] = f"error: {type(e).__name__}: {str(e).splitlines()[0][:120]}"
                    print(f"cuTile failed on {name}:\n{e}", file=sys.stderr)
            row["triton_ms"] = bench(getattr(conv, fn), sets)
            if n_tma:
                row["tma_check"] = close(getattr(conv_tma, fn)(*sets[0]), expected, dtype, relaxed)
                row["tma_ms"] = bench(getattr(conv_tma, fn), sets)
            row["torch_ms"] = bench(torch_impl, sets)
            amount, unit = work(*sets[0])
            row["unit"] = unit
            scale = 1e12 if unit == "TFLOP/s" else 1e9
            for k in ("cutile", "triton", "tma", "torch"):
                if f"{k}_ms" in row:
                    row[f"{k}_rate"] = amount / (row[f"{k}_ms"] * 1e-3) / scale
            if unit == "TFLOP/s":
                row["ceiling"] = amount / (bench(torch.matmul, sets) * 1e-3) / 1e12
                row["ceiling_name"] = "cuBLAS"
            else:
                row["ceiling"], row["ceiling_name"] = copy_gbs, "copy"
            del sets, expected
        except Exception as e:
            row["error"] = f"{type(e).__name__}: {e}"
            traceback.print_exc()
        torch.cuda.empty_cache()
        rows.append(row)
        print(json.dumps(row), flush=True)

    lines = [f"GPU: {props.name}; torch {torch.__version__}; triton {triton.__version__}; cuda.tile {ct_version}; "
             f"device copy ceiling {copy_gbs:.0f} GB/s", "",
             "| case | cuTile | converted Triton (default) | same, TMA descriptors where legal | PyTorch | unit | Triton/cuTile | Triton / ceiling | checks (Triton; TMA; cuTile) |",
             "|---|---|---|---|---|---|---|---|---|"]
    ratios = []
    for r in rows:
        f = lambda k: f"{r[k]:.1f}" if k in r else "—"
        ratio = r["triton_rate"] / r["cutile_rate"] if "cutile_rate" in r and "triton_rate" in r else None
        if ratio:
            ratios.append(ratio)
        frac = f"{r['triton_rate'] / r['ceiling']:.0%} of {r['ceiling_name']}" if "ceiling" in r and "triton_rate" in r else "—"
        lines.append(f"| {r['case']} | {f('cutile_rate')} | {f('triton_rate')} | {f('tma_rate')} | {f('torch_rate')} | {r.get('unit', '')} | "
                     f"{f'{ratio:.2f}x' if ratio else '—'} | {frac} | {r.get('triton_check', r.get('error', ''))}; "
                     f"{r.get('tma_check', '—')}; {r.get('cutile_check', '—')} |")
    if ratios:
        lines.append("")
        lines.append(f"Geometric mean Triton/cuTile: {math.exp(sum(map(math.log, ratios)) / len(ratios)):.2f}x over {len(ratios)} cases")
    lines.append("")
    lines.append("TMA precondition guard (converted kernels on inputs that violate the preconditions):")
    for what, verdict in guard_checks(conv_tma, dev):  # asked for TMA, the launcher must fall back itself
        lines.append(f"- {what}: {verdict}")
    text = "\n".join(lines)
    print(text)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench.md").write_text(text + "\n")
    (out / "bench.json").write_text(json.dumps(rows, indent=1))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        names = [r["case"] for r in rows if "triton_rate" in r]
        fig, ax = plt.subplots(figsize=(10, 0.6 * len(names) + 1.5))
        ys = range(len(names))
        for off, key, label in ((-0.3, "cutile_rate", "cuTile"), (-0.1, "triton_rate", "converted Triton"),
                                (0.1, "tma_rate", "converted Triton, TMA"), (0.3, "torch_rate", "PyTorch")):
            vals = [r.get(key, 0) / r["ceiling"] if r.get("ceiling") else 0 for r in rows if "triton_rate" in r]
            ax.barh([y + off for y in ys], vals, height=0.2, label=label)
        ax.set_yticks(list(ys))
        ax.set_yticklabels(names)
        ax.set_xlabel("fraction of ceiling (copy bandwidth, or cuBLAS for GEMM)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(out / "bench.png", dpi=110)
    except Exception as e:
        print(f"no chart: {e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
