"""Native launches of converted kernels that launch again with the arguments' specialization unchanged.

Why: at the small shapes TileGym's do_bench files time, triton.testing.do_bench measures the host,
and a converted kernel's reused launch spends its host time in Triton's argument binder (one native
specialization call per argument), the Python that keys the compiled kernel by that
specialization, and Triton's generated C launcher (BENCHMARKS.md, "Host time per call"). cuTile's
ct.launch does all of it in one native call. ``plan`` describes a compiled kernel's launch once;
``launch`` (the C function of ``_fast_launch.c``, built with Triton's own build helper the first
time it is needed and cached by Triton) then checks each argument against that description and
launches it, or returns False, and the converted module goes through Triton as before.

Converted modules import this module if cutile2triton is installed (it is optional there: without
it they launch through Triton). Nothing here applies to the CPU interpreter (TRITON_INTERPRET=1),
whose kernels are never compiled.
"""

from __future__ import annotations

import os
from pathlib import Path

# Argument kinds of _fast_launch.c (keep in step with its enum).
K_CONST, K_PTR, K_PTR_D, K_I32, K_I32_D, K_I64, K_I64_D, K_FP32, K_U1 = range(9)
_INT_KINDS = {("i32", ""): K_I32, ("i32", "D"): K_I32_D, ("i64", ""): K_I64, ("i64", "D"): K_I64_D}
MAX_ARGS = 256  # _fast_launch.c's MAX_ARGS
# What converted modules may pass to plan()'s launch: 2 = (plan, gx, gy, gz, stream, args, capture,
# expand), expand giving a launcher's arrays (_fast_launch.c); a converted runtime that expects
# another ABI launches through Triton.
ABI = 2
# The list key list_hit builds (a converted runtime's _c2t_array_list builds the same): 2 = per element
# (data_ptr, shape, stride, dtype, get_device, is_neg, is_conj). A runtime that expects another key
# keeps its lists on the Python path.
LIST_KEY = 2

_module = None
_unavailable = False


OFF_VALUES = ("0", "false", "off", "no")


def native_module():
    """The compiled ``_fast_launch.c`` module, or None: when C2T_FAST_LAUNCH is 0/false/off/no (read
    at the first call, once per process), or where it cannot be built (no C compiler, no Triton with
    its NVIDIA backend headers; said once as a RuntimeWarning). Without it, launches go through
    Triton."""
    global _module, _unavailable
    if _module is None and not _unavailable:
        _unavailable = True
        if os.environ.get("C2T_FAST_LAUNCH", "1").strip().lower() in OFF_VALUES:
            return None
        try:
            import triton.backends.nvidia as nvidia
            from triton.runtime.build import compile_module_from_src

            src = Path(__file__).with_name("_fast_launch.c").read_text(encoding="utf-8")
            _module = compile_module_from_src(src=src, name="c2t_fast_launch",
                                              include_dirs=[str(Path(nvidia.__file__).parent / "include")])
            _unavailable = False
        except Exception as e:  # noqa: BLE001 -- any failure: launches go through Triton
            import warnings

            warnings.warn(f"cutile2triton: the native launch of reused kernels is unavailable, launches go "
                          f"through Triton ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})",
                          RuntimeWarning, stacklevel=2)
    return _module


def list_hit_function():
    """``_fast_launch.c``'s ``list_hit(arrays, rank, int32, tables, captured, queries)``, the reuse
    path of a converted module's list of arrays (its runtime's _c2t_array_list: the same key and
    tables) in one native call, or None without the native module. Unlike ``launch`` it applies
    under the CPU interpreter too (a list's key and tables are the same there)."""
    mod = native_module()
    return getattr(mod, "list_hit", None) if mod is not None else None


def plan(compiled, specialization, bound: dict, nargs: int):
    """(launch, plan) for a compiled kernel, or None when the native launch cannot stand in for
    Triton's: no native module, a kernel that needs global or profile scratch memory or a 16-CTA
    cluster, tensor descriptors or other argument types Triton's launcher expands, or a parameter
    past the ``nargs`` positional arguments that is not a constexpr.

    compiled: Triton 3.6's CompiledKernel after its first launch (``function`` loaded).
    specialization: the binder's list, one (type, flag) per kernel parameter, as JITFunction.run
    compiled this kernel for; bound: the binder's {parameter: value} of that launch (tensor dtypes
    are taken from it); nargs: how many of them the launch passes positionally (the others are
    keyword constexprs, compared by the caller)."""
    try:
        return _plan(compiled, specialization, bound, nargs)
    except (AttributeError, TypeError, ValueError):  # another Triton's objects: launches go through Triton
        return None


def _plan(compiled, specialization, bound, nargs):
    import triton

    # The binder's rules and the kernel ABI (two trailing scratch pointers) are Triton 3.6's.
    if not triton.__version__.startswith("3.6."):
        return None
    if len(specialization) != len(bound) or nargs > len(bound) or nargs > MAX_ARGS:
        return None
    run = getattr(compiled, "run", None)
    if (getattr(run, "global_scratch_size", None) != 0 or getattr(run, "profile_scratch_size", None) != 0
            or not hasattr(run, "launch_cooperative_grid") or not hasattr(run, "launch_pdl")
            or getattr(getattr(compiled, "metadata", None), "tensordesc_meta", None)
            or not isinstance(getattr(compiled, "function", None), int)):
        return None
    meta = getattr(compiled, "packed_metadata", None)
    if not (isinstance(meta, tuple) and len(meta) == 3 and all(isinstance(m, int) for m in meta)) or meta[1] == 16:
        return None
    kinds, expect = bytearray(), []
    for i, ((ty, flag), value) in enumerate(zip(specialization, bound.values())):
        if ty == "constexpr":
            kind, exp = K_CONST, flag
        elif i >= nargs:
            return None
        elif isinstance(ty, str) and ty.startswith("*") and not ty.startswith("*k") and flag in ("D", ""):
            if not hasattr(value, "data_ptr") or not hasattr(value, "dtype"):
                return None
            kind, exp = (K_PTR_D if flag == "D" else K_PTR), value.dtype
        elif (ty, flag) in _INT_KINDS:
            kind, exp = _INT_KINDS[ty, flag], None
        elif ty == "fp32" and isinstance(value, float):
            kind, exp = K_FP32, None
        elif ty == "u1" and isinstance(value, bool):
            kind, exp = K_U1, None
        else:
            return None
        if i < nargs:
            kinds.append(kind)
            expect.append(exp)
    mod = native_module()
    if mod is None:
        return None
    return mod.launch, (compiled.function, meta[0], meta[1], meta[2], bool(run.launch_cooperative_grid),
                        bool(run.launch_pdl), bytes(kinds), tuple(expect))
