"""A converted kernel launched with constants that are equal but of another type (4 and 4.0, 0.0 and -0.0),
one after the other in one process, on the GPU: cuTile compiles them apart; Triton 3.6 memoizes its cache key
by a tuple in which they are equal, which the converted runtime keys by type (_C2TTypedKeys, docs/RUNTIME.md).
Each launch is checked against PyTorch; the runtime's reuse and native launches run too (each value 3 times).
-0.0 launches first, compiled before any 0.0: Triton 3.6 makes every constant equal to zero +0.0
(semantic.scalar_constant, compiled or interpreted), so -0.0's launches computing 0.0's result are counted apart.

  python3 constexpr_types_check.py --prepare OUT.py        # here: convert the cuTile source below to OUT.py
  python3 constexpr_types_check.py TILEGYM CONVERTED OUT.py  # there (scripts_on_device.sh passes the first two)
  TRITON_INTERPRET=1 python3 constexpr_types_check.py --cpu OUT.py  # here, to check this script"""
import sys

SRC = '''
import cuda.tile as ct


@ct.kernel
def affine_kernel(x, out, F: ct.Constant, TILE: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    # int32 t * 4 wraps at 2**31 where t * 4.0 is a float; ones / F is inf for 0.0 and -inf for -0.0
    ones = ct.full((TILE,), 1.0, dtype=ct.float64)
    ct.store(out, index=(i,), tile=ct.astype(t * F, ct.float64) + ones / F)
'''


def prepare(path):
    from cutile2triton import convert_source  # runs here, not on the GPU: the plug-in-only package lacks the compiler
    open(path, "w").write(convert_source(SRC, filename="constexpr_types.py").code)


def check(path, device="cuda"):
    import importlib.util
    import torch
    spec = importlib.util.spec_from_file_location("constexpr_types_triton", path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    x = torch.tensor([1, 2**29 + 1, -7, 3] * 75 + [5], dtype=torch.int32, device=device)  # 301: not a tile multiple
    bad = known = 0
    for f in (-0.0, 4, 4.0, 4, 4.0, True, 1, 0.0, -0.0, 0.0) * 3:  # -0.0 first: its own first compile
        if f == 0 and isinstance(f, float):
            with torch.no_grad():
                scale = x.double() * 0.0
            want = scale + (float("inf") if str(f)[0] != "-" else float("-inf"))
        else:
            prod = (x * f) if isinstance(f, float) else (x * int(f)).to(torch.int32)  # int32 wraps as the kernel's
            want = prod.double() + 1.0 / f
        out = torch.empty(x.shape, dtype=torch.float64, device=device)
        m.launch_affine_kernel((m.triton.cdiv(x.numel(), 64),), x, out, f, 64)
        if device == "cuda":
            torch.cuda.synchronize()
        ok = torch.allclose(out, want.to(out.dtype), rtol=1e-6, atol=0, equal_nan=True)
        # Triton 3.6 makes every constant equal to zero +0.0 (semantic.scalar_constant; README, Limitations),
        # so a -0.0 launch computing +0.0's result is that known difference, not a cache's.
        plus_zero = str(f) == "-0.0" and not ok and torch.equal(out, -want.to(out.dtype))
        known += plus_zero
        bad += not ok and not plus_zero
        said = "ok" if ok else "as +0.0 (known)" if plus_zero else "WRONG"
        print(f"F={f!r:5} ({type(f).__name__}): {said}  out[1]={out[1].item()!r} want {want[1].item()!r}", flush=True)
    print(f"{bad} wrong of 30 launches; {known} computed -0.0 as +0.0")
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "--prepare":
        prepare(sys.argv[2])
    else:  # --cpu: under TRITON_INTERPRET=1, to check this script (the interpreter compiles nothing)
        paths = [a for a in sys.argv[1:] if a != "--cpu"]
        sys.exit(check(paths[-1], "cpu" if "--cpu" in sys.argv else "cuda"))
