# Kernels named like the launcher's own parameters. Before the fix
# `launch_grid(grid, ...)` passed its grid tuple as the kernel:
# "TypeError: tuple indices must be integers or slices, not tuple"; a kernel
# named `options` got the options dict ("unhashable type: 'dict'").
import cuda.tile as ct


@ct.kernel
def grid(x, out, N: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(out, index=(i, 0), tile=ct.load(x, index=(i, 0), shape=(2, N)) + 1)


@ct.kernel
def options(x, out, N: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(out, index=(i, 0), tile=ct.load(x, index=(i, 0), shape=(2, N)) * 2)


def run(x, out, out2):  # x: (4, 8)
    ct.launch(None, (x.shape[0] // 2,), grid, (x, out, 8))
    ct.launch(None, (x.shape[0] // 2,), options, (x, out2, 8))
