# A constexpr parameter rebound once (`ROWS = ROWS * 2`, valid cuTile).
# The kernel declared `ROWS: tl.constexpr = ROWS * 2`, which Triton's
# interpreter accepts but its compiler rejects:
#   ValueError: ROWS is already defined. constexpr cannot be reassigned.
# (tests/triton_compile_check.py compile_launch(launch_k, (2,), x, x, 16, 32)).
import cuda.tile as ct


@ct.kernel
def k(x, out, ROWS: ct.Constant[int], COLS: ct.Constant[int]):
    ROWS = ROWS * 2
    i = ct.bid(0)
    ct.store(out, index=(i, 0), tile=ct.load(x, index=(i, 0), shape=(ROWS, COLS)) + 1.0)
