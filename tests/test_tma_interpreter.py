"""The TMA tensor-descriptor path of 2-D+ ct.load / ct.store (lower/tma.cpp).

Every converted kernel with a descriptor path takes a constexpr USE_TMA flag;
its launcher sets the flag only when the actual tensors meet the device-side
descriptor preconditions (CUDA tensor, 16-byte aligned base, non-last strides
x element size multiples of 16, last stride 1, innermost block >= 16 bytes;
triton_target.md §1.4), and callers may force it with use_tma=.

Triton 3.6's interpreter runs tl.make_tensor_descriptor on CPU tensors
(triton_target.md §2.2), so here both paths run against references:
  * forced use_tma=True/False on aligned inputs (both must match the reference);
  * the launcher's own decision, observed by a spy on the kernel launch, for
    aligned, misaligned-stride, misaligned-base and transposed inputs. On the
    CPU the inputs are wrapped in a tensor subclass that reports is_cuda=True
    so that the alignment checks (not the device check) decide;
  * forcing the descriptor path on a misaligned stride fails loudly in the
    interpreter (on the H200 it would be silently wrong: the reason for the guard).
With C2T_DEVICE=cuda the same tests run on the GPU with real CUDA tensors.
"""

from __future__ import annotations

import pytest
import torch

from c2t_interp import DEVICE, ROOT, assert_close, convert, convert_and_load, dev, fresh_seed, load, poison

HEADER = """
import cuda.tile as ct
ConstInt = ct.Constant[int]
"""

# The padding of partial tiles is observable: Y is X's shape rounded up to whole tiles.
PAD_COPY = HEADER + """
@ct.kernel
def pad_copy(X, Y, TM: ConstInt, TN: ConstInt):
    t = ct.load(X, index=(ct.bid(0), ct.bid(1)), shape=(TM, TN), padding_mode=ct.PaddingMode.{pad})
    ct.store(Y, index=(ct.bid(0), ct.bid(1)), tile=t)
"""

# A K loop accumulating row sums (zero padding matters) plus a 3-D store.
ROWSUM3 = HEADER + """
@ct.kernel
def rowsum3(X, Y, TM: ConstInt, TN: ConstInt):
    b = ct.bid(0)
    m = ct.bid(1)
    acc = ct.zeros((1, TM, TN), dtype=ct.float32)
    for j in range(ct.num_tiles(X, axis=2, shape=(1, TM, TN))):
        acc = acc + ct.astype(ct.load(X, index=(b, m, j), shape=(1, TM, TN), padding_mode=ct.PaddingMode.ZERO), ct.float32)
    ct.store(Y, index=(b, m, 0), tile=acc)
"""

# A load whose order= moves the last axis reads its box in memory order and permutes it;
# a store through such an order stays on the pointer path.
TRANSPOSED = HEADER + """
@ct.kernel
def tr(X, Y, TM: ConstInt, TN: ConstInt):
    t = ct.load(X, index=(ct.bid(0), ct.bid(1)), shape=(TN, TM), order=(1, 0), padding_mode=ct.PaddingMode.ZERO)
    ct.store(Y, index=(ct.bid(0), ct.bid(1)), tile=t)
"""
TRANSPOSED_STORE = HEADER + """
@ct.kernel
def trs(X, Y, TM: ConstInt, TN: ConstInt):
    t = ct.load(X, index=(ct.bid(0), ct.bid(1)), shape=(TM, TN))
    ct.store(Y, index=(ct.bid(1), ct.bid(0)), tile=t, order=(1, 0))
"""

# Attention's K^T (TileGym attention.py, cuTile's bench fmha): a 4-D key tile read transposed
# through order=(0, 1, 3, 2), reshaped and multiplied with a query tile.
QK = HEADER + """
@ct.kernel
def qk(Q, K, S, TM: ConstInt, TN: ConstInt, D: ConstInt):
    b = ct.bid(1)
    h = ct.bid(2)
    q = ct.load(Q, index=(b, h, 0, 0), shape=(1, 1, TM, D)).reshape((TM, D))
    k = ct.load(K, index=(b, h, 0, ct.bid(0)), shape=(1, 1, D, TN), order=(0, 1, 3, 2), latency=2)
    s = ct.mma(q, k.reshape((D, TN)), ct.zeros((TM, TN), dtype=ct.float32))
    ct.store(S, index=(b, h, 0, ct.bid(0)), tile=s.reshape((1, 1, TM, TN)))
"""

