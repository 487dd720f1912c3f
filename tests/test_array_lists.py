"""Array parameters beyond one plain array, each on our own small cuTile
kernel, converted and run under Triton's CPU interpreter against torch:

* lists of arrays (cuTile ListTy: `As[g]` with a runtime or constant index,
  `len(As)`, elements passed to helpers, lists passed to helpers). cuTile
  passes a list as a table of (pointer, shapes, strides) words plus its
  length (compilation.rst, ListConstraint); the generated launcher makes
  that table (the runtime's _c2t_array_list, which keeps it for the next
  launch with the same arrays), the kernel loads an element's pointer with
  `.to(<first array>.dtype)`;
* an array whose rank a Constant chooses (TileGym liger tvd.py: LOSS is
  (BT, V) or (BT,)): the launcher passes the actual rank as a constexpr and
  each use asserts its rank.

Fresh random inputs every run (seed in failure messages), ragged sizes,
outputs poisoned first. With C2T_CORPUS set, TileGym's group_gemm and tvd
and cutile-python's AllGatherMatmul kernels are converted and run too.
"""

from __future__ import annotations

import os
import pathlib
import types

import pytest

from c2t_interp import ConversionFailed, assert_close, convert, convert_and_load, dev, fresh_seed, load, poison

import torch  # noqa: E402  (after c2t_interp set TRITON_INTERPRET)

HEAD = """
import cuda.tile as ct

ConstInt = ct.Constant[int]
ZERO = ct.PaddingMode.ZERO
"""


def _launches(mod) -> list:
    """The Triton-side arguments (after kernel and grid) of every launch the module's launchers make
    from now on: a list's (table, length, first array, facts) among them."""
    got = []
    real_run = mod._c2t_run_kernel

    def run(kernel, grid, *args, **kwargs):
        got.append(args)
        return real_run(kernel, grid, *args, **kwargs)

    mod._c2t_run_kernel = run
    return got


def _gen():
    seed = fresh_seed()
    return seed, torch.Generator().manual_seed(seed)


# --------------------------------------------------------------------------
# Lists of arrays

GROUPED = HEAD + """
@ct.kernel
def grouped_scale(Xs, Os, TILE_M: ConstInt, TILE_N: ConstInt):
    # One tile per block over all groups; group g's output is (g + 1) * X_g.
    bid = ct.bid(0)
    start = 0
    for g in range(len(Xs)):
        X = Xs[g]
        O = Os[g]
        nn = ct.num_tiles(X, 1, (TILE_M, TILE_N))
        n = ct.num_tiles(X, 0, (TILE_M, TILE_N)) * nn
        if bid >= start and bid < start + n:
            t = bid - start
            x = ct.load(X, (t // nn, t % nn), shape=(TILE_M, TILE_N), padding_mode=ZERO)
            ct.store(O, (t // nn, t % nn), tile=ct.astype(x * (g + 1), O.dtype))
        start += n
"""


