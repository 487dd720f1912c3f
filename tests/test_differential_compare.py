"""Unit tests of cutile2triton.differential_compare: the argument copies and the comparison behind the
TileGym plug-in's differential check against cuTile (--c2t-differential)."""

import collections
import dataclasses
import math

import torch

from cutile2triton.differential_compare import Copier, compare, copy_args, describe, tolerance, unrepeatable


def test_tolerances_are_the_workflows_doubled():
    assert tolerance(torch.float32) == tolerance(torch.float64) == tolerance(torch.complex64) == (2e-3, 2e-3)
    assert tolerance(torch.float16) == tolerance(torch.bfloat16) == (2e-2, 2e-2)
    assert tolerance(torch.float8_e4m3fn)[0] == 2.0 ** -3 and tolerance(torch.float8_e5m2)[0] == 2.0 ** -2
    assert tolerance(torch.int32) == tolerance(torch.bool) == (0.0, 0.0)


def test_within_tolerance_matches_and_reports_the_share_used():
    e = torch.tensor([1.0, -2.0, 4.0, float("nan")])
    a = e * (1 + 1e-3)  # 1e-3 relative: within 2e-3 + 2e-3 |e|; NaN meets NaN
    got = compare((e,), (a,))
    assert got.compared == 1 and got.worst is None and got.differing == []
    assert 0.3 < got.used < 0.5, got.used  # at 4.0: 4e-3 / 1e-2, the NaN left out
    assert compare((e,), (e.clone(),)).used == 0


def test_beyond_tolerance_names_the_tensor_and_the_difference():
    e = torch.zeros(2, 3, dtype=torch.bfloat16)
    a = e.clone()
    a[1, 1] = 0.5
    got = compare({"out": e, "n": 3}, {"n": 3, "out": a}, "r")  # dict order does not matter
    assert got.worst["where"] == "r['out']" and got.worst["beyond"] == 1 and got.worst["of"] == 6
    assert got.differing == ["r['out']"] and math.isclose(got.worst["max_abs"], 0.5)
    assert "r['out'] (torch.bfloat16, shape (2, 3)): 1 of 6 elements beyond" in describe(got.worst)


def test_nan_infinity_complex_float64_and_integers():
    nan, inf = float("nan"), float("inf")
    got = compare(torch.tensor([nan, 1.0]), torch.tensor([0.0, 1.0]))
    assert got.worst["beyond"] == 1 and "1 of them NaN or infinity on one side only" in describe(got.worst)
    assert "largest absolute" not in describe(got.worst)
    assert compare(torch.tensor([inf]), torch.tensor([-inf])).worst is not None
    assert compare(torch.tensor([1j]), torch.tensor([-1j])).worst is not None  # the imaginary part counts
    assert compare(torch.tensor([1e300], dtype=torch.float64), torch.tensor([5e300], dtype=torch.float64)).worst
    assert compare(torch.tensor([0, 7]), torch.tensor([0, 8])).worst["beyond"] == 1
    assert "differ" in describe(compare(torch.tensor([0, 7]), torch.tensor([0, 8])).worst)
    assert compare(torch.tensor([True]), torch.tensor([True])).worst is None


def test_structure_dtype_shape_and_plain_values_must_agree():
    t = torch.ones(2)
    assert "structure" in compare((t, t), (t,)).worst["reason"]
    assert "torch.float16" in compare(t, t.half()).worst["reason"]
    assert "(3,)" in compare(t, torch.ones(3)).worst["reason"]
    assert compare((t, 3, None, "s"), (t, 3, None, "s")).worst is None
    assert "cuTile gave 3, converted 4" in compare((t, 3), (t, 4)).worst["reason"]
    assert compare("a", "b").worst is not None
    assert compare(0.5, 0.5 + 1e-5).worst is None and compare(0.5, 0.6).worst is not None

    @dataclasses.dataclass
    class Out:
        y: torch.Tensor
        n: int

    assert compare(Out(t, 1), Out(t + 1, 1)).worst["where"] == "result.y"
    assert compare((t,), (t + 1,), skip={"result[0]"}).worst is None  # leaves left out (cuTile varies there)