TM, TN = 16, 32
PADS = {"ZERO": 0.0, "NAN": float("nan"), "NEG_INF": float("-inf")}


class _FakeCuda(torch.Tensor):
    """A CPU tensor that claims to be on CUDA, so that the launcher's alignment checks decide."""

    @property
    def is_cuda(self):
        return True


def _decidable(t: torch.Tensor) -> torch.Tensor:
    return t if DEVICE == "cuda" else t.as_subclass(_FakeCuda)


def _spy(mod, kernel_name: str) -> dict:
    """Records the keyword arguments of the next launches of `kernel_name`."""
    real = getattr(mod, kernel_name)
    seen: dict = {}

    class Spy:
        def __getitem__(self, grid):
            def launch(*args, **kw):
                seen.update(kw)
                return real[grid](*args, **kw)

            return launch

    setattr(mod, kernel_name, Spy())
    return seen


def _padded_ref(x: torch.Tensor, fill: float) -> torch.Tensor:
    m, n = x.shape
    mp, np_ = -(-m // TM) * TM, -(-n // TN) * TN
    ref = torch.full((mp, np_), fill, dtype=x.dtype)
    ref[:m, :n] = x.cpu()
    return ref


def _run_pad(mod, x, use_tma):
    m, n = x.shape
    grid = (-(-m // TM), -(-n // TN), 1)
    y = dev(poison(torch.empty(grid[0] * TM, grid[1] * TN, dtype=x.dtype)))
    if isinstance(x, _FakeCuda):
        y = _decidable(y)
    mod.launch_pad_copy(grid, x, y, TM, TN, use_tma=use_tma)
    return y


def _matches(y, ref):
    torch.testing.assert_close(y.cpu().as_subclass(torch.Tensor), ref, equal_nan=True, rtol=0, atol=0)


@pytest.mark.parametrize("pad", sorted(PADS))
def test_generated_code_guards_each_site(pad):
    code = convert(PAD_COPY.format(pad=pad), filename="pad_copy.py")
    assert "USE_TMA: tl.constexpr = False" in code
    assert "Y_desc.store(" in code  # stores have no padding: always a candidate
    if pad == "NEG_INF":
        # Descriptors pad with zero or NaN only: the load keeps the masked pointer path.
        assert "X_desc" not in code and "other=float('-inf')" in code
    else:
        assert "X_desc.load(" in code
        assert ("padding_option='nan'" in code) == (pad == "NAN")
    tr = convert(TRANSPOSED, filename="tr.py")
    # The box is X's [TM, TN] at X's own axes' offsets, permuted to the tile's (TN, TM).
    assert "[X_shape_0, X_shape_1], [X_stride_0, 1], [TM, TN])" in tr
    assert "tl.permute(X_desc.load([tl.program_id(1) * TM, tl.program_id(0) * TN]), [1, 0])" in tr
    assert "Y_desc.store(" in tr
    trs = convert(TRANSPOSED_STORE, filename="trs.py")
    assert "X_desc.load(" in trs and "Y_desc" not in trs


@pytest.mark.parametrize("use_tma", [False, True])
@pytest.mark.parametrize("pad", sorted(PADS))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_both_paths_match_reference(tmp_path, pad, use_tma, dtype):
    mod = convert_and_load(PAD_COPY.format(pad=pad), tmp_path, "pad_copy")
    g = torch.Generator().manual_seed(seed := fresh_seed())
    # 37 x 56: ragged in both axes, row stride 56 * elsize is a multiple of 16 (descriptor-legal).
    x = dev(torch.randn(37, 56, generator=g).to(dtype))
    seen = _spy(mod, "pad_copy")
    y = _run_pad(mod, x, use_tma)
    assert seen["USE_TMA"] is use_tma, f"seed={seed}"
    _matches(y, _padded_ref(x, PADS[pad]))


def _layouts(g):
    """name -> (x, descriptor-legal?): fp32 views of one device buffer (whose base is 256-byte aligned)."""
    base = dev(torch.randn(37 * 56 + 8, generator=g))
    return {
        "aligned": (base[: 37 * 56].view(37, 56), True),
        "misaligned_row_stride": (base[: 37 * 50].view(37, 50), False),  # 200-byte rows
        "misaligned_base": (base[1 : 1 + 37 * 56].view(37, 56), False),  # base + 4 bytes
        "last_stride_not_1": (base[: 56 * 37].view(56, 37).t(), False),
        "sliced_columns": (base[: 37 * 56].view(37, 56)[:, :50], True),  # strides (56, 1): legal
    }


@pytest.mark.parametrize("layout", ["aligned", "misaligned_row_stride", "misaligned_base", "last_stride_not_1",
                                    "sliced_columns"])
def test_launcher_decides_from_actual_tensors(tmp_path, layout):
    mod = convert_and_load(PAD_COPY.format(pad="ZERO"), tmp_path, "pad_copy")
    g = torch.Generator().manual_seed(seed := fresh_seed())
    x_dev, legal = _layouts(g)[layout]
    x = _decidable(x_dev)
    seen = _spy(mod, "pad_copy")
    y = _run_pad(mod, x, None)
    assert seen["USE_TMA"] is legal, f"{layout}: launcher chose USE_TMA={seen['USE_TMA']}"
    _matches(y, _padded_ref(x_dev.cpu(), 0.0))


def test_cpu_tensors_take_pointer_path(tmp_path):
    if DEVICE == "cuda":
        pytest.skip("CPU tensors only exist in the interpreter run")
    mod = convert_and_load(PAD_COPY.format(pad="ZERO"), tmp_path, "pad_copy")
    x = torch.randn(37, 56)
    seen = _spy(mod, "pad_copy")
    _matches(_run_pad(mod, x, None), _padded_ref(x, 0.0))
    assert seen["USE_TMA"] is False


def test_forced_descriptor_on_misaligned_stride_is_rejected_by_interpreter(tmp_path):
    # On the H200 this would return silently wrong data (triton_target.md H6): the launcher's check exists for it.
    if DEVICE == "cuda":
        pytest.skip("would corrupt silently on the GPU")
    mod = convert_and_load(PAD_COPY.format(pad="ZERO"), tmp_path, "pad_copy")
    x = torch.randn(37, 50)
    with pytest.raises(Exception, match="16-byte aligned"):
        _run_pad(mod, x, True)


@pytest.mark.parametrize("use_tma", [None, False, True])
def test_k_loop_3d(tmp_path, use_tma):
    mod = convert_and_load(ROWSUM3, tmp_path, "rowsum3")
    g = torch.Generator().manual_seed(seed := fresh_seed())
    x = dev(torch.randn(3, 37, 152, generator=g))
    y = dev(poison(torch.empty(3, 37, TN)))
    if use_tma is None:
        x, y = _decidable(x), _decidable(y)
    seen = _spy(mod, "rowsum3")
    mod.launch_rowsum3((3, -(-37 // TM), 1), x, y, TM, TN, use_tma=use_tma)
    assert seen["USE_TMA"] is (True if use_tma is None else use_tma)
    xc = x.cpu().as_subclass(torch.Tensor)
    padded = torch.zeros(3, 37, -(-152 // TN) * TN)
    padded[:, :, :152] = xc
    ref = padded.view(3, 37, -1, TN).sum(2)
    assert_close(y.cpu().as_subclass(torch.Tensor), ref, relaxed=True, msg=f"seed={seed}")


@pytest.mark.parametrize("use_tma", [False, True])
def test_matmul_example_both_paths(tmp_path, use_tma):
    src = (ROOT / "examples" / "matmul.py").read_text()
    mod = load(convert(src, filename="matmul.py"), tmp_path, "matmul")
    g = torch.Generator().manual_seed(seed := fresh_seed())
    a = dev(torch.randn(70, 48, generator=g))
    b = dev(torch.randn(48, 40, generator=g))
    c = dev(poison(torch.empty(70, 40)))
    tm, tn, tk = 32, 32, 16
    seen = _spy(mod, "matmul_kernel")
    mod.launch_matmul_kernel((-(-70 // tm) * -(-40 // tn), 1, 1), a, b, c, tm, tn, tk, use_tma=use_tma)
    assert seen["USE_TMA"] is use_tma
    assert_close(c, a.cpu() @ b.cpu(), relaxed=True, msg=f"seed={seed}")


@pytest.mark.parametrize("use_tma", [None, False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_transposed_load_both_paths(tmp_path, use_tma, dtype):
    """order=(1, 0) moving the last axis: the descriptor box is read as X's [TM, TN] and permuted."""
    mod = convert_and_load(TRANSPOSED, tmp_path, "tr")
    g = torch.Generator().manual_seed(seed := fresh_seed())
    m, n = 37, 72  # ragged in both axes; rows of 72 elements are 16-byte multiples in fp32 and fp16
    x = dev(torch.randn(m, n, generator=g).to(dtype))
    grid = (-(-n // TN), -(-m // TM), 1)
    y = dev(poison(torch.empty(grid[0] * TN, grid[1] * TM, dtype=dtype)))
    if use_tma is None:
        x, y = _decidable(x), _decidable(y)
    seen = _spy(mod, "tr")
    mod.launch_tr(grid, x, y, TM, TN, use_tma=use_tma)
    assert seen["USE_TMA"] is (True if use_tma is None else use_tma), f"seed={seed}"
    ref = torch.zeros(grid[0] * TN, grid[1] * TM, dtype=dtype)
    ref[:n, :m] = x.cpu().as_subclass(torch.Tensor).t()
    _matches(y, ref)


@pytest.mark.parametrize("use_tma", [False, True])
def test_transposed_4d_key_tile_both_paths(tmp_path, use_tma):
    """K^T of attention through a memory-order descriptor: a ragged key count (last tile partial)."""
    mod = convert_and_load(QK, tmp_path, "qk")
    g = torch.Generator().manual_seed(seed := fresh_seed())
    b, h, tm, tn, d, s = 2, 3, 16, 32, 16, 75
    q = dev(torch.randn(b, h, tm, d, generator=g))
    k = dev(torch.randn(b, h, s, d, generator=g))
    out = dev(poison(torch.empty(b, h, tm, -(-s // tn) * tn)))
    seen = _spy(mod, "qk")
    mod.launch_qk((-(-s // tn), b, h), q, k, out, tm, tn, d, use_tma=use_tma)
    assert seen["USE_TMA"] is use_tma
    kp = torch.zeros(b, h, out.shape[-1], d)
    kp[:, :, :s] = k.cpu()
    assert_close(out, q.cpu() @ kp.transpose(-1, -2), relaxed=True, msg=f"seed={seed}")


class _DescriptorPathFails:
    """Stands in for a kernel whose descriptor path Triton 3.6 fails to compile (s34: TileGym's sparse
    MLA index tiles, "'tt.descriptor_load' op pipeliner doesn't know how to predicate this op"), at
    every stage count or only at more than `stages_ok`; `pointers_fail` makes the pointer path fail too."""

    def __init__(self, real, error=None, stages_ok=0, pointers_fail=False):
        import threading

        self.real, self.flags, self.__name__ = real, [], real.__name__
        self.error = error or RuntimeError("PassManager::run failed")
        self.stages_ok, self.pointers_fail = stages_ok, pointers_fail
        # Triton's interpreter patches triton.language while a kernel runs, so two threads cannot run one
        # at once; the runtime's own code around the launch (the fallback's bookkeeping) still runs
        # concurrently.
        self.interpreter_lock = threading.Lock()

    def __getitem__(self, grid):
        def launch(*args, **kw):
            self.flags.append((kw["USE_TMA"], kw.get("num_stages")))
            if (kw["USE_TMA"] and (kw.get("num_stages") or 3) > self.stages_ok) or self.pointers_fail:
                raise self.error
            with self.interpreter_lock:
                return self.real[grid](*args, **kw)

        return launch


def _failing(mod, **kw):
    mod.pad_copy = failing = _DescriptorPathFails(mod.pad_copy, **kw)
    g = torch.Generator().manual_seed(fresh_seed())
    return failing, _decidable(dev(torch.randn(37, 56, generator=g)))


def _pad_ref(x):
    return _padded_ref(x.as_subclass(torch.Tensor).cpu(), 0.0)


def test_descriptors_the_launcher_chose_fall_back_when_triton_fails_to_compile_them(tmp_path):
    mod = convert_and_load(PAD_COPY.format(pad="ZERO"), tmp_path, "pad_copy")
    failing, x = _failing(mod)
    with pytest.warns(UserWarning, match="could not compile pad_copy's TMA descriptor path") as caught:
        y = _run_pad(mod, x, None)  # the launcher chooses descriptors: compiled, failed, pointers
    assert caught[0].filename == __file__  # said at the op's caller, not inside the converted module
    _matches(y, _pad_ref(x))
    assert [f for f, _ in failing.flags] == [True, False]
    y = _run_pad(mod, x, None)  # not compiled again for this specialization
    assert [f for f, _ in failing.flags] == [True, False, False]
    _matches(y, _pad_ref(x))
    with pytest.raises(RuntimeError, match="PassManager"):  # asked for: the caller sees Triton's error
        _run_pad(mod, x, True)
    mod.pad_copy = type("Broken", (), {"__getitem__": lambda self, grid: (lambda *a, **k: 1 / 0)})()
    with pytest.raises(ZeroDivisionError):  # not a compile failure: raised as it is
        _run_pad(mod, x, None)


def test_a_failure_at_some_stages_is_remembered_for_those_stages_only(tmp_path):
    mod = convert_and_load(PAD_COPY.format(pad="ZERO"), tmp_path, "pad_copy")
    failing, x = _failing(mod, stages_ok=1)
    m, n = x.shape
    grid = (-(-m // TM), -(-n // TN), 1)
    for stages, want in ((3, [(True, 3), (False, 3)]), (1, [(True, 1)])):
        y = _decidable(dev(poison(torch.empty(grid[0] * TM, grid[1] * TN))))
        failing.flags.clear()
        with warnings_as_list() as caught:
            mod.launch_pad_copy(grid, x, y, TM, TN, use_tma=None, num_stages=stages)
        assert failing.flags == want, (stages, failing.flags)
        assert len(caught) == (stages == 3)
        _matches(y, _pad_ref(x))


@pytest.mark.parametrize("error", ["ptxas", "shared memory", "compilation"])
def test_other_ways_triton_fails_to_build_the_descriptor_path_fall_back_too(tmp_path, error):
    import triton

    mod = convert_and_load(PAD_COPY.format(pad="ZERO"), tmp_path, "pad_copy")
    errors = {"ptxas": triton.runtime.errors.PTXASError("ptxas fatal"),
              "shared memory": triton.runtime.errors.OutOfResources(300000, 232448, "shared memory"),
              "compilation": triton.compiler.errors.CompilationError("src", None, "static_assert failed")}
    failing, x = _failing(mod, error=errors[error])
    with pytest.warns(UserWarning, match="descriptor path"):
        y = _run_pad(mod, x, None)
    _matches(y, _pad_ref(x))
    assert failing.flags[-1][0] is False


def test_a_failure_of_both_paths_is_raised_unremembered_and_unannounced(tmp_path):
    mod = convert_and_load(PAD_COPY.format(pad="ZERO"), tmp_path, "pad_copy")
    failing, x = _failing(mod, pointers_fail=True)
    for _ in range(2):  # each time both are tried: the descriptors are not what failed
        failing.flags.clear()
        with warnings_as_list() as caught, pytest.raises(RuntimeError, match="PassManager"):
            _run_pad(mod, x, None)
        assert [f for f, _ in failing.flags] == [True, False] and not caught


def test_the_fallback_is_said_once_across_threads(tmp_path):
    import threading

    mod = convert_and_load(PAD_COPY.format(pad="ZERO"), tmp_path, "pad_copy")
    failing, x = _failing(mod)
    results, errors = [], []

    def run():
        try:
            results.append(_run_pad(mod, x, None))
        except BaseException as e:  # a thread's failure must fail the test, not only warn
            errors.append(e)

    with warnings_as_list() as caught:
        threads = [threading.Thread(target=run) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors, errors
    assert len(results) == 4
    for y in results:
        _matches(y, _pad_ref(x))
    assert len(caught) == 1, [str(w.message) for w in caught]


class warnings_as_list:
    """warnings.catch_warnings(record=True) with every warning recorded."""

    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings(record=True)
        caught = self._cm.__enter__()
        warnings.simplefilter("always")
        return caught

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def test_the_launcher_marks_only_its_own_choice_of_descriptors():
    code = convert(PAD_COPY.format(pad="ZERO"), filename="pad_copy.py")
    assert ('        if use_tma is None:\n            use_tma = use_tma_fits\n            if use_tma:\n'
            '                options["_c2t_tma_auto"] = "USE_TMA"\n') in code
