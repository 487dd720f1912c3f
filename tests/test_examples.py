"""End-to-end tests of the bundled cuTile examples (examples/*.py): each file
is converted by the C++ converter, the generated Triton module is imported
under Triton's CPU interpreter, and its host function is compared with an
independent torch reference on fresh random inputs whose sizes are not
multiples of the tile sizes. Host buffers are allocated poisoned (NaN / a
sentinel), so outputs a kernel fails to write are caught."""

from __future__ import annotations

import pathlib

import pytest
import torch

from c2t_interp import assert_close, convert, dev, fresh_seed, load, poison_host_allocations

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    cache = {}
    tmp = tmp_path_factory.mktemp("examples")

    def get(name):
        if name not in cache:
            src = (EXAMPLES / f"{name}.py").read_text()
            mod = load(convert(src, filename=f"examples/{name}.py"), tmp, name)
            poison_host_allocations(mod)
            cache[name] = mod
        return cache[name]

    return get


class _Gen:
    """A torch.Generator with a fresh seed per test, remembered for failure messages."""

    def __init__(self):
        self.seed_value = fresh_seed()
        self.g = torch.Generator().manual_seed(self.seed_value)


@pytest.fixture
def gen():
    return _Gen()


def test_vector_add(modules, gen):
    m = modules("vector_add")
    for n in (1, 100, 257):
        a = dev(torch.randn(n, generator=gen.g))
        b = dev(torch.randn(n, generator=gen.g))
        assert_close(m.vector_add(a, b, tile=64), a + b, msg=f"seed={gen.seed_value} n={n}")
    a = dev(torch.randn(300, generator=gen.g).half())
    b = dev(torch.randn(300, generator=gen.g).half())
    assert_close(m.vector_add(a, b), a + b, msg=f"seed={gen.seed_value} fp16")


def test_broadcast_elementwise(modules, gen):
    m = modules("broadcast_elementwise")
    x = dev(torch.randn(37, 70, generator=gen.g))
    scale = dev(torch.randn(70, generator=gen.g))
    shift = dev(torch.randn(37, generator=gen.g))
    ref = torch.clamp(torch.relu(x * scale[None, :] + shift[:, None]), min=0.25)
    ref = torch.where(ref > 0.25, ref, torch.full_like(ref, 0.25))
    assert_close(m.scale_shift_relu(x, scale, shift, 0.25), ref, msg=f"seed={gen.seed_value}")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_softmax(modules, gen, dtype):
    m = modules("softmax")
    x = dev((torch.randn(13, 100, generator=gen.g) * 3).to(dtype))
    ref = torch.softmax(x.float(), dim=1).to(dtype)
    assert_close(m.softmax(x), ref, dtype=dtype, relaxed=True, msg=f"seed={gen.seed_value}")


def test_layer_norm(modules, gen):
    m = modules("layer_norm")
    x = dev(torch.randn(9, 75, generator=gen.g) * 2 + 1)
    w = dev(torch.randn(75, generator=gen.g))
    b = dev(torch.randn(75, generator=gen.g))
    out, mean, rstd = m.layer_norm(x, w, b, 1e-5)
    ref = torch.nn.functional.layer_norm(x, (75,), w, b, 1e-5)
    assert_close(out, ref, relaxed=True, msg=f"seed={gen.seed_value}")
    assert_close(mean, x.mean(dim=1), relaxed=True)
    assert_close(rstd, torch.rsqrt(x.var(dim=1, unbiased=False) + 1e-5), relaxed=True)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_matmul(modules, gen, dtype):
    m = modules("matmul")
    a = dev(torch.randn(70, 45, generator=gen.g).to(dtype))
    b = dev(torch.randn(45, 90, generator=gen.g).to(dtype))
    ref = (a.double() @ b.double()).to(dtype)
    assert_close(m.matmul(a, b), ref, dtype=dtype, relaxed=True, msg=f"seed={gen.seed_value}")


