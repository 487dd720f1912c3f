"""Host-code patterns of real cuTile modules, each on our own small example:
converted, run under Triton's CPU interpreter against a torch reference where
the pattern runs on the CPU, else checked on the emitted structure.

Patterns: launches in loops; kernels chosen at run time (if / dict); kernels
re-hinted (replace_hints, ct.kernel(k._pyfunc, ...)); grids sized from the SM
count; explicit streams; autograd.Function with forward and backward kernels;
register_impl(..., backend="cutile") -> "triton"; exhaustive_search autotuning
(first config off CUDA); kernels imported from another converted module.
"""

from __future__ import annotations

import sys
import types

import cutile2triton
import pytest

from c2t_interp import DEVICE, ConversionFailed, assert_close, convert, dev, load

import torch  # noqa: E402  (after c2t_interp set TRITON_INTERPRET)

# Two tiny kernels every example below shares: out = a + b and out = a * b,
# 1-D tiles of TILE elements (ragged sizes: the last tile is masked).
KERNELS = '''
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def add_kernel(a, b, out, TILE: ConstInt):
    i = ct.bid(0)
    x = ct.load(a, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(b, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(i,), tile=x + y)


@ct.kernel
def mul_kernel(a, b, out, TILE: ConstInt):
    i = ct.bid(0)
    x = ct.load(a, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(b, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(i,), tile=x * y)
'''


@pytest.fixture
def build(tmp_path):
    def _build(host: str, name: str = "patterns"):
        code = convert(KERNELS + host, filename=f"{name}.py")
        return code, load(code, tmp_path, name)

    return _build


def _inputs(n, dtype=torch.float32):
    g = torch.Generator().manual_seed(1234 + n)
    return dev(torch.randn(n, generator=g, dtype=dtype)), dev(torch.randn(n, generator=g, dtype=dtype))


def test_launch_in_a_host_loop(build):
    code, m = build('''
def chunked_add(a, b, chunk):
    out = torch.empty_like(a)
    for start in range(0, a.shape[0], chunk):
        end = min(start + chunk, a.shape[0])
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(end - start, 32),), add_kernel,
                  (a[start:end], b[start:end], out[start:end], 32))
    return out
''')
    assert "launch_add_kernel((triton.cdiv(end - start, 32),), a[start:end]" in code
    a, b = _inputs(300)
    assert_close(m.chunked_add(a, b, 70), a + b)


def test_launch_with_starred_arguments(build):
    # ct.launch(..., (a, *rest, TILE)): the starred part's length is known at run time, so conversion
    # counts only the fixed arguments (it used to report "passes 3 arguments but ... has 4", hostile
    # round s29); too many fixed ones is still an error.
    code, m = build('''
def starred_add(a, b):
    out = torch.empty_like(a)
    rest = (b, out)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 32),), add_kernel, (a, *rest, 32))
    return out
''')
    assert "launch_add_kernel((triton.cdiv(a.shape[0], 32),), a, *rest, 32)" in code
    a, b = _inputs(100)
    assert_close(m.starred_add(a, b), a + b)
    r = cutile2triton.convert_source(KERNELS + '''
def too_many(a, b, out, extra):
    ct.launch(torch.cuda.current_stream(), (1,), add_kernel, (a, b, out, 32, extra, *extra))
''', "t.py")
    assert not r.ok and "passes at least 5 arguments but kernel 'add_kernel' has 4 parameters" in r.rendered


def test_a_stream_only_launches_read_needs_no_cuda(build):
    # `stream = torch.cuda.current_stream()` read only by launches (which drop the stream): the line becomes
    # a comment, so this host code runs on a machine without CUDA (a newcomer's CPU trial, s30, stopped at
    # "Torch not compiled with CUDA enabled"); a stream read otherwise is still queried.
    code, m = build('''
def add_twice(a, b):
    out = torch.empty_like(a)
    stream = torch.cuda.current_stream()
    ct.launch(stream, (ct.cdiv(a.shape[0], 32),), add_kernel, (a, b, out, 32))
    ct.launch(stream, (ct.cdiv(a.shape[0], 32),), add_kernel, (out, b, out, 32))
    return out


def add_synced(a, b):
    out = torch.empty_like(a)
    stream = torch.cuda.current_stream()
    ct.launch(stream, (ct.cdiv(a.shape[0], 32),), add_kernel, (a, b, out, 32))
    stream.synchronize()
    return out
''')
    assert "    # stream = torch.cuda.current_stream()  # cutile2triton:" in code
    assert "    stream = _c2t_current_stream(torch)\n" in code  # add_synced's
    a, b = _inputs(100)
    assert_close(m.add_twice(a, b), a + 2 * b)


def test_array_of_another_rank_is_a_value_error_naming_the_ranks(build):
    # The launcher unpacks each array's extents; a 2-D array for the kernel's 1-D one used to launch with
    # its first extent and stride.
    _, m = build('''
def add(a, b):
    out = torch.empty_like(a)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 32),), add_kernel, (a, b, out, 32))
    return out
''')
    a, b = _inputs(64)
    assert_close(m.add(a, b), a + b)
    with pytest.raises(ValueError, match=r"launch_add_kernel: the kernel takes arrays of rank a: 1, b: 1, out: 1; "
                                         r"got a: 2, b: 2, out: 2"):
        m.add(a.reshape(8, 8), b.reshape(8, 8))


def test_kernel_chosen_at_run_time_by_if_and_dict(build):
    code, m = build('''
OPS = {"add": add_kernel, "mul": mul_kernel}


def by_if(a, b, multiply):
    out = torch.empty_like(a)
    kernel = mul_kernel if multiply else add_kernel
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 64),), kernel, (a, b, out, 64))
    return out


def by_dict(a, b, op):
    out = torch.empty_like(a)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 64),), OPS[op], (a, b, out, 64))
    return out
''')
    assert "_c2t_launch((triton.cdiv(a.shape[0], 64),), kernel, a, b, out, 64)" in code
    assert 'OPS = {"add": add_kernel, "mul": mul_kernel}' in code  # host code byte-identical
    a, b = _inputs(130)
    assert_close(m.by_if(a, b, True), a * b)
    assert_close(m.by_if(a, b, False), a + b)
    assert_close(m.by_dict(a, b, "mul"), a * b)
    assert_close(m.by_dict(a, b, "add"), a + b)


def test_kernels_rehinted(build):
    # Module-level replace_hints copies (liger), ct.kernel(k._pyfunc, occupancy=...) re-wraps (unsloth).
    code, m = build('''
ADD8 = add_kernel.replace_hints(num_worker_warps=8, occupancy=2)


def rewrapped(a, b, occ):
    out = torch.empty_like(a)
    k = ct.kernel(mul_kernel._pyfunc, occupancy=occ)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 64),), k, (a, b, out, 64))
    return out


def module_hinted(a, b):
    out = torch.empty_like(a)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 64),), ADD8, (a, b, out, 64))
    return out
''')
    assert "ADD8 = _c2t_kernel(add_kernel).replace_hints(num_worker_warps=8, occupancy=2)" in code
    assert "k = _c2t_kernel(_c2t_kernel(mul_kernel)._pyfunc, occupancy=occ)" in code
    # Hints: num_worker_warps -> num_warps; occupancy has no Triton equivalent (dropped).
    assert m._c2t_launch_options({"num_worker_warps": 8, "occupancy": 2, "num_ctas": 2}) == {"num_warps": 8}
    # Triton needs a power of two: a cuTile hint of 3 or 6 warps launches 4 or 8.
    assert [m._c2t_launch_options({"num_worker_warps": w})["num_warps"] for w in (1, 3, 4, 6)] == [1, 4, 4, 8]
    a, b = _inputs(200)
    assert_close(m.rewrapped(a, b, 4), a * b)
    assert_close(m.module_hinted(a, b), a + b)
    assert_close(m.module_hinted(a, b), a + b)  # the hints' options kept on ADD8 from its first launch
    assert m.ADD8._c2t_options == (m.ADD8.hints, {"num_warps": 8})


