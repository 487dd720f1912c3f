"""Copies of op-call arguments and the comparison of two ops' results, for the differential check
against cuTile (``tilegym_differential``).

Copies keep what an op can observe: values, dtypes, shapes, strides, storage offsets (modulo 16 bytes), and
aliasing (tensors that share memory share the copy's memory, so an op called as ``f(x, out=x)`` sees the same
overlap, also through objects that hold tensors); ``torch.Generator`` arguments get a generator in the same
state; other objects (caches, ``nn.Module``s) are deep-copied where Python can, else shared, as are functions,
classes and modules. Results are compared leaf by leaf: tensors, NumPy arrays, numbers, strings, sets, None, inside
tuples (named ones too), lists, dicts (by key) and dataclasses (other objects are not looked into), at the tolerances of the manual workflow
(the checklist teams follow to convert cuTile kernels to Triton by hand, which cutile2triton automates: float32
1e-3, float16/bfloat16 1e-2, doubled for reductions, transcendentals and chained ops; doubled here for every
op, since TileGym's ops are such), fp8 at one unit in the last place
(e4m3 2^-3, e5m2 2^-2, relative), integers and booleans exactly, complex numbers per real and imaginary part,
float64 in float64. NaN must meet NaN and an infinity the same infinity.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import math
import sys
from typing import Callable, NamedTuple


def tolerance(dtype) -> tuple[float, float]:
    """(rtol, atol) for a result of this torch dtype; (0, 0) means exact (integers, booleans)."""
    import torch

    if dtype in (torch.float32, torch.float64, torch.complex64, torch.complex128):
        return 2e-3, 2e-3
    if dtype in (torch.float16, torch.bfloat16):
        return 2e-2, 2e-2
    name = str(dtype)
    if "float8_e4m3" in name:
        return 2.0 ** -3, 2.0 ** -9  # one unit in the last place; the smallest subnormal
    if "float8_e5m2" in name:
        return 2.0 ** -2, 2.0 ** -16
    if dtype.is_floating_point or dtype.is_complex:
        return 2e-2, 2e-2
    return 0.0, 0.0


def _byte_span(t) -> tuple[int, int]:
    """[first, last + 1) bytes of its storage that a strided tensor with elements reads (torch strides are
    never negative), the first rounded down to 16 bytes so that copies keep each view's alignment."""
    size = t.element_size()
    last = t.storage_offset() + sum((n - 1) * st for n, st in zip(t.shape, t.stride()))
    return (t.storage_offset() * size) // 16 * 16, (last + 1) * size


