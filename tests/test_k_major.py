"""fp8 matrix-product operands laid out K-major by the generated launcher (cpp/lower/k_major.h).

Hopper's wgmma reads 8-bit operands only K-major; Triton transposes any other layout through
registers and does not pipeline that load (TileGym's group_gemm fp8, B with N contiguous: 152
TFLOPS on the H200, 585-928 with B K-major; BENCHMARKS.md s25). The launcher therefore passes a
K-major copy of an fp8 operand's array on sm_90, for arrays the kernel only reads. Here:

* which parameters and layouts the launcher names (the lowering's analysis, a group_gemm-like
  kernel whose B layout depends on a Constant);
* the runtime's copy itself (dtype, strides, values; what it leaves alone), made by its own
  transposing kernel in one launch per list (ragged lists, views, batches of matrices, elements
  already K-major) and by PyTorch where that kernel does not apply;
* the copy is invisible to the program: the kernel, run under the interpreter with the copy forced
  (fp16 stands in for fp8, which the interpreter's dot lacks), on ragged sizes and fresh inputs,
  matches torch, and the caller's arrays are untouched;
* the reason, on the CPU: the sm_90 compile of the fp8 kernel pipelines B's loads (cp.async) only
  when B is K-major.
"""

from __future__ import annotations

import pytest

from c2t_interp import assert_close, convert, convert_and_load, dev, fresh_seed, load, poison

import torch  # noqa: E402  (after c2t_interp set TRITON_INTERPRET)

from test_array_lists import _launches  # noqa: E402  (the Triton-side arguments of each launch)

GROUPED = """
import cuda.tile as ct

ConstInt = ct.Constant[int]
ConstBool = ct.Constant[bool]
ZERO = ct.PaddingMode.ZERO


@ct.kernel
def gg(As, Bs, Cs, TM: ConstInt, TN: ConstInt, TK: ConstInt, TRANSPOSE_B: ConstBool):
    # One output tile per block over all groups: C_g = A_g @ B_g (B_g given as N x K with TRANSPOSE_B).
    bid = ct.bid(0)
    start = 0
    for g in range(len(As)):
        Ai = As[g]
        Bi = Bs[g]
        Ci = Cs[g]
        nn = ct.num_tiles(Ci, 1, (TM, TN))
        n = ct.num_tiles(Ci, 0, (TM, TN)) * nn
        if bid >= start and bid < start + n:
            t = bid - start
            acc = ct.zeros((TM, TN), dtype=ct.float32)
            for kk in range(ct.num_tiles(Ai, 1, (TM, TK))):
                ta = ct.load(Ai, (t // nn, kk), shape=(TM, TK), padding_mode=ZERO)
                if TRANSPOSE_B:
                    tb = ct.transpose(ct.load(Bi, (t % nn, kk), shape=(TN, TK), padding_mode=ZERO))
                else:
                    tb = ct.load(Bi, (kk, t % nn), shape=(TK, TN), padding_mode=ZERO)
                acc = ct.mma(ta, tb, acc)
            ct.store(Ci, (t // nn, t % nn), tile=ct.astype(acc, Ci.dtype))
        start += n
"""


def test_launcher_lays_out_each_branchs_operand():
    code = convert(GROUPED, "gg.py")
    # A (M x K): K along axis 1; B: axis 1 when given N x K, axis 0 when K x N, each read by A's M rows
    # (As, axis 0); C is stored to: never.
    assert "    As = _c2t_k_major(As, (1, 0))\n" in code
    assert ("    Bs = _c2t_k_major(Bs, ((1, 0, As, 0) if TRANSPOSE_B else None), ((0, 1, As, 0) if not TRANSPOSE_B "
            "else None))\n") in code
    assert "Cs = _c2t_k_major" not in code
    assert code.index("Bs = _c2t_k_major(") < code.index('_c2t_array_list("Bs"')


