"""Host time of converted ops under two versions of the converter's launch code, in one process: the
converted modules as mounted (B, this converter) and the same modules with the runtime's launch
functions and the kernels' launchers (launch_<kernel>) replaced by an older converter's (A),
interleaved A B A B A B so that the host's drift hits both alike. Per op: host time per call (300
back-to-back calls, no synchronization), triton.testing.do_bench's mean (what TileGym's do_bench bench
files report) and cuTile's op for scale. BENCHMARKS.md, "Host launch path" and "Host time per call".

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 host_ab.py TILEGYM CONVERTED OLD
OLD: a tree the older converter made from the same TileGym (each module's functions from its
counterpart there; e.g. the conv/ folder of an older .tilegym/tilegym.tar.xz, carried in a git-ignored
folder of the repository such as .diag/), or one module file it generated (its runtime functions go
into every module; the launchers stay). The 2026-11-30 runs: ops/cutile/bmm.py converted at de74a27
(seventh session); the tree converted at a603133 (eighth)."""
import ast, sys, statistics
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from host_layers import P, host_us, mods, ops  # noqa: E402  (mounts the converted tree)
import torch, triton, triton.testing  # noqa: E402

RUNTIME = ("_c2t_compiled_slot", "_c2t_run_compiled", "_c2t_tuned_kwargs", "_c2t_launch_compiled", "_c2t_launch_entry", "_c2t_run_kernel", "_c2t_run_native",
           "_c2t_run_kernel_jit", "_c2t_launch", "_c2t_on_stream", "_c2t_launch_options")


def functions(path):
    """The runtime's launch functions and the kernels' launchers (launch_<kernel>) of a module file."""
    src = Path(path).read_text()
    return {n.name: ast.get_source_segment(src, n) for n in ast.parse(src).body
            if isinstance(n, ast.FunctionDef) and (n.name in RUNTIME or n.name.startswith("launch_"))}


new = {m.__name__: functions(m.__file__) for m in mods}
# OLD: one module file (its runtime goes into every module) or a converted tree (each module from its counterpart).
old_path = Path(sys.argv[3])
if old_path.is_dir():
    conv = Path(sys.argv[2]).resolve()
    old = {m.__name__: functions(old_path / Path(m.__file__).resolve().relative_to(conv)) for m in mods
           if (old_path / Path(m.__file__).resolve().relative_to(conv)).is_file()}
else:
    one = functions(old_path)
    old = {m.__name__: {n: t for n, t in one.items() if not n.startswith("launch_")} for m in mods}


def use(version):
    for m in mods:
        for v in list(vars(m).values()):  # the two versions remember compiled kernels differently
            for memo in ("_c2t_compiled", "_c2t_fast"):
                if memo in getattr(v, "__dict__", {}):
                    delattr(v, memo)
        for name, text in (old.get(m.__name__, {}) if version == "A" else new[m.__name__]).items():
            exec(text, vars(m))
            kernel = vars(m).get(name[len("launch_"):]) if name.startswith("launch_") else None
            if kernel is not None and hasattr(kernel, "_c2t_launcher"):  # launchers are found through the kernel
                kernel._c2t_launcher = vars(m)[name]


P(f"A (old, from {old_path}): {sum(len(v) for v in old.values())} functions in {len(old)} modules")
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
