"""The converted launch stack's host time, layer by layer, inside TileGym ops at the shapes where
triton.testing.do_bench measures the host (BENCHMARKS.md, "Host time per call"). One call of the op
records the arguments each layer of the stack received; each layer is then replayed alone, 300
calls back to back without synchronization, µs per call (inclusive of the layers below it):

  op          the TileGym op (TileGym's host code + the launch stack)
  op-null     the op with its top launch layer replaced by a no-op: TileGym's host code alone
  on_stream   _c2t_on_stream(stream, _c2t_launch, grid, kernel object, *ct.launch args)
  c2t_launch  _c2t_launch(grid, kernel object, *args)  (hint options)
  launcher    launch__<kernel>(grid, *ct.launch args, **options)  (array -> pointer/extents/strides)
  run_kernel  _c2t_run_kernel(kernel, grid, *Triton args, **options)  (reuse lookup + launch)
  binder      Triton's argument binder alone (native specialization of every argument)
  c-launch    the reused entry's launch alone (Triton's C launcher)
and for cuTile: op, op-null (ct.launch a no-op) and ct.launch.

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 host_stack.py TILEGYM CONVERTED"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from host_layers import P, host_bound_ops, host_us, mods  # noqa: E402  (mounts the converted tree)
import torch, triton  # noqa: E402

LAYERS = ("_c2t_on_stream", "_c2t_launch", "_c2t_run_kernel")


def launchers(m):
    return {n: v for n, v in vars(m).items() if n.startswith("launch_") and callable(v)}


def record_stack(f):
    """Runs f once with every layer of every converted module wrapped; {layer: (fn, args, kwargs)} of
    the first call of each layer, and the outermost layer's name."""
    rec, order, saved = {}, [], []

    def wrap(name, fn):
        def w(*a, **k):
            if name not in rec:
                rec[name] = (fn, a, dict(k)); order.append(name)
            return fn(*a, **k)
        return w

    for m in mods:
        for n in LAYERS:
            if n in vars(m):
                saved.append((m, n, vars(m)[n])); setattr(m, n, wrap(n, vars(m)[n]))
        for n, fn in launchers(m).items():
            kernel = vars(m).get(n[len("launch_"):])
            saved.append((m, n, fn)); setattr(m, n, wrap("launcher", fn))
            if kernel is not None and getattr(kernel, "_c2t_launcher", None) is fn:
                saved.append((kernel, "_c2t_launcher", fn)); kernel._c2t_launcher = wrap("launcher", fn)
    try:
        f(); torch.cuda.synchronize()
    finally:
        for obj, n, fn in reversed(saved):
            setattr(obj, n, fn)
    return rec, (order[0] if order else None)


def null_time(f, top):
    """Host time of f with the outermost layer a no-op (TileGym's host code alone)."""
    saved = []
    for m in mods:
        names = [top] if top != "launcher" else list(launchers(m))
        for n in names:
            if n in vars(m):
                saved.append((m, n, vars(m)[n])); setattr(m, n, lambda *a, **k: None)
                kernel = vars(m).get(n[len("launch_"):]) if top == "launcher" else None
                if kernel is not None and hasattr(kernel, "_c2t_launcher"):
                    saved.append((kernel, "_c2t_launcher", kernel._c2t_launcher)); kernel._c2t_launcher = lambda *a, **k: None
    try:
        return host_us(f)
    finally:
        for obj, n, fn in reversed(saved):
            setattr(obj, n, fn)


def converted(name, f):
    f(); torch.cuda.synchronize()
    out = {"op": host_us(f)}
    rec, top = record_stack(f)
    if top:
        out["op-null"] = null_time(f, top)
    for layer, key in (("_c2t_on_stream", "on_stream"), ("_c2t_launch", "c2t_launch"), ("launcher", "launcher"),
                       ("_c2t_run_kernel", "run_kernel")):
        if layer in rec:
            fn, a, k = rec[layer]
            out[key] = host_us(lambda: fn(*a, **k))
    if "_c2t_run_kernel" in rec:
        _, a, k = rec["_c2t_run_kernel"]
        kernel, grid, args = a[0], a[1], a[2:]
        device = triton.runtime.driver.active.get_current_device()
        binder = kernel.device_caches[device][4]
        out["binder"] = host_us(lambda: binder(*args, **k))
        table = next(iter(kernel._c2t_compiled.values()))
        entry = next(iter(table[1].values())) if isinstance(table, (list, tuple)) and len(table) > 1 and isinstance(table[1], dict) else None
        if entry is not None:
            launch, head = entry[0], entry[1]
            bound, _, _ = binder(*args, **k)
            vals = tuple(bound.values())
            g = grid(bound) if callable(grid) else tuple(grid) + (1,) * (3 - len(grid))
            stream = triton.runtime.driver.active.get_current_stream(device)
            out["c-launch"] = host_us(lambda: launch(g[0], g[1], g[2], stream, *head, *vals))
    return out


def cutile(f):
    import cuda.tile as ct
    f(); torch.cuda.synchronize()
    out = {"op": host_us(f)}
    real, calls = ct.launch, []

    def rec(*a, **k):
        calls.append((a, k)); return real(*a, **k)

    ct.launch = rec
    try:
        f(); torch.cuda.synchronize()
    finally:
        ct.launch = real
    ct.launch = lambda *a, **k: None
    try:
        out["op-null"] = host_us(f)
    finally:
        ct.launch = real
    if calls:
        a, k = calls[0]
        out["ct.launch"] = host_us(lambda: real(*a, **k))
    return out


P(f"floor: torch.cuda.current_device {host_us(lambda: torch.cuda.current_device()):.2f} us")
for name, op in host_bound_ops(gemma=True):
    for be, fn in (("c2t_triton", converted), ("cutile", lambda n, f: cutile(f))):
        try:
            res = fn(name, lambda: op(be))
            P(f"{name:26s} {be:10s} " + " | ".join(f"{k} {v:6.1f}" for k, v in res.items()))
        except Exception as e:
            P(f"{name} {be}: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")
