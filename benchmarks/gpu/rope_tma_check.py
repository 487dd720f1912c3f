"""TileGym's RoPE (ops/rope.py, converted) on its descriptor path and its pointer path, repeated on fresh inputs:
the check behind s36's one failure under `C2T_TILEGYM_USE_TMA=auto` (test_rope's fp32 partial RoPE, head_dim 256,
q and k transposed views, rotated in place; a quarter of the rotated elements wrong). Three parts:

  1. the launcher called directly (`launch__rope_kernel`), use_tma False and True, at the launcher's warps and
     at 1, 2, 4, 8 warps, TRIALS times each on fresh inputs at each of test_rope's shapes;
  2. the op (`apply_rope_base`) with its tuning search run afresh each time (its cache cleared), launchers
     defaulting to descriptors (`auto`, as the plug-in's --c2t-use-tma auto) and as shipped (`tuned`);
  3. test_rope.py itself under --c2t-use-tma auto, RUNS times (subprocesses).

Each wrong result prints which sequence rows (programs), heads and head-dim columns hold the wrong elements.
Reference: the rotation computed in float64 from the same inputs (the test's own formula).

  PYTHONPATH=TILEGYM/src:PLUGIN python3 rope_tma_check.py TILEGYM CONVERTED [TRIALS] [RUNS]"""
import os
import subprocess
import sys
from pathlib import Path

os.environ["DISABLE_FALLBACK"] = "1"
import torch  # noqa: E402

from cutile2triton.pytest_tilegym import describe_by_default, load_converted  # noqa: E402

TILEGYM, CONVERTED = Path(sys.argv[1]), Path(sys.argv[2])
TRIALS = int(sys.argv[3]) if len(sys.argv) > 3 else 8
RUNS = int(sys.argv[4]) if len(sys.argv) > 4 else 3
mounts = load_converted(CONVERTED)
rope = next(sys.modules[m] for m in mounts.loaded if m.endswith(".rope") and ".ops." in m)
P = lambda *a: print(*a, flush=True)  # noqa: E731
# test_rope.py's test_op shapes: (bsz, seq_len, num_q_heads, num_kv_heads, head_dim, partial_rotary_factor)
SHAPES = [(1, 128, 32, 32, 64, 1.0), (2, 128, 32, 8, 64, 1.0), (1, 128, 32, 8, 256, 0.25),
          (2, 128, 32, 8, 256, 0.25), (1, 128, 32, 32, 128, 0.5), (2, 128, 32, 8, 128, 0.5)]


def inputs(bsz, seq, nq, nk, hd, factor):
    """q, k as test_rope builds them (transposed views of (bsz, seq, heads, hd), cloned: strides kept),
    cos and sin (1, seq, rope_dim) as LlamaRotaryEmbedding's default rotation makes them."""
    rd = int(hd * factor)
    q = torch.randn((bsz, seq, nq, hd), device="cuda").transpose(1, 2).clone()
    k = torch.randn((bsz, seq, nk, hd), device="cuda").transpose(1, 2).clone()
    inv = 1.0 / (10000.0 ** (torch.arange(0, rd, 2, device="cuda", dtype=torch.float32) / rd))
    freqs = torch.arange(seq, device="cuda", dtype=torch.float32)[:, None] * inv[None]
    emb = torch.cat((freqs, freqs), -1)[None]
    return q, k, emb.cos(), emb.sin()


def reference(x, cos, sin):
    """test_rope's reference_partial_rope for one tensor, in float64."""
    rd = cos.shape[-1]
    x = x.double()
    c, s = cos.double().unsqueeze(1), sin.double().unsqueeze(1)
    r, rest = x[..., :rd], x[..., rd:]
    half = torch.cat((-r[..., rd // 2:], r[..., :rd // 2]), -1)
    return torch.cat((r * c + half * s, rest), -1)


def where_wrong(name, out, ref):
    """'' if out matches ref at test_rope's fp32 tolerance (1e-5 both), else where the wrong elements are."""
    bad = ~torch.isclose(out.double(), ref, atol=1e-5, rtol=1e-5)
    n = int(bad.sum())
    if not n:
        return ""
    idx = bad.nonzero()
    rows = sorted(set(idx[:, 2].tolist()))
    heads = sorted(set(idx[:, 1].tolist()))
    cols = sorted(set(idx[:, 3].tolist()))
    return (f"{name}: {n} of {bad.numel()} wrong; batches {sorted(set(idx[:, 0].tolist()))}; rows ({len(rows)}) "
            f"{rows[:40]}; heads ({len(heads)}) {heads[:40]}; columns ({len(cols)}) {cols[:70]}")


def direct(shape, use_tma, warps):
    bsz, seq, nq, nk, hd, factor = shape
    q, k, cos, sin = inputs(*shape)
    rq, rk = reference(q, cos, sin), reference(k, cos, sin)
    rd = int(hd * factor)
    p2 = lambda n: 1 << (n - 1).bit_length()  # noqa: E731
    opts = {} if warps is None else {"num_warps": warps}
    rope.launch__rope_kernel((bsz * seq, 1, 1), q, k, cos, sin, 1, seq, p2(nq), p2(nk), p2(rd // 2),
                             use_tma=use_tma, **opts)
    torch.cuda.synchronize()
    return " | ".join(w for w in (where_wrong("q", q, rq), where_wrong("k", k, rk)) if w)


P("== 1. the launcher directly")
for shape in SHAPES if TRIALS else ():
    for use_tma in (False, True):
        for warps in (None, 1, 2, 4, 8):
            wrong = [w for w in (direct(shape, use_tma, warps) for _ in range(TRIALS)) if w]
            P(f"{shape} use_tma={use_tma} warps={warps}: {TRIALS - len(wrong)} of {TRIALS} right"
              + "".join(f"\n    {w}" for w in wrong[:3]))

P("== 2. the op, its tuning search afresh each time")
import tilegym  # noqa: E402

for mode in ("tuned", "auto"):
    if mode == "auto":
        P(f"launchers defaulting to descriptors: {describe_by_default([rope])}")
    for shape in SHAPES[2:4] if TRIALS else ():
        right = 0
        for t in range(TRIALS):
            rope._ROPE_TUNE_CACHE.clear()
            rope._c2t_tuned_options.clear()
            bsz, seq, nq, nk, hd, factor = shape
            q, k, cos, sin = inputs(*shape)
            rq, rk = reference(q, cos, sin), reference(k, cos, sin)
            oq, ok = rope.apply_rope_base(q, k, cos, sin, partial_rotary_factor=factor)
            torch.cuda.synchronize()
            w = " | ".join(x for x in (where_wrong("q", oq, rq), where_wrong("k", ok, rk)) if x)
            right += not w
            if w:
                P(f"    trial {t}: {w}; chosen {rope._c2t_tuned_options.get(rope._rope_kernel)}")
        P(f"{mode} {shape}: {right} of {TRIALS} right")

P("== 3. test_rope.py under --c2t-use-tma auto")
env = {**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
for run in range(RUNS):
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                        "cutile2triton.pytest_tilegym", "--c2t-converted", str(CONVERTED), "--c2t-use-tma", "auto",
                        "tests/ops/test_rope.py", "-k", "c2t_triton and not perf"], cwd=TILEGYM, env=env,
                       capture_output=True, text=True)
    out = [line for line in r.stdout.splitlines() if line.strip()]
    P(f"run {run}: exit {r.returncode}: " + (out[-1] if out else "(no output) " + r.stderr[-300:]))
    for line in out:
        if line.startswith("FAILED") or "Mismatched elements" in line or "Greatest absolute" in line:
            P("    " + line[:300])
