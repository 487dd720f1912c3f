# Constexpr parameters named like the builtins the launcher's checks call.
# Before the fix the launcher's parameters shadowed them:
#   k3 (any launch): `_c2t_xs = list(xs)` -> TypeError: 'int' object is not callable
#   k  (use_tma=None): `use_tma = all(...)` -> TypeError: 'int' object is not callable
import cuda.tile as ct


@ct.kernel
def k(x, out, all: ct.Constant[int], str: ct.Constant[int], isinstance: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i, 0), shape=(all, str))
    ct.store(out, index=(i, 0), tile=t * isinstance)


@ct.kernel
def k3(xs, out, len: ct.Constant[int], list: ct.Constant[int], _allocation: ct.Constant[int]):
    i = ct.bid(0)
    acc = ct.zeros((len, list), dtype=ct.float32)
    for j in range(2):
        acc = acc + ct.load(xs[j], index=(i, 0), shape=(len, list))
    ct.store(out, index=(i, 0), tile=acc * _allocation)


def run(x, out):  # x, out: (4, 8); launch_k(..., use_tma=None) too
    ct.launch(None, (2,), k, (x, out, 2, 8, 3))


def run3(x, out):  # expect out == 2 * x
    ct.launch(None, (2,), k3, ([x, x], out, 2, 8, 1))
