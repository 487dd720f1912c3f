"""Random generator of valid cuTile kernels for differential testing.

A program is a *description* (plain data: arrays, launch grid, a list of
statements whose expressions are nested tuples) plus the cuTile source text
rendered from it.  ``ref.py`` interprets the description with NumPy; the
runner converts the source with cutile2triton and runs the Triton module.

Only constructs whose cuTile semantics are documented (cutile_api.md §1-§3)
are generated, and only in well-conditioned forms:
  * divisors are never zero (constants, ``abs(e) + c`` or its negation), also
    in zero-padded lanes;
  * log / sqrt get strictly positive arguments;
  * discontinuous operations (comparisons, floor/ceil, float ``//``,
    float->int casts) only see "exact" operands (no rounding in their history),
    so a last-ulp difference can never flip them;
  * magnitudes are bounded statically (and the evaluator rejects programs that
    still overflow), ints never wrap;
  * scatter destinations are injective within a block and disjoint between
    blocks; a tile is never entirely outside its array.

Expression nodes (tuples, first item is the kind):
  ("var", name)                         a previously assigned tile/scalar
  ("const", value)                      loosely typed Python literal (int or float)
  ("bid", axis)                         ct.bid(axis) (int32 scalar)
  ("load", arr, (idx...), shape, order, pad)   ct.load, tile-space index (idx are exprs)
  ("gather", arr, (idx...), padval, mask)      ct.gather, element indices
  ("arange", n, dtype)                  ct.arange(n, dtype=...)
  ("full", shape, value, dtype)         ct.full
  ("bin", op, a, b, spelling)           + - * / // % max min < <= > >= == != & | ^
  ("un", op, a, spelling)               neg abs exp log sqrt sin cos tanh floor ceil
  ("where", c, a, b)
  ("reduce", op, a, axis, keepdims)     sum / max / min  (axis None = all -> 0-d)
  ("expand", a, axis, spelling)         a[:, None] / ct.expand_dims
  ("bcast", a, shape)                   ct.broadcast_to
  ("reshape", a, shape, spelling)
  ("permute", a, axes, spelling)        ct.permute / ct.transpose / .transpose()
  ("astype", a, dtype, spelling)
Statements:
  ("let", name, expr)
  ("store", arr, (idx...), expr)        ct.store (tile-space index)
  ("scatter", arr, (idx...), expr, mask)
"""

from __future__ import annotations

import dataclasses
import math
import random

import numpy as np

DTYPES = ("float32", "float16", "int32")
FLOATS = ("float32", "float16")
# Magnitude limits used to steer the generator (the evaluator checks the real values).
LIMIT = {"float32": 1e5, "float16": 2e3, "int32": 1 << 20, "bool": 1}


@dataclasses.dataclass
class ArraySpec:
    name: str
    shape: tuple
    dtype: str
    role: str  # "in" or "out"
    kind: str = "any"  # input values: any | int | perm (scatter destinations) | idx (gather indices)
    init: object = None  # numpy array (inputs), filled by make_inputs


@dataclasses.dataclass
class Program:
    seed: int
    source: str
    arrays: list
    grid: tuple
    consts: dict  # constexpr parameters (name -> int)
    stmts: list
    relaxed: bool  # reductions / transcendentals / long chains present
    features: set

    def array(self, name):
        for a in self.arrays:
            if a.name == name:
                return a
        raise KeyError(name)


@dataclasses.dataclass
class E:
    """An expression under construction plus what the generator knows statically."""
    node: tuple
    shape: tuple  # () for scalars / 0-d tiles
    dtype: str  # float32 float16 int32 bool, or "lint"/"lfloat" for loose constants
    exact: bool  # no rounding anywhere in its history
    bound: float  # magnitude estimate (upper bound on |value| for generated inputs)
    heavy: int = 0  # number of reductions/transcendentals/ops (tolerance relaxation)


def promote(a: str, b: str) -> str:
    """cuTile binary-op promotion (§2.4) for the dtypes the generator uses."""
    if a == b:
        return "float32" if a == "lfloat" else ("int32" if a == "lint" else a)
    loose = {"lint", "lfloat"}
    if a in loose and b in loose:
        return "float32" if "lfloat" in (a, b) else "int32"
    if a in loose or b in loose:
        lo, co = (a, b) if a in loose else (b, a)
        if lo == "lint":
            return co  # same category or lower: concrete dtype wins
        return co if co in FLOATS else "float32"  # loose float: float dtype wins, int -> float32
    if a in FLOATS and b in FLOATS:
        return "float32"  # f16 x f32 -> f32
    if a in FLOATS:
        return a
    if b in FLOATS:
        return b
    return "int32"


def bcast_shape(s1, s2):
    r = max(len(s1), len(s2))
    a = (1,) * (r - len(s1)) + tuple(s1)
    b = (1,) * (r - len(s2)) + tuple(s2)
    out = []
    for x, y in zip(a, b):
        if x != y and x != 1 and y != 1:
            return None
        out.append(max(x, y))
    return tuple(out)


def numel(s):
    return math.prod(s) if s else 1


