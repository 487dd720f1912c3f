# Put both files in one package as sib.py / main.py (`from .sib import ...`).
# sib.py (repro/sibling_aliased_constant_helpers.py) annotates with
# `ConstInt = ct.Constant[int]`; before the fix `inner` was not seen as tile
# code, so neither it nor `outer` was copied here:
#   error: name 'outer' is not defined in tile code
import cuda.tile as ct
from .sib import outer, inner


@ct.kernel
def k(x, out, T: ct.Constant[int]):
    i = ct.bid(0)
    t = ct.load(x, index=(i,), shape=(T,))
    ct.store(out, index=(i,), tile=outer(t) + inner(t, 2))


def run(x, out):
    ct.launch(None, (ct.cdiv(x.shape[0], 16),), k, (x, out, 16))
