"""Direct NumPy evaluator of generated program descriptions (gen.py), with
cuTile semantics; independent of the converter (it never looks at Triton code).

The kernel is run block by block exactly as cuTile defines it: tile loads at
tile-space indices with padding, whole-tile computation (padded lanes
included), stores clipped to the array, gathers/scatters with per-dimension
bounds masks.  Elementwise operations are computed in the operation's dtype
(float16 stays float16, reductions keep the input dtype); int ``//`` and
``%`` follow Python; float ``//`` is ``floor(x / y)`` and float ``%`` is C
fmod plus sign correction.

Alongside every value the evaluator carries ``err``: a first-order bound of the
absolute rounding error an implementation may legitimately accumulate
(reassociated reductions, FMA contraction, a few ulp in transcendentals).
The runner allows ``2 * err`` on top of the fixed tolerances.  Operations
whose result could flip within that error (comparisons, floor, float ``//``,
float->int casts) raise ``IllConditioned`` instead, and so do values that
overflow the magnitude limits: such programs are skipped, never compared.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

NP = {"float32": np.float32, "float16": np.float16, "int32": np.int32, "bool": np.bool_}
UNIT = {"float32": 2.0 ** -24, "float16": 2.0 ** -11}
MAXABS = {"float32": 1e7, "float16": 1e4, "int32": 2 ** 30}
FLOATS = ("float32", "float16")


class IllConditioned(Exception):
    """The program's result is not well determined on these inputs."""


class HarnessError(Exception):
    """The description violates the generator's own invariants (a harness bug)."""


class V:
    __slots__ = ("v", "dt", "err", "u")

    def __init__(self, v, dt, err=None, u=None):
        self.v = v  # numpy array (0-d for scalars) or a Python number for loose constants
        self.dt = dt  # float32 float16 int32 bool lint lfloat
        self.err = err if err is not None else (np.zeros(np.shape(v)) if dt not in ("lint", "lfloat") else 0.0)
        if dt in FLOATS and isinstance(v, np.ndarray) and err is not None:
            fin = np.isfinite(v)
            if not np.all(fin):  # +-inf lanes (from NEG_INF/POS_INF padding) are compared exactly
                self.err = np.where(fin, self.err, 0.0)
            if not np.all(np.isfinite(self.err)):
                raise IllConditioned("unbounded rounding error")
        # u: lanes whose value is undetermined (padding of a load without padding_mode), or None
        self.u = u if (u is None or np.any(u)) else None


def uor(*vals, shape=None):
    """Union of the undetermined masks of `vals`, broadcast to `shape`."""
    us = [x.u for x in vals if x.u is not None]
    if not us:
        return None
    if shape is None:
        shape = np.broadcast_shapes(*[np.shape(x.v) for x in vals])
    out = np.zeros(shape, dtype=bool)
    for u in us:
        out = out | np.broadcast_to(u, shape)
    return out


def ushape(u, fn):
    return None if u is None else fn(u)


def promote(a, b):
    loose = ("lint", "lfloat")
    if a in loose and b in loose:
        return "float32" if "lfloat" in (a, b) else "int32"
    if a in loose or b in loose:
        lo, co = (a, b) if a in loose else (b, a)
        if co == "bool":
            raise HarnessError("bool in arithmetic")
        if lo == "lint":
            return co
        return co if co in FLOATS else "float32"
    if a == b:
        return a
    if "bool" in (a, b):
        raise HarnessError("bool mixed with numbers")
    if a in FLOATS and b in FLOATS:
        return "float32"
    for x in (a, b):
        if x in FLOATS:
            return x
    return "int32"


def cast(x: V, dt) -> np.ndarray:
    if x.dt in ("lint", "lfloat"):
        if dt == "int32" and x.dt == "lfloat":
            raise HarnessError("float constant into int")
        return np.array(x.v, dtype=NP[dt])
    if x.dt == dt:
        return x.v
    return x.v.astype(NP[dt])