# Host code launching whatever kernel object it is given.
LAUNCH_KERNEL_OBJECT = '''
def add(a, b, k):
    out = torch.empty_like(a)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 64),), k, (a, b, out, 64))
    return out
'''


def test_hints_are_read_only_and_new_hints_relaunch_with_their_options(build):
    # As in cuTile, hints change through replace_hints (a new kernel object); the mapping itself is
    # read-only, so options kept from a first launch cannot go stale, and hints assigned anew are
    # used from the next launch.
    _, m = build(LAUNCH_KERNEL_OBJECT)
    seen = []
    real = m.add_kernel._c2t_launcher
    m.add_kernel._c2t_launcher = lambda grid, *a, **o: (seen.append(dict(o)), real(grid, *a, **o))[1]
    k = m._c2t_kernel(m.add_kernel, num_worker_warps=4)
    a, b = _inputs(200)
    assert_close(m.add(a, b, k), a + b)
    with pytest.raises(TypeError):
        k.hints["num_worker_warps"] = 8
    k.hints = {"num_worker_warps": 8}
    assert_close(m.add(a, b, k), a + b)
    assert seen == [{"num_warps": 4}, {"num_warps": 8}]


def test_hint_resolved_at_each_launch_is_not_kept(build):
    # A ct.ByTarget-like hint resolves for the current device at every launch (a process may drive
    # devices of two architectures), so its options are not kept on the kernel object.
    _, m = build(LAUNCH_KERNEL_OBJECT)
    resolved = []

    class Warps:
        def resolve(self):
            resolved.append(1)
            return 4

    k = m._c2t_kernel(m.add_kernel, num_worker_warps=Warps())
    a, b = _inputs(200)
    assert_close(m.add(a, b, k), a + b)
    assert_close(m.add(a, b, k), a + b)
    assert len(resolved) == 2 and "_c2t_options" not in vars(k)


PERSISTENT = '''
@ct.kernel
def scale_rows(x, out, n_rows: int, TILE: ConstInt):
    for row in range(ct.bid(0), n_rows, ct.num_blocks(0)):
        t = ct.load(x, index=(row, 0), shape=(1, TILE), padding_mode=ct.PaddingMode.ZERO)
        ct.store(out, index=(row, 0), tile=t * 2.0)


def scale(x):
    out = torch.empty_like(x)
    num_sms = torch.cuda.get_device_properties(x.device).multi_processor_count
    grid = (min(num_sms * 2, x.shape[0]),)
    ct.launch(torch.cuda.current_stream(), grid, scale_rows, (x, out, x.shape[0], 32))
    return out
'''


def test_grid_from_the_sm_count(build):
    code, m = build(PERSISTENT)
    # torch's query, spelled as the runtime's cached equivalent (test_torch_queries below)
    assert "    num_sms = _c2t_device_properties(torch, x.device).multi_processor_count\n" in code
    if DEVICE == "cpu":  # no device properties on the CPU: a 3-SM device, through the module's torch
        fake_cuda = types.SimpleNamespace(
            get_device_properties=lambda d: types.SimpleNamespace(multi_processor_count=3))
        m.torch = types.SimpleNamespace(empty_like=torch.empty_like, cuda=fake_cuda)
    x = dev(torch.randn(11, 32))
    assert_close(m.scale(x), x * 2.0)


TORCH_QUERIES = '''
from torch.cuda import current_stream


def queries(x):
    s = torch.cuda.current_stream()
    sms = torch.cuda.get_device_properties("cuda").multi_processor_count
    same = torch.cuda.get_device_properties(device=x.device)
    cap = torch.cuda.get_device_capability()
    kept = (torch.cuda.current_stream(x.device), current_stream())
    return s, sms, same, cap, kept


def shadowed(torch):
    return torch.cuda.current_stream(), torch.cuda.get_device_properties(0)


def launch_only(a, b):
    out = torch.empty_like(a)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 64),), add_kernel, (a, b, out, 64))
    return out
'''


def test_torch_queries(build, tmp_path):
    # TileGym's host code asks torch for the current stream and the device's properties on every
    # op call; torch.cuda resolves the device index in Python each time (4.3 and 4.9 us per call on
    # the H200's host, BENCHMARKS.md). The converted host code asks the runtime's equivalents, passing
    # the module as the call named it, which must return the same values: the same stream, and the
    # same properties object per device; a replaced torch function (a mock) is called as before.
    code, m = build(TORCH_QUERIES)
    assert "    s = _c2t_current_stream(torch)\n" in code
    assert '    sms = _c2t_device_properties(torch, "cuda").multi_processor_count\n' in code
    assert "    same = _c2t_device_properties(torch, device=x.device)\n" in code
    assert "    cap = _c2t_device_capability(torch)\n" in code
    # forms left to torch: a device argument to current_stream, and names imported from torch.cuda
    assert "    kept = (torch.cuda.current_stream(x.device), current_stream())\n" in code
    # a parameter named torch is not the module: its calls stay
    assert "    return torch.cuda.current_stream(), torch.cuda.get_device_properties(0)\n" in code
    fake = types.SimpleNamespace(cuda=types.SimpleNamespace(current_stream=lambda: "s", get_device_properties=str))
    assert m.shadowed(fake) == ("s", "0")
    # a launch on the current stream drops the query, and a module with nothing else needs no helper
    only_launch, _ = build(TORCH_QUERIES.split("def queries")[0] + TORCH_QUERIES[TORCH_QUERIES.index("def launch_only"):],
                           name="launch_only")
    assert "_c2t_current_stream" not in only_launch and "    launch_add_kernel((triton.cdiv(" in only_launch

    # Their behaviour against torch's internals, faked (two devices, streams per device); the fakes
    # carry the names of torch.cuda's own functions, so the helpers take their fast path.
    calls, current = [], [0]

    def own(fn, name):
        fn.__module__, fn.__name__ = "torch.cuda", name
        return fn

    class Stream:
        def __init__(self, stream_id, device_index, device_type):
            self.key = (stream_id, device_index, device_type)

    def props(device):
        calls.append(device)
        if isinstance(device, list):
            raise TypeError("unhashable device argument")
        return types.SimpleNamespace(major=9, minor=current[0], of=(device, current[0]))

    cuda = types.SimpleNamespace(
        _lazy_init=lambda: calls.append("init"), Stream=Stream,
        get_device_properties=own(props, "get_device_properties"),
        current_stream=own(lambda: "torch's slow path", "current_stream"),
        get_device_capability=own(lambda device=None: "torch's slow path", "get_device_capability"))
    t = types.SimpleNamespace(_C=types.SimpleNamespace(_cuda_getDevice=lambda: current[0],
                                                       _cuda_getCurrentStream=lambda d: (100 + d, d, 1)), cuda=cuda)
    assert m._c2t_current_stream(t).key == (100, 0, 1) and calls == ["init"]
    first = m._c2t_device_properties(t, "cuda")
    assert m._c2t_device_properties(t, "cuda") is first and first.of == ("cuda", 0)
    assert calls == ["init", "cuda"]  # remembered
    current[0] = 1  # another current device: "cuda" names it, so torch is asked again
    assert m._c2t_device_properties(t, "cuda").of == ("cuda", 1) and m._c2t_current_stream(t).key == (101, 1, 1)
    assert m._c2t_device_capability(t) == (9, 1)
    with pytest.raises(TypeError):  # not hashable: torch's call, torch's error
        m._c2t_device_properties(t, [0])
    assert calls.count("cuda") == 2 and calls.count(None) == 1
    # Arguments equal as values but read apart by torch (1, 1.0, True) are remembered apart.
    assert [m._c2t_device_properties(t, d).of[0] for d in (1, 1.0, True, 1)] == [1, 1.0, True, 1]
    assert calls[-3:] == [1, 1.0, True]
    # A replaced torch function (a test's mock) is called every time, its value never remembered.
    answers = iter([(132, 1), (8, 2)])
    cuda.get_device_properties = lambda d: types.SimpleNamespace(multi_processor_count=next(answers)[0])
    assert [m._c2t_device_properties(t, "cuda").multi_processor_count for _ in range(2)] == [132, 8]
    cuda.get_device_capability = lambda device=None: (8, 0)
    cuda.current_stream = lambda: "mocked stream"
    assert m._c2t_device_capability(t) == (8, 0) and m._c2t_current_stream(t) == "mocked stream"
    cuda.get_device_properties = own(props, "get_device_properties")  # torch's again: remembered values
    assert m._c2t_device_properties(t, "cuda").of == ("cuda", 1) and calls.count("cuda") == 2
    # A module whose `torch` is something else (a fake, or torch patched in tests): what it says.
    m.torch = types.SimpleNamespace(cuda=types.SimpleNamespace(
        current_stream=lambda *device: "fake stream",
        get_device_properties=lambda d: types.SimpleNamespace(multi_processor_count=7, d=d),
        get_device_capability=lambda device=None: (1, 2)))
    m.current_stream = lambda: "imported"  # `from torch.cuda import current_stream`, the real one on a CPU build
    s, sms, same, cap, _ = m.queries(types.SimpleNamespace(device="dev"))
    assert (s, sms, same.d, cap) == ("fake stream", 7, "dev", (1, 2))
    m.torch = torch

    if DEVICE == "cuda":  # the real ones: the same values as torch's
        _, real = build(TORCH_QUERIES, name="torch_queries_real")
        x = dev(torch.zeros(4))
        s, sms, same, cap, kept = real.queries(x)
        assert s == torch.cuda.current_stream() and s.cuda_stream == torch.cuda.current_stream().cuda_stream
        assert sms == torch.cuda.get_device_properties("cuda").multi_processor_count
        assert same is torch.cuda.get_device_properties(x.device)
        assert cap == torch.cuda.get_device_capability()
        a, b = _inputs(130)
        assert_close(real.launch_only(a, b), a + b)


