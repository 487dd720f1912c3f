"""Host time of converted ops under two versions of the generated runtime, in one process: the
converted modules as mounted (B, this converter) and the same modules with the runtime's launch
functions replaced by an older converter's (A: the functions of OLD_MODULE, any module that older
converter generated), interleaved A B A B A B so that the host's drift hits both alike. Per op: host
time per call (300 back-to-back calls, no synchronization), triton.testing.do_bench's mean (what
TileGym's do_bench bench files report) and cuTile's op for scale. BENCHMARKS.md, "Host launch path".

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 host_ab.py TILEGYM CONVERTED OLD_MODULE
OLD_MODULE: e.g. `git worktree add /tmp/old REV`, build it (scripts/setup.sh in a virtual environment) and
convert one TileGym op that launches through kernel objects (the 2026-11-30 run used ops/cutile/bmm.py
converted at de74a27); carry it in a git-ignored folder of the repository (e.g. .diag/)."""
import ast, sys, statistics
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from host_layers import P, host_us, mods, ops  # noqa: E402  (mounts the converted tree)
import torch, triton, triton.testing  # noqa: E402

RUNTIME = ("_c2t_compiled_slot", "_c2t_launch_compiled", "_c2t_launch_entry", "_c2t_run_kernel",
           "_c2t_run_kernel_jit", "_c2t_launch", "_c2t_on_stream", "_c2t_launch_options")


def functions(path):
    src = Path(path).read_text()
    return {n.name: ast.get_source_segment(src, n) for n in ast.parse(src).body
            if isinstance(n, ast.FunctionDef) and n.name in RUNTIME}


old = functions(sys.argv[3])
new = {m.__name__: functions(m.__file__) for m in mods}


def use(version):
    for m in mods:
        for v in list(vars(m).values()):  # the two versions remember compiled kernels differently
            if "_c2t_compiled" in getattr(v, "__dict__", {}):
                del v._c2t_compiled
        for name, text in (old if version == "A" else new[m.__name__]).items():
            if name in vars(m) or version == "A":
                exec(text, vars(m))


P(f"A (old runtime, from {Path(sys.argv[3]).name}): {sorted(old)}")
for name, op in ops():
    rows = {"A": [], "B": []}
    dbs = {"A": [], "B": []}
    try:
        for _ in range(3):
            for version in ("A", "B"):
                use(version)
                op("c2t_triton"); torch.cuda.synchronize()
                rows[version].append(host_us(lambda: op("c2t_triton")))
                dbs[version].append(triton.testing.do_bench(lambda: op("c2t_triton")) * 1000)
        use("B")
        try:
            op("cutile"); torch.cuda.synchronize()
            ct = f"{host_us(lambda: op('cutile')):6.1f} | do_bench {triton.testing.do_bench(lambda: op('cutile')) * 1000:6.1f}"
        except Exception as e:
            ct = f"error {type(e).__name__}"
        med = lambda xs: statistics.median(xs)
        P(f"{name:26s} host us/call A {med(rows['A']):6.1f} B {med(rows['B']):6.1f} (runs A {['%.1f' % x for x in rows['A']]} "
          f"B {['%.1f' % x for x in rows['B']]}) | do_bench us A {med(dbs['A']):6.1f} B {med(dbs['B']):6.1f} | cuTile host {ct}")
    except Exception as e:
        use("B")
        P(f"{name}: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")