class Copier:
    """Copies call arguments (``copy``), each tensor onto the device ``device_of(tensor)`` names (default:
    its own). Tensors that share a storage share the copy's; only the bytes the arguments' views span are
    copied (``plan`` first, on the whole argument structure), so a small view of a large buffer costs its
    span. ``origin`` maps each copy's id to the device of the tensor it copies (to copy a host snapshot back
    where it came from, while the snapshot lives)."""

    def __init__(self, device_of: Callable | None = None):
        self.device_of = device_of or (lambda t: t.device)
        self.storages: dict = {}  # (address, device) of a storage -> (first byte copied, the copy's storage)
        self.spans: dict = {}  # (address, device) -> [first, end) bytes the planned views span
        self.origin: dict = {}

    @staticmethod
    def _key(st) -> tuple:
        return st.data_ptr(), str(st.device)

    def plan(self, value, _seen=None) -> None:
        """Records the byte spans of the strided tensors inside value (lists, tuples, dicts and the
        attributes of objects; the union per storage), so that ``tensor`` copies each storage's span once."""
        import torch

        seen = set() if _seen is None else _seen
        if id(value) in seen:
            return
        seen.add(id(value))
        if isinstance(value, torch.Tensor):
            if value.layout == torch.strided and value.device.type != "meta" and value.numel() \
                    and value.untyped_storage().nbytes():
                key, (lo, hi) = self._key(value.untyped_storage()), _byte_span(value)
                old = self.spans.get(key, (lo, hi))
                self.spans[key] = (min(old[0], lo), max(old[1], hi))
        elif isinstance(value, (list, tuple, set, frozenset)):
            for v in value:
                self.plan(v, seen)
        elif isinstance(value, dict):
            for v in value.values():
                self.plan(v, seen)
        elif hasattr(value, "__dict__") and not (inspect.isclass(value) or inspect.isroutine(value)
                                                 or inspect.ismodule(value)):
            self.plan(vars(value), seen)

    def tensor(self, t):
        """A copy of tensor t: same dtype, shape, strides and storage offset modulo 16 bytes, on
        ``device_of(t)``, detached, ``requires_grad`` kept for floating-point tensors; sparse tensors are
        copied by value."""
        import torch

        src, device = t.detach(), self.device_of(t)
        st = src.untyped_storage() if src.layout == torch.strided and src.device.type != "meta" else None
        if st is None:
            c = src.clone()  # sparse and the like: values only
        elif st.nbytes() == 0 or src.numel() == 0:  # nothing to read (and no address to know it by)
            c = torch.empty_strided(src.size(), src.stride(), dtype=src.dtype, device=device)
        else:
            key, (lo, hi) = self._key(st), _byte_span(src)
            first, new = self.storages.get(key, (0, None))
            if new is None or lo < first or hi > first + new.nbytes():  # a view seen only now: its own span
                first, end = self.spans.get(key, (lo, hi))
                first, end = min(first, lo), max(end, hi)
                raw = torch.empty(0, dtype=torch.uint8, device=src.device).set_(st, 0, (st.nbytes(),), (1,))
                new = raw[first:end].to(device, copy=True).untyped_storage()
                if key not in self.storages:
                    self.storages[key] = (first, new)
            c = torch.empty(0, dtype=src.dtype, device=new.device)
            c.set_(new, src.storage_offset() - first // src.element_size(), src.size(), src.stride())
        if t.requires_grad and (c.is_floating_point() or c.is_complex()):
            c.requires_grad_(True)
        self.origin[id(c)] = t.device
        return c

    def copy(self, value, _top=True):
        """A deep copy of value (see the module docstring)."""
        import torch

        if _top:
            self.plan(value)
        if isinstance(value, torch.Tensor):
            return self.tensor(value)
        if isinstance(value, torch.Generator):
            g = torch.Generator(device=value.device)
            g.set_state(value.get_state())
            return g
        if isinstance(value, list):
            return [self.copy(v, False) for v in value]
        if isinstance(value, torch.Size):
            return value
        if isinstance(value, tuple):
            items = [self.copy(v, False) for v in value]
            if hasattr(value, "_fields"):  # a named tuple
                return type(value)(*items)
            try:  # a tuple subclass such as torch.return_types (structseq)
                return type(value)(items)
            except Exception:  # noqa: BLE001
                return tuple(items)
        if isinstance(value, dict):
            return {k: self.copy(v, False) for k, v in value.items()}
        if value is None or isinstance(value, (bool, int, float, complex, str, bytes, torch.dtype, torch.device)) \
                or inspect.isclass(value) or inspect.isroutine(value) or inspect.ismodule(value):
            return value  # immutable, or code: shared
        return self._deepcopy(value)

    def _deepcopy(self, value):
        """copy.deepcopy of an object (a cache holding tensors, an nn.Module, ...), its tensors copied by
        ``tensor`` so that they keep sharing storage with the other arguments' copies; shared when Python
        cannot copy it (a lock, a file)."""
        import torch

        deepcopy_tensor = torch.Tensor.__deepcopy__

        def as_argument(t, memo):
            memo[id(t)] = c = self.tensor(t)
            return c

        torch.Tensor.__deepcopy__ = as_argument
        try:
            return copy.deepcopy(value)
        except Exception:  # noqa: BLE001 -- not copyable: shared, as the op gets it
            return value
        finally:
            torch.Tensor.__deepcopy__ = deepcopy_tensor


def copy_args(value):
    """A deep copy of call arguments on their own devices (Copier)."""
    return Copier().copy(value)


def _leaves(value, where):
    """(where, leaf) for every comparable leaf inside value, in a fixed order: tensors, numbers, strings,
    None, callables; containers are walked (dicts by sorted key, dataclasses by field)."""
    import torch

    np = sys.modules.get("numpy")
    if np is not None and isinstance(value, np.ndarray) and value.dtype.kind in "biufc":
        yield where, torch.as_tensor(value)
    elif isinstance(value, (torch.Tensor, bool, int, float, complex, str, bytes, torch.dtype, torch.device,
                            set, frozenset)) or value is None or callable(value):
        yield where, value
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{where}[{i}]")
    elif isinstance(value, dict):
        for k in sorted(value, key=repr):
            yield from _leaves(value[k], f"{where}[{k!r}]")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from _leaves(getattr(value, f.name), f"{where}.{f.name}")


def _same_plain(e, a) -> bool:
    """Leaves that are not tensors on both sides: equal (floats within float32's tolerance); callables
    are compared elsewhere (their results, when called)."""
    import torch

    if isinstance(e, torch.Tensor) or isinstance(a, torch.Tensor) or type(e) is not type(a):
        return callable(e) and callable(a) and not isinstance(e, torch.Tensor)
    if callable(e):
        return True
    if isinstance(e, (float, complex)):
        rtol, atol = tolerance(torch.float32)
        parts = [(e.real, a.real), (e.imag, a.imag)] if isinstance(e, complex) else [(e, a)]
        return all((math.isnan(x) and math.isnan(y)) or x == y or math.isclose(x, y, rel_tol=rtol, abs_tol=atol)
                   for x, y in parts)
    return e == a


def _short(v) -> str:
    import torch

    return f"a {v.dtype} tensor of shape {tuple(v.shape)}" if isinstance(v, torch.Tensor) else repr(v)[:60]


class Comparison(NamedTuple):
    """compared: tensors compared; worst: the largest difference beyond tolerance (None when all agree), a
    dict with where, dtype, shape, beyond (elements beyond tolerance), of, nonfinite (of those, elements
    where a NaN or infinity is not met by the same), max_abs and max_rel (over finite pairs), rtol, atol, or
    where and reason when structure, dtype, shape or a plain value differ; used: the largest
    |converted - cuTile| / (atol + rtol |cuTile|) over the finite floating-point elements (below 1 passes;
    0 bit-identical); differing: where every leaf beyond tolerance is."""

    compared: int
    worst: dict | None
    used: float
    differing: list


def _as_real(t):
    import torch

    t = _strided(t)
    if t.is_complex():
        return torch.view_as_real(t.resolve_conj()).double()
    return t.double() if t.dtype == torch.float64 else t.float()


def _strided(t):
    import torch

    t = t.detach()
    return t.to_dense() if t.layout != torch.strided else t


def _is_byte(t, byte: int):
    """Elements of tensor t whose every byte is ``byte`` (memory filled with it and never written)."""
    import torch

    raw = t.contiguous().reshape(-1).view(torch.uint8)
    return raw.reshape(*t.shape, t.element_size()).eq(byte).all(-1)


def unrepeatable(first, again, where: str = "result", poison: int | None = None) -> tuple[dict, set]:
    """Where a second run of one op on the same inputs (``again``) differs from its first, as (slack,
    leaves): slack maps a tensor leaf's where to a float64 tensor of its shape, the room each element gets
    beyond the tolerance -- 0 where the runs agree (NaN meeting NaN); |first - again| where they differ
    within ``tolerance(dtype)`` (atomics, split reductions: the converted value must still lie within the
    tolerance plus that); infinity (any value) where they differ beyond it (random numbers not drawn from
    torch's generators, a NaN on one side; integers, which are exact) or where ``again`` holds the
    ``poison`` byte pattern its fresh allocations were filled with (memory the op never wrote, whatever its
    type); leaves holds the other leaves that differ (plain values,
    dtype, shape; ``where`` itself when the structure does). compare() takes them as ``ignore`` and
    ``skip``; slacks of several runs combine by their elementwise maximum."""
    import torch

    a, b = list(_leaves(first, where)), list(_leaves(again, where))
    if [w for w, _ in a] != [w for w, _ in b]:
        return {}, {where}
    slack, leaves = {}, set()
    for (w, x), (_, y) in zip(a, b):
        if not isinstance(x, torch.Tensor) or not isinstance(y, torch.Tensor):
            if not _same_plain(x, y):
                leaves.add(w)
        elif x.dtype != y.dtype or x.shape != y.shape:
            leaves.add(w)
        elif x.numel() and x.device.type != "meta":
            x, y = _strided(x), _strided(y)
            inf = math.inf
            if x.is_floating_point() or x.is_complex():
                nan_x, nan_y = torch.isnan(x), torch.isnan(y)
                differ = (x != y) & ~(nan_x & nan_y)
                gap = (x.to(torch.complex128) - y.to(torch.complex128)).abs() if x.is_complex() else \
                    (x.double() - y.double()).abs()
                rtol, atol = tolerance(x.dtype)  # beyond it (or NaN on one side): not a value to hold to
                far = ~torch.isclose(_as_real(y), _as_real(x), rtol=rtol, atol=atol, equal_nan=True)
                if x.is_complex():
                    far = far.any(-1)
                gap = gap.where(~far, torch.full_like(gap, inf))
            else:  # exact dtypes: any difference is beyond their tolerance
                differ = x != y
                gap = torch.full(x.shape, inf, dtype=torch.float64, device=x.device)
            if poison is not None:  # by the bytes: an unwritten bool reads True for either fill byte
                unwritten = _is_byte(y, poison) & ~_is_byte(x, poison)
                differ |= unwritten
                gap = gap.where(~unwritten, torch.full_like(gap, inf))
            if not bool(differ.any()):
                continue
            slack[w] = gap.where(differ, torch.zeros_like(gap))
    return slack, leaves


def compare(expected, actual, where: str = "result", skip=(), ignore=None) -> Comparison:
    """Compares actual (converted) with expected (cuTile) leaf by leaf at ``tolerance(dtype)``; leaves whose
    where is in ``skip`` are left out, and an element of a tensor leaf whose where ``ignore`` maps to a
    float64 tensor of its shape (unrepeatable's slack) also passes within that much of cuTile's value (any
    value where it is infinite)."""
    import torch

    exp, act = list(_leaves(expected, where)), list(_leaves(actual, where))
    if [w for w, _ in exp] != [w for w, _ in act]:
        return Comparison(0, {"where": where, "reason": "results differ in structure",
                              "cutile": [w for w, _ in exp][:8], "converted": [w for w, _ in act][:8]}, 0.0, [where])
    compared, worst, used, differing = 0, None, 0.0, []

    def keep(record):
        nonlocal worst
        differing.append(record["where"])
        if worst is None or worst.get("beyond", 0) < record.get("beyond", 0):
            worst = record

    for (w, e), (_, a) in zip(exp, act):
        if w in skip:
            continue
        if not isinstance(e, torch.Tensor) or not isinstance(a, torch.Tensor):
            if not _same_plain(e, a):
                keep({"where": w, "reason": f"cuTile gave {_short(e)}, converted {_short(a)}"})
            continue
        compared += 1
        if e.dtype != a.dtype or e.shape != a.shape:
            keep({"where": w, "reason": f"cuTile gave {e.dtype} {tuple(e.shape)}, converted {a.dtype} {tuple(a.shape)}"})
            continue
        if e.numel() == 0 or e.device.type == "meta":
            continue
        rtol, atol = tolerance(e.dtype)
        info = {"where": w, "dtype": str(e.dtype), "shape": list(e.shape), "of": e.numel(), "rtol": rtol, "atol": atol}
        slack = ignore.get(w) if ignore else None
        if slack is not None and slack.shape != e.shape:
            slack = None
        if rtol == 0 and atol == 0:  # integers, booleans: exact
            differ = _strided(e) != _strided(a).to(e.device)
            if slack is not None:  # unrepeatable gives exact dtypes no spread: 0 (held exactly) or any value
                differ &= ~torch.isinf(slack.to(differ.device))
            beyond = int(differ.sum())
            if beyond:
                keep({**info, "beyond": beyond})
            continue
        ef, af = _as_real(e), _as_real(a)
        if slack is not None:  # within the tolerance plus cuTile's own spread: as if equal there
            room = slack.to(ef.device)
            if e.is_complex():  # |converted - cuTile| of the complex value, per (real, imaginary) pair
                ec, ac = _strided(e).to(torch.complex128), _strided(a).to(e.device).to(torch.complex128)
                apart, size = (ac - ec).abs(), ec.abs()
                room, apart, size = (t.unsqueeze(-1).expand_as(ef) for t in (room, apart, size))
            else:
                apart, size = (af.double() - ef.double()).abs(), ef.double().abs()
            af = af.where(~((apart <= room + atol + rtol * size) | torch.isinf(room)), ef)
        close = torch.isclose(af, ef, rtol=rtol, atol=atol, equal_nan=True)
        finite = torch.isfinite(ef) & torch.isfinite(af)
        d = (af - ef).abs().where(finite, torch.zeros_like(ef))
        ratio = (d / (atol + rtol * ef.abs())).where(finite, torch.zeros_like(ef))
        used = max(used, float(ratio.max()))
        beyond = int((~close).sum())
        if beyond:
            keep({**info, "beyond": beyond, "nonfinite": int((~close & ~finite).sum()), "max_abs": float(d.max()),
                  "max_rel": float((d / ef.abs().clamp_min(atol)).max())})
    return Comparison(compared, worst, used, differing)


def describe(worst: dict) -> str:
    """A difference record as one line of text."""
    if "reason" in worst:
        return f"{worst['where']}: {worst['reason']}"
    head = f"{worst['where']} ({worst['dtype']}, shape {tuple(worst['shape'])}): {worst['beyond']} of {worst['of']} elements"
    if worst.get("rtol") == 0:
        return f"{head} differ"
    text = f"{head} beyond rtol={worst['rtol']:g} atol={worst['atol']:g}"
    if worst.get("nonfinite"):
        text += f" ({worst['nonfinite']} of them NaN or infinity on one side only)"
    if worst["beyond"] > worst.get("nonfinite", 0):
        text += f", largest absolute difference {worst['max_abs']:.3g}, relative {worst['max_rel']:.3g}"
    return text