def test_the_copy_is_k_major_and_equal(tmp_path, monkeypatch):
    mod = convert_and_load(GROUPED, tmp_path, "gg_copy")
    monkeypatch.setattr(mod, "_c2t_k_major_device", lambda t: True)  # as on an sm_90 device
    monkeypatch.setattr(mod, "_C2T_K_MAJOR_MIN_ELEMENTS", 1000)  # small arrays here
    g = torch.Generator().manual_seed(fresh_seed())
    b = dev(torch.randn(96, 80, generator=g)).to(torch.float8_e5m2)  # K x N, N contiguous
    out = mod._c2t_k_major(b, (0, 1))
    assert out is not b and out.shape == b.shape and out.stride() == (1, 96) and out.dtype == b.dtype
    assert torch.equal(out.float(), b.float())
    # A list: each element; a tuple comes back as a list (the launcher's list check takes both).
    outs = mod._c2t_k_major((b, b[:, :40]), (0, 1))
    assert [o.stride(0) for o in outs] == [1, 1] and torch.equal(outs[1].float(), b[:, :40].float())
    k_major = b.t().contiguous().t()
    left_alone = [
        (k_major, ((0, 1),)),                          # already K-major
        (b.to(torch.float16), ((0, 1),)),              # not fp8: 16-bit wgmma reads either layout
        (b, ((0, 1), (1, 0))),                         # two layouts taken: no one copy serves both
        (b, (None, None)),                             # no product's branch taken
        (b[:1], ((0, 1),)),                            # one row: no axis to transpose
        (b, ((0, 2),)),                                # an axis the array does not have
        (b[:, :10], ((0, 1),)),                        # 960 elements: a copy's launch costs more
        (b.view(torch.float8_e4m3fnuz), ((0, 1),)),    # ROCm's fp8: not built for sm_90
        (b, ((-2, -1),)),                              # axes the launcher never names
        ([k_major, k_major], ((0, 1),)),               # a list with nothing to copy: itself, not a new list
        (b, ((0, 1, [torch.empty(255, 1), torch.empty(300, 1)], 0),)),  # 255 rows: bound by reading b
    ]
    for x, layouts in left_alone:
        assert mod._c2t_k_major(x, *layouts) is x, layouts
    assert mod._c2t_k_major("not an array", (0, 1)) == "not an array"  # the launcher's checks speak about it
    assert mod._c2t_k_major(b, (0, 1, [torch.empty(256, 1)], 0)).stride(0) == 1  # 256 rows: copied
    assert mod._c2t_k_major(b, (0, 1, "no partner", 0)).stride(0) == 1  # rows unknown: copied
    # A ragged list is laid out alike (by its largest element), or it would lose its unit-stride facts.
    small = b[:4, :4]
    assert [t.stride(0) for t in mod._c2t_k_major([b, small], (0, 1))] == [1, 1]
    assert mod._c2t_k_major([small, small], (0, 1))[0] is small
    monkeypatch.setattr(mod, "_c2t_k_major_switch", [False])  # C2T_K_MAJOR=0
    assert mod._c2t_k_major(b, (0, 1)) is b
    monkeypatch.setattr(mod, "_c2t_k_major_switch", [True])
    monkeypatch.setattr(mod, "_c2t_k_major_device", lambda t: False)  # a CPU tensor, another GPU, a capture
    assert mod._c2t_k_major(b, (0, 1)) is b


def _fp8(g, *shape):
    # fp8 bytes of every kind (NaNs, infinities, subnormals, both zeros): the copy moves bytes, not values.
    return dev(torch.randint(0, 256, shape, generator=g, dtype=torch.uint8)).view(torch.float8_e5m2)


def _same_bytes(a, b):
    return a.shape == b.shape and torch.equal(a.view(torch.uint8), b.view(torch.uint8))


def test_one_launch_copies_a_ragged_list(tmp_path, monkeypatch):
    mod = convert_and_load(GROUPED, tmp_path, "gg_copies")
    launches = []
    kernel = mod._c2t_k_major_copy
    monkeypatch.setattr(mod, "_c2t_k_major_copy", _Counted(kernel, launches))
    seed = fresh_seed()
    g = torch.Generator().manual_seed(seed)
    base = _fp8(g, 300, 260)
    items = [
        _fp8(g, 70, 33),                # K x N, N contiguous, not multiples of the 64 x 64 tiles
        base[5:200:3, 7:140],           # a view: offset, row stride 780, not 16-byte aligned
        _fp8(g, 129, 1),                # one column: nothing to transpose, left alone
        _fp8(g, 40, 50).t().contiguous().t(),  # already K-major: left alone
        _fp8(g, 1, 64),                 # one row: left alone
        _fp8(g, 65, 64),
    ]
    out = mod._c2t_k_major_copies(items, 0, 1)
    assert len(launches) == 1, f"seed={seed}"
    for i, (x, y) in enumerate(zip(items, out)):
        assert _same_bytes(x, y), f"element {i} seed={seed}"
        if i in (2, 3, 4):
            assert y is x
        else:
            assert y.stride(0) == 1 and y.stride(1) == x.shape[0] and y.storage_offset() % 128 == 0, (i, y.stride())
    copies = [out[i] for i in (0, 1, 5)]
    assert len({t.untyped_storage().data_ptr() for t in copies}) == 1  # one buffer
    # Again on the same list (its layout worked out once): new bytes in the sources are copied too.
    items[0].view(torch.uint8).random_(0, 256, generator=g)
    base.view(torch.uint8).random_(0, 256, generator=g)
    again = mod._c2t_k_major_copies(items, 0, 1)
    assert len(launches) == 2 and len(mod._c2t_k_major_plans) == 1
    assert all(_same_bytes(x, y) for x, y in zip(items, again)), f"seed={seed}"
    # Another list (other shapes) gets its own layout.
    other = [_fp8(g, 33, 70), _fp8(g, 200, 17)]
    assert all(_same_bytes(x, y) and y.stride(0) == 1 for x, y in zip(other, mod._c2t_k_major_copies(other, 0, 1)))
    assert len(mod._c2t_k_major_plans) == 2


