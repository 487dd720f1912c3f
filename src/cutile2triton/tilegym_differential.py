"""Differential check of converted TileGym ops against cuTile's own, call by call.

Used by the pytest plug-in ``cutile2triton.pytest_tilegym`` with ``--c2t-differential FILE`` (which needs
``--c2t-cutile allow``: cuTile must run). During each ``c2t_triton`` test case, every call the test makes to a
registered op runs, in this order:

1. cuTile's implementation on copies of the arguments (``differential_compare.Copier``: values, strides,
   offsets and aliasing kept), with torch's CPU and CUDA random states, Python's and NumPy's saved first;
2. the converted implementation on the arguments themselves, with those states put back, so the converted op
   sees exactly what the test gave it and the test goes on as it would without the check.

Then the results are compared (``differential_compare.compare``): every leaf returned and every tensor argument
afterwards (outputs written in place). Where they differ, cuTile runs again on a fresh copy of the original
arguments (kept on the host meanwhile); if that does not account for the difference, twice more with the tensors
it allocates filled with a byte each (``poisoned_allocations``: memory an op leaves unwritten then differs, where
the caching allocator would hand a plain repeat the same stale bytes). An element on which cuTile differs from
itself must still lie within the tolerance plus that spread of cuTile's value (atomics, split reductions); one
cuTile never wrote (the fill byte found there) may hold anything; a leaf whose plain value, dtype or shape differs
between cuTile's runs is left out whole. A difference beyond that raises ``DifferentialMismatch`` (an
AssertionError) from the call, so the test case fails and says where. An op
that returns functions (TileGym's ``get_swiglu``-style factories) returns them wrapped, so that their calls are
checked the same way, as op ``name()``.

Each call is one JSON line in FILE: test, op, status, tensors compared, and
- ``match``: every leaf within tolerance; ``used``, the largest |converted - cuTile| / (atol + rtol |cuTile|)
  over the finite elements (0: bit-identical);
- ``match_except_varying``: the same, with ``varying`` listing the leaves cuTile did not repeat,
  ``varying_elements`` counting the elements of each tensor leaf on which it differed and ``left_out_elements``
  those that may hold anything (never written, or varying beyond the tolerance);
- ``mismatch``: ``worst``, the leaf furthest off (where, dtype, shape, elements beyond tolerance, largest
  differences), and ``varying``;
- ``factory``: the result is functions, wrapped as above; ``not_compared``: nothing to compare (e.g. a class);
- ``cutile_raised`` (no reference; the converted op ran as usual), ``converted_raised`` (the exception goes on to
  the test), ``no_cutile`` (cuTile has no implementation).

Calls the ops make to other registered ops (nested dispatch, also from threads they start) go straight to the
same side's implementation: cuTile's reference never runs converted code (a nested op cuTile lacks raises
there). Backward passes are not compared (they run inside torch.autograd, not through the registry). Each call
keeps a host copy of its arguments until it returns, and runs cuTile once (up to four times after a difference)
besides the converted op.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import json
import math
import random
import sys
from pathlib import Path

from .differential_compare import Copier, compare, describe, unrepeatable

# Which side a nested dispatch belongs to: None (a test's own call), "cutile" or "converted". A module global
# rather than a context variable, so that threads an op starts see it too (pytest runs one test at a time).
_side: list = [None]


# The bytes cuTile's repeat runs fill new tensors with (poisoned_allocations): two, so that an element an op
# leaves unwritten differs from the first run's in at least one of them, whatever that one found there.
_POISON_BYTES = (0xA5, 0x5A)


def _slack_max(a, b):
    """The elementwise maximum of two runs' slack (differential_compare.unrepeatable)."""
    import torch

    return torch.maximum(a, b.to(a.device))


@contextlib.contextmanager
def poisoned_allocations(byte: int | None):
    """While it lasts (None: nothing replaced, a plain run), the tensors torch.empty, torch.empty_like, torch.empty_strided and Tensor.new_empty
    return are filled with ``byte`` (their whole storage): memory an op allocates and leaves unwritten then
    differs from run to run, where PyTorch's caching allocator would hand two runs the same stale bytes
    (TileGym's moe_align_block_size leaves entries of its torch.empty ``expert_ids`` unwritten, which cuTile's
    two runs read alike and the converted op's differently). Only the module attributes are replaced: code
    that imported these functions by name keeps the originals."""
    if byte is None:
        yield
        return
    import torch

    def poisoning(fn):
        @functools.wraps(fn)
        def poisoned(*args, **kwargs):
            t = fn(*args, **kwargs)
            if kwargs.get("out") is not None:  # the caller's tensor (maybe a view of more), not new memory
                return t
            try:
                t.untyped_storage().fill_(byte)
            except Exception:  # noqa: BLE001 -- meta, sparse or nested tensors: left as allocated
                pass
            return t
        return poisoned

    saved = [(torch, name, getattr(torch, name)) for name in ("empty", "empty_like", "empty_strided")]
    saved.append((torch.Tensor, "new_empty", torch.Tensor.new_empty))
    for owner, name, fn in saved:
        setattr(owner, name, poisoning(fn))
    try:
        yield
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)


class DifferentialMismatch(AssertionError):
    """The converted op's result differs from cuTile's on the same inputs beyond the workflow's tolerance."""


def _rng_state():
    import torch

    np = sys.modules.get("numpy")
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_available() and torch.cuda.is_initialized() else None
    return torch.get_rng_state(), cuda, random.getstate(), np.random.get_state() if np else None