def test_argument_copies_keep_values_strides_aliasing_and_grad():
    base = torch.randn(6, 8)
    view = base[1:5, ::2]  # offset, gapped
    x = torch.randn(3, 4, requires_grad=True)
    expanded = torch.randn(3, 1).expand(3, 4)  # overlapping strides
    Pair = collections.namedtuple("Pair", "a b")
    args, kwargs = copy_args(((view, base, [x, 2], Pair(view, 1)), {"e": expanded, "s": "keep"}))
    c_view, c_base, (c_x, two), pair = args
    assert torch.equal(c_view, view) and c_view.stride() == view.stride()
    assert c_view.storage_offset() == view.storage_offset() and c_view.data_ptr() != view.data_ptr()
    c_base.zero_()  # aliasing kept: the view of the copied base sees it, the original does not
    assert c_view.abs().sum() == 0 and pair.a.abs().sum() == 0 and view.abs().sum() > 0
    assert type(pair) is Pair and pair.b == 1
    assert torch.equal(c_x, x) and c_x.requires_grad and c_x.is_leaf and two == 2
    assert torch.equal(kwargs["e"], expanded) and kwargs["e"].stride() == (1, 0) and kwargs["s"] == "keep"


def test_generators_and_objects_are_copied_not_shared():
    g = torch.Generator().manual_seed(5)

    class Cache:
        def __init__(self):
            self.k, self.n = torch.zeros(4), 0

    cache = Cache()
    c_g, c_cache = copy_args((g, cache))
    torch.rand(3, generator=c_g)
    c_cache.k += 1
    c_cache.n += 1
    assert torch.equal(torch.rand(2, generator=g), torch.rand(2, generator=torch.Generator().manual_seed(5)))
    assert cache.n == 0 and cache.k.sum() == 0


def test_a_host_snapshot_goes_back_to_each_tensors_device():
    x, empty = torch.randn(3), torch.empty(0, 2)
    host = Copier(lambda t: "cpu")
    snap = host.copy((x, empty))
    assert host.origin[id(snap[0])] == x.device and host.origin[id(snap[1])] == empty.device
    asked = []
    back = Copier(lambda t: asked.append(id(t)) or host.origin[id(t)]).copy(snap)  # no fallback: origin is used
    assert asked == [id(snap[0]), id(snap[1])]
    assert torch.equal(back[0], x) and back[1].shape == (0, 2)


def test_copies_take_the_span_of_views_and_keep_alignment():
    big = torch.randn(1 << 20)  # 4 MiB
    view = big[1001:1003]
    (c,) = copy_args((view,))
    assert torch.equal(c, view) and c.untyped_storage().nbytes() <= 16 + 2 * 4
    assert c.data_ptr() % 16 == view.data_ptr() % 16  # alignment seen by a TMA check is the same
    a, b = copy_args((big[:4], big[2:6]))  # overlapping views of one buffer stay overlapping
    a[2] = 123.0
    assert b[0] == 123.0 and big[2] != 123.0


def test_objects_and_modules_are_deep_copied_keeping_aliasing_with_the_arguments():
    class Cache:
        def __init__(self):
            self.k = torch.zeros(8)

    cache = Cache()
    module = torch.nn.Linear(2, 2)
    c_cache, c_view, c_module = copy_args((cache, cache.k[1:3], module))
    c_cache.k[1] = 5.0  # the copied object and the copied view share memory, as the originals do
    assert c_view[0] == 5.0 and cache.k[1] == 0
    assert c_module is not module and torch.equal(c_module.weight, module.weight)
    assert copy_args((len,))[0] is len  # functions are shared


def test_numpy_arrays_and_sets_are_compared():
    import numpy as np

    assert compare(np.ones(3), np.ones(3)).worst is None
    assert compare(np.ones(3), np.array([1.0, 1.0, 2.0])).worst["beyond"] == 1
    assert compare({1, 2}, {2, 1}).worst is None and compare({1, 2}, {1, 3}).worst is not None