def test_explicit_streams(build):
    # `with torch.cuda.stream(s):` is torch host code and stays; an explicit stream
    # argument of ct.launch is made current for the launch (Triton launches on
    # torch's current stream), torch.cuda.current_stream() is simply dropped.
    code, m = build('''
def on_stream(a, b, stream):
    out = torch.empty_like(a)
    ct.launch(stream, (ct.cdiv(a.shape[0], 64),), add_kernel, (a, b, out, 64))
    return out


def in_with(a, b, s):
    out = torch.empty_like(a)
    with torch.cuda.stream(s):
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 64),), add_kernel, (a, b, out, 64))
    return out
''')
    assert "_c2t_on_stream(stream, launch_add_kernel, (triton.cdiv(a.shape[0], 64),), a, b, out, 64)" in code
    assert "    with torch.cuda.stream(s):\n        launch_add_kernel(" in code
    a, b = _inputs(100)
    if DEVICE == "cpu":
        assert_close(m.on_stream(a, b, None), a + b)  # not a torch.cuda.Stream: the current stream
    else:
        s = torch.cuda.Stream()
        out = m.on_stream(a, b, s)
        s.synchronize()
        assert_close(out, a + b)


def test_autograd_function_with_forward_and_backward_kernels(build):
    code, m = build('''
class Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        out = torch.empty_like(a)
        ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 64),), mul_kernel, (a, b, out, 64))
        ctx.save_for_backward(a, b)
        return out

    @staticmethod
    def backward(ctx, dout):
        a, b = ctx.saved_tensors
        da = torch.empty_like(a)
        db = torch.empty_like(b)
        grid = (ct.cdiv(a.shape[0], 64),)
        ct.launch(torch.cuda.current_stream(), grid, mul_kernel, (dout, b, da, 64))
        ct.launch(torch.cuda.current_stream(), grid, mul_kernel, (dout, a, db, 64))
        return da, db
''')
    assert "class Mul(torch.autograd.Function):" in code
    a, b = _inputs(150)
    a.requires_grad_(True)
    b.requires_grad_(True)
    out = m.Mul.apply(a, b)
    g = dev(torch.randn(150))
    out.backward(g)
    assert_close(out.detach(), (a * b).detach())
    assert_close(a.grad, g * b.detach())
    assert_close(b.grad, g * a.detach())


def test_register_impl_backend(build):
    code, m = build('''
REGISTRY = {}


def register_impl(name, backend):
    def wrap(fn):
        REGISTRY[(name, backend)] = fn
        return fn
    return wrap


@register_impl("my_add", backend="cutile")
def my_add(a, b):
    out = torch.empty_like(a)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 64),), add_kernel, (a, b, out, 64))
    return out
''')
    assert '@register_impl("my_add", backend="triton")' in code
    assert set(m.REGISTRY) == {("my_add", "triton")}
    a, b = _inputs(65)
    assert_close(m.REGISTRY[("my_add", "triton")](a, b), a + b)


def test_exhaustive_search_takes_the_first_config_off_cuda(build):
    # The TileGym shape: a cache keyed by shape, exhaustive_search under
    # compiler_timeout, the grid computed from the best config, TILE a config field.
    code, m = build('''
from types import SimpleNamespace
from cuda.tile.tune import exhaustive_search

_cache = {}


def tuned_add(a, b):
    out = torch.empty_like(a)
    n = a.shape[0]
    if n not in _cache:
        configs = [SimpleNamespace(TILE=t, occupancy=o) for t in (32, 128) for o in (1, 2)]
        with ct.compiler_timeout(5):
            result = exhaustive_search(configs, torch.cuda.current_stream(), lambda c: (ct.cdiv(n, c.TILE),),
                                       add_kernel, lambda c: (a, b, out, c.TILE),
                                       lambda c: {"occupancy": c.occupancy})
        best = result.best.config
        _cache[n] = (best, add_kernel.replace_hints(occupancy=best.occupancy))
    best, kernel = _cache[n]
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(n, best.TILE),), kernel, (a, b, out, best.TILE))
    return out
''')
    # The current stream is passed as None (the search times on it), as ct.launch drops it: the
    # host code runs without a GPU (here the interpreter), where the search takes the first config.
    assert "result = _c2t_exhaustive_search(configs, None, lambda c:" in code
    assert "torch.cuda" not in code.split("def tuned_add")[1]
    assert "with _c2t_compiler_timeout(5):" in code
    assert "cuda.tile" not in code.replace("(cuda.tile)", "")
    a, b = _inputs(333)
    assert_close(m.tuned_add(a, b), a + b)
    if DEVICE == "cpu":
        assert list(m._cache.values())[0][0].TILE == 32  # first config, untimed (interpreter)


