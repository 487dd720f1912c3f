"""Differential check of converted TileGym ops against cuTile's own, call by call.

Used by the pytest plug-in ``cutile2triton.pytest_tilegym`` with ``--c2t-differential FILE`` (which needs
``--c2t-cutile allow``: cuTile must run). During each ``c2t_triton`` test case, every call the test makes to a
registered op runs, in this order:

1. cuTile's implementation on copies of the arguments (same values, dtypes, shapes and strides; torch's CPU
   and CUDA random states saved first), then
2. the converted implementation on the arguments themselves, with the random states put back, so the
   converted op sees exactly what the test gave it and the test goes on as without the check.

The results are then compared: every tensor returned (in tuples, lists and dicts too) and every tensor
argument afterwards (outputs written in place), converted against cuTile's, at the tolerances of the manual
workflow (``cutile-to-triton-workflow.md``: float32 1e-3, float16/bfloat16 1e-2, doubled for reductions,
transcendentals and chained ops; doubled here for every op, since TileGym's ops are such), fp8 at one unit in
the last place (e4m3 2^-3, e5m2 2^-2, relative), integers and booleans exactly; NaN must meet NaN. A
mismatch raises ``DifferentialMismatch`` (an AssertionError) from the call, so the test case fails and says
where. If cuTile's results differ beyond the same tolerances between two runs on the same inputs, the op is
not deterministic (atomics, random numbers not drawn from torch) and the call is recorded as not compared.
A call whose cuTile side raises is recorded with the error, and the converted op runs as usual.

Each call is one JSON line in FILE: test, op, status (``match``, ``mismatch``, ``cutile_varies``,
``cutile_raised``, ``no_cutile``), the number of tensors compared, for a match the share of the tolerance
used (``used``: the largest |converted - cuTile| / (atol + rtol |cuTile|); 0 is bit-identical), for a
mismatch the worst tensor (where, dtype, shape, elements beyond tolerance, largest absolute and relative
difference).

Calls the ops make to other registered ops (nested dispatch) go straight to the same side's implementation:
cuTile's reference never runs converted code. Only forward calls are checked (a backward pass runs inside
torch.autograd, not through the registry).
"""

from __future__ import annotations

import contextvars
import json
import math
from pathlib import Path
from typing import NamedTuple

# Which side a nested dispatch belongs to: None (a test's own call), "cutile" or "converted".
_SIDE: contextvars.ContextVar[str | None] = contextvars.ContextVar("c2t_differential_side", default=None)


class DifferentialMismatch(AssertionError):
    """The converted op's result differs from cuTile's on the same inputs beyond the workflow's tolerance."""


def tolerance(dtype) -> tuple[float, float]:
    """(rtol, atol) for a result of this torch dtype; (0, 0) means exact (integers, booleans)."""
    import torch

    if dtype == torch.float32 or dtype == torch.float64:
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


