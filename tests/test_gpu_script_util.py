"""CPU test of benchmarks/gpu/script_util.py, the helpers the standalone GPU scripts share: host_us calls
the function its warm-up and timed counts, synchronizing around the timed calls only, and load_module
makes each copy of a source its own module, load_file loads an existing one, graph_us converts do_bench_cudagraph's
ms to µs."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import torch

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "gpu" / "script_util.py"


def _util():
    spec = importlib.util.spec_from_file_location("script_util", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_host_us_counts_calls_and_synchronizes_around_the_timed_ones(monkeypatch):
    events = []
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a: events.append("sync"))
    us = _util().host_us(lambda: events.append("call"), n=7, warmup=3)
    assert events == ["call"] * 3 + ["sync"] + ["call"] * 7 + ["sync"]
    assert us > 0


def test_load_module_gives_each_copy_its_own_module(tmp_path):
    util = _util()
    a = util.load_module("copy_a", "cache = {}\nVALUE = 1\n", tmp_path)
    b = util.load_module("copy_b", "cache = {}\nVALUE = 2\n", tmp_path)
    assert (a.VALUE, b.VALUE) == (1, 2) and a.cache is not b.cache
    assert (tmp_path / "copy_a.py").read_text() == "cache = {}\nVALUE = 1\n"


def test_load_file_and_graph_us(tmp_path, monkeypatch):
    import triton.testing

    util = _util()
    (tmp_path / "kernels.py").write_text("VALUE = 3\n")
    assert util.load_file(tmp_path / "kernels.py", "bench_kernels").VALUE == 3
    calls = []
    monkeypatch.setattr(triton.testing, "do_bench_cudagraph", lambda fn, rep: calls.append((fn, rep)) or 0.25)
    fn = object()
    assert util.graph_us(fn, rep=40) == 250.0 and calls == [(fn, 40)]  # ms -> µs


def test_sweep_helpers(monkeypatch, capsys):
    import triton.testing

    util = _util()
    assert util.launch_options() == {} and util.launch_options(8, 1) == {"num_warps": 8, "num_stages": 1}
    assert util.launch_options(stages=2) == {"num_stages": 2}
    monkeypatch.setattr(torch.cuda, "synchronize", lambda *a: None)
    monkeypatch.setattr(triton.testing, "do_bench_cudagraph", lambda fn, rep: 0.0125)
    calls = []
    util.time_or_say_why("ok", lambda: calls.append(1), lambda: ", error 1e-05")
    util.time_or_say_why("bad", lambda: calls.append(2), lambda: (_ for _ in ()).throw(AssertionError("not close\nmore")))
    util.time_or_say_why("oom", lambda: (_ for _ in ()).throw(RuntimeError("out of resource: shared memory")))

    def kern():
        pass

    util.print_spill_decisions(type("M", (), {"_c2t_spill_warps": {kern: {(("T", 64),): (8, 296, 40, 0, True)}}}))
    out = capsys.readouterr().out.splitlines()
    assert out == ["ok: 12.5 us, error 1e-05", "bad: AssertionError: not close",
                   "oom: RuntimeError: out of resource: shared memory",
                   "spill step kern constexprs ('T', 64): (8, 296, 40, 0, True)"]
    assert calls == [1, 2]
