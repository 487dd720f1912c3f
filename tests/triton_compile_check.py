"""Compile a Triton kernel for an NVIDIA GPU target on a machine without a GPU.

Triton's CPU interpreter (TRITON_INTERPRET=1) runs kernels as NumPy code and
never calls Triton's code generator, so it misses the compile errors a real
GPU run hits (loop-carried type changes, casts the CUDA backend refuses,
constexpr misuse). ``triton.compile`` with an explicit ``GPUTarget`` runs the
real front end and the NVIDIA passes without a device; ptxas (bundled with
Triton's CUDA backend) takes it to a cubin.

    compile_for_gpu(jit_fn, signature, constexprs, arch=90)  -> {stage: text}
    capture_launch(launcher, *args, **kwargs)                -> (jit_fn, signature, constexprs, options)
    compile_launch(launcher, *args, **kwargs)                -> both of the above
    load_for_compile(code, tmp_dir, name)                    -> module with real JITFunctions

Kernels of a module imported under TRITON_INTERPRET=1 (tests/c2t_interp.py)
work too: they are compiled in a fresh Python process without it.

Errors raise ``GpuCompileError`` whose message is the compiler's; when the
installed Triton has no CUDA backend the callers get ``pytest.skip``.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import shutil
import sys
import tempfile
import types

import pytest


class GpuCompileError(AssertionError):
    """The Triton compiler rejected the kernel; str() is its message."""


_TORCH_TO_TRITON = {
    "float16": "fp16", "bfloat16": "bf16", "float32": "fp32", "float64": "fp64",
    "float8_e4m3fn": "fp8e4nv", "float8_e5m2": "fp8e5",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64", "bool": "i1",
}


def _nvidia_backend():
    """(GPUTarget class, make_backend, ptxas available) or pytest.skip."""
    try:
        from triton.backends.compiler import GPUTarget
        from triton.compiler.compiler import make_backend
        import triton.backends.nvidia  # noqa: F401
    except Exception as e:  # pragma: no cover - depends on the installed Triton
        pytest.skip(f"installed Triton has no CUDA backend: {e}")
    have_ptxas = False
    try:
        from triton import knobs

        have_ptxas = bool(knobs.nvidia.ptxas.path)
    except Exception:
        have_ptxas = shutil.which("ptxas") is not None
    return GPUTarget, make_backend, have_ptxas


def compile_for_gpu(jit_fn, signature: dict, constexprs: dict | None = None, arch: int = 90,
                    options: dict | None = None, last_stage: str | None = None,
                    divisible: list | None = None, attrs: dict | None = None) -> dict:
    """Runs Triton's compile pipeline for cuda:`arch` (warp size 32) on `jit_fn`
    (a triton.runtime.JITFunction, not an interpreted one).

    signature: {param name: Triton type string ("*fp16", "i32", "fp32", "constexpr")} for
    every parameter; constexprs: {param name: value} for the constexpr ones.
    divisible: names of parameters Triton's launcher would specialize as multiples of 16
    (pointers 16-byte aligned, integers divisible by 16: backends/compiler.py
    get_*_specialization), so the alignment-dependent passes (vectorization, the
    software pipeliner's cp.async loads) see what a GPU launch compiles.
    attrs: Triton's own attribute dict ({(param index,): [["tt.divisibility", 16]]}, as a
    launch's specialization data holds it) instead of `divisible`.
    Stops after `last_stage` (default "cubin", or "llir" when ptxas is missing).
    Returns {stage name: IR text} for the stages run (cubin as its byte length), and from the
    llir stage on "shared": the bytes of shared memory a launch needs (Triton's metadata).
    Raises GpuCompileError with the compiler's message when a stage fails.
    """
    from triton.compiler.compiler import ASTSource
    from triton.runtime.jit import JITFunction

    GPUTarget, make_backend, have_ptxas = _nvidia_backend()
    if not isinstance(jit_fn, JITFunction) or not _stdlib_compilable():
        # Under TRITON_INTERPRET=1 (set before triton was imported) @triton.jit,
        # triton.language's own tl.sum / tl.max included, makes interpreter
        # stand-ins the code generator cannot call: compile in a fresh process.
        if attrs:
            raise ValueError("compile_for_gpu: attrs need a compilable JITFunction (TRITON_INTERPRET unset)")
        return _compile_in_subprocess(jit_fn, signature, constexprs or {}, arch, options or {}, last_stage,
                                      divisible or [])
    if last_stage is None:
        last_stage = "cubin" if have_ptxas else "llir"
    target = GPUTarget("cuda", arch, 32)
    backend = make_backend(target)
    names = list(jit_fn.arg_names)
    if attrs is None:
        attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in (divisible or [])}
    src = ASTSource(fn=jit_fn, signature=dict(signature), constexprs=dict(constexprs or {}), attrs=attrs)
    opts = backend.parse_options(dict(options or {}))
    # The same steps as triton.compiler.compile, minus the on-disk cache and
    # the driver (there is no GPU here), stopping at `last_stage`.
    from triton._C.libtriton import ir

    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    stages: dict = {}
    backend.add_stages(stages, opts, src.language)
    metadata = {"hash": "c2t-compile-check", "target": target, **opts.__dict__}
    out = {}
    try:
        module = src.make_ir(target, opts, backend.get_codegen_implementation(opts),
                             backend.get_module_map(), context)
        for name, step in stages.items():
            module = step(module, metadata)
            out[name] = len(module) if isinstance(module, bytes) else str(module)
            if name == last_stage:
                break
    except Exception as e:
        # Triton reports an error inside a called @jit helper at the call site;
        # the helper's own error is the chained cause.
        parts, seen, cur = [], set(), e
        while cur is not None and id(cur) not in seen:
            seen.add(id(cur))
            parts.append(f"{type(cur).__name__}: {cur}")
            cur = cur.__cause__ or cur.__context__
        raise GpuCompileError("\n--- caused by ---\n".join(parts)) from e
    if "shared" in metadata:
        out["shared"] = metadata["shared"]
    return out


def _stdlib_compilable() -> bool:
    """False when triton.language was imported under TRITON_INTERPRET=1."""
    import triton.language.standard as std
    from triton.runtime.jit import JITFunction

    return isinstance(std.sum, JITFunction)


_CHILD = r"""
import importlib.util, json, os, sys
os.environ.pop("TRITON_INTERPRET", None)
req = json.loads(sys.stdin.read())
sys.path.insert(0, req["helper_dir"])
from triton_compile_check import compile_for_gpu, GpuCompileError
spec = importlib.util.spec_from_file_location("c2t_gpu_child", req["file"])
mod = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = mod
spec.loader.exec_module(mod)
kernel = getattr(mod, req["kernel"], None)
if kernel is None and req.get("factory"):  # a kernel defined inside a factory function
    kernel = getattr(mod, req["factory"])(*req["factory_args"])
try:
    out = compile_for_gpu(kernel, req["signature"], req["constexprs"], req["arch"],
                          req["options"], req["last_stage"], req["divisible"])
    print(json.dumps({"ok": True, "stages": out}))
except GpuCompileError as e:
    print(json.dumps({"ok": False, "error": str(e)}))
"""


def _compile_in_subprocess(fn, signature, constexprs, arch, options, last_stage, divisible) -> dict:
    import json
    import subprocess

    pyfn = getattr(fn, "fn", fn)
    req = {"helper_dir": str(pathlib.Path(__file__).resolve().parent), "file": pyfn.__code__.co_filename,
           "kernel": pyfn.__name__, "signature": signature, "constexprs": constexprs, "arch": arch,
           "options": options, "last_stage": last_stage, "divisible": divisible}
    if "<locals>" in pyfn.__qualname__:  # made by a kernel factory: the child calls it with these arguments
        req["factory"] = pyfn.__qualname__.split(".")[0]
        req["factory_args"] = list(getattr(fn, "_c2t_factory_args", ()))
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    p = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(req), capture_output=True, text=True,
                       env=env, timeout=600)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        raise GpuCompileError(f"compile subprocess failed (rc={p.returncode}):\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
    res = json.loads(lines[-1])
    if not res["ok"]:
        raise GpuCompileError(res["error"])
    return res["stages"]


def _params(fn):
    """[(name, is_constexpr, default)] of a @triton.jit function, interpreted or not."""
    import inspect

    pyfn = getattr(fn, "fn", fn)
    out = []
    for name, p in inspect.signature(pyfn).parameters.items():
        ann = p.annotation
        is_c = ann is not inspect.Parameter.empty and ("constexpr" in str(ann) or getattr(ann, "__name__", "") == "constexpr")
        out.append((name, is_c, p.default))
    return out


def triton_type_of(value) -> tuple[str, object]:
    """Signature entry Triton's launcher would give `value`: ("*fp16", None) for a
    tensor, ("constexpr", 1) for the int 1 (Triton specializes it), "i32"/"i64" for
    other ints, "fp32" for floats, "i1" for bools, ("constexpr", None) for None."""
    try:
        import torch
    except ImportError:  # pragma: no cover
        torch = None
    if torch is not None and isinstance(value, torch.Tensor):
        return "*" + _TORCH_TO_TRITON[str(value.dtype).split(".")[-1]], None
    if value is None:
        return "constexpr", None
    if isinstance(value, bool):
        return "i1", None
    if isinstance(value, int):
        if value == 1:
            return "constexpr", 1
        return ("i32" if -2**31 <= value < 2**31 else "i64"), None
    if isinstance(value, float):
        return "fp32", None
    raise TypeError(f"no Triton signature type for {type(value).__name__}")


def capture_launch(launcher, *args, **kwargs):
    """Calls a converted module's launch_<kernel>(grid, ...) with the kernel
    replaced by a recorder; returns (jit_fn, signature, constexprs, options) ready
    for compile_for_gpu. Tensors may live on the CPU (only dtypes matter)."""
    kname = launcher.__name__[len("launch_"):]
    if launcher.__closure__ and kname in launcher.__code__.co_freevars:
        # a launcher defined next to its kernel inside a kernel factory: the kernel is a closure cell
        cell = launcher.__closure__[launcher.__code__.co_freevars.index(kname)]

        class _Cell(dict):
            def __getitem__(self, k):
                return cell.cell_contents

            def __setitem__(self, k, v):
                cell.cell_contents = v

        return capture_kernel(_Cell(), kname, launcher, *args, **kwargs)
    return capture_kernel(launcher.__globals__, kname, launcher, *args, **kwargs)


def capture_kernel(module_globals: dict, kname: str, fn, *args, **kwargs):
    """Calls fn(*args, **kwargs) (host code of a converted module, e.g. a TileGym
    wrapper) with module_globals[kname], a @triton.jit kernel, replaced by a
    recorder; returns the first launch's (jit_fn, signature, constexprs, options)."""
    g = module_globals
    jit_fn = g[kname]
    got = {}

    class _Recorder:
        def __getitem__(self, grid):
            def record(*a, **kw):
                got.setdefault("args", a)
                got.setdefault("kwargs", kw)
            return record

    g[kname] = _Recorder()
    try:
        fn(*args, **kwargs)
    finally:
        g[kname] = jit_fn
    if "args" not in got:
        raise AssertionError(f"{kname} was not launched")
    params = _params(jit_fn)
    names = [p[0] for p in params]
    opts = dict(got["kwargs"])
    bound = list(got["args"])
    for i in range(len(bound), len(names)):  # trailing keyword arguments
        bound.append(opts.pop(names[i]) if names[i] in opts else params[i][2])
    signature, constexprs, divisible = {}, {}, []
    for i, (n, v) in enumerate(zip(names, bound)):
        if params[i][1]:
            signature[n], constexprs[n] = "constexpr", v
            continue
        ty, cval = triton_type_of(v)
        signature[n] = ty
        if ty == "constexpr":
            constexprs[n] = cval
        elif ty.startswith("*") or (isinstance(v, int) and not isinstance(v, bool) and v % 16 == 0):
            divisible.append(n)  # CPU tensors stand for 16-byte aligned CUDA ones
    options = {k: v for k, v in opts.items() if k in ("num_warps", "num_stages", "num_ctas", "maxnreg")}
    _last_divisible[:] = divisible
    return jit_fn, signature, constexprs, options


# Parameters the last capture_launch/capture_kernel found divisible by 16 (see compile_for_gpu).
_last_divisible: list = []


def compile_launch(launcher, *args, arch: int = 90, last_stage: str | None = None, **kwargs) -> dict:
    """capture_launch + compile_for_gpu, with the launch's divisibility specialization."""
    jit_fn, sig, cst, opts = capture_launch(launcher, *args, **kwargs)
    return compile_for_gpu(jit_fn, sig, cst, arch=arch, options=opts, last_stage=last_stage,
                           divisible=list(_last_divisible))




_counter = 0


def load_for_compile(code: str, tmp_dir: pathlib.Path | None = None, name: str = "compiled") -> types.ModuleType:
    """Imports generated code with TRITON_INTERPRET off, so @triton.jit gives real
    JITFunctions (the interpreter's stand-ins cannot be compiled)."""
    global _counter
    _counter += 1
    tmp_dir = pathlib.Path(tmp_dir or tempfile.mkdtemp(prefix="c2t_compile_"))
    path = tmp_dir / f"{name}_gpu_{_counter}.py"
    path.write_text(code)
    old = os.environ.get("TRITON_INTERPRET")
    os.environ["TRITON_INTERPRET"] = "0"
    try:
        spec = importlib.util.spec_from_file_location(f"c2t_gpu_{name}_{_counter}", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
    finally:
        if old is None:
            del os.environ["TRITON_INTERPRET"]
        else:
            os.environ["TRITON_INTERPRET"] = old
    return mod
