"""Which launch of flashinfer's converted MLA decode kernel faults (BENCHMARKS.md, "MLADecodePaged").

TileGym's `Test_FlashInfer_MLADecodePaged` hits an illegal memory access in the converted
`_decode_mla_kv_paged_kernel` (head dim 512, TRANS_QK on sm_90). Each variant below runs that test
(`-k triton`) in a process of its own (a fault poisons the CUDA context), with the tuning search held to
one tile config (BLOCK_H, BLOCK_N) and the kernel launched at the given num_stages / num_warps
("-": the launcher's own choice, i.e. Triton's default stages with the shared-memory retry, and
cutile2triton's warps rule). Per variant it prints the test outcome and, per compiled kernel, the
shared memory Triton allocated (metadata.shared, bytes), registers, spills, warps and stages; the
TTGIR of each is written to $OUT/mla/<variant>.ttgir for reading off the GPU.

  PYTHONPATH=TILEGYM/src:PLUGIN:CUTILE_SITE python3 mla_paged_variants.py TILEGYM CONVERTED
  (as scripts_on_device.sh runs it; the child mode is internal)"""
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

TEST = "tests/suites/flashinfer/test_flashinfer_attention.py::Test_FlashInfer_MLADecodePaged"


import pytest  # noqa: E402  (this module is the child's pytest plug-in too)


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    """In the child (-p mla_paged_variants): after cutile2triton's plug-in mounted the converted tree,
    hold the search to one config and force the launch options of the MLA kernel."""
    if "MLA_BH" not in os.environ:
        return
    bh, bn = int(os.environ["MLA_BH"]), int(os.environ["MLA_BN"])  # 0: the search as converted
    stages, warps = os.environ["MLA_STAGES"], os.environ["MLA_WARPS"]
    out = Path(os.environ["MLA_OUT"])
    for m in list(sys.modules.values()):
        names = getattr(m, "__dict__", {})  # not hasattr: a module's __getattr__ may import cuda.tile
        if "_decode_mla_kv_paged_kernel" not in names or "_c2t_run_kernel" not in names:
            continue
        search, run = m._c2t_exhaustive_search, m._c2t_run_kernel
        seen = set()

        def held(space, *a, _search=search, **k):
            space = list(space)
            mine = [c for c in space if getattr(c, "BLOCK_H", None) == bh and getattr(c, "BLOCK_N", None) == bn
                    and getattr(c, "occupancy", 1) == 1]
            return _search(mine or space, *a, **k)

        def forced(kernel, grid, *args, _run=run, **kwargs):
            name = getattr(kernel, "__name__", "")
            if name == "_decode_mla_kv_paged_kernel":
                if stages != "-":
                    kwargs["num_stages"] = int(stages)
                if warps != "-":
                    kwargs["num_warps"] = int(warps)
            tag = os.environ["MLA_TAG"]
            if name == "_decode_mla_kv_paged_kernel" and tag in os.environ.get("MLA_TTGIR", "").split():
                try:  # compiled without launching: a launch that faults returns nothing
                    compiled = kernel.warmup(*args, grid=grid, **kwargs)
                    out.mkdir(parents=True, exist_ok=True)
                    (out / f"{tag}-{compiled.metadata.num_warps}w.ttgir").write_text(compiled.asm.get("ttgir", ""))
                except Exception as e:
                    print(f"MLA-WARMUP {type(e).__name__}: {e}"[:200], flush=True)
            result = _run(kernel, grid, *args, **kwargs)
            md = getattr(result, "metadata", None)
            if md is not None and name == "_decode_mla_kv_paged_kernel" and id(result) not in seen:
                seen.add(id(result))
                print(f"\nMLA-KERNEL shared={md.shared} regs={getattr(result, 'n_regs', '?')} "
                      f"spills={getattr(result, 'n_spills', '?')} warps={md.num_warps} stages={md.num_stages}",
                      flush=True)
            return result

        m._c2t_exhaustive_search, m._c2t_run_kernel = held, forced


def main():
    tilegym, converted = sys.argv[1], Path(sys.argv[2])
    out = Path(os.environ.get("OUT", "/tmp/c2t-scripts")) / "mla"
    here = Path(__file__).resolve().parent
    # Cases: BLOCK_H,BLOCK_N,stages,warps (BLOCK_H 0: the whole search as converted); sources: edited copies
    # of the converted module (MLA_SOURCES="name=FILE ..."), "-" for the converted tree as it is.
    cases = [tuple(c.split(",")) for c in os.environ.get("MLA_CASES", "").split(";") if c] or [
        (str(bh), str(bn), st, w) for bh in (16, 32) for bn in (64, 128) for st in ("-", "2", "1") for w in ("-", "4")]
    sources = [s.split("=", 1) for s in os.environ.get("MLA_SOURCES", "conv=-").split()]
    sanitize = os.environ.get("MLA_SANITIZE", "")  # tags run under compute-sanitizer memcheck
    trees = {}
    for name, src in sources:
        if src == "-":
            trees[name] = converted
        else:
            import shutil
            tree = Path(f"/tmp/mla-conv-{name}")
            shutil.rmtree(tree, ignore_errors=True)
            shutil.copytree(converted, tree)
            shutil.copy(src, tree / "suites/flashinfer/triton/fmha_decode_bsr.py")
            trees[name] = tree

    def one(job):
        name, (bh, bn, st, w) = job
        tag = f"{name}-bh{bh}-bn{bn}-s{st}-w{w}".replace("-s-", "-sD").replace("-w-", "-wD")
        env = dict(os.environ, MLA_BH=bh, MLA_BN=bn, MLA_STAGES=st, MLA_WARPS=w, MLA_OUT=str(out),
                   MLA_TAG=tag, CUDA_LAUNCH_BLOCKING="1",
                   PYTHONPATH=f"{here}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
        cmd = [sys.executable, "-m", "pytest", "-p", "cutile2triton.pytest_tilegym", "--c2t-converted", str(trees[name]),
               "-p", "mla_paged_variants", "-p", "no:cacheprovider", "-q", "-s", "-k", "triton", TEST]
        if tag in sanitize.split():
            cmd = ["compute-sanitizer", "--print-limit", "12"] + cmd
        try:
            r = subprocess.run(cmd, cwd=tilegym, env=env, capture_output=True, text=True, timeout=280)
            text = r.stdout + r.stderr
        except subprocess.TimeoutExpired as e:
            text = f"TIMEOUT {e}"
        out.mkdir(parents=True, exist_ok=True)
        if tag in sanitize.split():
            (out / f"{tag}.log").write_text(text[-20000:])
        kernels = sorted({line.strip() for line in text.splitlines() if line.startswith("MLA-KERNEL")})
        outcome = next((line for line in reversed(text.splitlines()) if " passed" in line or " failed" in line
                        or " error" in line or "TIMEOUT" in line), text[-300:].replace("\n", " | "))
        err = next((line.strip() for line in text.splitlines() if "illegal" in line.lower()
                    or "OutOfResources" in line or "Error:" in line), "")
        return f"{tag:26s} {outcome.strip()[:90]}\n    " + "\n    ".join(kernels or ["(no MLA kernel compiled)"]) + (
            f"\n    {err[:200]}" if err else "")

    jobs = [(name, c) for name, _ in sources for c in cases]
    with ThreadPoolExecutor(int(os.environ.get("MLA_JOBS", "12"))) as pool:
        for line in pool.map(one, jobs):
            print(line, flush=True)


if __name__ == "__main__":
    main()