def nonfinite(*arrs):
    """Lanes where any (float) operand is +-inf (inherited, not a fresh overflow)."""
    out = None
    for a in arrs:
        a = np.asarray(a)
        if a.dtype.kind == "f":
            m = ~np.isfinite(a)
            out = m if out is None else (out | m)
    return out


def check(r: np.ndarray, dt, what="", nf_in=None):
    if dt in FLOATS:
        r64 = np.asarray(r).astype(np.float64)
        if np.any(np.isnan(r64)):
            raise IllConditioned(f"NaN in {what}")
        fin = np.isfinite(r64)
        if not np.all(fin):
            fresh = ~fin if nf_in is None else (~fin & ~np.broadcast_to(nf_in, fin.shape))
            if np.any(fresh):
                raise IllConditioned(f"overflow to inf in {what}")
        if np.any(np.abs(r64[fin]) > MAXABS[dt]):
            raise IllConditioned(f"magnitude limit in {what}")
    elif dt == "int32":
        if np.any(np.abs(r.astype(np.int64)) > MAXABS[dt]):
            raise IllConditioned(f"int magnitude in {what}")
    return r


def rnd(r, dt):
    """Rounding error of producing r in dtype dt."""
    if dt in FLOATS:
        return UNIT[dt] * np.abs(r.astype(np.float64))
    return np.zeros(np.shape(r))


def abs64(x):
    return np.abs(np.asarray(x, dtype=np.float64))


def err_of(x: V):
    return x.err if not np.isscalar(x.err) else np.zeros(())


def flip_check(a, ea, b, eb, what):
    """Comparisons must not be decided within the rounding error."""
    if np.any((ea > 0) | (eb > 0)):
        d = np.abs(a.astype(np.float64) - b.astype(np.float64))
        if np.any(d <= (ea + eb) * 1.01):
            raise IllConditioned(f"{what}: operands within rounding error")


def int_boundary_check(q, e, what):
    if np.any(e > 0):
        f = q - np.floor(q)
        if np.any((f <= e * 1.01) | (1 - f <= e * 1.01)):
            raise IllConditioned(f"{what}: value within rounding error of an integer")