def test_reduction_rows(modules, gen):
    m = modules("reduction")
    x = dev(torch.randn(21, 50, generator=gen.g))
    s, am = m.row_stats(x)
    assert_close(s, x.sum(dim=1, keepdim=True), relaxed=True, msg=f"seed={gen.seed_value}")
    assert_close(am, x.argmax(dim=1).to(torch.int32))


def test_reduction_cols(modules, gen):
    m = modules("reduction")
    x = dev(torch.randn(45, 40, generator=gen.g))
    assert_close(m.col_max(x), x.max(dim=0).values, msg=f"seed={gen.seed_value}")


def test_reduction_int_sum(modules, gen):
    m = modules("reduction")
    x = dev(torch.randint(-1000, 1000, (150,), generator=gen.g, dtype=torch.int32))
    assert_close(m.int_sum(x), x.sum().reshape(1).to(torch.int32))


def test_gather_scatter_embedding(modules, gen):
    m = modules("gather_scatter")
    table = dev(torch.randn(11, 20, generator=gen.g))
    ids = dev(torch.randint(-2, 13, (19,), generator=gen.g, dtype=torch.int32))  # includes invalid ids
    valid = (ids >= 0) & (ids < 11)
    ref = dev(torch.zeros(19, 20))
    ref[valid] = table[ids[valid].long()]
    assert_close(m.embedding(ids, table), ref, msg=f"seed={gen.seed_value}")


def test_gather_scatter_permute(modules, gen):
    m = modules("gather_scatter")
    x = dev(torch.randn(37, generator=gen.g))
    perm = dev(torch.randperm(37, generator=gen.g).to(torch.int32))
    ref = torch.empty_like(x)
    ref[perm.long()] = x
    assert_close(m.permute_rows(x, perm), ref, msg=f"seed={gen.seed_value}")


def test_persistent_rms(modules, gen):
    m = modules("persistent_rms")
    x = dev(torch.randn(10, 50, generator=gen.g))
    w = dev(torch.randn(50, generator=gen.g))
    out = m.rms_norm(x, w, skip_row=3)
    ref = x * torch.rsqrt((x * x).mean(dim=1, keepdim=True) + 1e-6) * w * (2 ** -0.5)
    ref[3] = 0
    assert_close(out, ref, relaxed=True, msg=f"seed={gen.seed_value}")


def test_int_arith_python_semantics(modules, gen):
    m = modules("int_arith")
    a = dev(torch.randint(-50, 50, (77,), generator=gen.g, dtype=torch.int32))
    b = dev(torch.randint(-9, 9, (77,), generator=gen.g, dtype=torch.int32))
    q, r, c = m.int_ops(a, b)
    bb = torch.where(b == 0, torch.ones_like(b), b)
    assert_close(q, torch.div(a, bb, rounding_mode="floor"), msg=f"seed={gen.seed_value}")
    assert_close(r, a - torch.div(a, bb, rounding_mode="floor") * bb)
    assert_close(c, -torch.div(-a, bb, rounding_mode="floor"))


def test_transpose(modules, gen):
    m = modules("transpose")
    x = dev(torch.randn(40, 70, generator=gen.g))
    assert_close(m.transpose(x), x.t(), msg=f"seed={gen.seed_value}")
    assert_close(m.transpose_order(x), x.t(), msg=f"seed={gen.seed_value}")
    xs = dev(torch.randn(70, 40, generator=gen.g)).t()  # non-contiguous input
    assert_close(m.transpose(xs), xs.t())


def test_histogram(modules, gen):
    m = modules("histogram")
    x = dev(torch.randint(-3, 20, (200,), generator=gen.g, dtype=torch.int32))
    valid = x[(x >= 0) & (x < 16)]
    ref = torch.bincount(valid.long(), minlength=16).to(torch.int32)
    assert_close(m.histogram(x, 16), ref, msg=f"seed={gen.seed_value}")


def test_every_example_is_tested():
    tested = {"vector_add", "broadcast_elementwise", "softmax", "layer_norm", "matmul", "reduction",
              "gather_scatter", "persistent_rms", "int_arith", "transpose", "histogram"}
    present = {p.stem for p in EXAMPLES.glob("*.py")}
    assert present == tested, f"untested or missing examples: {present ^ tested}"
