"""cuTile's rules for matrix products (`ct.mma`, `ct.matmul`, `@`; cuda.tile _ir/ops.py
_matmul_broadcast_shape, mma_impl, matmul_impl and _datatype.py _mma_supported_dtypes) as the
converter applies them (lower/ops_mma.cpp): batch dimensions of 1 broadcast, `matmul` promotes
mixed operand dtypes, and what cuTile rejects (shapes, dtypes, accumulators) is said at the cuTile
call instead of failing in Triton or computing something else (dtypes where the converter knows them:
tiles cast with ct.astype or created with a dtype; an array's element dtype is known only to Triton).
The converted kernels run in Triton's interpreter against torch.
"""

from __future__ import annotations

import pytest

from c2t_interp import ConversionFailed, assert_close, convert, dev, fresh_seed, load

import torch  # noqa: E402

KERNEL = '''
import cuda.tile as ct
import torch


@ct.kernel
def k(A, B, C):
    a = ct.load(A, index=(0, 0, 0), shape=SHAPE_A)
    b = ct.load(B, index=(0, 0, 0), shape=SHAPE_B)
    c = PRODUCT
    ct.store(C, index=(0, 0, 0), tile=c)


def run(a, b, c):
    ct.launch(torch.cuda.current_stream(), (1, 1, 1), k, (a, b, c))
'''


def _kernel(shape_a, shape_b, product):
    return KERNEL.replace("SHAPE_A", str(shape_a)).replace("SHAPE_B", str(shape_b)).replace("PRODUCT", product)


def _randn(shape, dtype=torch.float32):
    g = torch.Generator().manual_seed(fresh_seed())
    return torch.randn(shape, generator=g).to(dtype)


@pytest.mark.parametrize("shape_a, shape_b, product", [
    ((1, 32, 16), (4, 16, 32), "ct.matmul(a, b)"),
    ((4, 32, 16), (1, 16, 32), "a @ b"),
    ((1, 32, 16), (2, 16, 32), "ct.mma(a, b, ct.zeros((2, 32, 32), dtype=ct.float32))"),
])
def test_a_batch_of_one_broadcasts(tmp_path, shape_a, shape_b, product):
    code = convert(_kernel(shape_a, shape_b, product), filename="bcast.py")
    assert "tl.broadcast_to(" in code.split("def k(")[1].split("def launch_")[0]
    mod = load(code, tmp_path, f"bcast_{shape_a[0]}_{shape_b[0]}_{product[:6].strip('(')}")
    a, b = _randn(shape_a), _randn(shape_b)
    out = torch.zeros((max(shape_a[0], shape_b[0]), 32, 32))
    out = dev(out)
    mod.run(dev(a), dev(b), out)
    assert_close(out.cpu(), (a.double() @ b.double()).float(), dtype=torch.float32)


def test_matmul_promotes_mixed_operand_dtypes(tmp_path):
    # float16 @ float32: cuTile computes in the common dtype (float32) and returns it.
    src = _kernel((1, 32, 16), (1, 16, 32), "ct.astype(a, ct.float16) @ ct.astype(b, ct.float32)")
    mod = load(convert(src, filename="promote.py"), tmp_path, "promote")
    a, b = _randn((1, 32, 16)), _randn((1, 16, 32))
    out = dev(torch.zeros((1, 32, 32)))
    mod.run(dev(a), dev(b), out)
    assert_close(out.cpu(), (a.half().double() @ b.double()).float(), dtype=torch.float32)


@pytest.mark.parametrize("shape_a, shape_b, product, message", [
    ((1, 32, 16), (1, 16, 32), "ct.mma(ct.astype(a, ct.float32), ct.astype(b, ct.float32), "
                               "ct.zeros((1, 32, 32), dtype=ct.float16))",
     "ct.mma: an accumulator of float16 is not supported for float32 operands (cuTile: float32)"),
    ((1, 32, 16), (1, 16, 32), "ct.mma(ct.astype(a, ct.bfloat16), ct.astype(b, ct.bfloat16), "
                               "ct.zeros((1, 32, 32), dtype=ct.bfloat16))",
     "an accumulator of bfloat16 is not supported for bfloat16 operands (cuTile: float32)"),
    ((1, 32, 16), (1, 16, 32), "ct.mma(ct.astype(a, ct.float16), ct.astype(b, ct.float32), "
                               "ct.zeros((1, 32, 32), dtype=ct.float32))",
     "x and y must have the same dtype unless they are int8/uint8 (cuTile does not promote mma operands), "
     "got float16 and float32"),
    ((2, 32, 16), (2, 16, 32), "ct.mma(a, b, ct.zeros((1, 32, 32), dtype=ct.float32))",
     "acc (1 x 32 x 32) must have the product's shape (2 x 32 x 32"),
    ((2, 32, 16), (2, 16, 32), "ct.mma(a, b, ct.zeros((32, 32), dtype=ct.float32))",
     "acc (32 x 32) must have the product's shape (2 x 32 x 32"),
    ((2, 32, 16), (4, 16, 32), "a @ b", "batch dimensions 2 and 4 do not broadcast"),
    ((2, 32, 16), (2, 16, 32), "ct.reshape(a, (1, 2, 32, 16)) @ ct.reshape(b, (1, 2, 16, 32))",
     "rank 4 or more is not supported"),
])
def test_what_cutile_rejects_is_said_at_the_call(shape_a, shape_b, product, message):
    with pytest.raises(ConversionFailed) as e:
        convert(_kernel(shape_a, shape_b, product), filename="bad.py")
    text = str(e.value)
    assert message in text, text
    assert "bad.py:10:" in text and "^" in text, text  # the line of `c = ...`, with a caret