def test_exhaustive_search_keeps_another_stream(build):
    # A stream other than the current one stays (the search times on it, as cuTile's does); the
    # current stream by keyword, or through a name bound to it, is passed as None.
    code, _ = build('''
from types import SimpleNamespace
from cuda.tile.tune import exhaustive_search


def tuned(a, b, out, s):
    configs = [SimpleNamespace(TILE=32)]
    r1 = exhaustive_search(configs, s, lambda c: (1,), add_kernel, lambda c: (a, b, out, c.TILE))
    cur = torch.cuda.current_stream()
    r2 = exhaustive_search(configs, cur, lambda c: (1,), add_kernel, lambda c: (a, b, out, c.TILE))
    r3 = exhaustive_search(configs, stream=torch.cuda.current_stream(), grid_fn=lambda c: (1,), kernel=add_kernel,
                           args_fn=lambda c: (a, b, out, c.TILE))
    return r1, r2, r3
''')
    assert "r1 = _c2t_exhaustive_search(configs, s, lambda c:" in code
    assert "r2 = _c2t_exhaustive_search(configs, None, lambda c:" in code
    assert "r3 = _c2t_exhaustive_search(configs, stream=None, grid_fn=" in code
    assert "if isinstance(stream, torch.cuda.Stream) and stream != torch.cuda.current_stream(stream.device):" in code


def test_kernels_imported_from_another_converted_module(tmp_path, monkeypatch):
    # pkg/cutile/kernels.py defines the kernel; pkg/cutile/user.py imports it by
    # absolute path and launches it. The outputs live at pkg/triton/.
    user = '''
import cuda.tile as ct
import torch
from pkg.cutile.kernels import add_kernel


def add(a, b):
    out = torch.empty_like(a)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 64),), add_kernel, (a, b, out, 64))
    return out
'''
    out_dir = tmp_path / "pkg" / "triton"
    out_dir.mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (out_dir / "__init__.py").write_text("")
    (out_dir / "kernels.py").write_text(convert(KERNELS, filename="pkg/cutile/kernels.py"))
    user_code = convert(user, filename="pkg/cutile/user.py")
    assert "from pkg.triton.kernels import add_kernel\n" in user_code
    assert "_c2t_launch((triton.cdiv(a.shape[0], 64),), add_kernel, a, b, out, 64)" in user_code
    (out_dir / "user.py").write_text(user_code)
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [k for k in sys.modules if k == "pkg" or k.startswith("pkg.")]:
        monkeypatch.delitem(sys.modules, name)
    import importlib

    mod = importlib.import_module("pkg.triton.user")
    a, b = _inputs(100)
    assert_close(mod.add(a, b), a + b)


def test_kernel_rehinted_in_another_converted_module(tmp_path, monkeypatch):
    # TileGym's utils.cached_replace_hints re-hints a kernel of the calling
    # module: the kernel object made by one converted module's runtime is
    # launched by another's (each module carries its own _C2TKernel class).
    utils = '''
import cuda.tile as ct

_cache = {}


def cached_replace_hints(kernel, **hints):
    key = (id(kernel), tuple(sorted(hints.items())))
    if key not in _cache:
        _cache[key] = kernel.replace_hints(**hints)
    return _cache[key]
'''
    user = KERNELS + '''
from pkg.cutile.utils import cached_replace_hints


def add(a, b):
    out = torch.empty_like(a)
    k = cached_replace_hints(ct.kernel(add_kernel._pyfunc, occupancy=2), num_worker_warps=4)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 64),), k, (a, b, out, 64))
    return out
'''
    out_dir = tmp_path / "pkg" / "triton"
    out_dir.mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (out_dir / "__init__.py").write_text("")
    (out_dir / "utils.py").write_text(convert(utils, filename="pkg/cutile/utils.py"))
    (out_dir / "user.py").write_text(convert(user, filename="pkg/cutile/user.py"))
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [k for k in sys.modules if k == "pkg" or k.startswith("pkg.")]:
        monkeypatch.delitem(sys.modules, name)
    import importlib

    mod = importlib.import_module("pkg.triton.user")
    utils_mod = importlib.import_module("pkg.triton.utils")
    a, b = _inputs(150)
    assert_close(mod.add(a, b), a + b)
    # utils' runtime recognised the other module's kernel object: one level of
    # hints on the kernel itself, not a kernel object wrapped as a function.
    (k,) = utils_mod._cache.values()
    assert k.hints == {"occupancy": 2, "num_worker_warps": 4}
    assert k._pyfunc is mod.add_kernel


def test_host_helper_imported_relatively_stays_an_import(tmp_path, monkeypatch):
    # TileGym attention.py: `from .utils import cached_replace_hints`, a host
    # function that names ct.kernel in an annotation and keeps a module-level
    # annotated cache. Copying it into the importer (as tile helpers are) lost
    # the cache global (NameError on the H200); it must stay imported from the
    # converted utils, which owns the cache.
    src = tmp_path / "pkg" / "cutile"
    src.mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (src / "__init__.py").write_text("")
    (src / "utils.py").write_text('''
from collections import OrderedDict

import cuda.tile as ct

_CACHE: "OrderedDict[tuple, object]" = OrderedDict()


def cached_replace_hints(kernel: ct.kernel, **hints) -> ct.kernel:
    key = (id(kernel), tuple(sorted(hints.items())))
    if key not in _CACHE:
        _CACHE[key] = kernel.replace_hints(**hints)
    return _CACHE[key]
''')
    (src / "user.py").write_text(KERNELS + '''
from .utils import cached_replace_hints


def add(a, b):
    out = torch.empty_like(a)
    k = cached_replace_hints(add_kernel, num_worker_warps=4)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 64),), k, (a, b, out, 64))
    return out
''')
    out_dir = tmp_path / "pkg" / "triton"
    out_dir.mkdir()
    (out_dir / "__init__.py").write_text("")
    for name in ("utils", "user"):
        code = convert((src / f"{name}.py").read_text(), filename=str(src / f"{name}.py"))
        (out_dir / f"{name}.py").write_text(code)
    user_code = (out_dir / "user.py").read_text()
    assert "from .utils import cached_replace_hints" in user_code
    assert "def cached_replace_hints" not in user_code
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [k for k in sys.modules if k == "pkg" or k.startswith("pkg.")]:
        monkeypatch.delitem(sys.modules, name)
    import importlib

    mod = importlib.import_module("pkg.triton.user")
    utils_mod = importlib.import_module("pkg.triton.utils")
    a, b = _inputs(150)
    assert_close(mod.add(a, b), a + b)
    assert_close(mod.add(a, b), a + b)
    assert len(utils_mod._CACHE) == 1  # one cache, in the converted utils


def test_tile_helper_imported_from_a_sibling_module(tmp_path, monkeypatch):
    # pkg/cutile/helpers.py defines a tile helper (no kernel of its own calls it);
    # pkg/cutile/user.py imports it relatively and calls it from its kernel. The
    # converter copies the helper into user.py (lowered at its call site) and
    # drops it from the import; helpers.py leaves it out with a comment.
    src = tmp_path / "src" / "pkg" / "cutile"
    src.mkdir(parents=True)
    (src / "helpers.py").write_text('''
import cuda.tile as ct

OFFSET = 1.5


def _shift(x):
    return x + OFFSET


def relu_shift(x):
    return ct.maximum(_shift(x), 0.0)
''')
    (src / "user.py").write_text('''
import cuda.tile as ct
import torch
from .helpers import relu_shift


@ct.kernel
def k(a, out, TILE: ct.Constant[int]):
    i = ct.bid(0)
    x = ct.load(a, index=(i,), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(i,), tile=relu_shift(x))


def run(a):
    out = torch.empty_like(a)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 32),), k, (a, out, 32))
    return out
''')
    # The file's path is the filename: relative imports are read from its folder.
    user_code = convert((src / "user.py").read_text(), filename=str(src / "user.py"))
    helpers_code = convert((src / "helpers.py").read_text(), filename=str(src / "helpers.py"))
    assert "from .helpers import" not in user_code
    assert "@triton.jit\ndef relu_shift(" in user_code and "@triton.jit\ndef _shift(" in user_code
    assert "def relu_shift" not in helpers_code and "# cutile2triton: `relu_shift`" in helpers_code
    m = load(user_code, tmp_path, "user")
    a = dev(torch.randn(70))
    assert_close(m.run(a), torch.clamp(a + 1.5, min=0.0))


