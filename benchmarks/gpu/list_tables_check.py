"""A kernel taking lists of arrays under CUDA graph capture and from several threads: the list
tables of the converted runtime (_c2t_array_list) that a graph captured must outlive the cache's
eviction, and a capture on another stream than the warm-up must find them (cutile2triton's
BENCHMARKS.md, s24), and a list first seen while capturing gets its table (from pinned host memory, s26).
Prints one line per check; "True True" and "errors []" are the passing values.

    python3 -c "import sys; sys.path.insert(0, 'tests'); from c2t_interp import convert; \\
        from test_array_lists import GROUPED; open('/tmp/g_conv.py', 'w').write(convert(GROUPED))"   # here
    python3 benchmarks/gpu/list_tables_check.py /tmp/g_conv.py                                        # on a GPU
(with cutile2triton's fast_launch importable, e.g. cutile_env.sh's c2t_plugin_package on PYTHONPATH, the native
list path is checked first, then the Python path.)
"""

import importlib.util
import sys
import threading

import torch

spec = importlib.util.spec_from_file_location("g_conv", sys.argv[1])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
buf = torch.randn(1 << 20, device="cuda")


def launch(xs, outs):
    """Group g's output is (g + 1) * X_g (tests/test_array_lists.py GROUPED); one group here."""
    m.launch_grouped_scale((len(xs),), xs, outs, 16, 32)


def arrays(i):
    return [buf[i * 128:i * 128 + 128].view(8, 16)]


def graph_check(mode):
    """A: PyTorch's recipe (warm up on a side stream, capture on torch.cuda.graph's own stream);
    B: capture on the warm-up stream. Then 299 launches with other lists evict the cache's tables."""
    x, o, s = arrays(0), [torch.zeros(8, 16, device="cuda")], torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            launch(x, o)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(g, stream=None if mode == "A" else s):
            launch(x, o)
    except Exception as e:  # noqa: BLE001 -- reported
        print(mode, "capture fails:", type(e).__name__, str(e)[:200])
        return
    o[0].zero_()
    g.replay()
    torch.cuda.synchronize()
    before = torch.equal(o[0], x[0])
    other = [torch.zeros(8, 16, device="cuda")]
    for i in range(1, 300):
        launch(arrays(i), other)
    torch.cuda.synchronize()
    o[0].zero_()
    g.replay()
    torch.cuda.synchronize()
    print(mode, "replay correct before/after 299 other lists:", before, torch.equal(o[0], x[0]),
          "| kept:", len(m._c2t_list_tables), "captured:", len(m._c2t_list_tables_captured))


def fresh_capture_check():
    """C: the kernel launched once (compiled), then a list it has never seen captured: its table is made
    during the capture (from pinned host memory) and serves that graph only -- an eager launch with the
    same list before any replay, and a second capture of it, are right too; replays stay right after 299
    other lists."""
    launch(arrays(500), [torch.zeros(8, 16, device="cuda")])
    torch.cuda.synchronize()
    x, o, g = arrays(501), [torch.zeros(8, 16, device="cuda")], torch.cuda.CUDAGraph()
    try:
        with torch.cuda.graph(g):
            launch(x, o)
    except Exception as e:  # noqa: BLE001 -- reported
        print("C capture fails:", type(e).__name__, str(e)[:200])
        return
    eager = [torch.zeros(8, 16, device="cuda")]
    launch(x, eager)  # before g ever replayed
    o2, g2 = [torch.zeros(8, 16, device="cuda")], torch.cuda.CUDAGraph()
    with torch.cuda.graph(g2):
        launch(x, o2)
    g2.replay()
    torch.cuda.synchronize()
    print("C eager launch of the captured list before any replay correct:", torch.equal(eager[0], x[0]),
          "| second capture of it correct:", torch.equal(o2[0], x[0]))
    g.replay()
    torch.cuda.synchronize()
    before = torch.equal(o[0], x[0])
    for i in range(1, 300):
        launch(arrays(i), [torch.zeros(8, 16, device="cuda")])
    o[0].zero_()
    g.replay()
    torch.cuda.synchronize()
    print("C fresh list captured, replay correct before/after 299 other lists:", before, torch.equal(o[0], x[0]))


def threads_check():
    """8 threads, each on its own stream, 50 new lists each: every result right."""
    errors = []

    def work(t):
        try:
            s = torch.cuda.Stream()
            with torch.cuda.stream(s):
                for i in range(50):
                    xs, outs = arrays(t * 50 + i), [torch.empty(8, 16, device="cuda")]
                    launch(xs, outs)
                    s.synchronize()
                    assert torch.equal(outs[0], xs[0]), (t, i)
        except Exception as e:  # noqa: BLE001 -- reported
            errors.append(repr(e))

    workers = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    print("threads: errors", errors[:3], "| kept:", len(m._c2t_list_tables))


# The native list path (cutile2triton.fast_launch's list_hit: the reuse of a list seen before, its capture and
# stream queries in C) where cutile2triton is importable; the Python path otherwise. Both are checked.
native = m._c2t_list_native_init()[0] is not None
for path in (["native", "python"] if native else ["python"]):
    if path == "python":
        m._c2t_list_native[:] = [None, None]
        m._c2t_list_tables.clear()
    print("== list path:", path)
    for mode in "AB":
        graph_check(mode)
    fresh_capture_check()
    threads_check()