def copy_args(value):
    """A deep copy of call arguments: tensors copied with their strides (detached; requires_grad kept),
    lists, tuples and dicts rebuilt, anything else shared."""
    import torch

    if isinstance(value, torch.Tensor):
        src = value.detach()
        try:
            c = torch.empty_strided(src.size(), src.stride(), dtype=src.dtype, device=src.device)
            c.copy_(src)
        except RuntimeError:  # overlapping strides (an expanded view) cannot be written: same values, dense
            c = src.clone()
        if value.requires_grad and (c.is_floating_point() or c.is_complex()):
            c.requires_grad_(True)
        return c
    if isinstance(value, list):
        return [copy_args(v) for v in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(copy_args(v) for v in value)
    if isinstance(value, dict):
        return {k: copy_args(v) for k, v in value.items()}
    return value


def _leaves(value, where):
    """(where, leaf) for every tensor or plain number inside value, in a fixed order."""
    import torch

    if isinstance(value, (torch.Tensor, bool, int, float)) or value is None:
        yield where, value
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{where}[{i}]")
    elif isinstance(value, dict):
        for k in value:
            yield from _leaves(value[k], f"{where}[{k!r}]")


def _same_plain(e, a) -> bool:
    """Numbers and None (not tensors on both sides): equal, floats within float32's tolerance."""
    import torch

    if isinstance(e, torch.Tensor) or isinstance(a, torch.Tensor) or type(e) is not type(a):
        return False
    if isinstance(e, float):
        return (math.isnan(e) and math.isnan(a)) or math.isclose(e, a, rel_tol=2e-3, abs_tol=2e-3)
    return e == a


def _short(v) -> str:
    import torch

    return f"a {v.dtype} tensor of shape {tuple(v.shape)}" if isinstance(v, torch.Tensor) else repr(v)[:60]


class Comparison(NamedTuple):
    """compared: tensors compared; worst: the largest difference beyond tolerance (None when all agree), a
    dict with where, dtype, shape, beyond (elements beyond tolerance), of, max_abs, max_rel, rtol, atol, or
    where and reason when structure, dtype or shape differ; used: the largest |converted - cuTile| /
    (atol + rtol |cuTile|) over the finite floating-point elements (below 1 passes; 0 bit-identical)."""

    compared: int
    worst: dict | None
    used: float


def compare(expected, actual, where: str = "result") -> Comparison:
    """Compares actual (converted) with expected (cuTile) leaf by leaf (tensors and plain numbers inside
    tuples, lists and dicts), at ``tolerance(dtype)``."""
    import torch

    exp, act = list(_leaves(expected, where)), list(_leaves(actual, where))
    if [w for w, _ in exp] != [w for w, _ in act]:
        return Comparison(0, {"where": where, "reason": "results differ in structure",
                              "cutile": [w for w, _ in exp][:8], "converted": [w for w, _ in act][:8]}, 0.0)
    compared, worst, used = 0, None, 0.0

    def keep(record):
        nonlocal worst
        if worst is None or worst.get("beyond", 0) < record.get("beyond", 0):
            worst = record

    for (w, e), (_, a) in zip(exp, act):
        if not isinstance(e, torch.Tensor) or not isinstance(a, torch.Tensor):
            if not _same_plain(e, a):
                keep({"where": w, "reason": f"cuTile gave {_short(e)}, converted {_short(a)}"})
            continue
        compared += 1
        if e.dtype != a.dtype or e.shape != a.shape:
            keep({"where": w, "reason": f"cuTile gave {e.dtype} {tuple(e.shape)}, converted {a.dtype} {tuple(a.shape)}"})
            continue
        if e.numel() == 0:
            continue
        rtol, atol = tolerance(e.dtype)
        shape = {"where": w, "dtype": str(e.dtype), "shape": list(e.shape), "of": e.numel(), "rtol": rtol, "atol": atol}
        if rtol == 0 and atol == 0:  # integers, booleans: exact
            beyond = int((e.detach() != a.detach()).sum())
            if beyond:
                keep({**shape, "beyond": beyond})
            continue
        ef, af = e.detach().float(), a.detach().float()
        close = torch.isclose(af, ef, rtol=rtol, atol=atol, equal_nan=True)
        finite = torch.isfinite(ef) & torch.isfinite(af)
        d = (af - ef).abs().where(finite, torch.zeros_like(ef))
        used = max(used, float((d / (atol + rtol * ef.abs())).max()))
        beyond = int((~close).sum())
        if beyond:
            keep({**shape, "beyond": beyond, "max_abs": float(d.max()),
                  "max_rel": float((d / ef.abs().clamp_min(atol)).max())})
    return Comparison(compared, worst, used)


def _rng_state():
    import torch

    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() and torch.cuda.is_initialized() else None
    return torch.get_rng_state(), cuda


def _set_rng_state(state):
    import torch

    cpu, cuda = state
    torch.set_rng_state(cpu)
    if cuda is not None:
        torch.cuda.set_rng_state_all(cuda)


class Differential:
    """Wraps registered ops so that each call is checked against cuTile (see the module docstring) and
    records the calls as JSON lines in ``path``."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("")
        self.test = None  # the node id of the test case running
        self.counts: dict[str, int] = {}

    def _record(self, rec: dict) -> None:
        self.counts[rec["status"]] = self.counts.get(rec["status"], 0) + 1
        with self.path.open("a") as f:
            f.write(json.dumps({"test": self.test, **rec}) + "\n")

    def wrap(self, op: str, cutile_impl, converted_impl):
        """The implementation to register for ``op``: converted_impl, checked against cutile_impl."""

        def checked(*args, **kwargs):
            side = _SIDE.get()
            if side == "cutile":
                return (cutile_impl or converted_impl)(*args, **kwargs)
            if side == "converted":
                return converted_impl(*args, **kwargs)
            if cutile_impl is None:
                self._record({"op": op, "status": "no_cutile"})
                return self._run("converted", converted_impl, args, kwargs)
            pristine = copy_args((args, kwargs))
            rng = _rng_state()
            ref_args = copy_args(pristine)
            try:
                ref = self._run("cutile", cutile_impl, *ref_args)
            except Exception as e:  # noqa: BLE001 -- no reference for this call: say so, run ours as usual
                _set_rng_state(rng)
                self._record({"op": op, "status": "cutile_raised", "error": f"{type(e).__name__}: {e}"[:300]})
                return self._run("converted", converted_impl, args, kwargs)
            _set_rng_state(rng)
            out = self._run("converted", converted_impl, args, kwargs)
            after = _rng_state()
            got = compare((ref, ref_args), (out, (args, kwargs)), "(result, (args, kwargs))")
            if got.worst is None:
                self._record({"op": op, "status": "match", "compared": got.compared, "used": round(got.used, 4)})
                return out
            again_args = copy_args(pristine)  # is cuTile itself repeatable on these inputs?
            _set_rng_state(rng)
            again = self._run("cutile", cutile_impl, *again_args)
            _set_rng_state(after)
            varies = compare((ref, ref_args), (again, again_args), "(result, (args, kwargs))").worst
            if varies is not None:
                self._record({"op": op, "status": "cutile_varies", "compared": got.compared, "worst": varies})
                return out
            self._record({"op": op, "status": "mismatch", "compared": got.compared, "worst": got.worst})
            raise DifferentialMismatch(f"cutile2triton differential: op {op!r}: the converted result differs "
                                       f"from cuTile's on the same inputs: {describe(got.worst)}")

        checked.__wrapped__ = converted_impl
        checked.__name__ = getattr(converted_impl, "__name__", op)
        return checked

    @staticmethod
    def _run(side, impl, args, kwargs):
        token = _SIDE.set(side)
        try:
            return impl(*args, **kwargs)
        finally:
            _SIDE.reset(token)

    def summary(self) -> str:
        """One line: calls per status."""
        total = sum(self.counts.values())
        parts = ", ".join(f"{n} {s}" for s, n in sorted(self.counts.items()))
        return f"cutile2triton differential: {total} op calls checked against cuTile ({parts or 'none'}); {self.path}"


def describe(worst: dict) -> str:
    """A difference record as one line of text."""
    if "reason" in worst:
        return f"{worst['where']}: {worst['reason']}"
    if worst.get("rtol") == 0:
        return f"{worst['where']} ({worst['dtype']}, shape {tuple(worst['shape'])}): {worst['beyond']} elements differ"
    return (f"{worst['where']} ({worst['dtype']}, shape {tuple(worst['shape'])}): {worst['beyond']} of "
            f"{worst['of']} elements beyond rtol={worst['rtol']:g} atol={worst['atol']:g}, largest absolute "
            f"difference {worst['max_abs']:.3g}, relative {worst['max_rel']:.3g}")