SWAPPED = '''
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def mm(A, B, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    a = ct.load(A, index=(0, 0), shape=(TM, TK))
    b = ct.load(B, index=(0, 0), shape=(TK, TN))
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    acc = ct.mma(b, a, acc)
    ct.store(C, index=(0, 0), tile=acc)


def run(a, b, c, tm, tn, tk):
    ct.launch(torch.cuda.current_stream(), (1, 1, 1), mm, (a, b, c, tm, tn, tk))
'''


def test_sizes_known_by_name_only_are_checked_with_the_cutile_rule_when_triton_compiles(tmp_path):
    # (TK, TN) @ (TM, TK): sema cannot tell TN from TM (they may be equal), Triton can; the converted
    # kernel states the rule and the cuTile line, instead of tl.dot's "accumulator shape is incompatible".
    code = convert(SWAPPED, filename="swapped.py")
    kernel = code.split("def mm(")[1].split("def launch_")[0]
    assert "TN == TM," in kernel and "line 13: ct.mma: b (TK x TN) @ a (TM x TK): b's last dimension (TN)" in kernel, kernel
    mod = load(code, tmp_path, "swapped")
    a, b = _randn((32, 16)), _randn((16, 64))
    with pytest.raises(Exception, match=r"line 13: ct\.mma: b \(TK x TN\) @ a \(TM x TK\)"):
        mod.run(dev(a), dev(b), dev(torch.zeros((32, 64))), 32, 64, 16)
    # The same kernel with the operands in order has no such assertion and computes a @ b.
    good = convert(SWAPPED.replace("ct.mma(b, a, acc)", "ct.mma(a, b, acc)"), filename="ordered.py")
    assert "static_assert(T" not in good
    mod = load(good, tmp_path, "ordered")
    out = dev(torch.zeros((32, 64)))
    mod.run(dev(a), dev(b), out, 32, 64, 16)
    assert_close(out.cpu(), (a.double() @ b.double()).float(), dtype=torch.float32)


CONDITIONAL = '''
import cuda.tile as ct
import torch

ConstInt = ct.Constant[int]


@ct.kernel
def k(A, B, C, TA0: ConstInt, TA1: ConstInt, TK: ConstInt, TM: ConstInt, TN: ConstInt, TRANS: ct.Constant[bool]):
    a = ct.load(A, index=(0, 0), shape=(TA0, TA1))
    b = ct.load(B, index=(0, 0), shape=(TK, TN))
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    acc = ct.mma(ct.transpose(a), b, acc) if TRANS else ct.mma(a, b, acc)
    ct.store(C, index=(0, 0), tile=acc)


def run(a, b, c, ta0, ta1, tk, tm, tn, trans):
    ct.launch(torch.cuda.current_stream(), (1, 1, 1), k, (a, b, c, ta0, ta1, tk, tm, tn, trans))
'''


@pytest.mark.parametrize("trans", [False, True])
def test_no_size_assertion_for_the_arm_of_a_conditional_expression_not_taken(tmp_path, trans):
    # Both arms are lowered and their statements run whichever arm is taken: a check that holds for
    # one arm only must not be emitted there (review of this change: it fired on valid sizes).
    mod = load(convert(CONDITIONAL, filename="cond.py"), tmp_path, f"cond_{trans}")
    a = _randn((16, 32) if trans else (32, 16))
    b = _randn((16, 64))
    out = dev(torch.zeros((32, 64)))
    mod.run(dev(a), dev(b), out, a.shape[0], a.shape[1], 16, 32, 64, trans)
    ref = (a.double().T if trans else a.double()) @ b.double()
    assert_close(out.cpu(), ref.float(), dtype=torch.float32)


