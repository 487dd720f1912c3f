# Constexpr parameters named like the launcher's locals are renamed there
# (options -> options_), but the use_tma=None descriptor check still named the
# innermost block `options` -- the launcher's **options dict: on a GPU,
# launch_k(..., use_tma=None) raised "unsupported operand type(s) for *: 'dict'
# and 'int'". (On CPU tensors the check stops at t.is_cuda; see the generated
# `for t, inner, nan in ((x, options, False), ...)`.)
import cuda.tile as ct


@ct.kernel
def k(x, out, grid: ct.Constant[int], options: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(out, index=(i, 0), tile=ct.load(x, index=(i, 0), shape=(grid, options)))


def run(x, out):
    ct.launch(None, (1,), k, (x, out, 4, 8))