def test_unrepeatable_elements_are_held_to_cuTiles_spread_or_left_out():
    # Two runs of one op that differ in some elements. Within the tolerance (atomics, split reductions) the
    # converted value must lie within the tolerance plus that spread; beyond it (random numbers, exact
    # dtypes, memory left unwritten) any value passes; other leaves that differ are left out whole.
    first = (torch.tensor([1.0, float("nan"), 3.0, 4.0]), torch.tensor([5, 6, 7], dtype=torch.int32), 2,
             torch.tensor([1 + 1j, 2 + 2j]), torch.zeros(2))
    again = (torch.tensor([1.0, float("nan"), -9.0, 4.0 + 1e-4]), torch.tensor([5, 0, 7], dtype=torch.int32), 3,
             torch.tensor([1 + 1j, 2 - 2j]), torch.zeros(3))
    slack, leaves = unrepeatable(first, again, "r")
    assert sorted(slack) == ["r[0]", "r[1]", "r[3]"] and leaves == {"r[2]", "r[4]"}
    assert slack["r[0]"][:3].tolist() == [0.0, 0.0, math.inf] and 0 < float(slack["r[0]"][3]) < 2e-4
    assert slack["r[1]"].tolist() == [0.0, math.inf, 0.0] and slack["r[3]"].tolist() == [0.0, math.inf]
    ours = (torch.tensor([1.0, float("nan"), 100.0, 4.0 + 5e-3]), torch.tensor([5, 1, 7], dtype=torch.int32), 7,
            torch.tensor([1 + 1j, 5 + 5j]), torch.ones(4))
    got = compare(first, ours, "r", skip=leaves, ignore=slack)
    assert got.worst is None and got.compared == 3, got
    wrong = (torch.tensor([1.0, float("nan"), 100.0, 4.1]), *ours[1:])  # beyond tolerance plus the spread
    got = compare(first, wrong, "r", skip=leaves, ignore=slack)
    assert got.worst["where"] == "r[0]" and got.worst["beyond"] == 1 and got.differing == ["r[0]"]
    wrong = (torch.tensor([0.0, float("nan"), 100.0, 4.0]), *ours[1:])  # an element cuTile repeats
    assert compare(first, wrong, "r", skip=leaves, ignore=slack).worst["beyond"] == 1
    assert unrepeatable(first, first, "r") == ({}, set())
    assert unrepeatable(first, first[:2], "r") == ({}, {"r"})  # another structure


def test_one_ulp_of_nondeterminism_does_not_hide_a_wrong_result():
    # cuTile's repeat differs from its first run in the last bit everywhere (atomics): a converted result
    # far from both still fails (review of s26: dropping every element that varied let it pass).
    ref = torch.randn(1000)
    again = torch.nextafter(ref, torch.full_like(ref, math.inf))
    slack, leaves = unrepeatable((ref,), (again,), "r")
    assert not leaves and bool((slack["r[0]"] < 1e-5).all())
    assert compare((ref,), (ref + 1,), "r", ignore=slack).worst["beyond"] == 1000
    assert compare((ref,), (again,), "r", ignore=slack).worst is None


def test_memory_left_unwritten_is_found_by_its_fill_byte_whatever_the_dtype():
    # A bool entry left unwritten reads True for either fill byte: the byte pattern, not the value, says
    # it was never written (hostile test of s26).
    first = (torch.tensor([True, False, True]),)
    again = (torch.tensor([0xA5, 0, 1], dtype=torch.uint8).view(torch.bool),)
    slack, _ = unrepeatable(first, again, "r", poison=0xA5)
    assert slack["r[0]"].tolist() == [math.inf, 0.0, 0.0]  # True both times, but the fill byte
    again = (torch.tensor([1, 0xA5, 1], dtype=torch.uint8).view(torch.bool),)
    slack, _ = unrepeatable(first, again, "r", poison=0xA5)
    assert slack["r[0]"].tolist() == [0.0, math.inf, 0.0]
    f = torch.tensor([1.0, 2.0])
    poisoned = f.clone()
    poisoned.view(torch.uint8)[4:] = 0x5A
    slack, _ = unrepeatable((f,), (poisoned,), "r", poison=0x5A)
    assert slack["r[0]"].tolist() == [0.0, math.inf]


def test_poisoned_allocations_fill_new_tensors_only():
    # cuTile's repeat runs: new tensors filled with the byte; a caller's out= tensor (maybe a view of
    # more) is not new memory and is left alone; the originals come back, also after an exception.
    from cutile2triton.tilegym_differential import poisoned_allocations

    original, original_new, buf = torch.empty, torch.Tensor.new_empty, torch.zeros(8)
    try:
        with poisoned_allocations(0xA5):
            new = [torch.empty(4), torch.empty_like(buf), torch.empty_strided((2, 2), (1, 2)), buf.new_empty(3)]
            torch.empty(4, out=buf[:4])
            raise KeyError("inside")
    except KeyError:
        pass
    assert torch.empty is original and torch.Tensor.new_empty is original_new
    assert all(bool((t.view(torch.uint8) == 0xA5).all()) for t in new[:2] + new[3:])
    assert bool((new[2].untyped_storage().tolist() == [0xA5] * 16))
    assert torch.equal(buf[4:], torch.zeros(4))