def _convert_sibling_user(tmp_path, helpers_src: str, imports: str, tile_expr: str) -> str:
    """Writes helpers.py (`helpers_src`) and a user.py beside it in a `cutile` package folder:
    a kernel that loads 16 elements, stores `tile_expr` of them (`x`), and a `run(a)` launching
    it; returns user.py converted (relative imports are read from its folder)."""
    src = tmp_path / "src" / "pkg" / "cutile"
    src.mkdir(parents=True)
    (src / "helpers.py").write_text(helpers_src)
    (src / "user.py").write_text(f'''
import cuda.tile as ct
import torch
from .helpers import {imports}


@ct.kernel
def k(a, out):
    i = ct.bid(0)
    x = ct.load(a, index=(i,), shape=(16,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(i,), tile={tile_expr})


def run(a):
    out = torch.empty_like(a)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 16),), k, (a, out))
    return out
''')
    return convert((src / "user.py").read_text(), filename=str(src / "user.py"))


def test_sibling_helper_that_only_calls_tile_helpers_is_copied(tmp_path):
    # TileGym's activation/gelu.py: gelu_forward_ct(x, BLOCK: ct.Constant[int]) has no ct.*
    # call of its own, only a call of another tile helper. It is tile code all the same (was:
    # taken for a host function, left imported, and geglu's kernel lost that branch on the GPU).
    code = _convert_sibling_user(tmp_path, '''
import cuda.tile as ct


def cdf(x, TILE: ct.Constant[int]):
    return ct.full((TILE,), 0.5, dtype=x.dtype) * x


def plain(x, TILE: ct.Constant[int]):
    return x * cdf(x, TILE)


def untyped(x):
    return plain(x, 16) + 1.0
''', "untyped", "untyped(x)")
    assert "from .helpers import" not in code and "cannot be converted" not in code, code
    for f in ("untyped", "plain", "cdf"):
        assert f"@triton.jit\ndef {f}(" in code, code
    m = load(code, tmp_path, "user_chain")
    a = dev(torch.randn(40))
    assert_close(m.run(a), a * a * 0.5 + 1.0)


def test_sibling_helper_with_an_aliased_constant_parameter_is_copied(tmp_path):
    # `ConstInt = ct.Constant[int]` (TileGym's and cuTile's own spelling): a parameter
    # annotated with the alias marks tile code as `ct.Constant[int]` does (was: the helper
    # stayed imported as host code and the kernel failed with "'outer' is not defined").
    code = _convert_sibling_user(tmp_path, '''
import cuda.tile as ct

ConstInt = ct.Constant[int]


def scale(x, N: ConstInt):
    return x * N


def outer(x):
    return scale(x, 3) + 1.0
''', "outer, scale", "outer(x) + scale(x, 2)")
    assert "from .helpers import" not in code, code
    m = load(code, tmp_path, "user_alias")
    a = dev(torch.randn(40))
    assert_close(m.run(a), a * 5 + 1.0)


_ABSOLUTE_UTIL = '''
import cuda.tile as ct
import cuda.tile.compilation


def unswizzle(t):
    # Only tile methods, no ct.* name (cutile-python's kernel_utils.unswizzle_32_4_4):
    # tile code because a kernel calls it.
    return t.reshape((4, 4)).permute((1, 0)).reshape((16,))


def shifted(t):
    return t + ct.full((16,), 1.0, dtype=t.dtype)


def bytecode_of(kernel):
    # Host code that uses cuda.tile (cutile-python's test/util.py get_bytecode): stays imported.
    return ct.compilation.export_kernel(kernel)


@ct.kernel
def copy_kernel(a, out):
    i = ct.bid(0)
    ct.store(out, index=(i,), tile=ct.load(a, index=(i,), shape=(16,)))
'''

_ABSOLUTE_USER = '''
import cuda.tile as ct
import torch
from {module} import unswizzle, shifted, bytecode_of, copy_kernel


@ct.kernel
def k(a, out):
    i = ct.bid(0)
    x = ct.load(a, index=(i,), shape=(16,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, index=(i,), tile=shifted(unswizzle(x)))


def run(a):
    out = torch.empty_like(a)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 16),), k, (a, out))
    return out
'''


def test_absolute_import_of_a_tile_helper_is_copied(tmp_path):
    # `from kernels.kernel_utils import unswizzle` in cutile-python's test/kernels/scaled_matmul.py
    # (test/ is on sys.path under pytest: the first folder upwards without __init__.py). Was: "name
    # 'unswizzle' is not defined in tile code".
    pkg = tmp_path / "tests" / "kernels"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    module, user = "kernels.kernel_utils", pkg / "user.py"
    (pkg / "kernel_utils.py").write_text(_ABSOLUTE_UTIL)
    user.write_text(_ABSOLUTE_USER.format(module=module))
    code = convert(user.read_text(), filename=str(user))
    # Copied: the two helpers the kernel calls. Imported still: the host function and the
    # kernel (the converted sibling defines them; the import names the same module).
    assert f"from {module} import bytecode_of, copy_kernel\n" in code, code
    assert "def unswizzle(" in code and "def shifted(" in code, code
    assert "def bytecode_of(" not in code and "def copy_kernel(" not in code, code
    # Run it: the kernel alone (the host import names a cuTile module, which this test leaves out).
    code = code.replace(f"from {module} import bytecode_of, copy_kernel\n", "")
    m = load(code, tmp_path, "absolute_import")
    a = dev(torch.randn(40))  # 2.5 tiles: the last one ragged
    padded = torch.nn.functional.pad(a.cpu(), (0, 8))
    expected = (padded.reshape(3, 4, 4).transpose(1, 2).reshape(48) + 1.0)[:40]
    assert_close(m.run(a), expected)


_PKG_HELPER = "import cuda.tile as ct\n\n\ndef f(x):\n    return x * 3.0\n"
_PKG_USER = """import cuda.tile as ct
import torch
{imports}


@ct.kernel
def k(a, c, TILE: ct.Constant[int]):
    x = ct.load(a, index=(ct.bid(0),), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(c, index=(ct.bid(0),), tile={expr})


def run(a):
    c = torch.empty_like(a)
    ct.launch(None, (ct.cdiv(a.shape[0], 16),), k, (a, c, 16))
    return c
"""


def _pkg_tree(tmp_path, files, imports, expr="f(x)"):
    for rel, text in files.items():
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    user = tmp_path / "main.py"
    user.write_text(_PKG_USER.format(imports=imports, expr=expr))
    return user


