"""Helpers for the end-to-end tests: convert cuTile source with the C++
converter, import the generated Triton module under Triton's CPU interpreter
(TRITON_INTERPRET=1, set here before any kernel is defined), and compare with
independent torch references.

Conversion goes through the Python package (``cutile2triton.convert_source``)
when its extension is built, else through a ``c2t-cli convert FILE`` binary
(``$C2T_CLI`` or ``build/*/c2t-cli``).
"""

from __future__ import annotations

import glob
import importlib.util
import os
import pathlib
import subprocess
import sys
import types

# Where kernels run: Triton's CPU interpreter by default; C2T_DEVICE=cuda runs
# the same tests compiled for the GPU (device machine).
DEVICE = "cuda" if os.environ.get("C2T_DEVICE") == "cuda" else "cpu"
if DEVICE == "cpu":
    # Triton reads this when @triton.jit runs, i.e. when a generated module is imported.
    os.environ["TRITON_INTERPRET"] = "1"

import torch  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parent.parent


class ConversionFailed(AssertionError):
    pass


def _cli() -> str | None:
    env = os.environ.get("C2T_CLI")
    if env:
        return env
    for cand in sorted(glob.glob(str(ROOT / "build" / "*" / "c2t-cli"))):
        try:
            p = subprocess.run([cand, "convert", os.devnull], capture_output=True, text=True)
        except OSError:
            continue
        if "usage" not in (p.stderr + p.stdout).lower():
            return cand
    return None


def _package_convert():
    try:
        import cutile2triton

        cutile2triton.convert_source("x = 1\n", filename="probe.py")
        return cutile2triton.convert_source
    except Exception:
        return None


_CONVERT = None


def convert(source: str, filename: str = "kernel.py") -> str:
    """cuTile module text -> Triton module text; ConversionFailed with the
    rendered diagnostics when the converter rejects it."""
    global _CONVERT
    if _CONVERT is None:
        _CONVERT = _package_convert() or ("cli", _cli())
    if callable(_CONVERT):
        r = _CONVERT(source, filename=filename)
        if not r.ok:
            raise ConversionFailed(r.rendered)
        return r.code
    cli = _CONVERT[1]
    if cli is None:
        raise RuntimeError("no converter: build the cutile2triton extension or set C2T_CLI to a c2t-cli with 'convert'")
    tmp = pathlib.Path(os.environ.get("TMPDIR", "/tmp")) / f"c2t_src_{os.getpid()}_{abs(hash(source))}" / filename
    tmp.parent.mkdir(parents=True, exist_ok=True)
    tmp.write_text(source)
    p = subprocess.run([cli, "convert", str(tmp)], capture_output=True, text=True)
    if p.returncode != 0:
        raise ConversionFailed(p.stderr)
    return p.stdout


_counter = 0


def load(code: str, tmp_dir: pathlib.Path, name: str = "converted") -> types.ModuleType:
    """Imports generated code as a fresh module (file-backed: Triton needs the source)."""
    global _counter
    _counter += 1
    assert "cuda.tile" not in code.replace("(cuda.tile)", ""), "converted module still refers to cuda.tile"
    path = tmp_dir / f"{name}_{_counter}.py"
    path.write_text(code)
    spec = importlib.util.spec_from_file_location(f"c2t_gen_{name}_{_counter}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def convert_and_load(source: str, tmp_dir: pathlib.Path, name: str = "kernel") -> types.ModuleType:
    return load(convert(source, filename=f"{name}.py"), tmp_dir, name)


def dev(t: torch.Tensor) -> torch.Tensor:
    """Moves a test input to the device the kernels run on."""
    return t.to(DEVICE)


def poison(t: torch.Tensor) -> torch.Tensor:
    """Fills an output buffer with values a correct kernel never leaves behind."""
    if t.dtype.is_floating_point:
        return t.fill_(float("nan"))
    if t.dtype == torch.bool:
        return t.fill_(True)
    return t.fill_(-12345 if t.dtype.is_signed else 123)


class PoisonedTorch(types.ModuleType):
    """A stand-in for the `torch` module inside generated host code: every
    torch.empty / empty_like buffer starts poisoned, so untouched outputs fail."""

    def __init__(self):
        super().__init__("torch")

    def __getattr__(self, item):
        return getattr(torch, item)

    @staticmethod
    def empty(*args, **kwargs):
        return poison(torch.empty(*args, **kwargs))

    @staticmethod
    def empty_like(*args, **kwargs):
        return poison(torch.empty_like(*args, **kwargs))


def poison_host_allocations(mod: types.ModuleType) -> None:
    if getattr(mod, "torch", None) is torch:
        mod.torch = PoisonedTorch()


def fresh_seed() -> int:
    """A new seed per run (inputs differ every run); printed on failure by the callers."""
    return int.from_bytes(os.urandom(4), "little")


def tol(dtype: torch.dtype, relaxed: bool = False) -> dict:
    """Tolerances of the conversion workflow: fp32 1e-3, fp16/bf16 1e-2, x2 for
    reductions, transcendentals and chained ops."""
    base = 1e-3 if dtype in (torch.float32, torch.float64) else 1e-2
    if relaxed:
        base *= 2
    return {"rtol": base, "atol": base}


def assert_close(actual: torch.Tensor, expected: torch.Tensor, dtype=None, relaxed=False, msg=""):
    dtype = dtype or expected.dtype
    if not expected.dtype.is_floating_point:
        assert torch.equal(actual.cpu(), expected.cpu()), f"{msg}\nactual={actual}\nexpected={expected}"
        return
    torch.testing.assert_close(actual.float().cpu(), expected.float().cpu(), msg=lambda m: f"{msg}\n{m}",
                               **tol(dtype, relaxed))
