"""Tuple kernel parameters (cuTile TupleConstraint, compilation.rst: "The
tuple's elements are passed as consecutive arguments, as if each element were
an individual top-level parameter"; cutile-python test/test_tuple_arguments.py).
A parameter subscripted only by compile-time integers, with an element that is
not an array, becomes one Triton parameter per element the kernel reads.

Converted kernels run under Triton's CPU interpreter against torch references
on fresh random inputs; sizes are not multiples of the tile."""

from __future__ import annotations

import pytest
import torch

from c2t_interp import ConversionFailed, assert_close, convert, convert_and_load, dev, fresh_seed, poison

HEADER = """
import cuda.tile as ct
ConstInt = ct.Constant[int]
"""

SCALARS = HEADER + """
@ct.kernel
def k(a, out, addends, TILE: ConstInt):
    bid = ct.bid(0)
    t = ct.load(a, (bid,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, (bid,), t * addends[2] + addends[0])

def run(a, out, addends, tile):
    ct.launch(None, (ct.cdiv(a.shape[0], tile),), k, (a, out, addends, tile))
"""


def test_tuple_of_scalars(tmp_path):
    mod = convert_and_load(SCALARS, tmp_path, "tuple_scalars")
    seed = fresh_seed()
    g = torch.Generator().manual_seed(seed)
    a = dev(torch.randn(70, generator=g))
    out = poison(dev(torch.empty(70)))
    mod.run(a, out, (1.5, "unused", 3), 32)  # element 1 is never read: not passed
    assert_close(out, a * 3 + 1.5, msg=f"seed={seed}")


MIXED = HEADER + """
def add_from(src, bias, i, TILE: ConstInt):
    return ct.load(src, (i,), (TILE,), padding_mode=ct.PaddingMode.ZERO) + bias


@ct.kernel
def k(pair, out, TILE: ConstInt):
    bid = ct.bid(0)
    data = pair[0]
    t = ct.load(data, (bid,), (TILE,), padding_mode=ct.PaddingMode.ZERO) * pair[1]
    ct.store(out, (bid,), t + add_from(pair[2], pair[1], bid, TILE))

def run(pair, out, tile):
    ct.launch(None, (ct.cdiv(out.shape[0], tile),), k, (pair, out, tile))
"""


def test_tuple_of_arrays_and_scalars_through_an_alias_and_a_helper(tmp_path):
    mod = convert_and_load(MIXED, tmp_path, "tuple_mixed")
    seed = fresh_seed()
    g = torch.Generator().manual_seed(seed)
    x = dev(torch.randint(-50, 50, (90,), generator=g, dtype=torch.int32))
    y = dev(torch.randint(-50, 50, (90,), generator=g, dtype=torch.int32))
    out = poison(dev(torch.empty(90, dtype=torch.int32)))
    mod.run((x, 5, y), out, 32)
    assert out.tolist() == (x * 5 + y + 5).tolist(), f"seed={seed}"


def test_tuple_launcher_passes_elements_as_arguments():
    code = convert(MIXED, "tuple_mixed.py")
    assert "pair[0], pair[0].shape[0], pair[0].stride(0)," in code
    assert "pair[1]," in code


def test_nested_tuple_is_diagnosed():
    src = SCALARS.replace("addends[2] + addends[0]", "addends[2][0] + addends[0]")
    with pytest.raises(ConversionFailed):
        convert(src)


# Hostile-input findings (fixed): tuples of arrays with different dtypes and ranks
# (cuTile passes each element as its own parameter, not as a list), an unread scalar
# element, launcher parameters named like the launcher's own names.

ARRAYS = HEADER + """
@ct.kernel
def k(pair, out, TILE: ConstInt):
    bid = ct.bid(0)
    x = ct.load(pair[0], (bid,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    y = ct.load(pair[2], (0, bid), (1, TILE), padding_mode=ct.PaddingMode.ZERO)
    ct.store(out, (bid,), x + ct.reshape(y, (TILE,)).astype(ct.float32))

def run(pair, out, tile):
    ct.launch(None, (ct.cdiv(out.shape[0], tile),), k, (pair, out, tile))
"""


def test_tuple_of_arrays_with_different_dtypes_and_ranks(tmp_path):
    mod = convert_and_load(ARRAYS, tmp_path, "tuple_arrays")
    seed = fresh_seed()
    g = torch.Generator().manual_seed(seed)
    x = dev(torch.randn(70, generator=g))
    y = dev(torch.randint(-9, 9, (2, 70), generator=g, dtype=torch.int32))
    out = poison(dev(torch.empty(70)))
    mod.run((x, 1.0, y), out, 32)  # element 1 (a float) is never read
    assert_close(out, x + y[0].float(), msg=f"seed={seed}")


NAMES = HEADER + """
@ct.kernel
def scale(a, grid, options, scale, TILE: ConstInt):
    bid = ct.bid(0)
    t = ct.load(a, (bid,), (TILE,), padding_mode=ct.PaddingMode.ZERO)
    ct.store(grid, (bid,), t * scale + options)

def run(a, out, s, o, tile):
    ct.launch(None, (ct.cdiv(a.shape[0], tile),), scale, (a, out, o, s, tile))
"""


def test_launcher_parameters_named_like_its_own_names(tmp_path):
    mod = convert_and_load(NAMES, tmp_path, "names")
    seed = fresh_seed()
    g = torch.Generator().manual_seed(seed)
    a = dev(torch.randn(50, generator=g))
    out = poison(dev(torch.empty(50)))
    mod.run(a, out, 3.0, 0.5, 16)
    assert_close(out, a * 3.0 + 0.5, msg=f"seed={seed}")