class Evaluator:
    def __init__(self, prog, inputs: dict, outputs: dict):
        self.prog = prog
        self.arrays = {}
        for a in prog.arrays:
            if a.role == "in":
                self.arrays[a.name] = inputs[a.name]
            else:
                self.arrays[a.name] = outputs[a.name]
        self.written = {a.name: np.zeros(a.shape, dtype=np.int32) for a in prog.arrays if a.role == "out"}
        self.errs = {a.name: np.zeros(a.shape) for a in prog.arrays if a.role == "out"}
        self.consts = prog.consts

    # -- expressions -----------------------------------------------------------------
    def ev(self, n, env) -> V:
        k = n[0]
        f = getattr(self, "e_" + k)
        return f(n, env)

    def e_var(self, n, env):
        return env[n[1]]

    def e_const(self, n, env):
        v = n[1]
        return V(v, "lfloat" if isinstance(v, float) else "lint", 0.0)

    def e_bid(self, n, env):
        return V(np.array(self.bid[n[1]], dtype=np.int32), "int32")

    def _scalar_int(self, x: V):
        if x.dt in ("lint",):
            return int(x.v)
        if x.dt != "int32" or np.shape(x.v) != ():
            raise HarnessError("tile index must be an int scalar")
        return int(x.v)

    def e_load(self, n, env):
        _, arr, idx, shape, order, pad = n
        A = self.arrays[arr]
        P = np.transpose(A, order) if order is not None else A
        idx = [self._scalar_int(self.ev(i, env)) for i in idx]
        if len(idx) != P.ndim or len(shape) != P.ndim:
            raise HarnessError("load rank")
        if pad in ("NEG_INF", "POS_INF") and A.dtype.kind != "f":
            raise HarnessError("inf padding of an int array")
        fill = {"ZERO": 0, None: 0, "NEG_INF": -np.inf, "POS_INF": np.inf}[pad]
        out = np.full(shape, fill, dtype=A.dtype)
        inb = np.zeros(shape, dtype=bool)
        src, dst = [], []
        for d in range(P.ndim):
            lo = idx[d] * shape[d]
            hi = min(lo + shape[d], P.shape[d])
            if lo < 0 or lo >= P.shape[d]:
                raise HarnessError("tile entirely out of bounds")
            src.append(slice(lo, hi))
            dst.append(slice(0, hi - lo))
        out[tuple(dst)] = P[tuple(src)]
        inb[tuple(dst)] = True
        return V(out, str(A.dtype), u=None if pad is not None else ~inb)

    def e_gather(self, n, env):
        _, arr, idx, pv, mask = n
        A = self.arrays[arr]
        ivs = [self.ev(i, env) for i in idx]
        ia = [cast(i, "int32") if i.dt == "lint" else i.v for i in ivs]
        for i in ivs:
            if i.dt not in ("int32", "lint"):
                raise HarnessError("gather index dtype")
        ia = np.broadcast_arrays(*[np.asarray(x, dtype=np.int64) for x in ia])
        ok = np.ones(ia[0].shape, dtype=bool)
        for d, x in enumerate(ia):
            ok &= (x >= 0) & (x < A.shape[d])
        parts = list(ivs)
        if mask is not None:
            m = self.ev(mask, env)
            ok &= np.broadcast_to(m.v.astype(bool), ok.shape)
            parts.append(m)
        safe = [np.where(ok, x, 0) for x in ia]
        vals = A[tuple(safe)] if A.size else np.zeros(ok.shape, A.dtype)
        pad = np.array(pv if pv is not None else 0, dtype=A.dtype)
        out = np.where(ok, vals, pad).astype(A.dtype)
        return V(out, str(A.dtype), u=uor(*parts, shape=ok.shape))

    def e_arange(self, n, env):
        _, size, dt = n
        return V(np.arange(size, dtype=np.int64).astype(NP[dt]), dt)

    def e_full(self, n, env):
        _, shape, val, dt = n
        return V(np.full(shape, val, dtype=NP[dt]), dt)

    def e_bin(self, n, env):
        a, b = self.ev(n[2], env), self.ev(n[3], env)
        res = self._bin(n, a, b)
        res.u = uor(a, b, shape=np.shape(res.v))
        return res

    def _bin(self, n, a, b):
        _, op, an, bn, _sp = n
        dt = promote(a.dt, b.dt)
        ea, eb = err_of(a), err_of(b)
        if op == "/":
            rdt = dt if dt in FLOATS else "float32"
            x, y = cast(a, rdt), cast(b, rdt)
            if np.any(y == 0):
                raise HarnessError("division by zero")
            with np.errstate(all="ignore"):
                r = check(x / y, rdt, "/", nonfinite(x, y))
            ay = abs64(y)
            if np.any(ay <= eb):
                raise IllConditioned("divisor within error of 0")
            err = (ea + abs64(r) * eb) / (ay - eb) + rnd(r, rdt)
            return V(r, rdt, err)
        x, y = cast(a, dt), cast(b, dt)
        if op in ("<", "<=", ">", ">=", "==", "!="):
            flip_check(x, ea, y, eb, op)
            r = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal,
                 "==": np.equal, "!=": np.not_equal}[op](x, y)
            return V(np.asarray(r), "bool")
        if op in ("&", "|", "^", "<<", ">>"):
            if dt != "int32":
                raise HarnessError("bitwise on non-int")
            xi, yi = x.astype(np.int64), y.astype(np.int64)
            if op in ("<<", ">>") and np.any((yi < 0) | (yi > 31)):
                raise HarnessError("shift amount")
            r = {"&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor, "<<": np.left_shift,
                 ">>": np.right_shift}[op](xi, yi)
            check(r, "int32", op)
            return V(r.astype(np.int32), "int32")
        if dt == "int32":
            xi, yi = x.astype(np.int64), y.astype(np.int64)
            if op in ("//", "%", "cdiv") and np.any(yi == 0):
                raise HarnessError("int division by zero")
            if op == "cdiv":
                r = -np.floor_divide(-xi, yi)  # true ceiling (also for negative operands)
            else:
                r = {"+": np.add, "-": np.subtract, "*": np.multiply, "//": np.floor_divide, "%": np.remainder,
                     "max": np.maximum, "min": np.minimum}[op](xi, yi)
            check(r, "int32", op)
            return V(r.astype(np.int32), "int32")
        if dt == "bool":
            raise HarnessError("arithmetic on bool")
        # floats, computed in dt (numpy rounds each operation to dt)
        ax, ay = abs64(x), abs64(y)
        with np.errstate(all="ignore"):
            if op == "+":
                r = x + y
                err = ea + eb
            elif op == "-":
                r = x - y
                err = ea + eb
            elif op == "*":
                r = x * y
                err = ea * ay + eb * ax + ea * eb
            elif op == "max":
                r = np.fmax(x, y)
                err = np.maximum(ea, eb)
            elif op == "min":
                r = np.fmin(x, y)
                err = np.maximum(ea, eb)
            elif op == "//":
                if np.any(y == 0):
                    raise HarnessError("float // by zero")
                q = x / y
                if np.any((ea > 0) | (eb > 0)):
                    int_boundary_check(q.astype(np.float64), (ea + abs64(q) * eb) / np.maximum(ay - eb, 1e-30),
                                       "float //")
                r = np.floor(q)
                err = np.zeros(np.shape(r))
            elif op == "%":
                if np.any(y == 0):
                    raise HarnessError("float % by zero")
                if np.any((ea > 0) | (eb > 0)):
                    q = x.astype(np.float64) / y.astype(np.float64)
                    int_boundary_check(q, (ea + abs64(q) * eb) / np.maximum(ay - eb, 1e-30), "float %")
                m = np.fmod(x, y)
                r = np.where((m != 0) & ((m < 0) != (y < 0)), m + y, m).astype(x.dtype)
                # near a multiple of y the result jumps between ~0 and ~y (only matters for inexact operands;
                # with exact ones fmod is exact and the sign correction is one rounding)
                near = np.minimum(abs64(r), np.abs(abs64(r) - ay)) <= 8 * UNIT[dt] * ay + ea + eb
                if np.any(near & ((ea + eb) > 0)):
                    raise IllConditioned("float % near a multiple")
                err = ea + eb
            else:
                raise HarnessError(op)
        r = np.asarray(r).astype(NP[dt])
        check(r, dt, op, nonfinite(x, y))
        return V(r, dt, np.asarray(err, dtype=np.float64) + (rnd(r, dt) if op not in ("max", "min", "//") else 0))

    def e_un(self, n, env):
        a = self.ev(n[2], env)
        res = self._un(n, a)
        res.u = a.u
        return res

    def _un(self, n, a):
        _, op, an, _sp = n
        if a.dt in ("lint", "lfloat", "bool"):
            raise HarnessError("unary on loose constant/bool")
        ea = err_of(a)
        if op == "neg":
            r = (-a.v.astype(np.int64)) if a.dt == "int32" else -a.v
            check(np.asarray(r), a.dt, op)
            return V(np.asarray(r).astype(NP[a.dt]), a.dt, ea)
        if op == "abs":
            r = np.abs(a.v.astype(np.int64)) if a.dt == "int32" else np.abs(a.v)
            return V(np.asarray(r).astype(NP[a.dt]), a.dt, ea)
        if op in ("floor", "ceil"):
            if a.dt not in FLOATS:
                raise HarnessError("floor of int")
            int_boundary_check(a.v.astype(np.float64), ea, op)
            r = np.floor(a.v) if op == "floor" else np.ceil(a.v)
            return V(r.astype(NP[a.dt]), a.dt)
        dt = a.dt if a.dt in FLOATS else "float32"
        x = a.v.astype(np.float64)
        with np.errstate(all="ignore"):
            if op == "exp":
                r64 = np.exp(x)
                err = r64 * np.expm1(ea)
            elif op == "log":
                if np.any(x - ea <= 0):
                    raise IllConditioned("log argument")
                r64 = np.log(x)
                err = ea / (x - ea)
            elif op == "sqrt":
                if np.any(x < 0):
                    raise IllConditioned("sqrt argument")
                r64 = np.sqrt(x)
                err = ea / (r64 + np.sqrt(np.maximum(x - ea, 0)) + 1e-30)
            elif op in ("sin", "cos"):
                r64 = np.sin(x) if op == "sin" else np.cos(x)
                err = ea
            elif op == "tanh":
                r64 = np.tanh(x)
                err = ea
            else:
                raise HarnessError(op)
        # the input is first rounded to dt (int -> float32), then the function is applied
        with np.errstate(all="ignore"):
            r64 = {"exp": np.exp, "log": np.log, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos,
                   "tanh": np.tanh}[op](a.v.astype(NP[dt]).astype(np.float64))
        with np.errstate(all="ignore"):
            r = r64.astype(NP[dt])
        check(r, dt, op, nonfinite(a.v))
        # a few ulp for the implementation of the function (plus the sin/cos argument reduction)
        ulps = 4 if op not in ("sin", "cos") else 4 + 4 * abs64(x) * UNIT[dt] * 8
        return V(r, dt, err + ulps * rnd(r, dt) + (4 * UNIT[dt] if op in ("sin", "cos", "tanh") else 0))

    def e_where(self, n, env):
        _, cn, an, bn = n
        c, a, b = self.ev(cn, env), self.ev(an, env), self.ev(bn, env)
        if c.dt != "bool":
            raise HarnessError("where cond")
        dt = promote(a.dt, b.dt)
        x, y = cast(a, dt), cast(b, dt)
        r = np.where(c.v, x, y).astype(NP[dt])
        err = np.where(c.v, err_of(a), err_of(b))
        u = uor(c, shape=r.shape)
        ua, ub = uor(a, shape=r.shape), uor(b, shape=r.shape)
        if ua is not None or ub is not None:
            sel = np.where(np.broadcast_to(c.v, r.shape), ua if ua is not None else False, ub if ub is not None else False)
            u = sel if u is None else (u | sel)
        return V(r, dt, np.broadcast_to(err, r.shape).astype(np.float64), u)

    def e_reduce(self, n, env):
        _, op, an, axis, keep = n
        a = self.ev(an, env)
        if a.dt not in ("float32", "float16", "int32"):
            raise HarnessError("reduce dtype")
        x = a.v
        ea = np.broadcast_to(err_of(a), x.shape)
        cnt = x.size if axis is None else x.shape[axis]
        res = self._reduce(n, a, x, ea, cnt)
        if a.u is not None:
            res.u = np.any(a.u, axis=axis, keepdims=keep)
        return res

    def _reduce(self, n, a, x, ea, cnt):
        _, op, an, axis, keep = n
        if op == "sum":
            if a.dt == "int32":
                r = np.sum(x.astype(np.int64), axis=axis, keepdims=keep)
                check(r, "int32", "sum")
                return V(r.astype(np.int32), "int32")
            r64 = np.sum(x.astype(np.float64), axis=axis, keepdims=keep)
            r = r64.astype(NP[a.dt])
            check(r, a.dt, "sum", np.any(~np.isfinite(x.astype(np.float64)), axis=axis, keepdims=keep))
            s_abs = np.sum(abs64(x), axis=axis, keepdims=keep)
            depth = 8 + math.ceil(math.log2(max(cnt, 2)))
            err = np.sum(ea, axis=axis, keepdims=keep) + depth * UNIT[a.dt] * s_abs + rnd(r, a.dt)
            return V(r, a.dt, err)
        if op in ("argmax", "argmin"):
            if axis is None or axis < 0:
                raise HarnessError("argmax axis")
            xs = x.astype(np.float64) if a.dt != "int32" else x.astype(np.int64)
            idx = np.argmax(xs, axis=axis) if op == "argmax" else np.argmin(xs, axis=axis)  # first = smallest index
            best = np.take_along_axis(xs, np.expand_dims(idx, axis), axis=axis)
            if np.any(ea > 0):
                eb = np.take_along_axis(ea, np.expand_dims(idx, axis), axis=axis)
                other = np.abs(xs - best) <= (ea + eb) * 1.01
                cnt_close = np.sum(other, axis=axis)
                exact_ties = np.sum(xs == best, axis=axis)
                if np.any(cnt_close > exact_ties):
                    raise IllConditioned("argmax/argmin within rounding error")
            r = idx.astype(np.int32)
            if keep:
                r = np.expand_dims(r, axis)
            return V(r, "int32")
        fn = np.fmax if op == "max" else np.fmin
        r = fn.reduce(x, axis=axis, keepdims=keep)
        err = np.max(ea, axis=axis, keepdims=keep) if ea.size else np.zeros(np.shape(r))
        return V(np.asarray(r).astype(x.dtype), a.dt, np.asarray(err, dtype=np.float64))

    def e_expand(self, n, env):
        _, an, axis, _sp = n
        a = self.ev(an, env)
        return V(np.expand_dims(a.v, axis), a.dt, np.expand_dims(np.broadcast_to(err_of(a), np.shape(a.v)), axis),
                 ushape(a.u, lambda u: np.expand_dims(u, axis)))

    def e_bcast(self, n, env):
        _, an, shape = n
        a = self.ev(an, env)
        return V(np.broadcast_to(a.v, shape).copy(), a.dt, np.broadcast_to(err_of(a), shape).copy(),
                 ushape(a.u, lambda u: np.broadcast_to(u, shape).copy()))

    def e_reshape(self, n, env):
        _, an, shape, _sp = n
        a = self.ev(an, env)
        e = np.broadcast_to(err_of(a), np.shape(a.v))
        return V(np.reshape(a.v, shape), a.dt, np.reshape(e, shape), ushape(a.u, lambda u: np.reshape(u, shape)))

    def e_permute(self, n, env):
        _, an, axes, _sp = n
        a = self.ev(an, env)
        e = np.broadcast_to(err_of(a), np.shape(a.v))
        return V(np.transpose(a.v, axes).copy(), a.dt, np.transpose(e, axes).copy(),
                 ushape(a.u, lambda u: np.transpose(u, axes).copy()))

    def e_astype(self, n, env):
        a = self.ev(n[1], env)
        res = self._astype(n, a)
        res.u = a.u
        return res

    def _astype(self, n, a):
        _, an, dt, _sp = n
        ea = err_of(a)
        if a.dt == "bool":
            return V(a.v.astype(NP[dt]), dt)
        if dt == "int32" and a.dt in FLOATS:
            # truncation toward zero: must not be decided within the error
            if not np.all(np.isfinite(a.v)):
                raise IllConditioned("float->int of inf")
            int_boundary_check(np.abs(a.v.astype(np.float64)), ea, "float->int")
            r = np.trunc(a.v.astype(np.float64))
            check(r, "int32", "astype")
            return V(r.astype(np.int32), "int32")
        with np.errstate(all="ignore"):
            r = a.v.astype(NP[dt])
        check(r, dt, "astype", nonfinite(a.v))
        return V(r, dt, np.broadcast_to(ea, r.shape) + (rnd(r, dt) if dt in FLOATS else 0))

    # -- statements --------------------------------------------------------------------
    def s_let(self, st, env):
        env[st[1]] = self.ev(st[2], env)

    def s_store(self, st, env):
        _, arr, idx, en = st
        A = self.arrays[arr]
        t = self.ev(en, env)
        dt = str(A.dtype)
        if promote(t.dt, dt) != dt:
            raise HarnessError(f"narrowing store {t.dt} -> {dt}")
        v = cast(t, dt)
        idx = [self._scalar_int(self.ev(i, env)) for i in idx]
        shape = np.shape(v)
        if len(shape) != A.ndim:
            raise HarnessError("store rank")
        src, dst = [], []
        for d in range(A.ndim):
            lo = idx[d] * shape[d]
            hi = min(lo + shape[d], A.shape[d])
            if lo < 0 or lo >= A.shape[d]:
                raise HarnessError("store tile entirely out of bounds")
            dst.append(slice(lo, hi))
            src.append(slice(0, hi - lo))
        if t.u is not None and np.any(np.broadcast_to(t.u, shape)[tuple(src)]):
            raise IllConditioned("undetermined padding lanes reach a stored element")
        A[tuple(dst)] = v[tuple(src)]
        self.errs[arr][tuple(dst)] = np.broadcast_to(err_of(t), shape)[tuple(src)]
        self.written[arr][tuple(dst)] += 1

    def s_scatter(self, st, env):
        _, arr, idx, en, mask = st
        A = self.arrays[arr]
        t = self.ev(en, env)
        dt = str(A.dtype)
        if promote(t.dt, dt) != dt:
            raise HarnessError("narrowing scatter")
        ivs = [self.ev(i, env) for i in idx]
        ia = np.broadcast_arrays(*[np.asarray(cast(i, "int32") if i.dt == "lint" else i.v, dtype=np.int64)
                                   for i in ivs])
        shape = ia[0].shape
        ok = np.ones(shape, dtype=bool)
        for d, x in enumerate(ia):
            ok &= (x >= 0) & (x < A.shape[d])
        parts = list(ivs)
        if mask is not None:
            mv = self.ev(mask, env)
            ok &= np.broadcast_to(mv.v.astype(bool), shape)
            parts.append(mv)
        ui = uor(*parts, shape=shape)
        if ui is not None:
            # lanes whose destination or mask is undetermined (unless determined-masked off)
            off = np.zeros(shape, dtype=bool)
            if mask is not None:
                off = ~np.broadcast_to(mv.v.astype(bool), shape) & ~(np.broadcast_to(mv.u, shape) if mv.u is not None else False)
            if np.any(ui & ~off):
                raise IllConditioned("undetermined scatter destination/mask")
        if t.u is not None and np.any(np.broadcast_to(t.u, shape) & ok):
            raise IllConditioned("undetermined value scattered")
        v = np.broadcast_to(cast(t, dt), shape)
        e = np.broadcast_to(err_of(t), shape)
        sel = tuple(x[ok] for x in ia)
        A[sel] = v[ok]
        self.errs[arr][sel] = e[ok]
        np.add.at(self.written[arr], sel, 1)

    def s_loop(self, st, env):
        _, aname, init, iname, arr, k, tname, load, op, f = st
        env[aname] = self.ev(init, env)
        ts = load[3]
        n = -(-self.arrays[arr].shape[k] // ts[k])
        upd = ("bin", "+" if op == "sum" else op, ("var", aname), f, "op")
        for i in range(n):
            env[iname] = V(np.array(i, dtype=np.int32), "int32")
            env[tname] = self.ev(load, env)
            env[aname] = self.ev(upd, env)

    def run(self):
        grid = self.prog.grid
        for bid in itertools.product(*[range(g) for g in grid]):
            self.bid = bid
            env = {}
            for st in self.prog.stmts:
                getattr(self, "s_" + st[0])(st, env)
        for name, w in self.written.items():
            if np.any(w > 1):
                raise HarnessError(f"{name}: element written more than once (race)")


def evaluate(prog, inputs: dict, outputs: dict):
    """Runs `prog` on numpy copies; `outputs` (poisoned numpy arrays) are updated in
    place. Returns {output name: err array}."""
    ev = Evaluator(prog, {k: v.copy() for k, v in inputs.items()}, outputs)
    ev.run()
    return ev.errs
