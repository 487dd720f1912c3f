# Sibling module for repro/sibling_aliased_constant_main.py (save as sib.py).
import cuda.tile as ct

ConstInt = ct.Constant[int]

def inner(t, N: ConstInt):
    return t * N

def outer(t):
    return inner(t, 3) + 1