class Gen:
    MAX_NUMEL = 1024

    def __init__(self, seed: int):
        self.seed = seed
        self.r = random.Random(seed)
        self.arrays: list[ArraySpec] = []
        self.stmts: list = []
        self.vars: list[E] = []  # assigned variables usable as leaves
        self.nvar = 0
        self.features: set = set()
        self.heavy = 0

    # ---- helpers ---------------------------------------------------------------
    def chance(self, p):
        return self.r.random() < p

    def add_array(self, shape, dtype, role, kind="any", prefix=None):
        name = f"{prefix or ('A' if role == 'in' else 'Out')}{len(self.arrays)}"
        a = ArraySpec(name, tuple(shape), dtype, role, kind)
        self.arrays.append(a)
        return a

    def let(self, e: E) -> E:
        name = f"v{self.nvar}"
        self.nvar += 1
        self.stmts.append(("let", name, e.node))
        v = E(("var", name), e.shape, e.dtype, e.exact, e.bound, e.heavy)
        self.vars.append(v)
        return v

    def const(self, kind, lo=1, hi=5):
        if kind == "int":
            v = self.r.randint(int(math.ceil(lo)), int(hi)) * self.r.choice((1, -1))
            return E(("const", v), (), "lint", True, abs(v))
        v = round(self.r.uniform(lo, hi), 2) * self.r.choice((1, -1))
        if v == 0:
            v = 0.5
        # 0.25-multiples are exact in every float dtype; others are rounded at use.
        if self.chance(0.5):
            v = round(v * 4) / 4 or 0.25
        return E(("const", v), (), "lfloat", v * 4 == int(v * 4), abs(v))

    # ---- frame: arrays, tiles, grid ------------------------------------------------
    def frame(self):
        r = self.r
        self.rank = r.choice((1, 2, 2))
        pow2 = [1, 2, 4, 8, 16, 32]
        while True:
            tiles = tuple(r.choice(pow2[1:] if self.rank == 1 else pow2) for _ in range(self.rank))
            if self.rank == 1:
                tiles = (r.choice([2, 4, 8, 16, 32, 64]),)
            if 2 <= numel(tiles) <= 256:
                break
        self.T = tiles
        dims, grid_axes, bids = [], [], []
        for k, t in enumerate(tiles):
            if r.random() < 0.35 and self.rank == 2:
                # one tile covers the whole axis (row-wise kernels): D <= T
                d = r.randint(max(1, t // 2), t)
                dims.append(d)
                bids.append(None)
            else:
                nblk = r.randint(1, 3 if numel(tiles) > 64 else 4)
                d = r.randint((nblk - 1) * t + 1, nblk * t)
                dims.append(d)
                bids.append(len(grid_axes))
                grid_axes.append(k)
        self.D = tuple(dims)
        self.grid_axes = grid_axes
        self.bid_of_axis = bids
        self.G = tuple(-(-dims[k] // tiles[k]) for k in range(self.rank))  # tiles per axis
        self.grid = tuple(self.G[k] for k in grid_axes) or (1,)
        # tile-coordinate scalar of each frame axis
        self.tidx = []
        for k in range(self.rank):
            if bids[k] is None:
                self.tidx.append(E(("const", 0), (), "lint", True, 0))
            else:
                self.tidx.append(self.let(E(("bid", bids[k]), (), "int32", True, 64)))
        self.tconst = {f"T{k}": t for k, t in enumerate(tiles)}

    def tdim(self, k):
        """Source spelling of tile extent k (a constexpr parameter)."""
        return f"T{k}"

    # ---- leaves ----------------------------------------------------------------------
    def in_dtype(self):
        return self.r.choice(DTYPES)

    def leaf_main(self, dtype=None):
        dtype = dtype or self.in_dtype()
        r = self.r
        if self.rank == 2 and self.chance(0.2):
            # transposed storage, read through order=(1, 0): tile[x, y] = A[b1*T1 + y, b0*T0 + x]
            a = self.add_array((self.D[1], self.D[0]), dtype, "in")
            idx = tuple(t.node for t in self.tidx)
            self.features.add("load_order")
            node = ("load", a.name, idx, self.T, (1, 0), "ZERO")
        else:
            a = self.add_array(self.D, dtype, "in")
            idx = tuple(t.node for t in self.tidx)
            pad = self.pad(dtype)
            node = ("load", a.name, idx, self.T, None, pad)
        self.features.add("load")
        return self.let(E(node, self.T, dtype, True, 50 if dtype == "int32" else 4))

    def pad(self, dtype):
        """ZERO padding, or none (UNDETERMINED: the evaluator checks that no padded
        lane can influence a stored element, i.e. masked semantics), or +-inf for
        floats (the evaluator follows the infinities; NaN-producing programs are skipped)."""
        p = self.r.random()
        if p < 0.25:
            self.features.add("load_nopad")
            return None
        if p < 0.35 and dtype in FLOATS:
            self.features.add("load_pad_inf")
            return self.r.choice(["NEG_INF", "POS_INF"])
        return "ZERO"

    def leaf_vector(self, k, dtype=None):
        dtype = dtype or self.in_dtype()
        a = self.add_array((self.D[k],), dtype, "in")
        node = ("load", a.name, (self.tidx[k].node,), (self.T[k],), None, self.pad(dtype))
        self.features.add("load")
        return self.let(E(node, (self.T[k],), dtype, True, 50 if dtype == "int32" else 4))

    def global_index(self, k, shift=0, reverse=False):
        """int32 tile of the element indices of frame axis k covered by this block (+shift)."""
        ar = ("arange", self.T[k], "int32")
        if reverse:
            ar = ("bin", "-", ("const", self.T[k] - 1), ar, "op")
        base = ("bin", "*", self.tidx[k].node, ("const", self.T[k]), "op")
        node = ("bin", "+", base, ar, "op")
        if shift:
            node = ("bin", "+", node, ("const", shift), "op")
        return E(node, (self.T[k],), "int32", True, self.D[k] + abs(shift) + self.T[k])

    def leaf_gather(self, dtype=None, axis=None):
        """ct.gather with element indices, some of them out of bounds: a (T[axis],) tile,
        or a full frame tile when axis is None."""
        dtype = dtype or self.in_dtype()
        r = self.r
        self.features.add("gather")
        pv = r.choice([0, 0, 1, -2]) if dtype == "int32" else r.choice([0.0, 0.0, 1.5, -2.0])
        if self.rank == 1 or axis is not None:
            k = axis if axis is not None else 0
            n = self.D[k] + r.randint(-2, 3)
            n = max(n, 1)
            a = self.add_array((n,), dtype, "in")
            if self.chance(0.3):
                # indices loaded from an index array with out-of-bounds entries
                ia = self.add_array((self.D[k],), "int32", "in", kind=f"idx{n}")
                idx = self.let(E(("load", ia.name, (self.tidx[k].node,), (self.T[k],), None, "ZERO"),
                                 (self.T[k],), "int32", True, n + 4))
                idx_node = idx.node
            else:
                idx_node = self.global_index(k, shift=r.choice([0, 0, -1, 1, -3, 2]),
                                             reverse=self.chance(0.3)).node
            mask = None
            node = ("gather", a.name, (idx_node,), pv, mask)
            return self.let(E(node, (self.T[k],), dtype, True, 50 if dtype == "int32" else 4))
        shape = (self.D[0] + r.randint(-2, 2), self.D[1] + r.randint(-2, 2))
        shape = tuple(max(1, s) for s in shape)
        a = self.add_array(shape, dtype, "in")
        ri = self.global_index(0, shift=r.choice([0, 0, -1, 2]), reverse=self.chance(0.3))
        ci = self.global_index(1, shift=r.choice([0, 0, 1, -2]))
        mask = None
        if self.chance(0.3):
            # user mask combined with the bounds mask
            mask = ("bin", "!=", ("expand", ci.node, 0, "sub"), ("const", self.r.randint(0, self.D[1])), "op")
            self.features.add("gather_mask")
        node = ("gather", a.name, (("expand", ri.node, 1, "sub"), ("expand", ci.node, 0, "sub")), pv, mask)
        return self.let(E(node, self.T, dtype, True, 50 if dtype == "int32" else 4))

    # ---- expressions -------------------------------------------------------------------
    def gen(self, shape, depth, want=None) -> E:
        """An expression whose shape is exactly `shape`; `want` = "float"/"int"/"exact"/None."""
        shape = tuple(shape)
        e = self._gen(shape, depth, want)
        if e.shape != shape:
            raise Reject()
        return e

    def _gen(self, shape, depth, want):
        r = self.r
        if depth <= 0 or self.chance(0.15):
            return self.leaf(shape, want)
        choices = ["bin"] * 5 + ["un"] * 2 + ["where", "reduce", "reduce", "shape", "astype", "leaf"]
        kind = r.choice(choices)
        try:
            e = None
            if kind == "bin":
                e = self.gen_bin(shape, depth, want)
            elif kind == "un":
                e = self.gen_un(shape, depth, want)
            elif kind == "where":
                e = self.gen_where(shape, depth, want)
            elif kind == "reduce":
                e = self.gen_reduce(shape, depth, want)
            elif kind == "shape":
                e = self.gen_shape(shape, depth, want)
            elif kind == "astype":
                e = self.gen_astype(shape, depth, want)
            if e is not None and e.shape == shape:
                return e
        except Reject:
            pass
        return self.leaf(shape, want)

    def ok_want(self, e: E, want):
        if want is None:
            return True
        if want == "exact":
            return e.exact
        if want == "int":
            return e.dtype in ("int32", "lint")
        if want == "float":
            return e.dtype in FLOATS or e.dtype == "lfloat"
        return True

    def leaf(self, shape, want=None) -> E:
        r = self.r
        cands = [v for v in self.vars if v.shape == tuple(shape) and self.ok_want(v, want) and v.dtype != "bool"]
        if cands and self.chance(0.6):
            return r.choice(cands)
        dtype = None
        if want == "int":
            dtype = "int32"
        elif want == "float":
            dtype = r.choice(FLOATS)
        shape = tuple(shape)
        if shape == self.T:
            return self.leaf_gather(dtype) if self.chance(0.25) else self.leaf_main(dtype)
        if len(shape) == 1 and shape[0] in self.T:
            k = [i for i, t in enumerate(self.T) if t == shape[0]]
            k = r.choice(k)
            p = r.random()
            if p < 0.4:
                return self.leaf_vector(k, dtype)
            if p < 0.55 and (self.rank == 1 or self.chance(0.5)):
                return self.leaf_gather(dtype, k)
            if p < 0.8 and dtype != "float16" and want != "float":
                e = self.global_index(k, shift=r.choice([0, -3, 1]))
                return e
            e = E(("arange", shape[0], dtype or "int32"), shape, dtype or "int32", True, shape[0])
            self.features.add("arange")
            return e
        if len(shape) == 2 and (shape[1], shape[0]) == self.T and self.rank == 2:
            inner = self.leaf(self.T, want)
            self.features.add("transpose")
            return E(("permute", inner.node, (1, 0), r.choice(["transpose", "permute", "method"])), shape,
                     inner.dtype, inner.exact, inner.bound, inner.heavy)
        if len(shape) >= 2 and 1 in shape:
            ax = r.choice([i for i, s in enumerate(shape) if s == 1])
            inner = self.leaf(shape[:ax] + shape[ax + 1:], want)
            if inner.dtype in ("lint", "lfloat"):
                raise Reject()
            self.features.add("expand")
            return E(("expand", inner.node, ax, r.choice(["sub", "fn"])), shape, inner.dtype, inner.exact,
                     inner.bound, inner.heavy)
        if len(shape) == 0:
            bids = [t for t in self.tidx if t.node[0] == "var"]
            if bids and want != "float" and self.chance(0.4):
                self.features.add("scalar_bid")
                return r.choice(bids)
            if want == "int" or (want != "float" and self.chance(0.5)):
                return self.const("int", 1, 4)
            return self.const("float", 0.5, 3)
        # anything else: ct.full or a broadcast outer combination
        if len(shape) >= 2 and self.chance(0.7):
            j = r.randrange(len(shape))
            a = self.leaf(tuple(1 if i == j else s for i, s in enumerate(shape)), want)
            b = self.leaf(tuple(s if i == j else 1 for i, s in enumerate(shape)), want)
            if self.chance(0.5):
                a, b = b, a
            return self.combine(r.choice(["+", "*"]), a, b)
        dt = dtype or r.choice(DTYPES)
        val = r.randint(-3, 3) if dt == "int32" else r.choice([0.5, -1.25, 2.0, 3.0])
        self.features.add("full")
        return E(("full", shape, val, dt), shape, dt, True, abs(val))

    def combine(self, op, a: E, b: E, spelling="op") -> E:
        if a.node == b.node and op in ("-", "max", "min"):
            raise Reject()  # degenerate (x - x, max(x, x))
        dt = promote(a.dtype, b.dtype)
        shape = bcast_shape(a.shape, b.shape)
        if shape is None:
            raise Reject()
        exact = a.exact and b.exact and (dt == "int32" or op in ("max", "min"))
        if op in ("+", "-"):
            bound = a.bound + b.bound
        elif op == "*":
            bound = a.bound * b.bound
        else:
            bound = max(a.bound, b.bound)
        if dt in LIMIT and bound > LIMIT[dt]:
            raise Reject()
        if dt == "float32" and (a.dtype == "int32" or b.dtype == "int32") and not (a.exact and b.exact):
            pass
        return E(("bin", op, a.node, b.node, spelling), shape, dt, exact, bound, a.heavy + b.heavy + 1)

    def sub_shape(self, shape):
        """A shape broadcastable to `shape` (itself most of the time)."""
        r = self.r
        p = r.random()
        if p < 0.6 or not shape:
            return tuple(shape)
        if p < 0.75:
            return ()
        if p < 0.9 and len(shape) == 2:
            return r.choice([(shape[0], 1), (1, shape[1]), (shape[1],)])
        return tuple(shape)

    def gen_bin(self, shape, depth, want):
        r = self.r
        if want == "exact":
            op = r.choice(["+", "-", "*", "//", "%", "cdiv", "max", "min", "&", "|", "^"])
            a = self.gen(shape, depth - 1, "int" if op not in ("max", "min") else "exact")
        else:
            op = r.choice(["+", "+", "-", "*", "*", "/", "//", "//", "%", "%", "cdiv", "max", "min", "&", "^", "<<", ">>"])
            a = self.gen(shape, depth - 1,
                         "int" if (op in ("//", "%", "cdiv") and want is None and self.chance(0.6)) else want)
        sb = self.sub_shape(shape)
        if a.shape != tuple(shape):
            sb = tuple(shape)
        if op in ("&", "|", "^", "<<", ">>"):
            if a.dtype not in ("int32",):
                raise Reject()
            if op in ("<<", ">>"):
                k = r.randint(0, 3)
                if op == "<<" and a.bound * 8 > LIMIT["int32"]:
                    raise Reject()
                self.features.add("shift")
                return E(("bin", op, a.node, ("const", k), r.choice(["op", "fn"])), a.shape, "int32", a.exact,
                         a.bound * (1 << k) if op == "<<" else a.bound, a.heavy + 1)
            b = self.gen(sb, depth - 1, "int") if sb else self.const("int", 0, 15)
            if b.dtype not in ("int32", "lint"):
                raise Reject()
            self.features.add("bitwise")
            if bcast_shape(a.shape, b.shape) is None:
                raise Reject()
            e = E(("bin", op, a.node, b.node, r.choice(["op", "fn"])), bcast_shape(a.shape, b.shape), "int32",
                  a.exact and b.exact, max(a.bound, b.bound) * 2, a.heavy + b.heavy + 1)
            return e
        if op in ("/", "//", "%", "cdiv"):
            b = self.divisor(sb, depth - 1, a)
            dt = promote(a.dtype, b.dtype)
            if op == "cdiv":
                if dt != "int32":
                    raise Reject()
                # ceiling division, a true ceiling also for negative operands
                self.features.add("int_cdiv")
                return E(("bin", "cdiv", a.node, b.node, "fn"), bcast_shape(a.shape, b.shape), "int32",
                         a.exact and b.exact, a.bound + 1, a.heavy + b.heavy + 1)
            if op == "/":
                dtr = dt if dt in FLOATS else "float32"
                bound = a.bound / b.lowest
                if bound > LIMIT[dtr]:
                    raise Reject()
                self.features.add("truediv_int" if dtr != dt else "truediv")
                return E(("bin", "/", a.node, b.node, r.choice(["op", "op", "fn"])), bcast_shape(a.shape, b.shape),
                         dtr, False, bound, a.heavy + b.heavy + 1)
            if dt in FLOATS:
                if dt == "float16" or not (a.exact and b.exact):
                    raise Reject()  # float // and % only in fp32 on exact operands
                self.features.add("float_" + ("floordiv" if op == "//" else "mod"))
                bound = a.bound / b.lowest + 1 if op == "//" else b.bound
                return E(("bin", op, a.node, b.node, r.choice(["op", "fn"])), bcast_shape(a.shape, b.shape), dt,
                         op == "//", bound, a.heavy + b.heavy + 1)
            self.features.add("int_" + ("floordiv" if op == "//" else "mod"))
            bound = a.bound if op == "//" else b.bound
            return E(("bin", op, a.node, b.node, r.choice(["op", "op", "fn"])), bcast_shape(a.shape, b.shape),
                     "int32", a.exact and b.exact, bound, a.heavy + b.heavy + 1)
        # + - * max min
        if sb == ():
            b = self.const("int" if (a.dtype == "int32" or self.chance(0.3)) else "float", 0.5, 3)
        else:
            b = self.gen(sb, depth - 1, want if want != "exact" else ("int" if op not in ("max", "min") else "exact"))
        if r.random() < 0.5 and b.shape == a.shape:
            a, b = b, a
        spelling = r.choice(["op", "op", "fn"]) if op not in ("max", "min") else r.choice(["fn", "builtin"])
        self.features.add({"+": "add", "-": "sub", "*": "mul", "max": "maximum", "min": "minimum"}[op])
        e = self.combine(op, a, b, spelling)
        if want == "exact" and not e.exact:
            raise Reject()
        return e

    def divisor(self, shape, depth, num: E):
        """A never-zero divisor (also in zero-padded lanes), with .lowest = min |value|."""
        r = self.r
        if not shape or self.chance(0.3):
            if num.dtype in FLOATS and self.chance(0.5):
                c = self.const("float", 0.5, 4)
                c.lowest = abs(c.node[1])
                return c
            c = self.const("int", 1, 7)
            c.lowest = abs(c.node[1])
            return c
        inner = self.gen(shape, depth, "exact" if self.chance(0.5) else None)
        if inner.dtype == "bool":
            raise Reject()
        if inner.dtype in FLOATS:
            off = r.choice([0.5, 1.0, 1.5])
        else:
            off = r.choice([1, 2, 3])
        node = ("bin", "+", ("un", "abs", inner.node, r.choice(["fn", "builtin"])), ("const", off), "op")
        if self.chance(0.35):
            node = ("un", "neg", node, r.choice(["op", "fn"]))
        e = E(node, inner.shape, inner.dtype, inner.exact and inner.dtype == "int32", inner.bound + off, inner.heavy + 1)
        e.lowest = off
        return e

    def gen_un(self, shape, depth, want):
        r = self.r
        if want == "exact":
            op = r.choice(["neg", "abs", "floor", "ceil"])
        elif want == "int":
            op = r.choice(["neg", "abs"])
        else:
            op = r.choice(["neg", "abs", "exp", "log", "sqrt", "sin", "cos", "tanh", "floor", "exp", "sqrt"])
        a = self.gen(shape, depth - 1, "exact" if op in ("floor", "ceil") else want)
        if a.dtype in ("bool", "lint", "lfloat"):
            raise Reject()
        if op in ("neg", "abs"):
            self.features.add(op)
            return E(("un", op, a.node, r.choice(["op", "fn"] if op == "neg" else ["fn", "builtin"])), a.shape,
                     a.dtype if a.dtype not in ("lint", "lfloat") else a.dtype, a.exact, a.bound, a.heavy)
        if op in ("floor", "ceil"):
            if a.dtype not in FLOATS or not a.exact:
                raise Reject()
            self.features.add(op)
            return E(("un", op, a.node, "fn"), a.shape, a.dtype, True, a.bound + 1, a.heavy + 1)
        dt = a.dtype if a.dtype in FLOATS else "float32"  # int inputs -> float32
        if a.dtype in ("lint", "lfloat"):
            raise Reject()
        self.features.add(op)
        self.heavy += 1
        if op == "exp":
            if a.bound > 6:
                raise Reject()
            bound = math.exp(a.bound)
            node = ("un", "exp", a.node, "fn")
        elif op == "log":
            # log(|a| + c): argument >= c > 0
            c = r.choice([0.5, 1.0, 2.0])
            node = ("un", "log", ("bin", "+", ("un", "abs", a.node, "fn"), ("const", c), "op"), "fn")
            bound = math.log(a.bound + c) + 1
        elif op == "sqrt":
            c = r.choice([0.25, 1.0])
            node = ("un", "sqrt", ("bin", "+", ("un", "abs", a.node, "fn"), ("const", c), "op"), "fn")
            bound = math.sqrt(a.bound + c)
        elif op in ("sin", "cos"):
            if a.bound > 100:
                raise Reject()
            node = ("un", op, a.node, "fn")
            bound = 1.0
        else:
            node = ("un", "tanh", a.node, "fn")
            bound = 1.0
        return E(node, a.shape, dt, False, bound, a.heavy + 2)

    def cond(self, shape, depth):
        """A bool tile broadcastable to `shape`: comparison of exact operands."""
        r = self.r
        sa = self.sub_shape(shape) or tuple(shape)
        a = self.gen(sa, depth - 1, "exact")
        if not a.exact or a.dtype in ("bool", "lint", "lfloat"):
            raise Reject()
        if self.chance(0.5):
            b = self.const("int" if a.dtype == "int32" else r.choice(["int", "float"]), 0, 2)
            if b.dtype == "lfloat" and a.dtype == "float16":
                b = E(("const", 0.5), (), "lfloat", True, 0.5)
        else:
            b = self.gen(self.sub_shape(shape), depth - 1, "exact")
            if not b.exact or b.dtype == "bool" or bcast_shape(a.shape, b.shape) is None:
                raise Reject()
        op = r.choice(["<", "<=", ">", ">=", "==", "!="])
        if a.node == b.node:
            raise Reject()  # degenerate (x > x)
        if op in ("==", "!=") and (a.dtype in FLOATS or b.dtype in FLOATS):
            op = "<"
        self.features.add("compare")
        return E(("bin", op, a.node, b.node, r.choice(["op", "op", "fn"])), bcast_shape(a.shape, b.shape), "bool",
                 True, 1)

    def gen_where(self, shape, depth, want):
        r = self.r
        if not shape:
            raise Reject()
        c = self.cond(shape, depth)
        if bcast_shape(c.shape, shape) != tuple(shape):
            raise Reject()
        if r.random() < 0.25:
            # comparison result used as a number
            if want == "float":
                raise Reject()
            self.features.add("bool_astype")
            e = E(("astype", c.node, "int32", r.choice(["fn", "method"])), c.shape, "int32", True, 1)
            if e.shape != tuple(shape):
                e = E(("bcast", e.node, tuple(shape)), tuple(shape), "int32", True, 1)
            return e
        a = self.gen(shape, depth - 1, want)
        sb = self.sub_shape(shape)
        b = self.gen(sb, depth - 1, want) if sb else self.const(
            "int" if a.dtype == "int32" else "float", 0, 3)
        if r.random() < 0.5:
            a, b = b, a
        dt = promote(a.dtype, b.dtype)
        s = bcast_shape(bcast_shape(a.shape, b.shape), c.shape)
        if s != tuple(shape):
            raise Reject()
        self.features.add("where")
        return E(("where", c.node, a.node, b.node), s, dt, a.exact and b.exact, max(a.bound, b.bound),
                 a.heavy + b.heavy + 1)

    def gen_reduce(self, shape, depth, want):
        r = self.r
        shape = tuple(shape)
        op = r.choice(["sum", "sum", "max", "min", "argmax" if self.chance(0.5) else "argmin"])
        arg = op.startswith("arg")
        if arg and (want == "float" or len(shape) == 0):
            raise Reject()
        if arg:
            want = None if want != "exact" else "exact"
        if want == "exact" and op == "sum":
            want_in = "int"
        else:
            want_in = want
        if len(shape) >= 2 and 1 in shape and self.chance(0.7):
            ax = r.choice([i for i, s in enumerate(shape) if s == 1])
            k = r.choice(self.T)
            ishape = shape[:ax] + (k,) + shape[ax + 1:]
            keep = True
        elif len(shape) == 0:
            if not self.chance(0.3):
                raise Reject()
            ishape = r.choice([self.T, (self.T[0],)])
            ax = None
            keep = False
        else:
            if len(shape) >= 3:
                raise Reject()
            ax = r.randint(0, len(shape))
            k = r.choice(self.T)
            ishape = shape[:ax] + (k,) + shape[ax:]
            keep = False
        if numel(ishape) > self.MAX_NUMEL:
            raise Reject()
        a = self.gen(ishape, depth - 1, want_in)
        if a.dtype in ("bool", "lint", "lfloat") or a.shape != ishape:
            raise Reject()
        n = numel(ishape) if ax is None else ishape[ax]
        if arg:
            # int32 index of the first extreme element (ties -> smallest index); no negative axis
            self.features.add(op + ("_keepdims" if keep else ""))
            self.heavy += 1
            return E(("reduce", op, a.node, ax, keep), shape, "int32", True, n, a.heavy + 2)
        bound = a.bound * n if op == "sum" else a.bound
        if bound > LIMIT[a.dtype]:
            raise Reject()
        axis_val = ax
        if ax is not None and self.chance(0.3):
            axis_val = ax - len(ishape)  # negative axis
        if a.dtype == "float16" and op == "sum" and n > 64:
            raise Reject()
        self.features.add("reduce_" + op + ("_keepdims" if keep else "") + ("_all" if ax is None else ""))
        self.heavy += 1
        return E(("reduce", op, a.node, axis_val, keep), shape, a.dtype,
                 a.exact and (op != "sum" or a.dtype == "int32"), bound, a.heavy + 2)

    def gen_shape(self, shape, depth, want):
        r = self.r
        shape = tuple(shape)
        p = r.random()
        if len(shape) == 3 and p < 0.35:
            axes = list(range(3))
            while axes == [0, 1, 2]:
                r.shuffle(axes)
            # result dim k = input dim axes[k]: the input has shape[axes.index(i)] at dim i
            src = tuple(shape[axes.index(i)] for i in range(3))
            a = self.gen(src, depth - 1, want)
            self.features.add("permute3d")
            return E(("permute", a.node, tuple(axes), "permute"), shape, a.dtype, a.exact, a.bound, a.heavy)
        if len(shape) == 2 and p < 0.35:
            a = self.gen((shape[1], shape[0]), depth - 1, want)
            self.features.add("transpose")
            return E(("permute", a.node, (1, 0), r.choice(["transpose", "permute", "method"])), shape, a.dtype,
                     a.exact, a.bound, a.heavy)
        if len(shape) >= 1 and p < 0.7:
            # reshape from another shape with the same number of elements
            n = numel(shape)
            opts = [s for s in ({self.T, (n,), (self.T[-1], self.T[0])} | ({(n // 2, 2), (2, n // 2)} if n >= 4 else set()))
                    if numel(s) == n and s != shape]
            if not opts:
                raise Reject()
            src = r.choice(sorted(opts))
            a = self.gen(src, depth - 1, want)
            self.features.add("reshape")
            return E(("reshape", a.node, shape, r.choice(["fn", "method"])), shape, a.dtype, a.exact, a.bound,
                     a.heavy)
        if len(shape) >= 1 and any(s > 1 for s in shape):
            # broadcast_to from a shape with size-1 axes
            src = tuple(1 if (s > 1 and self.chance(0.5)) else s for s in shape)
            if src == shape:
                src = tuple(1 if i == 0 else s for i, s in enumerate(shape))
            a = self.gen(src, depth - 1, want)
            self.features.add("broadcast_to")
            return E(("bcast", a.node, shape), shape, a.dtype, a.exact, a.bound, a.heavy)
        raise Reject()

    def gen_astype(self, shape, depth, want):
        r = self.r
        a = self.gen(shape, depth - 1, None if want != "exact" else "exact")
        if a.dtype in ("lint", "lfloat", "bool"):
            raise Reject()
        if want == "int":
            dst = "int32"
        elif want == "float":
            dst = r.choice(FLOATS)
        else:
            dst = r.choice(DTYPES)
        if dst == a.dtype:
            raise Reject()
        if dst == "int32" and not a.exact:
            raise Reject()  # float -> int truncation is discontinuous
        if dst == "float16" and a.bound > LIMIT["float16"]:
            raise Reject()
        if want == "exact" and not (a.dtype == "float16" or (a.dtype == "int32" and a.bound < 2048) or dst == "int32"):
            raise Reject()
        exact = a.exact and (dst == "int32" or a.dtype == "float16" or (a.dtype == "int32" and a.bound < 2048))
        self.features.add(f"astype_{a.dtype}_{dst}")
        return E(("astype", a.node, dst, r.choice(["fn", "method"])), a.shape, dst, exact, a.bound, a.heavy + 1)

    def stmt_loop(self, depth):
        """acc = ct.full(S, init); for i in range(ct.num_tiles(A, axis=k, shape=TS)):
        t = ct.load(A, ...i...); acc = acc + f(t) (or maximum / minimum)."""
        r = self.r
        k = r.randrange(self.rank)
        tl = r.choice([2, 4, 8, 16])
        ts = self.T[:k] + (tl,) + self.T[k + 1:]
        if numel(ts) > 512:
            raise Reject()
        length = r.randint(1, 4 * tl)
        dtype = self.in_dtype()
        shape = self.D[:k] + (length,) + self.D[k + 1:]
        a = self.add_array(shape, dtype, "in")
        iname, tname, aname = f"i{self.nvar}", f"t{self.nvar}", f"acc{self.nvar}"
        self.nvar += 1
        idx = tuple(("var", iname) if j == k else self.tidx[j].node for j in range(self.rank))
        load = ("load", a.name, idx, ts, None, "ZERO")
        t = E(("var", tname), ts, dtype, True, 50 if dtype == "int32" else 4)
        self.vars.append(t)
        try:
            f = t
            if self.chance(0.7):
                g = self.gen(ts, max(1, depth - 2))
                f = self.combine(r.choice(["+", "*", "-"]), t, g)
        finally:
            self.vars.remove(t)
        if f.dtype not in DTYPES or f.shape != ts:
            raise Reject()
        op = r.choice(["sum", "sum", "max", "min"])
        n = -(-length // tl)
        if op == "sum":
            init, bound = 0, f.bound * n
        else:
            if f.bound > 900:
                raise Reject()
            init, bound = (-1000 if op == "max" else 1000), 1000
        if bound > LIMIT[f.dtype]:
            raise Reject()
        if f.dtype != "int32":
            init = float(init)
        self.stmts.append(("loop", aname, ("full", ts, init, f.dtype), iname, a.name, k, tname, load, op, f.node))
        self.features.add("loop_" + op)
        acc = E(("var", aname), ts, f.dtype, f.exact and (op != "sum" or f.dtype == "int32"), bound, f.heavy + 2)
        self.vars.append(acc)
        self.heavy += 1
        return acc

    # ---- outputs ----------------------------------------------------------------------
    def out_dtype(self, e: E):
        if e.dtype in ("lint", "lfloat"):
            return None
        if e.dtype == "float16" and self.chance(0.15):
            self.features.add("store_widen")
            return "float32"
        return e.dtype

    def stmt_store_main(self, depth):
        e = self.gen(self.T, depth)
        if e.shape != self.T or e.dtype == "bool":
            raise Reject()
        dt = self.out_dtype(e)
        if dt is None:
            raise Reject()
        a = self.add_array(self.D, dt, "out")
        self.stmts.append(("store", a.name, tuple(t.node for t in self.tidx), e.node))
        self.features.add("store")
        return e

    def stmt_store_reduced(self, depth):
        """A row/column reduction stored with a (T0, 1) / (1, T1) / (T0,) tile."""
        r = self.r
        if self.rank == 1:
            shape = (1,)
            e = self.gen_reduce(shape, depth, None) if self.chance(0.7) else self.gen(shape, depth)
            arr_shape = (self.G[0],)
            idx = (self.tidx[0].node,)
        else:
            ax = r.randrange(2)
            # a 1-D result is only race-free when the reduced axis is covered by one tile
            keep = ax if self.bid_of_axis[ax] is not None or self.chance(0.5) else None
            if keep is not None:
                shape = (self.T[0], 1) if ax == 1 else (1, self.T[1])
                arr_shape = (self.D[0], self.G[1]) if ax == 1 else (self.G[0], self.D[1])
                idx = tuple(t.node for t in self.tidx)
            else:
                # the other axis is covered by one tile: a 1-D result
                shape = (self.T[1 - ax],)
                arr_shape = (self.D[1 - ax],)
                idx = (self.tidx[1 - ax].node,)
            e = self.gen_reduce(shape, depth, None)
        if e.shape != shape or e.dtype == "bool":
            raise Reject()
        dt = self.out_dtype(e)
        if dt is None:
            raise Reject()
        a = self.add_array(arr_shape, dt, "out")
        self.stmts.append(("store", a.name, idx, e.node))
        return e

    def stmt_scatter(self, depth):
        """ct.scatter with injective element indices (some out of bounds) and an optional mask."""
        r = self.r
        self.features.add("scatter")
        # 1-D destinations are race-free only when the other frame axis is covered by one tile
        one_d = [k for k in range(self.rank) if all(self.bid_of_axis[j] is None for j in range(self.rank) if j != k)]
        if one_d and (self.rank == 1 or self.chance(0.4)):
            k = r.choice(one_d)
            n = max(1, self.D[k] + r.randint(-2, 2))
            if self.chance(0.4):
                # destinations from a permutation array, read with gather(padding_value=-1)
                pa = self.add_array((self.D[k],), "int32", "in", kind=f"perm{n}")
                gi = self.global_index(k)
                dst = self.let(E(("gather", pa.name, (gi.node,), -1, None), (self.T[k],), "int32", True, n + 4))
                idx = (dst.node,)
                self.features.add("scatter_perm")
            else:
                idx = (self.global_index(k, shift=r.choice([0, 0, -2, 1, 3]), reverse=self.chance(0.3)).node,)
            shape = (self.T[k],)
            arr_shape = (n,)
        else:
            shape = self.T
            arr_shape = tuple(max(1, d + r.randint(-2, 2)) for d in self.D)
            ri = self.global_index(0, shift=r.choice([0, -1, 2]), reverse=self.chance(0.3))
            ci = self.global_index(1, shift=r.choice([0, 1, -1]))
            idx = (("expand", ri.node, 1, "sub"), ("expand", ci.node, 0, "sub"))
        e = self.gen(shape, depth)
        if e.dtype == "bool" or e.shape != shape:
            raise Reject()
        dt = self.out_dtype(e)
        if dt is None:
            raise Reject()
        mask = None
        if self.chance(0.3):
            c = self.cond(shape, 1)
            if bcast_shape(c.shape, shape) != shape:
                raise Reject()
            mask = c.node
            self.features.add("scatter_mask")
        a = self.add_array(arr_shape, dt, "out")
        self.stmts.append(("scatter", a.name, idx, e.node, mask))
        return e

    def build(self, max_depth=None):
        r = self.r
        self.frame()
        depth = max_depth or r.randint(2, 4)
        nout = r.choice([1, 1, 2, 2, 3])
        made = 0
        for _ in range(r.choice([0, 0, 1, 1, 2])):
            snap = (len(self.arrays), len(self.stmts), len(self.vars), self.nvar, set(self.features), self.heavy)
            try:
                self.stmt_loop(depth)
            except Reject:
                n_arr, n_st, n_var, nvar, feats, heavy = snap
                del self.arrays[n_arr:]
                del self.stmts[n_st:]
                del self.vars[n_var:]
                self.features, self.heavy = feats, heavy
        tries = 0
        while made < nout and tries < 30:
            tries += 1
            snap = (len(self.arrays), len(self.stmts), len(self.vars), self.nvar, set(self.features), self.heavy)
            p = r.random()
            try:
                if p < 0.5 or (made == 0 and p < 0.6):
                    e = self.stmt_store_main(depth)
                elif p < 0.75:
                    e = self.stmt_store_reduced(depth)
                else:
                    e = self.stmt_scatter(depth)
                made += 1
                self.heavy += e.heavy
            except Reject:
                n_arr, n_st, n_var, nvar, feats, heavy = snap
                del self.arrays[n_arr:]
                del self.stmts[n_st:]
                del self.vars[n_var:]
                self.features, self.heavy = feats, heavy
        if made == 0:
            raise Reject()
        self.stmts, self.arrays = prune(self.stmts, self.arrays)


def names_in(node, acc):
    if isinstance(node, tuple):
        if len(node) == 2 and node[0] == "var":
            acc.add(node[1])
        for x in node:
            names_in(x, acc)
    elif isinstance(node, str):
        acc.add(node)
    return acc


def prune(stmts, arrays):
    """Drops assignments nobody reads and arrays nobody mentions."""
    stmts = list(stmts)
    while True:
        used = set()
        for st in stmts:
            names_in(st[2:] if st[0] in ("let", "loop") else st[1:], used)
        keep = [st for st in stmts if st[0] not in ("let", "loop") or st[1] in used]
        if len(keep) == len(stmts):
            break
        stmts = keep
    used = set()
    for st in stmts:
        names_in(st, used)
    return stmts, [a for a in arrays if a.name in used]


class Reject(Exception):
    pass


# ---- rendering --------------------------------------------------------------------

_FN = {"+": "ct.add", "-": "ct.sub", "*": "ct.mul", "/": "ct.truediv", "//": "ct.floordiv", "%": "ct.mod", "cdiv": "ct.cdiv",
       "max": "ct.maximum", "min": "ct.minimum", "<": "ct.less", "<=": "ct.less_equal", ">": "ct.greater",
       ">=": "ct.greater_equal", "==": "ct.equal", "!=": "ct.not_equal", "&": "ct.bitwise_and",
       "|": "ct.bitwise_or", "^": "ct.bitwise_xor", "<<": "ct.bitwise_lshift", ">>": "ct.bitwise_rshift"}
_UN = {"exp": "ct.exp", "log": "ct.log", "sqrt": "ct.sqrt", "sin": "ct.sin", "cos": "ct.cos", "tanh": "ct.tanh",
       "floor": "ct.floor", "ceil": "ct.ceil", "abs": "ct.abs", "neg": "ct.negative"}


def _shape_src(shape, tdims):
    """Shapes mention the constexpr tile parameters where they match (T0, T1)."""
    parts = []
    for s in shape:
        parts.append(str(s))
    return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def render_expr(n) -> str:
    k = n[0]
    if k == "var":
        return n[1]
    if k == "const":
        v = n[1]
        return repr(v) if v >= 0 else f"({v!r})"
    if k == "bid":
        return f"ct.bid({n[1]})"
    if k == "load":
        _, arr, idx, shape, order, pad = n
        idx_s = "(" + ", ".join(render_expr(i) for i in idx) + ("," if len(idx) == 1 else "") + ")"
        s = f"ct.load({arr}, index={idx_s}, shape={_shape_src(shape, None)}"
        if order is not None:
            s += f", order={tuple(order)!r}"
        if pad:
            s += f", padding_mode=ct.PaddingMode.{pad}"
        return s + ")"
    if k == "gather":
        _, arr, idx, pv, mask = n
        if len(idx) == 1:
            idx_s = render_expr(idx[0])
        else:
            idx_s = "(" + ", ".join(render_expr(i) for i in idx) + ")"
        s = f"ct.gather({arr}, {idx_s}"
        if mask is not None:
            s += f", mask={render_expr(mask)}"
        if pv is not None:
            s += f", padding_value={pv!r}"
        return s + ")"
    if k == "arange":
        return f"ct.arange({n[1]}, dtype=ct.{n[2]})"
    if k == "full":
        return f"ct.full({_shape_src(n[1], None)}, {n[2]!r}, dtype=ct.{n[3]})"
    if k == "bin":
        _, op, a, b, sp = n
        if op in ("max", "min"):
            if sp == "builtin":
                return f"{op}({render_expr(a)}, {render_expr(b)})"
            return f"{_FN[op]}({render_expr(a)}, {render_expr(b)})"
        if sp == "fn":
            return f"{_FN[op]}({render_expr(a)}, {render_expr(b)})"
        return f"({render_expr(a)} {op} {render_expr(b)})"
    if k == "un":
        _, op, a, sp = n
        if op == "neg" and sp == "op":
            return f"(-{render_expr(a)})"
        if op == "abs" and sp == "builtin":
            return f"abs({render_expr(a)})"
        return f"{_UN[op]}({render_expr(a)})"
    if k == "where":
        return f"ct.where({render_expr(n[1])}, {render_expr(n[2])}, {render_expr(n[3])})"
    if k == "reduce":
        _, op, a, axis, keep = n
        s = f"ct.{op}({render_expr(a)}"
        if axis is not None:
            s += f", axis={axis}"
        if keep:
            s += ", keepdims=True"
        return s + ")"
    if k == "expand":
        _, a, axis, sp = n
        if sp == "fn":
            return f"ct.expand_dims({render_expr(a)}, axis={axis})"
        # subscript: the expression's rank is needed; encoded as None at `axis` with ':' around.
        return f"{render_expr(a)}[{'None' if axis == 0 else ':, None' if axis == 1 else ':, :, None'}]"
    if k == "bcast":
        return f"ct.broadcast_to({render_expr(n[1])}, {_shape_src(n[2], None)})"
    if k == "reshape":
        _, a, shape, sp = n
        if sp == "method":
            return f"{render_expr(a)}.reshape({_shape_src(shape, None)})"
        return f"ct.reshape({render_expr(a)}, {_shape_src(shape, None)})"
    if k == "permute":
        _, a, axes, sp = n
        if sp == "transpose":
            return f"ct.transpose({render_expr(a)})"
        if sp == "method":
            return f"{render_expr(a)}.transpose()"
        return f"ct.permute({render_expr(a)}, {tuple(axes)!r})"
    if k == "astype":
        _, a, dt, sp = n
        if sp == "method":
            return f"{render_expr(a)}.astype(ct.{dt})"
        return f"ct.astype({render_expr(a)}, ct.{dt})"
    raise ValueError(k)


def render(g: Gen) -> str:
    return render_parts(g.arrays, g.stmts, g.grid, g.T)


def _split_as_permuted_load(n):
    """For a 2-D+ ct.load bound by a `let` (one in three, chosen by the node itself so that a
    program always renders the same): (a load of the same tile in axis order perm^-1, perm) with
    ct.permute(that load, perm) == the original tile. The folded load's tile axis k is the written
    load's axis perm[k]: index, shape and order entries move with it. None otherwise."""
    if n[0] != "load" or len(n[3]) < 2 or random.Random(repr(n)).randrange(3):
        return None
    _, arr, idx, shape, order, pad = n
    rank = len(shape)
    perm = list(range(rank))
    rng = random.Random("perm" + repr(n))
    while perm == list(range(rank)):
        rng.shuffle(perm)
    order = list(order) if order is not None else list(range(rank))
    inv = [perm.index(j) for j in range(rank)]  # written axis j is tile axis inv[j]
    written = ("load", arr, tuple(idx[inv[j]] for j in range(rank)), tuple(shape[inv[j]] for j in range(rank)),
               tuple(order[inv[j]] for j in range(rank)), pad)
    return written, perm


def render_parts(arrays, stmts, grid, tiles) -> str:
    arrs = [a.name for a in arrays]
    tparams = [f"T{k}: ConstInt" for k in range(len(tiles))]
    lines = ["import cuda.tile as ct", "", "ConstInt = ct.Constant[int]", "", "", "@ct.kernel",
             f"def kernel({', '.join(arrs + tparams)}):"]
    for st in stmts:
        if st[0] == "let" and _split_as_permuted_load(st[2]) is not None:
            # The same tile written as a load in another axis order plus ct.permute into the same
            # name, the pair the converter folds into one load (Lowerer::load_then_permute).
            load, perm = _split_as_permuted_load(st[2])
            lines.append(f"    {st[1]} = {render_expr(load)}")
            lines.append(f"    {st[1]} = ct.permute({st[1]}, {tuple(perm)!r})")
        elif st[0] == "let":
            lines.append(f"    {st[1]} = {render_expr(st[2])}")
        elif st[0] == "store":
            idx = st[2]
            idx_s = "(" + ", ".join(render_expr(i) for i in idx) + ("," if len(idx) == 1 else "") + ")"
            lines.append(f"    ct.store({st[1]}, index={idx_s}, tile={render_expr(st[3])})")
        elif st[0] == "loop":
            _, aname, init, iname, arr, k, tname, load, op, f = st
            lines.append(f"    {aname} = {render_expr(init)}")
            ts = load[3]
            lines.append(f"    for {iname} in range(ct.num_tiles({arr}, axis={k}, shape={_shape_src(ts, None)})):")
            lines.append(f"        {tname} = {render_expr(load)}")
            if op == "sum":
                lines.append(f"        {aname} = {aname} + {render_expr(f)}")
            else:
                fn = "ct.maximum" if op == "max" else "ct.minimum"
                lines.append(f"        {aname} = {fn}({aname}, {render_expr(f)})")
        elif st[0] == "scatter":
            idx = st[2]
            idx_s = render_expr(idx[0]) if len(idx) == 1 else "(" + ", ".join(render_expr(i) for i in idx) + ")"
            s = f"    ct.scatter({st[1]}, {idx_s}, {render_expr(st[3])}"
            if st[4] is not None:
                s += f", mask={render_expr(st[4])}"
            lines.append(s + ")")
    lines += ["", "", f"def launch({', '.join(arrs)}):",
              f"    ct.launch(None, {tuple(grid)!r}, kernel, ({', '.join(arrs + [str(t) for t in tiles])},))", ""]
    return "\n".join(lines)


def generate(seed: int, max_depth=None) -> Program:
    """A valid random program for `seed` (deterministic)."""
    sub = 0
    while True:
        g = Gen(seed * 7919 + sub)
        try:
            g.build(max_depth)
        except Reject:
            sub += 1
            continue
        src = render(g)
        return Program(seed=seed, source=src, arrays=g.arrays, grid=g.grid,
                       consts={f"T{k}": t for k, t in enumerate(g.T)}, stmts=g.stmts,
                       relaxed=g.heavy > 0 or len(g.stmts) > 6, features=g.features)


def _zero_pad(node):
    if isinstance(node, tuple):
        if node and node[0] == "load" and len(node) == 6 and node[5] != "ZERO":
            return node[:5] + ("ZERO",)
        return tuple(_zero_pad(x) for x in node)
    if isinstance(node, list):
        return [_zero_pad(x) for x in node]
    return node


def with_zero_padding(prog: Program) -> Program:
    """The same program with every load padded with zeros (used when undetermined
    padding would reach an output)."""
    stmts = _zero_pad(prog.stmts)
    tiles = [prog.consts[f"T{k}"] for k in range(len(prog.consts))]
    return dataclasses.replace(prog, stmts=stmts, source=render_parts(prog.arrays, stmts, prog.grid, tiles),
                               features=(prog.features - {"load_nopad", "load_pad_inf"}))


def make_inputs(prog: Program, seed: int) -> dict:
    """Input arrays (numpy) for `prog`; outputs are absent (the runner poisons them)."""
    rng = np.random.default_rng(seed)
    out = {}
    for a in prog.arrays:
        if a.role != "in":
            continue
        n = numel(a.shape)
        if a.kind.startswith("perm"):
            bound = int(a.kind[4:])
            # distinct destinations in [-3, bound + 3): a permutation of in-bounds slots plus OOB ones
            cand = rng.permutation(np.arange(-3, bound + 3))[:n]
            v = cand.astype(np.int32)
        elif a.kind.startswith("idx"):
            bound = int(a.kind[3:])
            v = rng.integers(-3, bound + 3, size=n).astype(np.int32)
        elif a.dtype == "int32":
            v = rng.integers(-50, 51, size=n).astype(np.int32)
        else:
            v = rng.uniform(-4, 4, size=n).astype(a.dtype)
        out[a.name] = v.reshape(a.shape)
    return out