@pytest.mark.parametrize("perm, k, other", [
    ((0, 1, 2), 1, 2),  # [batch, K, N], N contiguous (a bmm's B)
    ((0, 2, 1), 2, 1),  # [batch, M, K] with M contiguous (a bmm's transposed A)
    ((2, 1, 0), 0, 1),  # [K, N, batch], N contiguous: the batch axis last
])
def test_batches_of_matrices(tmp_path, monkeypatch, perm, k, other):
    mod = convert_and_load(GROUPED, tmp_path, "gg_batched")
    launches = []
    monkeypatch.setattr(mod, "_c2t_k_major_copy", _Counted(mod._c2t_k_major_copy, launches))
    seed = fresh_seed()
    g = torch.Generator().manual_seed(seed)
    items = []
    for shape in ((3, 37, 70), (5, 64, 9)):
        items.append(_contiguous_along(_fp8(g, *shape).permute(*perm), other))
    out = mod._c2t_k_major_copies(items, k, other)
    assert len(launches) == 1, f"seed={seed}"
    for x, y in zip(items, out):
        assert _same_bytes(x, y), f"seed={seed}"
        assert y.stride(k) == 1 and x.stride(other) == 1
        order = [d for d in range(3) if d != k] + [k]  # the other axes keep their order, K innermost
        assert sorted(range(3), key=lambda d: -y.stride(d)) == order


def _contiguous_along(x, axis):
    """x's values in a tensor contiguous along `axis` (the other axes outer, in their order)."""
    inner = [d for d in range(x.dim()) if d != axis] + [axis]
    return x.permute(*inner).contiguous().permute(*[inner.index(d) for d in range(x.dim())])


class _Counted:
    """A Triton kernel whose launches (kernel[grid](...)) are counted."""

    def __init__(self, kernel, launches):
        self.kernel, self.launches = kernel, launches

    def __getitem__(self, grid):
        self.launches.append(grid)
        return self.kernel[grid]


def test_other_ranks_are_copied_by_pytorch(tmp_path, monkeypatch):
    mod = convert_and_load(GROUPED, tmp_path, "gg_rank4")
    launches = []
    monkeypatch.setattr(mod, "_c2t_k_major_copy", _Counted(mod._c2t_k_major_copy, launches))
    g = torch.Generator().manual_seed(fresh_seed())
    x = _contiguous_along(_fp8(g, 2, 3, 20, 30), 3)
    (y,) = mod._c2t_k_major_copies([x], 2, 3)
    assert not launches and _same_bytes(x, y) and y.stride(2) == 1