@pytest.mark.parametrize("files, imports, expr, why", [
    # A name the importer binds inside a block (the hostile round of s31: the copy replaced it).
    ({"pkg/h.py": "import cuda.tile as ct\n\n\ndef g(x):\n    return x * 3.0\n\n\ndef f(x):\n    return g(x)\n"},
     "from pkg.h import f\nif True:\n    def g(x):\n        return x - 1.0", "f(x) + g(x)",
     r"it uses 'g', which this module binds otherwise"),
    # The same name imported from two modules: Python binds the last.
    ({"pkg/a.py": _PKG_HELPER, "pkg/b.py": _PKG_HELPER.replace("3.0", "5.0")},
     "from pkg.a import f\nfrom pkg.b import f", "f(x)", r"'f' is bound more than once in this module"),
    # A helper module constant rebound after the helper: no one value to copy.
    ({"pkg/h.py": "import cuda.tile as ct\nSCALE = 3.0\n\n\ndef f(x):\n    return x * SCALE\n\n\nSCALE = 4.0\n"},
     "from pkg.h import f", "f(x)", r"it uses 'SCALE', which \S*h.py binds more than once"),
    # Top-level code of the importer reading the helper before the copied definition would exist.
    ({"pkg/h.py": _PKG_HELPER}, "from pkg.h import f\nNAME = f.__name__", "f(x)",
     r"top-level code reads 'f' before the copied definition"),
    # A single-name absolute import may be a built-in or standard module (a local math.py).
    ({"math.py": _PKG_HELPER.replace("def f", "def floor")}, "from math import floor", "floor(x)", r""),
])
def test_imported_helpers_that_cannot_be_copied_faithfully_are_diagnosed(tmp_path, files, imports, expr, why):
    files = {**files, **({"pkg/__init__.py": ""} if any(k.startswith("pkg/") for k in files) else {})}
    user = _pkg_tree(tmp_path, files, imports, expr)
    with pytest.raises(ConversionFailed, match=r"main.py:\d+:\d+: error: name '\w+' is not defined in tile code.*" + why):
        convert(user.read_text(), filename=str(user))


def test_a_package_comes_before_a_module_file_and_ct_kernel_copies_an_imported_function(tmp_path):
    # Python imports pkg/mod/__init__.py before pkg/mod.py; `ct.kernel(f)` on an imported f copies f and
    # makes it a kernel (was: the cuda.tile import stayed and the module failed to import).
    user = _pkg_tree(tmp_path, {"pkg/__init__.py": "", "pkg/mod/__init__.py": _PKG_HELPER,
                                "pkg/mod.py": _PKG_HELPER.replace("3.0", "7.0")}, "from pkg.mod import f")
    m = load(convert(user.read_text(), filename=str(user)), tmp_path, "pkg_precedence")
    a = dev(torch.randn(37))
    assert_close(m.run(a), a * 3.0)
    launcher = _pkg_tree(tmp_path / "l", {"pkg/__init__.py": "", "pkg/h.py": _PKG_HELPER.replace(
        "def f(x):\n    return x * 3.0\n",
        "def f(a, c, TILE: ct.Constant[int]):\n"
        "    x = ct.load(a, index=(ct.bid(0),), shape=(TILE,), padding_mode=ct.PaddingMode.ZERO)\n"
        "    ct.store(c, index=(ct.bid(0),), tile=x * 3.0)\n")}, "from pkg.h import f", expr="x")
    text = launcher.read_text().replace("ct.launch(None, (ct.cdiv(a.shape[0], 16),), k, (a, c, 16))",
                                        "ct.launch(None, (ct.cdiv(a.shape[0], 16),), ct.kernel(f), (a, c, 16))")
    code = convert(text, filename=str(launcher))
    assert "from pkg.h import" not in code, code
    assert_close(load(code, tmp_path, "ct_kernel_imported").run(a), a * 3.0)


def test_absolute_import_outside_the_package_root_is_not_followed(tmp_path):
    # Only the file's folder and its package root are searched, as Python would: a module of the
    # same name further up is another one, and the helper stays imported (and unknown to tile code).
    (tmp_path / "kernel_utils.py").write_text(_ABSOLUTE_UTIL)
    pkg = tmp_path / "root" / "kernels"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    user = pkg / "user.py"
    user.write_text(_ABSOLUTE_USER.format(module="kernel_utils"))
    with pytest.raises(ConversionFailed, match="name '(shifted|unswizzle)' is not defined in tile code"):
        convert(user.read_text(), filename=str(user))


def test_error_in_a_sibling_tile_helper_names_its_file_and_line(tmp_path):
    # The helper is compiled in the importing module (copied in, driver/splice.h);
    # its error is reported at the import, naming the helper's own file:line:col.
    import cutile2triton

    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "helpers.py").write_text(
        "import cuda.tile as ct\n\n\ndef deep(x):\n    return ct.exp(x)[0]\n")
    main = ("import cuda.tile as ct\nfrom .helpers import deep\n\n\n@ct.kernel\ndef k(X, Z):\n"
            "    x = ct.load(X, (0,), (16,))\n    ct.store(Z, index=(0,), tile=deep(x))\n")
    (tmp_path / "main.py").write_text(main)
    r = cutile2triton.convert_source(main, str(tmp_path / "main.py"))
    assert not r.ok
    err = [d for d in r.diagnostics if d.severity == "error"][0]
    assert err.line == 2, r.rendered
    assert f"in {tmp_path / 'helpers.py'}:5:" in err.message, r.rendered
    # The nesting limit covers copied helpers as well.
    (tmp_path / "helpers.py").write_text(
        "import cuda.tile as ct\n\n\ndef deep(x):\n    return ct.exp(x) + " + " + ".join(["x"] * 400) + "\n")
    r = cutile2triton.convert_source(main, str(tmp_path / "main.py"))
    assert not r.ok and "nested more than 200 levels" in r.rendered, r.rendered
    assert f"in {tmp_path / 'helpers.py'}:5:" in r.rendered


def test_unused_tile_helpers_are_left_out_not_host_errors():
    # A helper marked @ct.function, or taking a ct.Constant parameter, that no kernel
    # of this module calls is tile code: left out with a warning, and the module's
    # ConstInt alias goes with it (was: host-code errors on the decorator/annotation).
    import cutile2triton

    src = """
import cuda.tile as ct
ConstInt = ct.Constant[int]


@ct.function
def helper(x):
    return x * 2.0


def helper2(x, T: ConstInt):
    return x + T


@ct.kernel
def k(a, out):
    ct.store(out, (0,), ct.load(a, (0,), (8,)))
"""
    r = cutile2triton.convert_source(src, filename="unused.py")
    assert r.ok, r.rendered
    assert "'helper' is cuTile tile code (@ct.function)" in r.rendered
    assert "'helper2' is cuTile tile code (ct.Constant parameter 'T')" in r.rendered
    assert "ConstInt" not in r.code and "@ct.function" not in r.code


def test_factory_kernel_may_shadow_the_factory_names():
    # The kernel's own parameters and locals are not reads of the factory's names.
    import cutile2triton

    src = """
import functools
import cuda.tile as ct


@functools.lru_cache
def make(X, t):
    @ct.kernel
    def kern(X, Y):
        t = ct.load(X, (0,), (8,))
        ct.store(Y, (0,), t)
    return kern
"""
    r = cutile2triton.convert_source(src, filename="factory.py")
    assert r.ok, r.rendered
    assert "@triton.jit" in r.code


