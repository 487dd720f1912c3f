"""Copies of op-call arguments and the comparison of two ops' results, for the differential check
against cuTile (``tilegym_differential``).

Copies keep what an op can observe: values, dtypes, shapes, strides and storage offsets, and aliasing (tensors
that share memory share the copy's memory, so an op called as ``f(x, out=x)`` sees the same overlap);
``torch.Generator`` arguments get a generator in the same state; other objects are deep-copied where Python can
(else shared). Results are compared leaf by leaf: tensors, numbers, strings, None, inside tuples (named ones
too), lists, dicts (by key) and dataclasses, at the tolerances of the manual workflow
(``cutile-to-triton-workflow.md``: float32 1e-3, float16/bfloat16 1e-2, doubled for reductions, transcendentals
and chained ops; doubled here for every op, since TileGym's ops are such), fp8 at one unit in the last place
(e4m3 2^-3, e5m2 2^-2, relative), integers and booleans exactly, complex numbers per real and imaginary part,
float64 in float64. NaN must meet NaN and an infinity the same infinity.
"""

from __future__ import annotations

import copy
import dataclasses
import math
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


class Copier:
    """Copies call arguments, each tensor onto the device ``device_of(tensor)`` names (default: its own),
    tensors that share a storage sharing the copy's. ``origin`` maps each copy's id to the device of the
    tensor it copies (to copy a host snapshot back where it came from, while the snapshot lives)."""

    def __init__(self, device_of: Callable | None = None):
        self.device_of = device_of or (lambda t: t.device)
        self.storages: dict = {}
        self.origin: dict = {}

    def tensor(self, t):
        import torch

        src, device = t.detach(), self.device_of(t)
        if src.layout != torch.strided or src.device.type == "meta":
            c = src.clone()  # sparse and the like: values only
        elif src.untyped_storage().nbytes() == 0:  # nothing to share (and no address to know it by)
            c = torch.empty_strided(src.size(), src.stride(), dtype=src.dtype, device=device)
        else:
            st = src.untyped_storage()
            key = (st.data_ptr(), str(st.device))
            new = self.storages.get(key)
            if new is None:
                new = self.storages[key] = torch.UntypedStorage(st.nbytes(), device=device)
                new.copy_(st)
            c = torch.empty(0, dtype=src.dtype, device=new.device)
            c.set_(new, src.storage_offset(), src.size(), src.stride())
        if t.requires_grad and (c.is_floating_point() or c.is_complex()):
            c.requires_grad_(True)
        self.origin[id(c)] = t.device
        return c

    def copy(self, value):
        """A deep copy of value (see the module docstring)."""
        import torch

        if isinstance(value, torch.Tensor):
            return self.tensor(value)
        if isinstance(value, torch.Generator):
            g = torch.Generator(device=value.device)
            g.set_state(value.get_state())
            return g
        if isinstance(value, list):
            return [self.copy(v) for v in value]
        if isinstance(value, torch.Size):
            return value
        if isinstance(value, tuple):
            items = [self.copy(v) for v in value]
            if hasattr(value, "_fields"):  # a named tuple
                return type(value)(*items)
            try:  # a tuple subclass such as torch.return_types (structseq)
                return type(value)(items)
            except Exception:  # noqa: BLE001
                return tuple(items)
        if isinstance(value, dict):
            return {k: self.copy(v) for k, v in value.items()}
        if value is None or isinstance(value, (bool, int, float, complex, str, bytes, type)) or callable(value):
            return value
        try:
            return copy.deepcopy(value)
        except Exception:  # noqa: BLE001 -- not copyable (a module, a lock, ...): shared, as the op gets it
            return value


def copy_args(value):
    """A deep copy of call arguments on their own devices (Copier)."""
    return Copier().copy(value)


def _leaves(value, where):
    """(where, leaf) for every comparable leaf inside value, in a fixed order: tensors, numbers, strings,
    None, callables; containers are walked (dicts by sorted key, dataclasses by field)."""
    import torch

    if isinstance(value, (torch.Tensor, bool, int, float, complex, str, bytes, torch.dtype, torch.device)) \
            or value is None or callable(value):
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
        parts = [(e.real, a.real), (e.imag, a.imag)] if isinstance(e, complex) else [(e, a)]
        return all((math.isnan(x) and math.isnan(y)) or x == y or math.isclose(x, y, rel_tol=2e-3, abs_tol=2e-3)
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
    0 bit-identical); differing: where every leaf beyond tolerance is; callables: where callables are."""

    compared: int
    worst: dict | None
    used: float
    differing: list
    callables: list


def _as_real(t):
    import torch

    t = t.detach()
    if t.layout != torch.strided:
        t = t.to_dense()
    if t.is_complex():
        return torch.view_as_real(t.resolve_conj()).double()
    return t.double() if t.dtype == torch.float64 else t.float()


def compare(expected, actual, where: str = "result", skip=()) -> Comparison:
    """Compares actual (converted) with expected (cuTile) leaf by leaf at ``tolerance(dtype)``; leaves whose
    where is in ``skip`` are left out."""
    import torch

    exp, act = list(_leaves(expected, where)), list(_leaves(actual, where))
    if [w for w, _ in exp] != [w for w, _ in act]:
        return Comparison(0, {"where": where, "reason": "results differ in structure",
                              "cutile": [w for w, _ in exp][:8], "converted": [w for w, _ in act][:8]}, 0.0, [where], [])
    compared, worst, used, differing = 0, None, 0.0, []
    callables = [w for w, e in exp if callable(e) and not isinstance(e, torch.Tensor)]

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
        if rtol == 0 and atol == 0:  # integers, booleans: exact
            beyond = int((e.detach() != a.detach()).sum())
            if beyond:
                keep({**info, "beyond": beyond})
            continue
        ef, af = _as_real(e), _as_real(a)
        close = torch.isclose(af, ef, rtol=rtol, atol=atol, equal_nan=True)
        finite = torch.isfinite(ef) & torch.isfinite(af)
        d = (af - ef).abs().where(finite, torch.zeros_like(ef))
        ratio = (d / (atol + rtol * ef.abs())).where(finite, torch.zeros_like(ef))
        used = max(used, float(ratio.max()))
        beyond = int((~close).sum())
        if beyond:
            keep({**info, "beyond": beyond, "nonfinite": int((~close & ~finite).sum()), "max_abs": float(d.max()),
                  "max_rel": float((d / ef.abs().clamp_min(atol)).max())})
    return Comparison(compared, worst, used, differing, callables)


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
