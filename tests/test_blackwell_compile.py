"""The Blackwell compile census end to end on the CPU: benchmarks/gpu/census records a converted kernel's
specialization through Triton's own post-compile hook (called here as JITFunction._do_compile calls it, since
nothing compiles for a GPU without one), and benchmarks/blackwell_compile.py compiles that specialization for
sm_90a and sm_100a. The converted GEMM of examples/matmul.py must come out as wgmma on Hopper and as tcgen05 MMA
(tensor memory accumulators) on Blackwell; a module that does not load is reported, not compiled."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

from c2t_interp import convert

ROOT = pathlib.Path(__file__).resolve().parents[1]
CENSUS_DIR = ROOT / "benchmarks" / "gpu" / "census"

# Runs without TRITON_INTERPRET (real JITFunctions): the launcher with CPU tensors and the kernel replaced by a
# recorder (triton_compile_check.capture_launch) gives the launch's specialization; Triton's hook is then called
# with it as a GPU compile would.
RECORD = r"""
import pathlib, sys, torch
sys.path.insert(0, sys.argv[1])
import importlib.util
from triton import knobs
from triton_compile_check import _nvidia_backend, capture_launch
import triton_compile_check as tcc
spec = importlib.util.spec_from_file_location("conv_matmul", sys.argv[2])
mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
a, b, c = torch.empty(300, 200, dtype=torch.float16), torch.empty(200, 260, dtype=torch.float16), torch.empty(300, 260, dtype=torch.float16)
jit_fn, sig, cst, opts = capture_launch(mod.launch_matmul_kernel, (3 * 3, 1, 1), a, b, c, 128, 128, 64)
GPUTarget, make_backend, _ = _nvidia_backend()
options = make_backend(GPUTarget("cuda", 90, 32)).parse_options(dict(opts))
names = list(jit_fn.arg_names)
constants = {(names.index(k),): v for k, v in cst.items()}
attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in tcc._last_divisible}
jit_fn._call_hook(knobs.runtime.jit_post_compile_hook, ("key", tuple(sig.values())), sig, 0, constants, options,
                  [attrs], False)
"""


def _nvidia_or_skip():
    try:
        from triton import knobs
        knobs.nvidia.ptxas_blackwell.path  # noqa: B018  (raises where Triton ships no ptxas-blackwell)
    except Exception as e:  # pragma: no cover - Triton without its CUDA backend
        pytest.skip(f"Triton's CUDA backend with ptxas-blackwell is not installed: {e}")


def _record(tmp_path: pathlib.Path) -> pathlib.Path:
    """Converts examples/matmul.py into tmp/conv/examples/matmul.py and records one specialization of it."""
    conv = tmp_path / "conv" / "examples"
    conv.mkdir(parents=True)
    (conv / "matmul.py").write_text(convert((ROOT / "examples" / "matmul.py").read_text(), filename="matmul.py"))
    census = tmp_path / "census"
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env.update(C2T_COMPILE_CENSUS=str(census), PYTHONPATH=os.pathsep.join(
        [str(CENSUS_DIR), str(ROOT / "src"), env.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-c", RECORD, str(ROOT / "tests"), str(conv / "matmul.py")], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    return census


def test_census_records_and_blackwell_compiles(tmp_path):
    _nvidia_or_skip()
    census = _record(tmp_path)
    rows = [json.loads(line) for p in census.glob("*.jsonl") for line in p.read_text().splitlines()]
    assert [r["kernel"] for r in rows] == ["matmul_kernel"]
    assert rows[0]["file"].endswith("/conv/examples/matmul.py")
    data = json.loads(rows[0]["data"])
    assert data["signature"]["A_ptr"] == "*fp16" and data["options"]["num_warps"] >= 4

    out, md = tmp_path / "rows.jsonl", tmp_path / "summary.md"
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "blackwell_compile.py"), str(census),
                        "--conv", str(tmp_path / "conv"), "--out", str(out), "--md", str(md), "--jobs", "1"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    (res,) = [json.loads(line) for line in out.read_text().splitlines()]
    hopper, blackwell = res["results"]["90"], res["results"]["100"]
    assert hopper["ok"] and blackwell["ok"], res
    assert hopper["wgmma"] > 0 and hopper["tcgen05"] == 0
    assert blackwell["tcgen05"] > 0 and blackwell["wgmma"] == 0
    assert "sm_100a compiled 1" in md.read_text()


def test_unloadable_module_is_reported(tmp_path):
    _nvidia_or_skip()
    census = _record(tmp_path)
    (tmp_path / "conv" / "examples" / "matmul.py").write_text("raise ImportError('not here')\n")
    r = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "blackwell_compile.py"), str(census),
                        "--conv", str(tmp_path / "conv"), "--jobs", "1", "--control", "0"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1
    assert "ImportError: not here" in r.stdout and "sm_100a compiled 0" in r.stdout


def test_census_hook_survives_a_bare_find_spec():
    """torch asks importlib.util.find_spec("triton") before importing it; the census must still hook the
    import that follows (its first form removed itself at the find_spec: the s35 TileGym runs recorded nothing)."""
    probe = ("import importlib.util, sys\n"
             "assert importlib.util.find_spec('triton') is not None\n"
             "import triton\n"
             "hook = triton.knobs.runtime.jit_post_compile_hook\n"
             "print(getattr(hook, '__qualname__', None))\n")
    env = dict(os.environ, C2T_COMPILE_CENSUS="/nonexistent-until-a-compile",
               PYTHONPATH=os.pathsep.join([str(CENSUS_DIR), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "_install.<locals>.record"


def test_spill_and_compile_census_share_the_folder(tmp_path):
    """benchmarks/gpu/census/sitecustomize.py runs each census its variable asks for: the spill census writes
    the runtime's spill-step decisions at exit, the compile census hooks Triton, in one process."""
    probe = ("import sys, types, triton\n"
             "def kern(): pass\n"
             "m = types.ModuleType('fake'); m._c2t_spill_warps = {kern: {('key',): (8, 300, 40, 0, True)}}\n"
             "sys.modules['fake'] = m\n"
             "print(triton.knobs.runtime.jit_post_compile_hook.__qualname__)\n")
    spill = tmp_path / "spill.jsonl"
    env = dict(os.environ, C2T_SPILL_CENSUS=str(spill), C2T_COMPILE_CENSUS=str(tmp_path / "compile"),
               PYTHONPATH=os.pathsep.join([str(CENSUS_DIR), os.environ.get("PYTHONPATH", "")]))
    r = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "_install.<locals>.record"
    (row,) = [json.loads(line) for line in spill.read_text().splitlines()]
    assert (row["module"], row["kernel"], row["warps"], row["spills"], row["tma"]) == ("fake", "kern", 8, 300, True)


def test_read_census_leaves_out_other_json_lines(tmp_path):
    # Results written into the census folder (--out rows.jsonl there) are not census rows: read again,
    # they would stop the run (s36: KeyError 'file').
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import blackwell_compile

    row = {"file": "/tmp/tg/conv/ops/triton/a.py", "kernel": "k", "data": "{}"}
    (tmp_path / "123.jsonl").write_text(json.dumps(row) + "\n")
    (tmp_path / "rows.jsonl").write_text(json.dumps({"kernel": "k", "rel": "a.py", "results": {}}) + "\n")
    assert blackwell_compile.read_census(tmp_path) == [row]