@pytest.mark.parametrize("in_dt", [torch.float32, torch.float16])
@pytest.mark.parametrize("layout", ["strided", "one_transposed", "all_transposed", "dense", "offset"])
def test_grouped_runtime_index(tmp_path, in_dt, layout):
    # The launcher's facts per list (bit k: word k of every element, address/shapes/strides, a
    # multiple of 16; bit 5: every last stride 1, bit 6: every first stride 1) become the kernel's
    # hints, and a stride of 1 is taken as the literal 1: an element that breaks a fact must keep
    # its list on the table's values ("one_transposed": Xs loses the unit stride, Os keeps it;
    # "all_transposed": Xs's unit stride is its first).
    mod = convert_and_load(GROUPED, tmp_path, "grouped")
    launched = _launches(mod)
    seed, g = _gen()
    TM, TN = 16, 32
    shapes = [(37, 20), (5, 70), (64, 33)] if layout == "strided" else [(37, 32), (5, 64), (64, 48)]
    xs = [dev(torch.randn(m, n, generator=g).to(in_dt)) for m, n in shapes]
    if layout in ("strided", "one_transposed"):  # a non-contiguous element: strides from the table
        xs[1] = dev(torch.randn(shapes[1][1], shapes[1][0], generator=g).to(in_dt)).T
    if layout == "all_transposed":  # every element a transposed view: contiguous along dimension 0
        xs = [dev(torch.randn(n, m, generator=g).to(in_dt)).T for m, n in shapes]
    if layout == "offset":  # an element one element past an aligned address, rows 33 apart
        xs[0] = dev(torch.randn(shapes[0][0], shapes[0][1] + 1, generator=g).to(in_dt))[:, 1:]
    outs = [poison(dev(torch.empty(m, n, dtype=torch.float32))) for m, n in shapes]
    tiles = sum(-(-m // TM) * -(-n // TN) for m, n in shapes)
    mod.launch_grouped_scale((tiles,), xs, outs, TM, TN)
    for k, (x, o) in enumerate(zip(xs, outs)):
        assert_close(o, x.float() * (k + 1), dtype=in_dt, msg=f"group {k} seed={seed}")
    # (table, length, first, facts) per list. Extents 37/5/64 are not all multiples of 16 (bit 1 off),
    # a last stride of 1 is not one (bit 4 off); addresses of fresh tensors are aligned (bit 0).
    (_, _, _, x_facts, _, _, _, o_facts) = launched[0][:8]
    widths = 0 if layout == "strided" else 4 | 8  # dims 1 and strides 0 of 16s
    assert o_facts == 1 | widths | 32, (layout, o_facts)
    assert x_facts == {"strided": 1, "one_transposed": 1 | 4, "all_transposed": 1 | 4 | 64, "dense": 1 | 4 | 8 | 32,
                       "offset": 4 | 32}[layout], \
        (layout, x_facts)


GROUPED_GEMM = HEAD + """
@ct.kernel
def grouped_gemm(As, Bs, Cs, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    # One output tile per block over all groups: C_g = A_g @ B_g.
    bid = ct.bid(0)
    start = 0
    for g in range(len(As)):
        A = As[g]
        B = Bs[g]
        C = Cs[g]
        nn = ct.num_tiles(C, 1, (TM, TN))
        n = ct.num_tiles(C, 0, (TM, TN)) * nn
        if bid >= start and bid < start + n:
            t = bid - start
            acc = ct.zeros((TM, TN), dtype=ct.float32)
            for k in range(ct.num_tiles(A, 1, (TM, TK))):
                a = ct.load(A, (t // nn, k), shape=(TM, TK), padding_mode=ZERO)
                b = ct.load(B, (k, t % nn), shape=(TK, TN), padding_mode=ZERO)
                acc = ct.mma(a, b, acc)
            ct.store(C, (t // nn, t % nn), tile=ct.astype(acc, C.dtype))
        start += n
"""


@pytest.mark.parametrize("dims", [[(64, 128, 64), (128, 64, 96)], [(50, 70, 30), (64, 64, 64)]], ids=["aligned", "ragged"])
def test_grouped_gemm_loads_pipeline_where_the_lists_allow(tmp_path, dims):
    # Triton software-pipelines a K loop's loads (cp.async) only where it can vectorize them: where it
    # knows the addresses, extents and leading strides are multiples of 16, which its specialization
    # finds in a single array's arguments but not in a list's table. With the launcher's facts
    # (ArrayListVal::facts) the sm_90 compile of aligned lists pipelines (TileGym's group_gemm:
    # BENCHMARKS.md, s23); ragged lists compile without the hints. The interpreter checks the results.
    from triton_compile_check import compile_launch, load_for_compile

    code = convert(GROUPED_GEMM, "grouped_gemm.py")
    mod, gpu = load(code, tmp_path, "grouped_gemm"), load_for_compile(code, tmp_path, "grouped_gemm")
    seed, g = _gen()
    TM, TN, TK = 64, 64, 32
    As = [dev(torch.randn(m, k, generator=g).to(torch.float16)) for m, k, n in dims]
    Bs = [dev(torch.randn(k, n, generator=g).to(torch.float16)) for m, k, n in dims]
    Cs = [poison(dev(torch.empty(m, n, dtype=torch.float16))) for m, k, n in dims]
    tiles = sum(-(-m // TM) * -(-n // TN) for m, k, n in dims)
    stages = compile_launch(gpu.launch_grouped_gemm, (tiles, 1, 1), As, Bs, Cs, TM, TN, TK)
    aligned = dims[0] == (64, 128, 64)
    if aligned:
        assert "async_copy_global_to_local" in stages["ttgir"], "aligned lists: the K loop's loads were not pipelined"
    launched = _launches(mod)
    mod.launch_grouped_gemm((tiles, 1, 1), As, Bs, Cs, TM, TN, TK)
    # As' facts: every word a multiple of 16 but the last stride (1), or (ragged) only the address and unit stride.
    assert launched[0][3] == (1 | 2 | 4 | 8 | 32 if aligned else 1 | 32), launched[0][3]
    for i, (a, b, c) in enumerate(zip(As, Bs, Cs)):
        assert_close(c, (a.float() @ b.float()).to(torch.float16), relaxed=True, msg=f"group {i} seed={seed}")


def test_grouped_code_shape():
    code = convert(GROUPED, "grouped.py")
    # cuTile's layout: 1 + 2 * rank int64 words per element, int32 shapes/strides.
    assert "Xs_table + g * 5" in code
    assert ".to(Xs_first.dtype)" in code
    assert "X_shape_1_raw = tl.load(X_words + 2).to(tl.int32)" in code
    assert "Xs_len" in code and "len(_c2t_Xs)" in code
    # A unit stride (the last: bit 5, the first: bit 6) as the literal 1, else a multiple of 16 where every element's is.
    flat = " ".join(code.split())
    assert "X_stride_1 = ( 1 if Xs_facts & 32 else tl.multiple_of(X_stride_1_raw, 16) if Xs_facts & 16 else " \
           "X_stride_1_raw )" in flat
    assert "X_stride_0 = ( 1 if Xs_facts & 64 else tl.multiple_of(X_stride_0_raw, 16) if Xs_facts & 8 else " \
           "X_stride_0_raw )" in flat
    assert "X_shape_1 = tl.multiple_of(X_shape_1_raw, 16) if Xs_facts & 4 else X_shape_1_raw" in code
    assert '_c2t_Xs, _c2t_Xs_table, _c2t_Xs_facts = _c2t_array_list("Xs", Xs, 2, int32=True)' in code


def test_launcher_reuses_a_lists_table(tmp_path):
    # The table of (address, shapes, strides) words is copied to the device once per distinct
    # list, not per launch (a host-to-device copy per list cost small grouped GEMMs most of their time).
    mod = convert_and_load(GROUPED, tmp_path, "grouped_tables")
    launched = _launches(mod)
    xs = [dev(torch.randn(8, 4)), dev(torch.randn(16, 4))]
    outs = [dev(torch.empty(8, 4)), dev(torch.empty(16, 4))]
    for _ in range(2):
        mod.launch_grouped_scale((2,), xs, outs, 16, 32)
    xs[0].add_(1.0)  # new values, the same words: the same table still describes the list
    mod.launch_grouped_scale((2,), xs, outs, 16, 32)
    mod.launch_grouped_scale((2,), xs[::-1], outs[::-1], 16, 32)  # other words: another table
    tables = [args[0] for args in launched]
    assert tables[0] is tables[1] is tables[2] and tables[3] is not tables[0]
    assert tables[3].tolist() == [w for t in xs[::-1] for w in (t.data_ptr(), *t.shape, *t.stride())]
    assert_close(outs[1], xs[1])  # group g's output is (g + 1) * X_g, in the last launch's order
    assert_close(outs[0], xs[0] * 2.0)


def test_list_tables_from_many_threads(tmp_path):
    # Launches from several threads share the module's tables: no error, at most 256 kept.
    import threading

    mod = convert_and_load(GROUPED, tmp_path, "grouped_threads")
    base, errors = dev(torch.zeros(1 << 14)), []

    def work(t):
        try:
            for i in range(200):
                off = 4 * ((t * 200 + i) % 4000)
                items, table, _ = mod._c2t_array_list("Xs", [base[off:off + 4].view(2, 2)], 2, True)
                assert table.tolist() == [items[0].data_ptr(), 2, 2, 2, 1]
        except Exception as e:  # noqa: BLE001 -- reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(mod._c2t_list_tables) == 256


@pytest.mark.parametrize("arg, message", [
    (lambda a: a.reshape(1, 4, 4).expand(2, 4, 4), "expected a list of arrays, got Tensor"),  # not a list
    (lambda a: (t for t in [a]), "expected a list of arrays, got generator"),
    (lambda a: [a, None], "every element of the list must be an array"),
    (lambda a: [a.to_sparse()], "every element of the list must be an array"),  # no strides
    (lambda a: [torch._neg_view(a)], "a negated or conjugated view"),  # the table would drop the sign
])
def test_a_list_parameter_takes_a_list_of_arrays(tmp_path, arg, message):
    mod = convert_and_load(GROUPED, tmp_path, "grouped_types")
    a = dev(torch.zeros(4, 4))
    with pytest.raises(ValueError, match=f"Xs: {message}"):
        mod.launch_grouped_scale((1,), arg(a), [a], 16, 32)
    mod.launch_grouped_scale((1,), (a,), [a], 16, 32)  # a tuple is a sequence of arrays as well


def test_int32_indexed_list_checks_its_extents(tmp_path):
    # cuTile's default index type: an element's shapes and strides must fit in int32 (addresses
    # need not); a 2**31-row view (stride 0, nothing allocated) does not.
    mod = convert_and_load(GROUPED, tmp_path, "grouped_int32")
    a = dev(torch.zeros(1, 4))
    with pytest.raises(ValueError, match="Xs: shapes and strides must fit in int32"):
        mod.launch_grouped_scale((1,), [a, a.expand(2**31, 4)], [a, a], 16, 32)
    items, table, facts = mod._c2t_array_list("Xs", [a.expand(2**31 - 1, 4)], 2, True)
    assert table.tolist() == [a.data_ptr(), 2**31 - 1, 4, 0, 1]
    # A list checked for an int64-indexed kernel is checked again for an int32-indexed one.
    big = [a.expand(2**31, 4)]
    mod._c2t_array_list("Xs", big, 2, False)
    with pytest.raises(ValueError, match="Xs: shapes and strides must fit in int32"):
        mod._c2t_array_list("Xs", big, 2, True)


def test_launcher_checks_list_elements(tmp_path):
    mod = convert_and_load(GROUPED, tmp_path, "grouped_checks")
    a = dev(torch.zeros(4, 4))
    with pytest.raises(ValueError, match="every array of the list"):
        mod.launch_grouped_scale((1,), [a, a.half()], [a, a], 16, 32)
    with pytest.raises(ValueError, match="every array of the list"):
        mod.launch_grouped_scale((1,), [a, torch.zeros(4)], [a, a], 16, 32)
    with pytest.raises(ValueError, match="empty list"):
        mod.launch_grouped_scale((1,), [], [], 16, 32)


CONST_AND_HELPERS = HEAD + """
def load_row(A, i, TILE: ConstInt):
    return ct.load(A, index=(i,), shape=(TILE,), padding_mode=ZERO)


def sum_all(Vs, i, TILE: ConstInt):
    acc = ct.zeros((TILE,), dtype=ct.float32)
    for g in range(len(Vs)):
        acc += ct.astype(ct.load(Vs[g], index=(i,), shape=(TILE,), padding_mode=ZERO), ct.float32)
    return acc


@ct.kernel
def first_last_sum(Vs, out_fl, out_sum, TILE: ConstInt):
    i = ct.bid(0)
    a = ct.load(Vs[0], index=(i,), shape=(TILE,), padding_mode=ZERO)   # constant index
    b = load_row(Vs[len(Vs) - 1], i, TILE)                             # element passed to a helper
    ct.store(out_fl, index=(i,), tile=ct.astype(a, ct.float32) - ct.astype(b, ct.float32) * 3.0)
    ct.store(out_sum, index=(i,), tile=sum_all(Vs, i, TILE))           # list passed to a helper
"""


@pytest.mark.parametrize("n_arrays", [1, 4])
def test_const_index_and_helpers(tmp_path, n_arrays):
    mod = convert_and_load(CONST_AND_HELPERS, tmp_path, "const_helpers")
    seed, g = _gen()
    N, TILE = 77, 32
    vs = [dev(torch.randn(N, generator=g).half()) for _ in range(n_arrays)]
    vs = [v if k % 2 == 0 else dev(torch.randn(2 * N, generator=g).half())[::2] for k, v in enumerate(vs)]
    out_fl = poison(dev(torch.empty(N)))
    out_sum = poison(dev(torch.empty(N)))
    launched = _launches(mod)
    mod.launch_first_last_sum((-(-N // TILE),), vs, out_fl, out_sum, TILE)
    # A 1-d list's facts: address (bit 0), extent (1), stride (2), every stride 1 (bit 3); N = 77, and
    # every other element a [::2] view.
    assert launched[0][3] == (1 | 8 if n_arrays == 1 else 1), launched[0][3]
    assert_close(out_fl, vs[0].float() - vs[-1].float() * 3.0, dtype=torch.float16, msg=f"seed={seed}")
    assert_close(out_sum, sum(v.float() for v in vs), dtype=torch.float16, relaxed=True, msg=f"seed={seed}")


INT64_LIST = """
from typing import Annotated
import cuda.tile as ct


@ct.kernel
def add_int64_index_arrays(
    arrays: Annotated[list, ct.ListAnnotation(element=ct.IndexedWithInt64)],
    out: ct.IndexedWithInt64,
    TILE: ct.Constant[int],
):
    bid = ct.bid(0)
    res = ct.zeros((TILE, 1), dtype=out.dtype)
    for i in range(len(arrays)):
        res += ct.load(arrays[i], (bid, 0), (TILE, 1), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, (bid, 0), res)
"""


def test_int64_indexed_list(tmp_path):
    # cuTile test_list.py: int64-indexed elements keep int64 shapes/strides
    code = convert(INT64_LIST, "int64_list.py")
    assert "arrays_item_shape_0_raw = tl.load(arrays_item_words + 1)\n" in code
    assert '_c2t_array_list("arrays", arrays, 2, int32=False)' in code  # no int32 range check on the host
    mod = load(code, tmp_path, "int64_list")
    seed, g = _gen()
    n, TILE = 50, 16
    arrays = [dev(torch.randint(-100, 100, (n, 1), generator=g, dtype=torch.int32)) for _ in range(3)]
    out = poison(dev(torch.empty(n, 1, dtype=torch.int32)))
    launched = _launches(mod)
    mod.launch_add_int64_index_arrays((-(-n // TILE),), arrays, out, TILE)
    # aligned addresses, unit strides (an (n, 1) array's both: bits 5 and 6); 50, 1 and 1 no multiples of 16
    assert launched[0][3] == 1 | 32 | 64, launched[0][3]
    assert_close(out, sum(arrays), msg=f"seed={seed}")


@pytest.mark.parametrize(
    "body, message",
    [
        # (constant indices alone make Vs a tuple, whose elements may differ in rank)
        ("    g = ct.bid(0)\n    a = ct.load(Vs[g], index=(0,), shape=(16,))\n"
         "    b = ct.load(Vs[g + 1], index=(0, 0), shape=(16, 16))\n",
         "used with different ranks"),
        ("    a = ct.load(Vs[-1], index=(0,), shape=(16,))\n", "negative index"),
        ("    a = ct.load(Vs[0.5], index=(0,), shape=(16,))\n", "integer scalar"),
    ],
)
def test_list_diagnostics(body, message):
    with pytest.raises(ConversionFailed, match=message):
        convert(HEAD + "@ct.kernel\ndef k(Vs):\n" + body, "bad.py")


SELECTED = HEAD + """
@ct.kernel
def pick(Xs, A, out, flag, TILE: ConstInt, AXIS: ConstInt):
    i = ct.bid(0)
    # an element chosen by a runtime branch
    if flag > 0:
        X = Xs[0]
    else:
        X = Xs[1]
    # a slice along an axis a Constant chooses (TileGym ragged_bmm.py)
    if AXIS == 0:
        S = A.slice(axis=0, start=1, stop=A.shape[0])
    else:
        S = A.slice(axis=1, start=1, stop=A.shape[1])
    x = ct.load(X, index=(i,), shape=(TILE,), padding_mode=ZERO)
    s = ct.load(S, index=(0, i), shape=(1, TILE), padding_mode=ZERO).reshape((TILE,))
    ct.store(out, index=(i,), tile=x + s)
"""


@pytest.mark.parametrize("flag, axis", [(1, 0), (0, 0), (1, 1), (-3, 1)])
def test_array_chosen_by_branch(tmp_path, flag, axis):
    mod = convert_and_load(SELECTED, tmp_path, "selected")
    seed, g = _gen()
    N, TILE = 45, 16
    xs = [dev(torch.randn(N, generator=g)) for _ in range(2)]
    a = dev(torch.randn(3, N + 1, generator=g))
    out = poison(dev(torch.empty(N)))
    mod.launch_pick((-(-N // TILE),), xs, a, out, flag, TILE, axis)
    s = a[1:][0, :N] if axis == 0 else a[:, 1:][0, :N]
    assert_close(out, (xs[0] if flag > 0 else xs[1]) + s, msg=f"flag={flag} axis={axis} seed={seed}")


def test_array_rebound_in_loop_is_a_diagnostic():
    src = HEAD + """
@ct.kernel
def k(Xs, out, TILE: ConstInt):
    X = Xs[0]
    for g in range(len(Xs)):
        ct.store(out, index=(g,), tile=ct.load(X, index=(0,), shape=(TILE,)))
        X = Xs[g]
"""
    with pytest.raises(ConversionFailed, match="names different arrays depending on control flow"):
        convert(src, "loop.py")


# --------------------------------------------------------------------------
# An array whose rank a Constant chooses (the tvd.py pattern)

MULTI_RANK = HEAD + """
@ct.kernel
def rows(X, OUT, TILE: ConstInt, REDUCE: ConstInt):
    r = ct.bid(0)
    x = ct.astype(ct.load(X, index=(r, 0), shape=(1, TILE), padding_mode=ZERO), ct.float32)
    if REDUCE == 1:
        # OUT is (rows,): one value per row
        ct.scatter(OUT, r, ct.astype(ct.sum(x, 1, keepdims=False).item(), OUT.dtype))
    else:
        # OUT is (rows, cols)
        ct.store(OUT, index=(r, 0), tile=ct.astype(x * 2.0, OUT.dtype))
"""


@pytest.mark.parametrize("reduce", [0, 1])
def test_rank_chosen_by_constant(tmp_path, reduce):
    mod = convert_and_load(MULTI_RANK, tmp_path, "multi_rank")
    seed, g = _gen()
    R, C, TILE = 13, 45, 64
    x = dev(torch.randn(R, C, generator=g))
    if reduce:
        out = poison(dev(torch.empty(R)))
        exp = x.sum(1)
    else:
        out = poison(dev(torch.empty(R, 2 * C)))[:, ::2]  # a strided 2-d output
        exp = x * 2.0
    mod.launch_rows((R,), x, out, TILE, reduce)
    assert_close(out, exp, relaxed=bool(reduce), msg=f"reduce={reduce} seed={seed}")


def test_rank_chosen_by_constant_is_checked(tmp_path):
    code = convert(MULTI_RANK, "multi_rank.py")
    assert "OUT_NDIM: tl.constexpr" in code
    assert "tl.static_assert(OUT_NDIM == 1" in code and "tl.static_assert(OUT_NDIM == 2" in code
    mod = load(code, tmp_path, "multi_rank_checks")
    x = dev(torch.randn(4, 8))
    with pytest.raises(ValueError, match="ranks"):  # a rank the kernel never uses: host check
        mod.launch_rows((4,), x, dev(torch.empty(4, 8, 1)), 64, 0)
    with pytest.raises(Exception, match="OUT is used here as a 1-d array"):  # wrong rank for this branch
        mod.launch_rows((4,), x, dev(torch.empty(4, 8)), 64, 1)


def test_rank_chosen_by_constant_needs_visible_uses():
    src = HEAD + """
def put(A, i, v):
    ct.scatter(A, i, v)


@ct.kernel
def k(OUT, MODE: ConstInt):
    if MODE == 1:
        ct.store(OUT, index=(0,), tile=ct.zeros((16,), dtype=ct.float32))
    else:
        ct.store(OUT, index=(0, 0), tile=ct.zeros((16, 16), dtype=ct.float32))
    put(OUT, 0, 1.0)
"""
    with pytest.raises(ConversionFailed, match="does not show which rank"):
        convert(src, "bad_rank.py")


# An array used only in a branch a Constant removes (TileGym liger dyt.py:
# db_partial is (NUM_SMS, N) when HAVE_BETA, else a 1-element dummy).

OPTIONAL_2D = HEAD + """
@ct.kernel
def scale(X, Y, PART, TILE: ConstInt, HAVE_PART: ConstInt):
    r = ct.bid(0)
    x = ct.load(X, index=(r,), shape=(TILE,), padding_mode=ZERO)
    ct.store(Y, index=(r,), tile=x * 3.0)
    if HAVE_PART:
        cols = ct.arange(TILE, dtype=ct.int32) + r * TILE
        rows = ct.full((TILE,), 1, dtype=ct.int32)
        ct.scatter(PART, (rows, cols), x)
"""


@pytest.mark.parametrize("have_part", [0, 1])
def test_array_used_only_under_a_constant_branch_may_be_a_dummy(tmp_path, have_part):
    code = convert(OPTIONAL_2D, "optional_2d.py")
    assert "tl.static_assert(PART_NDIM == 2" in code
    mod = load(code, tmp_path, "optional_2d")
    seed, g = _gen()
    n, TILE = 100, 32
    x = dev(torch.randn(n, generator=g))
    y = poison(dev(torch.empty(n)))
    part = poison(dev(torch.empty(3, n))) if have_part else dev(torch.zeros(1))  # dummy, as dyt.py
    mod.launch_scale((-(-n // TILE),), x, y, part, TILE, have_part)
    assert_close(y, x * 3.0, msg=f"seed={seed}")
    if have_part:
        assert_close(part[1], x, msg=f"seed={seed}")
    else:
        assert part.tolist() == [0.0]
    with pytest.raises(Exception, match="PART is used here as a 2-d array"):  # taken branch, wrong rank
        mod.launch_scale((1,), x, y, dev(torch.zeros(1)), TILE, 1)
    with pytest.raises(ValueError, match="at most 2 dimensions"):
        mod.launch_scale((1,), x, y, dev(torch.zeros(1, 1, 1)), TILE, 0)


@pytest.mark.parametrize("cond", ["HAVE_PART", "have", "X.dtype == ct.float32"])
def test_dummy_array_under_other_compile_time_conditions(tmp_path, cond):
    # The branch may test a Constant, a local bound once to Constants, or a dtype.
    src = OPTIONAL_2D.replace("    if HAVE_PART:", "    have = HAVE_PART > 0\n    if " + cond + ":")
    code = convert(src, "optional_cond.py")
    assert "tl.static_assert(PART_NDIM == 2" in code, code
    mod = load(code, tmp_path, "optional_cond")
    n, TILE = 70, 32
    # float64 data makes the dtype test false; HAVE_PART=0 the other two
    dt = torch.float64 if cond.startswith("X.dtype") else torch.float32
    x = dev(torch.randn(n, dtype=dt))
    y = poison(dev(torch.empty(n, dtype=dt)))
    mod.launch_scale((-(-n // TILE),), x, y, dev(torch.zeros(1)), TILE, 0)  # the dummy: branch not taken
    assert_close(y, x * 3.0)


# --------------------------------------------------------------------------
# The real corpus kernels (opt-in)

def _corpus() -> pathlib.Path | None:
    c = os.environ.get("C2T_CORPUS")
    return pathlib.Path(c) if c and pathlib.Path(c).is_dir() else None


def _corpus_kernel_module(tmp_path, rel: str, name: str) -> types.ModuleType:
    """The converted kernels and launchers of a corpus file, without its host
    code (which imports tilegym / torch.distributed): the whole host runtime block
    (self-contained, between its markers), then every @triton.jit function and
    launch_* definition, executed in a fresh module."""
    corpus = _corpus()
    if corpus is None:
        pytest.skip("C2T_CORPUS not set")
    src = (corpus / rel).read_text()
    code = convert(src, pathlib.Path(rel).name)
    start = code.index("# ---- cutile2triton host runtime")
    end_marker = "# ---- end of the cutile2triton host runtime ----\n"
    end = code.index(end_marker) + len(end_marker)
    keep, take = ["import triton\nimport triton.language as tl\n\n", code[start:end]], False
    for ln in code[end:].splitlines(keepends=True):
        if ln.startswith(("@triton.jit", "def launch_")):
            take = True
        elif ln and not ln[0].isspace() and not ln.startswith((")", "def ")) and take:
            take = False
        elif ln.startswith("def ") and not ln.startswith("def launch_") and take and keep[-1].strip() != "@triton.jit":
            take = False
        if take:
            keep.append(ln)
    return load("".join(keep), tmp_path, name)


@pytest.mark.corpus
@pytest.mark.parametrize("transpose_b", [False, True])
def test_corpus_group_gemm(tmp_path, transpose_b):
    mod = _corpus_kernel_module(tmp_path, "TileGym/src/tilegym/ops/cutile/group_gemm.py", "group_gemm")
    seed, g = _gen()
    TM, TN, TK, NUM_SM = 16, 16, 16, 5
    dims = [(37, 20, 19), (5, 33, 40), (16, 16, 16)]  # (M, K, N) per group
    As = [dev(torch.randn(m, k, generator=g)) for m, k, n in dims]
    Bs = [dev(torch.randn(n, k, generator=g) if transpose_b else torch.randn(k, n, generator=g)) for m, k, n in dims]
    Cs = [poison(dev(torch.empty(m, n))) for m, k, n in dims]
    mod.launch__group_gemm_kernel((NUM_SM, 1, 1), As, Bs, Cs, TM, TN, TK, NUM_SM, transpose_b)
    for i, (a, b, c) in enumerate(zip(As, Bs, Cs)):
        exp = a @ (b.T if transpose_b else b)
        assert_close(c, exp, relaxed=True, msg=f"group {i} transpose_b={transpose_b} seed={seed}")


@pytest.mark.corpus
@pytest.mark.parametrize("reduction", [0, 1])
def test_corpus_tvd(tmp_path, reduction):
    mod = _corpus_kernel_module(tmp_path, "TileGym/src/tilegym/suites/liger/cutile/tvd.py", "tvd")
    seed, g = _gen()
    BT, V, BLOCK, ignore = 6, 50, 16, -100
    p = dev(torch.softmax(torch.randn(BT, V, generator=g), -1))
    q = dev(torch.softmax(torch.randn(BT, V, generator=g), -1))
    label = dev(torch.tensor([1, ignore, 3, 4, ignore, 0]))
    loss = poison(dev(torch.empty(BT, V) if reduction == 0 else torch.empty(BT)))
    grads = poison(dev(torch.empty(BT, V)))
    scale = 0.25
    mod.launch__tv_distance_kernel_ct((BT, 1, 1), p, q, loss, grads, label, scale, BT, V, ignore, BLOCK, 1,
                                      reduction)
    keep = (label != ignore).float()[:, None]
    tv = 0.5 * (p - q).abs() * keep
    exp_grads = torch.where(p > q, 0.5, -0.5) * scale * keep
    assert_close(grads, exp_grads, msg=f"seed={seed}")
    exp_loss = tv if reduction == 0 else tv.sum(1) * scale
    assert_close(loss, exp_loss, relaxed=True, msg=f"reduction={reduction} seed={seed}")


@pytest.mark.corpus
def test_corpus_all_gather_matmul_single_process(tmp_path):
    # The kernel indexes a list of peer buffers; in one process the "peers" are
    # ordinary tensors (on the GPU they are symmetric-memory views of the
    # other ranks' buffers, which Triton reads through the same pointers).
    mod = _corpus_kernel_module(tmp_path, "cutile-python/samples/AllGatherMatmul.py", "all_gather_matmul")
    seed, g = _gen()
    world, M, K, N, T = 3, 32, 48, 40, 16
    inp = [dev(torch.randn(M, K, generator=g)) for _ in range(world)]
    w = dev(torch.randn(K, N, generator=g))
    out = poison(dev(torch.empty(world * M, N)))
    mod.launch_gather_matmul_kernel((world * M // T, -(-N // T)), inp, w, out, T, T, T)
    # fp32 inputs are cast to tf32 for the MMA (cuTile sample): tf32 tolerance
    torch.testing.assert_close(out, torch.cat(inp) @ w, rtol=2e-2, atol=2e-2, msg=f"seed={seed}")


def test_a_table_is_recorded_only_on_other_streams(tmp_path, monkeypatch):
    # A table made on one stream and used there needs no Tensor.record_stream (the allocator orders
    # its reuse on that stream); used on another stream it is recorded there, and where torch lacks
    # the raw stream query every use is. No GPU here: the CUDA queries are stood in for.
    mod = convert_and_load(GROUPED, tmp_path, "grouped_streams")
    stream, recorded = [11], []
    monkeypatch.setattr(torch.Tensor, "is_cuda", property(lambda self: True))
    monkeypatch.setattr(torch.Tensor, "record_stream", lambda self, s: recorded.append(s))
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: False)
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: f"stream {stream[0]}")
    monkeypatch.setattr(mod, "_c2t_raw_stream", lambda torch_, t: stream[0])
    xs = [torch.randn(8, 4), torch.randn(16, 4)]
    mod._c2t_array_list("Xs", xs, 2, True)  # made on stream 11
    mod._c2t_array_list("Xs", xs, 2, True)
    assert recorded == []
    stream[0] = 12
    mod._c2t_array_list("Xs", xs, 2, True)
    assert recorded == ["stream 12"]
    stream[0] = None  # no raw stream query in this torch
    mod._c2t_array_list("Xs", xs, 2, True)
    assert recorded == ["stream 12", "stream None"]


def _native_lists(mod):
    """The module's native list path (cutile2triton.fast_launch's list_hit), or skip where it cannot
    be built (C2T_REQUIRE_NATIVE=1, as in CI, makes that a failure)."""
    fn = mod._c2t_list_native_init()[0]
    if fn is None:
        if os.environ.get("C2T_REQUIRE_NATIVE") == "1":
            pytest.fail("the native module is required (C2T_REQUIRE_NATIVE=1) but was not built")
        pytest.skip("cutile2triton's native module is not built here (no C compiler)")
    return fn


def test_native_list_path_finds_what_the_python_path_made(tmp_path):
    # A list seen before is found natively (the same key and tables as the Python path), returns the
    # same table and facts, and moves to the end of the tables once they are half full; anything
    # else is left to the Python path, whose checks and errors are unchanged.
    mod = convert_and_load(GROUPED, tmp_path, "grouped_native")
    fn = _native_lists(mod)
    a, b = dev(torch.randn(8, 4)), dev(torch.randn(16, 4)[:, :3])
    items, table, facts = mod._c2t_array_list("Xs", [a, b], 2, True)  # made by the Python path
    hit = fn([a, b], 2, True, mod._c2t_list_tables, mod._c2t_list_tables_captured, None)
    assert hit is not None and hit[0] == [a, b] and hit[1] is table and hit[2] == facts
    assert fn((a, b), 2, True, mod._c2t_list_tables, mod._c2t_list_tables_captured, None)[1] is table
    for other in ([b, a], [a], [a, b.contiguous()]):  # other words: not found, the Python path makes them
        assert fn(other, 2, True, mod._c2t_list_tables, mod._c2t_list_tables_captured, None) is None
    assert fn([a, b], 2, False, mod._c2t_list_tables, mod._c2t_list_tables_captured, None) is None  # int64 type
    for bad in ([], [a, None], (t for t in [a]), a, [a.to_sparse()]):
        assert fn(bad, 2, True, mod._c2t_list_tables, mod._c2t_list_tables_captured, None) is None
    with pytest.raises(ValueError, match="Xs: every element of the list must be an array"):
        mod._c2t_array_list("Xs", [a, None], 2, True)
    # The most recently used moves to the end once more than 128 tables are kept.
    base = dev(torch.zeros(1 << 12))
    lists = [[base[4 * i:4 * i + 4].view(2, 2)] for i in range(140)]
    for xs in lists:
        mod._c2t_array_list("Xs", xs, 2, True)
    assert len(mod._c2t_list_tables) > 128 and list(mod._c2t_list_tables)[-1][2][0] != a.data_ptr()
    assert fn([a, b], 2, True, mod._c2t_list_tables, mod._c2t_list_tables_captured, None) is not None
    assert list(mod._c2t_list_tables)[-1][2][0] == a.data_ptr()


def test_native_list_path_on_cuda_checks_capture_and_stream(tmp_path, monkeypatch):
    # For a CUDA list the native path asks whether a graph is being captured and which stream is
    # current (torch's C queries; stood in for here, no GPU): it returns the entry only outside
    # capture on the stream the table was made on, else the Python path records the stream or keeps
    # the table for the graph. Without the queries (queries None) CUDA lists take the Python path.
    mod = convert_and_load(GROUPED, tmp_path, "grouped_native_cuda")
    fn = _native_lists(mod)
    stream, capturing, recorded, calls = [11], [False], [], []
    monkeypatch.setattr(torch.Tensor, "is_cuda", property(lambda self: True))
    monkeypatch.setattr(torch.Tensor, "record_stream", lambda self, s: recorded.append(s))
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: capturing[0])
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: f"stream {stream[0]}")
    monkeypatch.setattr(mod, "_c2t_raw_stream", lambda torch_, t: stream[0])

    def raw(device):
        calls.append(device)
        return stream[0]

    monkeypatch.setattr(mod, "_c2t_list_native", [fn, (lambda: capturing[0], raw)])
    xs = [torch.randn(8, 4), torch.randn(16, 4)]
    made = mod._c2t_array_list("Xs", xs, 2, True)  # made on stream 11 (the Python path)
    assert calls == []
    again = mod._c2t_array_list("Xs", xs, 2, True)  # found natively: the stream queried, nothing recorded
    assert calls == [xs[0].get_device()] and again[1] is made[1] and recorded == []
    stream[0] = 12  # another stream: the Python path records the table there
    assert mod._c2t_array_list("Xs", xs, 2, True)[1] is made[1] and recorded == ["stream 12"]
    capturing[0] = True  # capture: the Python path keeps the table for the graph
    assert mod._c2t_array_list("Xs", xs, 2, True)[1] is made[1]
    assert list(mod._c2t_list_tables_captured.values())[0][0] is made[1]
    capturing[0], stream[0] = False, 11  # the captured table is found natively from now on
    n = len(calls)
    assert mod._c2t_array_list("Xs", xs, 2, True)[1] is made[1] and len(calls) == n + 1
    mod._c2t_list_native[1] = None  # a torch without the queries: the Python path
    assert fn(xs, 2, True, mod._c2t_list_tables, mod._c2t_list_tables_captured, None) is None
    assert mod._c2t_array_list("Xs", xs, 2, True)[1] is made[1]


def test_a_negated_view_of_a_list_seen_before_is_refused(tmp_path):
    # c.conj().imag has c.imag's address, shape, strides and dtype: only its negation bit differs, so the
    # key holds it (else the table of [c.imag] was reused and the kernel read +imag for -imag).
    mod = convert_and_load(GROUPED, tmp_path, "grouped_neg_after")
    c = dev(torch.randn(4, 4, dtype=torch.complex64))
    out = dev(torch.zeros(4, 4))
    mod.launch_grouped_scale((1,), [c.imag], [out], 16, 32)
    assert_close(out, c.imag)
    with pytest.raises(ValueError, match="Xs: a negated or conjugated view"):
        mod.launch_grouped_scale((1,), [c.conj().imag], [out], 16, 32)


def test_native_list_path_under_hostile_accessors(tmp_path):
    # Accessors that run Python code: one that walks the garbage collector's tuples while a key is built
    # (no half-filled tuple may be found there), a list whose __len__ raises (the native path declines,
    # the Python path raises it), an interrupt from an accessor (propagates, nothing kept).
    import gc

    mod = convert_and_load(GROUPED, tmp_path, "grouped_hostile")
    fn = _native_lists(mod)

    class Walker(torch.Tensor):
        def data_ptr(self):
            for o in gc.get_objects():
                if type(o) is tuple:
                    for _ in o:
                        pass
            return super().data_ptr()

    a = torch.randn(4, 4).as_subclass(Walker)
    made = mod._c2t_array_list("Xs", [a, a], 2, True)
    assert mod._c2t_array_list("Xs", [a, a], 2, True)[1] is made[1]

    class BadLen(list):
        def __len__(self):
            raise ValueError("no length")

    b = torch.randn(4, 4)
    assert fn(BadLen([b]), 2, True, mod._c2t_list_tables, mod._c2t_list_tables_captured, None) is None
    with pytest.raises(ValueError, match="no length"):
        mod._c2t_array_list("Xs", BadLen([b]), 2, True)

    class Interrupting(torch.Tensor):
        def stride(self, *args):
            raise KeyboardInterrupt

    before = dict(mod._c2t_list_tables)
    with pytest.raises(KeyboardInterrupt):
        fn([torch.randn(4, 4).as_subclass(Interrupting)], 2, True, mod._c2t_list_tables,
           mod._c2t_list_tables_captured, None)
    assert mod._c2t_list_tables == before


def test_a_table_made_while_capturing_serves_that_capture_only(tmp_path, monkeypatch):
    # A table made during a CUDA graph capture holds its words only once the graph replays: it is kept
    # alive for the graph but never reused; launches after the capture make and reuse their own. (No GPU
    # here: CUDA's queries are stood in for.)
    mod = convert_and_load(GROUPED, tmp_path, "grouped_graph_only")
    capturing = [True]
    monkeypatch.setattr(torch.Tensor, "is_cuda", property(lambda self: True))
    monkeypatch.setattr(torch.Tensor, "record_stream", lambda self, s: None)
    monkeypatch.setattr(torch.cuda, "is_current_stream_capturing", lambda: capturing[0])
    monkeypatch.setattr(torch.cuda, "current_stream", lambda device=None: "stream")
    monkeypatch.setattr(mod, "_c2t_raw_stream", lambda torch_, t: 11)
    xs = [torch.randn(8, 4), torch.randn(16, 4)]
    in_graph = mod._c2t_array_list("Xs", xs, 2, True)
    assert mod._c2t_list_tables == {} and mod._c2t_list_tables_captured == {}
    assert mod._c2t_list_tables_graph_only[-1][0] is in_graph[1]
    assert mod._c2t_array_list("Xs", xs, 2, True)[1] is not in_graph[1]  # not reused, even in that capture
    capturing[0] = False
    eager = mod._c2t_array_list("Xs", xs, 2, True)
    assert eager[1] is not in_graph[1] and eager[1].tolist() == in_graph[1].tolist()
    assert mod._c2t_array_list("Xs", xs, 2, True)[1] is eager[1] and len(mod._c2t_list_tables_graph_only) == 2
