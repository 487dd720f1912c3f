"""Compile census for a GPU run: every kernel specialization Triton compiles from a converted module (its
globals hold the cutile2triton runtime) is recorded as one JSON line, when it is compiled, in
$C2T_COMPILE_CENSUS/<pid>.jsonl: the kernel's source file and name and Triton's own specialization data
(signature, constexprs, divisibility attributes, options: triton.runtime.jit.serialize_specialization_data, what
JITFunction.preload compiles from). benchmarks/blackwell_compile.py compiles those specializations again for
another target (sm_100a) on a machine without a GPU. Imported by this folder's sitecustomize.py when
C2T_COMPILE_CENSUS is set (cutile_env.sh: c2t_compile_census); harness only, never shipped in converted code."""

import importlib.abc
import importlib.util
import json
import os
import sys


def _install(knobs):
    """Sets Triton's post-compile hook (keeping one set before) to append each converted kernel's compile."""
    out_dir = os.environ["C2T_COMPILE_CENSUS"]
    path = os.path.join(out_dir, f"{os.getpid()}.jsonl")
    previous = knobs.runtime.jit_post_compile_hook

    def record(*, key, repr, fn, compile, is_manual_warmup, already_compiled):
        try:
            jit_fn = fn.jit_function
            if "_c2t_run_kernel" in getattr(jit_fn.fn, "__globals__", {}):
                row = {"file": jit_fn.fn.__code__.co_filename, "kernel": jit_fn.fn.__name__,
                       "warmup": bool(is_manual_warmup), "data": compile["specialization_data"],
                       "argv": " ".join(sys.argv)[:200]}
                os.makedirs(out_dir, exist_ok=True)
                with open(path, "a") as f:
                    f.write(json.dumps(row) + "\n")
        except Exception as e:  # the census must never change what the run does
            print(f"compile census: {type(e).__name__}: {e}", file=sys.stderr)
        if previous is not None:
            return previous(key=key, repr=repr, fn=fn, compile=compile, is_manual_warmup=is_manual_warmup,
                            already_compiled=already_compiled)
        return None

    knobs.runtime.jit_post_compile_hook = record


class _AfterTritonImport(importlib.abc.MetaPathFinder):
    """Installs the hook once `triton` has been imported, so that processes which never use Triton do not pay
    for importing it and those which do import it in their own order (their environment variables first).
    A bare importlib.util.find_spec("triton") (torch asks it before importing) does not import, so the
    finder stays until a spec it returned is executed."""

    def __init__(self):
        self._looking = False

    def find_spec(self, name, path, target=None):
        if name != "triton" or self._looking:
            return None
        self._looking = True
        try:
            spec = importlib.util.find_spec(name)
        finally:
            self._looking = False
        if spec is None or spec.loader is None:
            return spec
        run, finder = spec.loader.exec_module, self

        def exec_module(module):
            run(module)
            if finder in sys.meta_path:
                sys.meta_path.remove(finder)
            try:
                _install(module.knobs)
            except Exception as e:
                print(f"compile census: {type(e).__name__}: {e}", file=sys.stderr)

        spec.loader.exec_module = exec_module
        return spec


if os.environ.get("C2T_COMPILE_CENSUS"):
    if "triton" in sys.modules:
        _install(sys.modules["triton"].knobs)
    else:
        sys.meta_path.insert(0, _AfterTritonImport())