def _set_rng_state(state):
    import torch

    cpu, cuda, py, np_state = state
    torch.set_rng_state(cpu)
    if cuda is not None:
        torch.cuda.set_rng_state_all(cuda)
    random.setstate(py)
    if np_state is not None:
        sys.modules["numpy"].random.set_state(np_state)


def _is_function(value) -> bool:
    """A function a factory op returns (not a class or module instance, whose type a test may rely on)."""
    return inspect.isfunction(value) or inspect.ismethod(value) or isinstance(value, functools.partial)


def _json_safe(value):
    """value with non-finite floats as strings (JSON has no NaN)."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value


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
            f.write(json.dumps(_json_safe({"test": self.test, **rec})) + "\n")

    @staticmethod
    def _run(side, impl, args, kwargs):
        before, _side[0] = _side[0], side
        try:
            return impl(*args, **kwargs)
        finally:
            _side[0] = before

    def wrap(self, op: str, cutile_impl, converted_impl):
        """The implementation to register for ``op``: converted_impl, checked against cutile_impl (None: cuTile
        has none)."""

        def checked(*args, **kwargs):
            if _side[0] == "cutile":
                if cutile_impl is None:
                    raise RuntimeError(f"cutile2triton differential: cuTile has no implementation of {op!r}, which "
                                       "cuTile's reference called")
                return cutile_impl(*args, **kwargs)
            if _side[0] == "converted":
                return converted_impl(*args, **kwargs)
            if cutile_impl is None:
                self._record({"op": op, "status": "no_cutile"})
                return self._converted(op, converted_impl, args, kwargs)
            return self._check(op, cutile_impl, converted_impl, args, kwargs)

        checked.__wrapped__ = converted_impl
        checked.__name__ = getattr(converted_impl, "__name__", op)
        return checked

    def _converted(self, op, impl, args, kwargs):
        try:
            return self._run("converted", impl, args, kwargs)
        except BaseException as e:
            self._record({"op": op, "status": "converted_raised", "error": f"{type(e).__name__}: {e}"[:300]})
            raise

    def _check(self, op, cutile_impl, converted_impl, args, kwargs):
        host = Copier(lambda t: "cpu")
        pristine = host.copy((args, kwargs))  # the arguments as given, for a second cuTile run
        back = lambda: Copier(lambda t: host.origin.get(id(t), t.device)).copy(pristine)  # noqa: E731
        rng = _rng_state()
        ref_args = back()
        try:
            ref = self._run("cutile", cutile_impl, *ref_args)
        except Exception as e:  # noqa: BLE001 -- no reference for this call: say so, run ours as usual
            _set_rng_state(rng)
            self._record({"op": op, "status": "cutile_raised", "error": f"{type(e).__name__}: {e}"[:300]})
            return self._converted(op, converted_impl, args, kwargs)
        _set_rng_state(rng)
        out = self._converted(op, converted_impl, args, kwargs)
        where = "(result, (args, kwargs))"
        got = compare((ref, ref_args), (out, (args, kwargs)), where)
        varying, slack, note = set(), {}, None
        if got.worst is not None:  # is cuTile repeatable where they differ?
            after = _rng_state()
            # A plain repeat first (nondeterministic arithmetic); then, only if that leaves a difference,
            # two with cuTile's new tensors filled with a byte each (memory it leaves unwritten, which the
            # caching allocator would hand a plain repeat as the same stale bytes).
            for byte in (None, *_POISON_BYTES):
                again_args = back()
                _set_rng_state(rng)
                try:
                    with poisoned_allocations(byte):
                        again = self._run("cutile", cutile_impl, *again_args)
                except Exception as e:  # noqa: BLE001
                    note = f"cuTile raised when run again: {type(e).__name__}: {e}"[:300]
                    break
                more, leaves = unrepeatable((ref, ref_args), (again, again_args), where, poison=byte)
                varying |= leaves
                for w, room in more.items():
                    slack[w] = _slack_max(slack[w], room) if w in slack else room
                if varying or slack:
                    got = compare((ref, ref_args), (out, (args, kwargs)), where, skip=varying, ignore=slack)
                    if got.worst is None:
                        break
            _set_rng_state(after)
        rec = {"op": op, "compared": got.compared,
               **({"varying": sorted(varying | set(slack))[:20]} if varying or slack else {}),
               **({"varying_elements": {w: int((m > 0).sum()) for w, m in sorted(slack.items())[:20]},
                   "left_out_elements": {w: int(m.isinf().sum()) for w, m in sorted(slack.items())[:20]}}
                  if slack else {}),
               **({"note": note} if note else {})}
        if got.worst is not None:
            self._record({**rec, "status": "mismatch", "worst": got.worst})
            raise DifferentialMismatch(f"cutile2triton differential: op {op!r}: the converted result differs "
                                       f"from cuTile's on the same inputs: {describe(got.worst)}")
        if _is_function(out) and _is_function(ref):
            self._record({**rec, "status": "factory"})
            return self.wrap(f"{op}()", ref, out)
        if got.compared == 0:  # e.g. a class or a module instance: what it computes is not seen here
            self._record({**rec, "status": "not_compared"})
            return out
        self._record({**rec, "status": "match_except_varying" if varying or slack else "match", "used": round(got.used, 4)})
        return out

    def summary(self) -> str:
        """One line: calls per status."""
        total = sum(self.counts.values())
        parts = ", ".join(f"{n} {s}" for s, n in sorted(self.counts.items()))
        return f"cutile2triton differential: {total} op calls checked against cuTile ({parts or 'none'}); {self.path}"
