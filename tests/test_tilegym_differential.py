"""Unit tests of cutile2triton.tilegym_differential's comparison (the GPU run's differential check)."""

import math

import torch

from cutile2triton.tilegym_differential import compare, copy_args, describe, tolerance


def test_tolerances_are_the_workflows_doubled():
    assert tolerance(torch.float32) == (2e-3, 2e-3)
    assert tolerance(torch.float16) == tolerance(torch.bfloat16) == (2e-2, 2e-2)
    assert tolerance(torch.float8_e4m3fn)[0] == 2.0 ** -3 and tolerance(torch.float8_e5m2)[0] == 2.0 ** -2
    assert tolerance(torch.int32) == tolerance(torch.bool) == (0.0, 0.0)


def test_within_tolerance_matches_and_reports_the_share_used():
    e = torch.tensor([1.0, -2.0, 4.0])
    a = e * (1 + 1e-3)  # 1e-3 relative: within 2e-3 + 2e-3 |e|
    got = compare((e,), (a,))
    assert got.compared == 1 and got.worst is None
    assert 0.2 < got.used < 0.5, got.used  # |d| / (atol + rtol |e|) at 4.0: 4e-3 / 1e-2
    assert compare((e,), (e.clone(),)).used == 0


def test_beyond_tolerance_names_the_tensor_and_the_difference():
    e = torch.zeros(2, 3, dtype=torch.bfloat16)
    a = e.clone()
    a[1, 1] = 0.5
    got = compare({"out": e, "n": 3}, {"out": a, "n": 3}, "r")
    assert got.worst["where"] == "r['out']" and got.worst["beyond"] == 1 and got.worst["of"] == 6
    assert math.isclose(got.worst["max_abs"], 0.5)
    assert "r['out'] (torch.bfloat16, shape (2, 3)): 1 of 6 elements beyond" in describe(got.worst)


def test_nan_must_meet_nan_and_integers_are_exact():
    nan = float("nan")
    assert compare(torch.tensor([nan, 1.0]), torch.tensor([nan, 1.0])).worst is None
    assert compare(torch.tensor([nan, 1.0]), torch.tensor([0.0, 1.0])).worst["beyond"] == 1
    assert compare(torch.tensor([0, 7]), torch.tensor([0, 8])).worst["beyond"] == 1
    assert compare(torch.tensor([True]), torch.tensor([True])).worst is None


def test_structure_dtype_shape_and_plain_values_must_agree():
    t = torch.ones(2)
    assert "structure" in compare((t, t), (t,)).worst["reason"]
    assert "torch.float16" in compare(t, t.half()).worst["reason"]
    assert "(3,)" in compare(t, torch.ones(3)).worst["reason"]
    assert compare((t, 3, None), (t, 3, None)).worst is None
    assert "cuTile gave 3, converted 4" in compare((t, 3), (t, 4)).worst["reason"]
    assert compare(0.5, 0.5 + 1e-5).worst is None and compare(0.5, 0.6).worst is not None


def test_argument_copies_keep_values_strides_and_grad():
    base = torch.randn(6, 8)
    view = base[1:5, ::2]  # offset, gapped: not dense
    x = torch.randn(3, 4, requires_grad=True)
    expanded = torch.randn(3, 1).expand(3, 4)  # overlapping: copied dense
    args, kwargs = copy_args(((view, [x, 2]), {"e": expanded, "s": "keep"}))
    c_view, (c_x, two) = args
    assert torch.equal(c_view, view) and c_view.stride() == view.stride() and c_view.data_ptr() != view.data_ptr()
    assert torch.equal(c_x, x) and c_x.requires_grad and c_x.is_leaf and two == 2
    assert torch.equal(kwargs["e"], expanded) and kwargs["s"] == "keep"
    c_view.add_(1)
    assert not torch.equal(c_view, view)  # a copy, not an alias