def test_a_factory_kernel_launched_outside_its_factory(tmp_path):
    # The launcher of a kernel made by a factory is a local of the factory: a launch elsewhere of the
    # returned kernel goes through the launcher the kernel carries (it called launch_k, a NameError at
    # run time), while one inside the factory names it directly.
    src = """
import cuda.tile as ct
import torch


def make(T):
    @ct.kernel(num_worker_warps=T // 16)
    def k(x, y, TILE: ct.Constant[int]):
        t = ct.load(x, (ct.bid(0),), (TILE,), padding_mode=ct.PaddingMode.ZERO)
        ct.store(y, (ct.bid(0),), t * 2)
    return k


def make_and_run(x, y):
    @ct.kernel
    def k(x, y, TILE: ct.Constant[int]):
        t = ct.load(x, (ct.bid(0),), (TILE,), padding_mode=ct.PaddingMode.ZERO)
        ct.store(y, (ct.bid(0),), t + 1)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), k, (x, y, 16))


def run(x, y):
    k = make(64)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(x.shape[0], 16),), k, (x, y, 16))
"""
    code = convert(src, filename="factory_launch.py")
    run_body = code[code.index("def run("):]
    assert "_c2t_launch(" in run_body and "launch_k(" not in run_body, run_body
    inside = code[code.index("def make_and_run("):code.index("def run(")]
    assert "\n    launch_k(" in inside, inside
    m = load(code, tmp_path, "factory_launch")
    x = dev(torch.randn(40, generator=torch.Generator().manual_seed(40)))
    y = dev(torch.full((40,), float("nan")))
    m.run(x, y)
    assert_close(y, x * 2)
    m.make_and_run(x, y)
    assert_close(y, x + 1)


_INLINE_KERNEL = '''
import cuda.tile as ct
import torch


def add_one(X, Y, TILE: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(Y, index=(i,), tile=ct.load(X, index=(i,), shape=(TILE,)) + 1)


def twice(X, Y, TILE: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(Y, index=(i,), tile=ct.load(X, index=(i,), shape=(TILE,)) * 2)


def run_inline(X):
    Y = torch.empty_like(X)
    ct.launch(None, (ct.cdiv(X.shape[0], 16),), ct.kernel(add_one), (X, Y, 16))
    return Y


def run_bound(X):
    kernel = ct.kernel(twice)
    Y = torch.empty_like(X)
    ct.launch(None, (ct.cdiv(X.shape[0], 16),), kernel, (X, Y, 16))
    return Y
'''


def test_a_function_launched_as_ct_kernel_f_is_a_kernel(tmp_path):
    # cutile-python's tests launch undecorated functions as `ct.kernel(f)` in host code (test_alias,
    # test_launch). Was: f was left out as an unused tile helper, and the host code's `f` was a
    # NameError at run time in an output reported as converted.
    code = convert(_INLINE_KERNEL, "inline_kernel.py")
    assert "def launch_add_one(" in code and "def launch_twice(" in code, code
    m = load(code, tmp_path, "inline_kernel")
    x = dev(torch.randn(40))  # 2.5 tiles
    assert_close(m.run_inline(x), x + 1)
    assert_close(m.run_bound(x), x * 2)


def test_a_tile_function_host_code_only_refers_to_is_an_error():
    # `@pytest.mark.parametrize("kernel", [f])` then `ct.kernel(kernel)` (cutile-python's test_fma):
    # which function becomes a kernel is known only at run time. Left out, `f` would be a NameError;
    # the converter says so instead of writing that output.
    src = _INLINE_KERNEL + "\n\nKERNELS = [add_one]\n"
    with pytest.raises(ConversionFailed, match=r"inline_kernel.py:6:1: error: function 'add_one' is cuTile tile code "
                                               r"\(ct.bid\) that host code of this module refers to"):
        convert(src.replace("ct.kernel(add_one)", "ct.kernel(KERNELS[0])"), "inline_kernel.py")


def test_ct_kernel_of_one_function_with_two_option_sets_is_an_error():
    src = _INLINE_KERNEL + "\n\ndef other(X):\n    return ct.kernel(add_one, num_ctas=2)\n"
    with pytest.raises(ConversionFailed, match=r"ct.kernel\(add_one, ...\) is called with other options than at line"):
        convert(src, "inline_kernel.py")
    # cuTile's defaults spelt out are no other options (the hostile round of s31).
    convert(_INLINE_KERNEL + "\n\ndef other(X):\n    return ct.kernel(add_one, opt_level=3, occupancy=None)\n",
            "inline_kernel.py")


def test_bytecode_version_stands_in_for_cutiles_enum(tmp_path):
    # cuTile's own test helpers call major()/minor() on BytecodeVersion members (cutile-python's
    # conftest.requires_tileiras, given the converted bench_matmul's `BytecodeVersion.V_13_3`): on
    # the H200 the converted bench failed to collect while the members were plain ints.
    code = convert('''
import cuda.tile as ct
from cuda.tile._bytecode.version import BytecodeVersion
from cuda.tile._compile import _get_max_supported_bytecode_version


@ct.kernel
def k(X):
    ct.store(X, index=(0,), tile=ct.zeros((16,), dtype=ct.float32))


def gate():
    v = BytecodeVersion.V_13_3
    top = _get_max_supported_bytecode_version("/tmp")
    return v.major(), v.minor(), v.as_string(), int(v), top >= v, isinstance(v, int)
''', "bytecode_gate.py")
    m = load(code, tmp_path, "bytecode_gate")
    assert m.gate() == (13, 3, "13.3", 130300, True, True)
    # Members used in place, and the package's re-export (cutile-python's test_pdl imports it from there).
    code = convert('''
import cuda.tile as ct
from cuda.tile._bytecode import BytecodeVersion


@ct.kernel
def k(X):
    ct.store(X, index=(0,), tile=ct.zeros((16,), dtype=ct.float32))


def info():
    return BytecodeVersion.V_13_3.as_string(), BytecodeVersion.V_13_2.name, BytecodeVersion.V_13_4.value
''', "bytecode_members.py")
    assert load(code, tmp_path, "bytecode_members").info() == ("13.3", "V_13_2", 130400)


def test_same_named_kernels_nested_in_different_functions(tmp_path):
    # cuTile's own tests define `@ct.kernel def kernel` inside each test function (cutile-python's
    # test_constfold, test_tuple, ...): each is converted in place with its own local launcher. Was:
    # "another kernel of this module has the same name" for all but the first.
    code = convert('''
import cuda.tile as ct
import torch


def run_add(x):
    @ct.kernel
    def kernel(X, Y, TILE: ct.Constant[int]):
        i = ct.bid(0)
        ct.store(Y, index=(i,), tile=ct.load(X, index=(i,), shape=(TILE,)) + 1)
    y = torch.empty_like(x)
    ct.launch(None, (ct.cdiv(x.shape[0], 16),), kernel, (x, y, 16))
    return y


def run_scale(x):
    @ct.kernel
    def kernel(X, Y, TILE: ct.Constant[int]):
        i = ct.bid(0)
        ct.store(Y, index=(i,), tile=ct.load(X, index=(i,), shape=(TILE,)) * 3)
    y = torch.empty_like(x)
    ct.launch(None, (ct.cdiv(x.shape[0], 16),), kernel, (x, y, 16))
    return y
''', "nested_same_name.py")
    m = load(code, tmp_path, "nested_same_name")
    x = dev(torch.randn(40))
    assert_close(m.run_add(x), x + 1)
    assert_close(m.run_scale(x), x * 3)
    assert_close(m.run_add(x), x + 1)  # the second kernel's launches did not replace the first's


def test_a_nested_kernel_named_like_a_module_kernel_is_still_rejected():
    src = '''
import cuda.tile as ct


@ct.kernel
def kernel(X):
    ct.store(X, index=(0,), tile=ct.zeros((16,), dtype=ct.float32))


def factory():
    @ct.kernel
    def kernel(X):
        ct.store(X, index=(0,), tile=ct.ones((16,), dtype=ct.float32))
    return kernel
'''
    with pytest.raises(ConversionFailed, match="another kernel of this module has the same name"):
        convert(src, "nested_clash.py")