@pytest.mark.parametrize("transpose_b", [False, True])
def test_grouped_gemm_runs_the_same_on_the_copies(tmp_path, monkeypatch, transpose_b):
    # The copy forced for fp16 (the interpreter's dot has no fp8): results as torch's, the
    # caller's arrays untouched, and the kernel given B contiguous along K (the list's facts:
    # bit 6 = every first stride 1, bit 5 = every last stride 1).
    mod = convert_and_load(GROUPED, tmp_path, "gg_run")
    monkeypatch.setattr(mod, "_c2t_k_major_device", lambda t: True)
    monkeypatch.setattr(mod, "_C2T_FP8", mod._C2T_FP8 + ("torch.float16",))
    monkeypatch.setattr(mod, "_C2T_K_MAJOR_MIN_ELEMENTS", 0)  # small ragged sizes here
    monkeypatch.setattr(mod, "_C2T_K_MAJOR_MIN_REUSE", 0)
    launched = _launches(mod)
    seed = fresh_seed()
    g = torch.Generator().manual_seed(seed)
    dims = [(50, 70, 30), (64, 33, 48), (17, 40, 64)]  # (M, K, N), not multiples of the tiles
    As = [dev(torch.randn(m, k, generator=g).half()) for m, k, n in dims]
    Bs = [dev(torch.randn(*((n, k) if transpose_b else (k, n)), generator=g).half()) for m, k, n in dims]
    strides = [b.stride() for b in Bs]
    Cs = [poison(dev(torch.empty(m, n, dtype=torch.float16))) for m, k, n in dims]
    TM, TN, TK = 16, 16, 16
    tiles = sum(-(-m // TM) * -(-n // TN) for m, k, n in dims)
    mod.launch_gg((tiles,), As, Bs, Cs, TM, TN, TK, transpose_b)
    for i, (a, b, c) in enumerate(zip(As, Bs, Cs)):
        want = a.float() @ (b.float().t() if transpose_b else b.float())
        assert_close(c, want.half(), relaxed=True, msg=f"group {i} transpose_b={transpose_b} seed={seed}")
    assert [b.stride() for b in Bs] == strides
    b_facts = launched[0][7]  # (table, length, first, facts) of As, then of Bs
    if transpose_b:  # N x K with K contiguous: left as it is
        assert b_facts & 32 and not b_facts & 64, b_facts
    else:  # K x N copied K-major
        assert b_facts & 64 and not b_facts & 32, b_facts


def test_sm90_compile_pipelines_b_only_when_k_major(tmp_path):
    # Why the copy: the fp8 kernel compiled for sm_90 (on the CPU) loads B asynchronously into shared
    # memory (cp.async, software-pipelined) when B is K-major, and through registers when N is
    # contiguous (what TileGym's group_gemm fp8 with transpose_b=False ran at 0.3x cuTile).
    from triton_compile_check import compile_launch, load_for_compile

    gpu = load_for_compile(convert(GROUPED, "gg.py"), tmp_path, "gg_sm90")
    fp8 = torch.float8_e5m2
    As = [torch.zeros(256, 256, dtype=fp8) for _ in range(2)]
    Cs = [torch.zeros(256, 256, dtype=torch.float16) for _ in range(2)]
    n_major = [torch.zeros(256, 256, dtype=fp8) for _ in range(2)]
    k_major = [torch.zeros(256, 256, dtype=fp8).t() for _ in range(2)]
    counts = {}
    for name, Bs in (("n_major", n_major), ("k_major", k_major)):
        stages = compile_launch(gpu.launch_gg, (8,), As, Bs, Cs, 128, 128, 128, False)
        counts[name] = stages["ttgir"].count("async_copy_global_to_local")
    assert counts["k_major"] > counts["n_major"], counts


@pytest.mark.parametrize("rank, k, other", [(2, 0, 1), (3, 1, 2), (3, 2, 1), (3, 0, 1)])
def test_copy_kernel_moves_16_bytes_per_access_on_sm90(tmp_path, rank, k, other):
    # Compiled for sm_90 on the CPU with every facts bit set (aligned, extents and strides multiples of 16):
    # the loads and stores are 16-byte vectors, for a batch of matrices too (an unhinted batch stride made
    # them one byte each: the review of s28). The interpreter cannot see this.
    import re
    from collections import Counter

    from triton_compile_check import compile_for_gpu, load_for_compile

    gpu = load_for_compile(convert(GROUPED, "gg.py"), tmp_path, "gg_copy_sm90")
    sig = {"src": "*i64", "src_first": "*fp8e5", "SRC_FACTS": "constexpr", "dst": "*i64", "dst_first": "*fp8e5",
           "DST_FACTS": "constexpr", "RANK": "constexpr", "K_AXIS": "constexpr", "OTHER_AXIS": "constexpr",
           "TILE_K": "constexpr", "TILE_O": "constexpr"}
    every = (1 << (1 + 2 * rank)) - 1
    constexprs = {"SRC_FACTS": every, "DST_FACTS": every, "RANK": rank, "K_AXIS": k, "OTHER_AXIS": other,
                  "TILE_K": 64, "TILE_O": 64}
    ptx = compile_for_gpu(gpu._c2t_k_major_copy, sig, constexprs, arch=90, options={"num_warps": 4},
                          last_stage="ptx", divisible=["src", "dst", "src_first", "dst_first"])["ptx"]
    loads = Counter(m.group(0) for m in re.finditer(r"ld\.global[\w.]*\.b\d+", ptx) if "v4" in m.group(0) or "b8" in m.group(0))
    stores = Counter(re.findall(r"st\.global[\w.]*\.b\d+", ptx))
    assert not any(".b8" in op for op in list(loads) + list(stores)), (loads, stores)
    assert any(".v4." in op for op in loads) and any(".v4." in op for op in stores), (loads, stores)


# A read transposed (order=(1, 0), K x M in memory): its loads also have a TMA descriptor path
# (read in memory order and permuted), which does not make an fp8 operand K-major either.
TRANSPOSED_A = """
import cuda.tile as ct
ConstInt = ct.Constant[int]

@ct.kernel
def mm_at(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[0], TK)):
        a = ct.load(A, index=(ct.bid(0), k), shape=(TM, TK), order=(1, 0), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, ct.bid(1)), shape=(TK, TN), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(ct.bid(0), ct.bid(1)), tile=ct.astype(acc, C.dtype))
"""


class _FakeCuda(torch.Tensor):
    """A CPU tensor that claims to be on CUDA, so that the launcher's descriptor checks decide."""

    @property
    def is_cuda(self):
        return True


@pytest.mark.parametrize("use_tma", [None, True, False, "tuned", 1])
def test_an_operand_read_transposed_is_copied_unless_descriptors_are_forced(tmp_path, monkeypatch, use_tma):
    """A's K axis is its first: copied K-major (then the launcher's checks send the launch to pointers)
    unless the caller forces descriptors, which need A's unit last stride; B (K x N, read through a
    plain descriptor) is never copied. Results as torch's on ragged sizes either way."""
    code = convert(TRANSPOSED_A, "mm_at.py")
    # Not where the caller forces descriptors: any true value but "tuned" does (use_tma=1, numpy's True).
    assert '    if not use_tma or use_tma == "tuned":\n        A = _c2t_k_major(A, (0, 1, B, 1))\n' in code
    assert "B = _c2t_k_major" not in code
    mod = load(code, tmp_path, "mm_at")
    monkeypatch.setattr(mod, "_c2t_k_major_device", lambda t: True)
    monkeypatch.setattr(mod, "_C2T_FP8", mod._C2T_FP8 + ("torch.float16",))
    monkeypatch.setattr(mod, "_C2T_K_MAJOR_MIN_ELEMENTS", 0)
    monkeypatch.setattr(mod, "_C2T_K_MAJOR_MIN_REUSE", 0)
    # The runtime's own copy kernel runs on real tensors; PyTorch's copy stands in for the fake CUDA ones.
    monkeypatch.setattr(mod, "_c2t_k_major_copies", lambda xs, k, other: [
        x.as_subclass(torch.Tensor).movedim(k, -1).contiguous().movedim(-1, k) for x in xs])
    seen = []
    real = mod._c2t_run_kernel
    monkeypatch.setattr(mod, "_c2t_run_kernel", lambda k, grid, *a, **kw: (seen.append((a[0], kw["USE_TMA"])),
                                                                           real(k, grid, *a, **kw)))
    seed = fresh_seed()
    g = torch.Generator().manual_seed(seed)
    m, k, n, tm, tn, tk = 50, 72, 40, 16, 16, 16  # ragged; A is K x M with 16-byte rows (descriptor-legal)
    a = dev(torch.randn(k, m + 6, generator=g).half())[:, :m]
    b = dev(torch.randn(k, n, generator=g).half())
    c = poison(dev(torch.empty(m, n, dtype=torch.float16)))
    a, b, c = (t.as_subclass(_FakeCuda) for t in (a, b, c))
    mod.launch_mm_at((-(-m // tm), -(-n // tn), 1), a, b, c, tm, tn, tk, use_tma=use_tma)
    (passed_a, took_tma), = seen
    forced = use_tma not in (None, False, "tuned")
    copied = passed_a.stride() == (1, k)
    assert copied == (not forced), (passed_a.stride(), use_tma)
    assert bool(took_tma) == forced, took_tma  # a copied A fails the descriptor checks: pointers
    want = a.as_subclass(torch.Tensor).float().t() @ b.as_subclass(torch.Tensor).float()
    assert_close(c.as_subclass(torch.Tensor), want.half(), relaxed=True, msg=f"use_tma={use_tma} seed={seed}")
