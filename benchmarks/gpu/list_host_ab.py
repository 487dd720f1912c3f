"""Host time per call of TileGym's group_gemm (three lists of arrays per call) with the converted runtime's
native list path (_c2t_array_list's reuse in one native call, cutile2triton.fast_launch list_hit) against its
Python path, in one process, interleaved: rounds of `host_us` (300 calls back to back, no synchronization;
the host's time per call while the kernels are shorter) per setting, medians printed; cuTile's op alongside.

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 list_host_ab.py TILEGYM CONVERTED [ROUNDS]
(as host_profile.py; run by scripts_on_device.sh "list_host_ab.py")."""
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from host_layers import P, converted, host_us  # noqa: E402  (mounts the converted tree)
import tilegym, torch  # noqa: E402

rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
mod = converted("group_gemm")


def cases():
    for groups in (4, 16):
        a = [torch.randn(1024, 1024, dtype=torch.float16, device="cuda") for _ in range(groups)]
        b = [torch.randn(1024, 1024, dtype=torch.float16, device="cuda") for _ in range(groups)]
        yield f"fp16 {groups}x1024^3 transpose_b", lambda be, a=a, b=b: tilegym.ops.group_gemm(a, b, transpose_b=True, backend=be)
        fa, fb = [t.to(torch.float8_e5m2) for t in a], [t.to(torch.float8_e5m2) for t in b]
        yield f"fp8 {groups}x1024^3 transpose_b", lambda be, a=fa, b=fb: tilegym.ops.group_gemm(a, b, transpose_b=True, backend=be)


for name, op in cases():
    try:
        op("c2t_triton"); torch.cuda.synchronize()
        native = list(mod._c2t_list_native)
        if native[0] is None:
            P(f"{name}: no native list path in this process (cutile2triton.fast_launch not built)")
        times = {"native lists": [], "python lists": [], "cutile": []}
        for _ in range(rounds):
            mod._c2t_list_native[:] = native
            times["native lists"].append(host_us(lambda: op("c2t_triton")))
            mod._c2t_list_native[:] = [None, None]
            times["python lists"].append(host_us(lambda: op("c2t_triton")))
            try:
                times["cutile"].append(host_us(lambda: op("cutile")))
            except Exception as e:  # noqa: BLE001 -- cuTile's search may time out on a cold machine
                times["cutile"].append(float("nan"))
                P(f"{name} cutile: {type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}")
        mod._c2t_list_native[:] = native
        def summary(v):  # rounds that failed (NaN) left out, and counted
            ok = [x for x in v if x == x]
            return (f"{statistics.median(ok):6.1f} ({min(ok):.1f}-{max(ok):.1f}"
                    f"{'' if len(ok) == len(v) else f'; {len(ok)} of {len(v)} rounds'})") if ok else "failed"

        P(f"{name:28s} host us/call, median of {rounds}: " + " | ".join(f"{k} {summary(v)}" for k, v in times.items()))
    except Exception as e:  # noqa: BLE001 -- reported, the next case runs
        P(f"{name}: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")
