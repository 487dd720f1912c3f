"""TileGym's group_gemm with fp8 operands whose K-major copies the launcher makes (B given K x N, 2^22+
elements per array, on sm_90), captured in a CUDA graph after an eager warm-up: the copies' list is new at
each launch, so its table is made during the capture (from pinned host memory, cutile2triton's runtime
_c2t_list_entry). Prints whether the capture succeeds and whether replays equal the eager result, with
C2T_K_MAJOR as set (run it again with C2T_K_MAJOR=0 for the uncopied launch).

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 k_major_capture_check.py TILEGYM CONVERTED
(as host_profile.py; run by scripts_on_device.sh "k_major_capture_check.py")."""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from host_layers import P  # noqa: E402  (mounts the converted tree)
import tilegym, torch  # noqa: E402

n, groups = 2048, 4
a = [torch.randn(n, n, device="cuda").to(torch.float8_e5m2) for _ in range(groups)]
b = [torch.randn(n, n, device="cuda").to(torch.float8_e5m2) for _ in range(groups)]
op = lambda: tilegym.ops.group_gemm(a, b, transpose_b=False, backend="c2t_triton")  # noqa: E731
eager = [c.float() for c in op()]
torch.cuda.synchronize()
s = torch.cuda.Stream()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    for _ in range(3):
        op()
torch.cuda.current_stream().wait_stream(s)
g = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g):
        out = op()
except Exception as e:  # noqa: BLE001 -- reported
    P(f"C2T_K_MAJOR={os.environ.get('C2T_K_MAJOR', '1')}: capture fails: {type(e).__name__}: {str(e)[:200]}")
    sys.exit(0)
for c in out:
    c.zero_()
g.replay()
torch.cuda.synchronize()
same = all(torch.equal(c.float(), e) for c, e in zip(out, eager))
P(f"C2T_K_MAJOR={os.environ.get('C2T_K_MAJOR', '1')}: captured group_gemm fp8 {groups}x{n}^3 (B K x N): "
  f"replay equals eager: {same}")