def test_int8_times_uint8_is_said_unsupported():
    # cuTile allows the mix; Triton's tl.dot needs one operand dtype (the converted code failed there).
    src = _kernel((1, 32, 16), (1, 16, 32), "ct.mma(ct.astype(a, ct.int8), ct.astype(b, ct.uint8), "
                                            "ct.zeros((1, 32, 32), dtype=ct.int32))")
    with pytest.raises(ConversionFailed, match="int8 and uint8 operands is not supported"):
        convert(src, filename="mix.py")


def test_messages_name_the_operands_as_written_or_both_by_cuTiles_names():
    import cutile2triton as _cutile2triton

    body = ("import cuda.tile as ct\n\n@ct.kernel\ndef k(X, Z):\n    a = ct.load(X, index=(0, 0), shape=(16, 64))\n"
            "    acc = ct.zeros((16, 16), dtype=ct.float32)\n")
    one_line = _cutile2triton.convert_source(body + "    r = ct.mma(a, ct.transpose(ct.transpose(a)), acc)\n", "k.py")
    assert "ct.mma: a (16 x 64) @ ct.transpose(ct.transpose(a)) (16 x 64): a's last dimension (64) must equal" \
        not in one_line.rendered  # longer than 24 characters: not quoted ...
    assert "ct.mma: x (16 x 64) @ y (16 x 64): x's last dimension (64) must equal y's" in one_line.rendered  # ... both
    quoted = _cutile2triton.convert_source(body + "    r = ct.mma(a, a, acc)\n", "k.py")
    assert "ct.mma: a (16 x 64) @ a (16 x 64): a's last dimension (64) must equal a's second-to-last (16)" \
        in quoted.rendered, quoted.rendered
    split = _cutile2triton.convert_source(body + "    r = ct.mma(ct.reshape(a,\n        (16, 64)), a, acc)\n", "k.py")
    assert "ct.mma: x (16 x 64) @ y (16 x 64)" in split.rendered, split.rendered


SMALL_K = '''
import cuda.tile as ct


@ct.kernel
def k(A, B, C, TM: ct.Constant[int], TN: ct.Constant[int]):
    a = ct.load(A, index=(0, 0), shape=(TM, KDIM)).astype(ct.DTYPE)
    b = ct.load(B, index=(0, 0), shape=(KDIM, TN)).astype(ct.DTYPE)
    c = PRODUCT
    ct.store(C, index=(0, 0), tile=c)
'''


@pytest.mark.parametrize("dtype, kdim, product, acc", [
    ("int8", 16, "ct.matmul(a, b).astype(ct.int32)", torch.int32),  # 8-bit: tl.dot only from K = 32
    ("float16", 8, "ct.mma(a, b, ct.zeros((TM, TN), dtype=ct.float16))", torch.float16),  # fp16 sum: Triton crashed
    ("float16", 16, "ct.mma(a, b, ct.zeros((TM, TN), dtype=ct.float16))", torch.float16),
])
def test_products_below_the_dot_minimum_compile_for_sm90_and_run(tmp_path, dtype, kdim, product, acc):
    """Products under Triton's NVIDIA minimum K (16; 32 for 8-bit operands: backends/nvidia/compiler.py
    min_dot_size) take the broadcast multiply-sum, which the interpreter runs at any K; here the converted
    kernel also compiles for sm_90 (hostile round s35: int8 at K=16 and fp16 accumulators at K=8 did not)."""
    from triton_compile_check import compile_launch

    src = SMALL_K.replace("KDIM", str(kdim)).replace("DTYPE", dtype).replace("PRODUCT", product)
    code = convert(src, filename="small_k.py")
    mod = load(code, tmp_path, f"small_k_{dtype}_{kdim}")
    g = torch.Generator().manual_seed(fresh_seed())
    if dtype == "int8":
        a = torch.randint(-8, 8, (32, kdim), generator=g).float()
        b = torch.randint(-8, 8, (kdim, 32), generator=g).float()
    else:
        a, b = torch.randn(32, kdim, generator=g) / 4, torch.randn(kdim, 32, generator=g) / 4
    c = torch.zeros(32, 32, dtype=acc)
    mod.launch_k((1,), dev(a), dev(b), dev(c), 32, 32)
    ref = a.to(getattr(torch, dtype)).double() @ b.to(getattr(torch, dtype)).double()
    if dtype == "int8":  # ct.matmul of int8 is int8: wraps, then widened
        assert torch.equal(c.cpu(), ref.long().to(torch.int8).to(torch.int32))
    else:
        assert_close(c.cpu(), ref.to(acc), dtype=acc)
    stages = compile_launch(mod.launch_k, (1,), a, b, c, 32, 32)
    assert "ttgir" in stages