@pytest.mark.parametrize("extra, message", [
    # another decorator: cuTile compiles what it returns (the hostile round of s31: the body was compiled)
    ("def deco(fn):\n    return fn\n\n\n@deco\ndef dd(X, Y, TILE: ct.Constant[int]):\n"
     "    ct.store(Y, index=(0,), tile=ct.load(X, index=(0,), shape=(TILE,)))\n\n\n"
     "def run_dd(X, Y):\n    ct.launch(None, (1,), ct.kernel(dd), (X, Y, 16))\n",
     r"ct.kernel\(dd\) on a function with other decorators is not supported"),
    # a def nested in the host function (the host function was left out as tile code, with a warning)
    ("def run_nested(X, Y):\n    def inner(X, Y, TILE: ct.Constant[int]):\n"
     "        ct.store(Y, index=(0,), tile=ct.load(X, index=(0,), shape=(TILE,)))\n"
     "    ct.launch(None, (1,), ct.kernel(inner), (X, Y, 16))\n",
     r"ct.kernel\(inner\) on a function defined inside 'run_nested' is not supported"),
    # the decorator form called on a function (a TypeError at run time)
    ("def run_deco(X, Y):\n    ct.launch(None, (1,), ct.kernel(occupancy=2)(add_one), (X, Y, 16))\n",
     r"ct.kernel\(options...\)\(f\) in host code is not supported"),
    # a kernel object, and an option cuTile's kernel does not have (TypeErrors in cuTile)
    ("@ct.kernel\ndef kk(X):\n    ct.store(X, index=(0,), tile=ct.zeros((16,), dtype=ct.float32))\n\n\n"
     "def run_kk(X):\n    ct.launch(None, (1,), ct.kernel(kk), (X,))\n",
     r"ct.kernel\(kk\): 'kk' is a kernel already"),
    ("def run_bogus(X, Y):\n    ct.launch(None, (1,), ct.kernel(add_one, bogus=3), (X, Y, 16))\n",
     r"ct.kernel\(\) has no option 'bogus'"),
    # module-level kernels of one function with two option sets (the second's won silently)
    ("K1 = ct.kernel(twice, occupancy=2)\nK2 = ct.kernel(twice, occupancy=4)\n",
     r"ct.kernel\(twice, ...\) is given other options here than for another kernel of the same function"),
])
def test_ct_kernel_forms_that_cannot_convert_are_diagnosed(extra, message):
    with pytest.raises(ConversionFailed, match=r"inline_kernel.py:\d+:\d+: error: " + message):
        convert(_INLINE_KERNEL + "\n\n" + extra, "inline_kernel.py")


def test_a_local_that_shadows_a_kernel_name_launches_its_own_kernel(tmp_path):
    # `f = ct.kernel(g)` in a host function whose module also launches a kernel f: the local is launched
    # (the hostile round of s31: the launch went to launch_f, the module-level one).
    src = _INLINE_KERNEL + '''

def run_shadow(X):
    add_one = ct.kernel(twice)
    Y = torch.empty_like(X)
    ct.launch(None, (ct.cdiv(X.shape[0], 16),), add_one, (X, Y, 16))
    return Y
'''
    m = load(convert(src, "shadow.py"), tmp_path, "shadow")
    x = dev(torch.randn(40))
    assert_close(m.run_shadow(x), x * 2)
    assert_close(m.run_inline(x), x + 1)


def test_cuda_tile_imported_inside_a_function_is_diagnosed(tmp_path):
    # The converted module would import cuda.tile when info() runs (the hostile round of s31: kept as is).
    body = '''
import cuda.tile as ct


@ct.kernel
def k(X):
    ct.store(X, index=(0,), tile=ct.zeros((16,), dtype=ct.float32))


def info():
    {imp}
    return 1
'''
    for imp, which in (("from cuda.tile._bytecode.version import BytecodeVersion", "cuda.tile._bytecode.version"),
                       # cutile-python's experimental package (s33: one predicate with the module level's)
                       ("import cuda.tile_experimental as cte", "cuda.tile_experimental"),
                       ("from cuda import tile_experimental", "cuda.tile_experimental"),
                       ("import os, cuda.tile.tune", "cuda.tile.tune")):
        with pytest.raises(ConversionFailed, match=rf"nested_import.py:11:5: error: {which} imported inside a function"):
            convert(body.format(imp=imp), "nested_import.py")
    # Other cuda packages (cuda-python's bindings, cutile-python's test_stream) are host code like any other.
    code = convert(body.format(imp="from cuda.bindings.driver import CUstream"), "nested_import.py")
    assert "from cuda.bindings.driver import CUstream" in code


def test_cutile_experimental_imports_are_cutiles(tmp_path):
    # `from cuda.tile_experimental import autotune_launch` was kept in the converted module (it needs
    # cuTile to import) and only `import cuda.tile_experimental` counted as cuTile's (s33).
    src = """
import cuda.tile as ct
from cuda.tile_experimental import autotune_launch


@ct.kernel
def k(X, T: ct.Constant[int]):
    ct.store(X, index=(0,), tile=ct.load(X, index=(0,), shape=(T,)) + 1)


def run(X):
    autotune_launch(None, (1,), k, (X, 16))
"""
    with pytest.raises(ConversionFailed, match=r"exp.py:12:5: error: host code uses the cuda.tile name 'autotune_launch'"):
        convert(src, "exp.py")
    code = convert(src.replace("    autotune_launch(None, (1,), k, (X, 16))", "    ct.launch(None, (1,), k, (X, 16))"), "exp.py")
    assert "tile_experimental" not in code, code


REGISTRY_HOST = '''
OPS = {}


def register(name):
    def deco(kernel):
        OPS[name] = kernel
        return kernel
    return deco


def run(op, a, b):
    out = torch.empty_like(a)
    ct.launch(torch.cuda.current_stream(), (ct.cdiv(a.shape[0], 64),), OPS[op], (a, b, out, 64))
    return out
'''


def test_a_registry_decorator_on_a_kernel_is_refused_and_its_call_in_host_code_works(build):
    # The converted kernel is a @triton.jit function and carries no other decorator over: kept
    # silently dropped, `@register("add")` registered nothing (KeyError at the call; s39 hostile round).
    src = KERNELS.replace("@ct.kernel\ndef add_kernel", '@register("add")\n@ct.kernel\ndef add_kernel')
    src = src.replace("import torch\n", "import torch\n" + REGISTRY_HOST.split("def run")[0], 1)
    with pytest.raises(ConversionFailed, match=r"'register' decorates a cuTile kernel: .*call it in host code"):
        convert(src, filename="registry.py")
    # What the diagnostic suggests: the decorator called in host code registers the converted kernel.
    _, m = build(REGISTRY_HOST + '\nregister("add")(add_kernel)\nregister("mul")(mul_kernel)\n', "registry")
    a, b = _inputs(300)
    assert_close(m.run("add", a, b), a + b)
    assert_close(m.run("mul", a, b), a * b)


@pytest.mark.parametrize("launch", [
    "go = lambda add_kernel: ct.launch(torch.cuda.current_stream(), grid, add_kernel, (a, b, out, 64))\n"
    "    go(mul_kernel)",
    "match mul_kernel:\n        case add_kernel:\n"
    "            ct.launch(torch.cuda.current_stream(), grid, add_kernel, (a, b, out, 64))",
])
def test_a_lambda_parameter_or_match_capture_named_like_a_kernel_is_that_value(build, launch):
    # The launch went to the module's add_kernel (a + b) where the local holds mul_kernel (s39 hostile round).
    _, m = build(f'''
def run(a, b):
    out = torch.empty_like(a)
    grid = (ct.cdiv(a.shape[0], 64),)
    {launch}
    return out
''', "shadowing")
    a, b = _inputs(300)
    assert_close(m.run(a, b), a * b)
