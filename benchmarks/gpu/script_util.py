"""Helpers the standalone GPU scripts of this folder share. Importing it has no side effects (no TileGym
mounted, no CUDA touched): scripts import it as `from script_util import ...` (the script's folder is on
sys.path when Python runs the script)."""
import importlib.util
import time
from pathlib import Path


def host_us(fn, n=300, warmup=20):
    """Host µs per call of fn: `warmup` calls, a synchronization, then n calls back to back, timed
    without synchronizing (what a caller's thread spends launching), and a synchronization after."""
    import torch

    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    us = (time.perf_counter() - t) / n * 1e6
    torch.cuda.synchronize()
    return us


def load_module(name, text, folder):
    """Module `name` made from source `text`, written to `folder`/`name`.py (a converted module or an
    edited copy of one: each copy is its own module, with its own caches)."""
    path = Path(folder) / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def load_file(path, name):
    """The module of an existing source file `path`, under `name` (a kernels module of a benchmark tree)."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def graph_us(fn, rep=50):
    """Device µs of fn per call, from CUDA-graph replays (triton.testing.do_bench_cudagraph, `rep` ms):
    how cuTile's own benches time (pytest-benchmark with cudagraph=True)."""
    import triton.testing

    return triton.testing.do_bench_cudagraph(fn, rep=rep) * 1e3


def launch_options(warps=None, stages=None):
    """The launcher options a sweep forces: num_warps and num_stages where given."""
    return {k: v for k, v in (("num_warps", warps), ("num_stages", stages)) if v is not None}


def time_or_say_why(label, fn, check=lambda: ""):
    """Runs fn once, synchronizes and calls check() (raises on a wrong result, or returns a note), then prints
    label with fn's graph_us time and the note; any exception (out of shared memory, registers, a wrong
    result) is printed with its first line instead, so that a sweep goes on."""
    import torch

    try:
        fn()
        torch.cuda.synchronize()
        note = check()
        print(f"{label}: {graph_us(fn):.1f} us{note}", flush=True)
    except Exception as e:
        print(f"{label}: {type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}", flush=True)


def print_spill_decisions(mod):
    """What a converted module's spill step decided per specialization (the runtime's _c2t_spill_warps: warps
    through pointers, words spilled per thread at the rule's warps, at twice them, with descriptors, and
    whether descriptors were chosen)."""
    for kernel, table in mod._c2t_spill_warps.items():
        for key, entry in table.items():
            print(f"spill step {kernel.__name__} constexprs {key[0]}: {entry}", flush=True)
