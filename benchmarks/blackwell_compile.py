"""Compile, for Blackwell (sm_100a) on a machine without a GPU, every converted kernel specialization a GPU run
compiled: the compile census of benchmarks/gpu/census (one JSON line per specialization: the kernel's
file and name, Triton's specialization data). No Blackwell GPU is lent to this project, so this is the evidence
for that target: Triton's whole pipeline (front end, TTGIR passes, LLVM, ptxas-blackwell) accepts each
specialization with the launch options it ran with on the H200, and the TTGIR shows which MMA and copy
instructions it chose. It proves compilation, not results or speed.

Each specialization is compiled twice: for sm_90a first, as a control (it compiled on the H200, so a failure
here is this method's, e.g. a module that does not load without TileGym), then for the target.

    mkdir -p /tmp/tg && tar -xJf .tilegym/tilegym.tar.xz -C /tmp/tg      # the converted tree the run used
    python3 benchmarks/blackwell_compile.py CENSUS --conv /tmp/tg/conv [--max-per-kernel 6] [--jobs 2] \\
        [--out rows.jsonl] [--md summary.md]

CENSUS: a folder of the census's *.jsonl files, a .jsonl file, or a .tar.xz of them. A row's file is matched to
the local tree by its path after the last "/conv/". Prints one line per kernel and a table per file.
Needs Triton with its CUDA backend (ptxas and ptxas-blackwell come with it) and torch (CPU).
"""

from __future__ import annotations

import argparse
import collections
import json
import pathlib
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

HERE = pathlib.Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[1] / "tests"))

# Launch options that carry over to another target; the rest (arch, fp8 support, ptx version, libdevice path,
# max_num_imprecise_acc_default) Triton's CUDA backend derives from the target itself (parse_options).
PORTABLE_OPTIONS = ("num_warps", "num_ctas", "num_stages", "maxnreg", "enable_fp_fusion", "enable_reflect_ftz",
                    "launch_cooperative_grid", "launch_pdl", "default_dot_input_precision", "debug",
                    "sanitize_overflow")

# What the TTGIR says about the instructions chosen (Triton 3.6's op names): Blackwell's tensor-core MMA (tcgen05,
# accumulators in tensor memory), Hopper's wgmma, other dots (mma.sync or FMA), TMA and cp.async copies.
TTGIR_COUNTS = {"tcgen05": ("ttng.tc_gen5_mma",), "wgmma": ("ttng.warp_group_dot ",), "mma.sync/FMA": ("tt.dot ",),
                "TMA": ("tt.descriptor_load", "tt.descriptor_store", "ttng.async_tma_copy"),
                "cp.async": ("ttg.async_copy_global_to_local",)}


def read_census(path: pathlib.Path) -> list[dict]:
    """The census rows of a folder of *.jsonl, one .jsonl, or a .tar.xz holding them (other JSON lines, such as
    this script's own --out rows written into the folder, are left out)."""
    texts = []
    if path.is_dir():
        texts = [p.read_text() for p in sorted(path.rglob("*.jsonl"))]
    elif path.name.endswith((".tar.xz", ".tar.gz", ".tar")):
        with tarfile.open(path) as t:
            texts = [t.extractfile(m).read().decode() for m in t.getmembers()
                     if m.isfile() and m.name.endswith(".jsonl")]
    else:
        texts = [path.read_text()]
    rows = [json.loads(line) for text in texts for line in text.splitlines() if line.strip()]
    return [r for r in rows if isinstance(r, dict) and "file" in r and "kernel" in r and "data" in r]  # not results


def local_file(device_file: str, roots: list[pathlib.Path]) -> pathlib.Path | None:
    """The converted module under one of `roots` (each a tree's conv/ folder) a device path names."""
    if "/conv/" not in device_file:
        return None
    rel = device_file.rsplit("/conv/", 1)[1]
    for root in roots:
        if (root / rel).is_file():
            return root / rel
    return None


def spec_key(row: dict) -> str:
    """What makes two rows the same compile: file, kernel, signature, constexprs, attributes, portable options."""
    d = json.loads(row["data"])
    opts = {k: d["options"].get(k) for k in PORTABLE_OPTIONS}
    return json.dumps([row["file"].rsplit("/conv/", 1)[-1], row["kernel"], d["signature"], d["constant_keys"],
                       d["constant_vals"], d["attrs_keys"], d["attrs_vals"], opts], sort_keys=True, default=str)


def spread(items: list, n: int) -> list:
    """n of items, evenly spaced (first and last kept), in their order; all when n <= 0 or len <= n."""
    if n <= 0 or len(items) <= n:
        return items
    if n == 1:
        return items[:1]
    return [items[round(i * (len(items) - 1) / (n - 1))] for i in range(n)]


# ---- worker: one converted module's specializations, in a fresh process ----

def _load_module(path: pathlib.Path):
    """The converted module without its TileGym imports (registry, logger, relative imports), as
    sm90_compile_probe.py loads it; kernels carry their helpers with them (the converter copies them in)."""
    from triton_compile_check import load_for_compile

    code = path.read_text()
    code = re.sub(r"^from (tilegym|\.).*$", "", code, flags=re.M)
    code = re.sub(r"^@(register_impl\(.*\)|experimental_kernel)\n", "", code, flags=re.M)
    return load_for_compile("get_logger = lambda name: None\n" + code, pathlib.Path(tempfile.mkdtemp()), path.stem)


def _ptxas_stats(ptx: str, arch: int) -> str:
    """ptxas -v's registers and spills for `ptx` on sm_<arch>a."""
    from triton.backends.nvidia.compiler import get_ptxas

    d = pathlib.Path(tempfile.mkdtemp())
    (d / "k.ptx").write_text(ptx)
    r = subprocess.run([get_ptxas(arch).path, "-v", "--gpu-name", f"sm_{arch}a", str(d / "k.ptx"), "-o",
                        str(d / "k.o")], capture_output=True, text=True)
    regs = re.search(r"Used (\d+) registers", r.stderr)
    spill = re.search(r"(\d+) bytes spill stores", r.stderr)
    return f"{regs.group(1) if regs else '?'} regs, {spill.group(1) if spill else '?'} B spilled"


def _compile_one(jit_fn, data: dict, arch: int) -> dict:
    """Compiles one specialization for sm_<arch>; {"ok", "error" | counts, "shared", "ptxas"}."""
    import triton.language as tl
    from triton_compile_check import GpuCompileError, compile_for_gpu

    constexprs = {tuple(k): (tl.dtype(v) if tl.dtype.is_dtype(v) else
                             tl.constexpr(v["constexpr"]) if isinstance(v, dict) and "constexpr" in v else v)
                  for k, v in zip(data["constant_keys"], data["constant_vals"])}
    attrs = {tuple(k): v for k, v in zip(data["attrs_keys"], data["attrs_vals"])}
    signature = {k: tuple(v) if isinstance(v, list) else v for k, v in data["signature"].items()}
    options = {k: data["options"][k] for k in PORTABLE_OPTIONS if data["options"].get(k) is not None}
    try:
        out = compile_for_gpu(jit_fn, signature, constexprs, arch=arch, options=options, attrs=attrs)
    except GpuCompileError as e:
        lines = [ln for ln in str(e).splitlines() if ln.strip()]
        first = next((ln for ln in lines if "error" in ln.lower()), lines[0] if lines else "")
        return {"ok": False, "error": first[:300]}
    ttgir = out.get("ttgir", "")
    res = {"ok": True, "shared": out.get("shared")}
    res.update({k: sum(ttgir.count(p) for p in pats) for k, pats in TTGIR_COUNTS.items()})
    if "ptx" in out:
        res["ptxas"] = _ptxas_stats(out["ptx"], arch)
    return res


def worker() -> None:
    """Reads {"file", "tasks": [{"kernel", "data", ...}], "archs"} from stdin; prints one JSON result per task."""
    req = json.loads(sys.stdin.read())
    try:
        mod = _load_module(pathlib.Path(req["file"]))
    except Exception as e:  # the whole file: report every task
        for t in req["tasks"]:
            print(json.dumps({**t, "load_error": f"{type(e).__name__}: {str(e)[:300]}"}), flush=True)
        return
    for t in req["tasks"]:
        jit_fn = getattr(mod, t["kernel"], None)
        if jit_fn is None:
            print(json.dumps({**t, "load_error": f"no kernel {t['kernel']} in the module"}), flush=True)
            continue
        data = json.loads(t["data"])
        res = {a: _compile_one(jit_fn, data, a) for a in t.get("archs", req["archs"])}
        print(json.dumps({**t, "results": {str(a): r for a, r in res.items()}}), flush=True)


# ---- driver ----

def run_file(local: pathlib.Path, tasks: list[dict], archs: list[int], timeout: float) -> list[dict]:
    """The worker on one file's tasks; tasks it did not answer (crash, timeout) say so."""
    req = json.dumps({"file": str(local), "tasks": tasks, "archs": archs})
    try:
        p = subprocess.run([sys.executable, str(HERE), "--worker"], input=req, capture_output=True, text=True,
                           timeout=timeout)
        out, err = p.stdout, (p.stderr.strip().splitlines() or [f"exit {p.returncode}"])[-1]
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = f"timed out after {timeout:.0f} s"
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    done = {(r["kernel"], r["data"]) for r in rows}
    rows += [{**t, "load_error": f"worker stopped: {err[:300]}"} for t in tasks if (t["kernel"], t["data"]) not in done]
    return rows


def summarize(rows: list[dict], archs: list[int]) -> str:
    """A Markdown table: per file and kernel, specializations compiled per target, failures, MMA and copies."""
    control, target = str(archs[0]), str(archs[-1])
    by = collections.defaultdict(list)
    for r in rows:
        by[(r["rel"], r["kernel"])].append(r)
    lines = [f"| file | kernel | specializations | sm_{control}a (control) | sm_{target}a | specializations using, "
             f"sm_{target}a | sm_{target}a registers, spills (worst) |", "|---|---|---:|---:|---:|---|---|"]
    totals = collections.Counter()
    failures = []
    for (rel, kernel), rs in sorted(by.items()):
        ok = {a: sum(1 for r in rs if r.get("results", {}).get(a, {}).get("ok")) for a in (control, target)}
        tried = sum(1 for r in rs if control in r.get("results", {}) or "load_error" in r)
        totals["specs"] += len(rs)
        totals["control"] += ok[control]
        totals["control_tried"] += tried
        totals["target"] += ok[target]
        kinds = collections.Counter()
        worst = (-1, "")
        for r in rs:
            res = r.get("results", {}).get(target, {})
            for k in TTGIR_COUNTS:
                if res.get(k):
                    kinds[k] += 1
            m = re.match(r"(\d+) regs, (\d+) B spilled", res.get("ptxas", ""))
            if m and int(m.group(2)) > worst[0]:
                worst = (int(m.group(2)), res["ptxas"])
            for a in (control, target):
                if "load_error" in r:
                    failures.append((rel, kernel, "load", r["load_error"]))
                    break
                if a in r["results"] and not r["results"][a]["ok"]:
                    failures.append((rel, kernel, f"sm_{a}a", r["results"][a]["error"]))
        used = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) or "—"
        lines.append(f"| {rel} | {kernel} | {len(rs)} | {ok[control]} of {tried} | {ok[target]} | {used} | "
                     f"{worst[1] or '—'} |")
    head = (f"{totals['specs']} specializations of {len(by)} kernels: sm_{control}a (control) compiled "
            f"{totals['control']} of the {totals['control_tried']} tried, sm_{target}a compiled {totals['target']}.\n\n")
    tail = ""
    if failures:
        seen = set()
        tail = "\n\nFailures (first of each kind per kernel):\n\n" + "\n".join(
            f"- {rel} {kernel} ({where}): {msg}" for rel, kernel, where, msg in failures
            if (rel, kernel, where) not in seen and not seen.add((rel, kernel, where)))
    return head + "\n".join(lines) + tail + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("census", type=pathlib.Path)
    ap.add_argument("--conv", type=pathlib.Path, action="append", required=True,
                    help="a converted tree's conv/ folder (repeatable)")
    ap.add_argument("--arch", type=int, default=100, help="the target (default 100: sm_100a, B200)")
    ap.add_argument("--control", type=int, default=90, help="the control target the run compiled for (0: none)")
    ap.add_argument("--max-per-kernel", type=int, default=6, help="specializations per kernel, evenly spread (0: all)")
    ap.add_argument("--control-per-kernel", type=int, default=1,
                    help="of those, how many are also compiled for the control target (0: all)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=240, help="seconds per specialization and target")
    ap.add_argument("--out", type=pathlib.Path, help="write every result as JSON lines")
    ap.add_argument("--md", type=pathlib.Path, help="write the summary table")
    a = ap.parse_args(argv)
    archs = [x for x in (a.control, a.arch) if x]
    rows = read_census(a.census)
    unique, unmatched = {}, collections.Counter()
    for r in rows:
        loc = local_file(r["file"], a.conv)
        if loc is None:
            unmatched[r["file"]] += 1
            continue
        unique.setdefault(spec_key(r), {"kernel": r["kernel"], "data": r["data"], "rel": r["file"].rsplit("/conv/", 1)[1],
                                        "local": str(loc)})
    per_kernel = collections.defaultdict(list)
    for key in sorted(unique):
        t = unique[key]
        per_kernel[(t["local"], t["kernel"])].append(t)
    per_file = collections.defaultdict(list)
    for (loc, _), ts in sorted(per_kernel.items()):
        chosen = spread(ts, a.max_per_kernel)
        for i, t in enumerate(chosen):  # the control target for the first few of each kernel only
            t["archs"] = archs if a.control_per_kernel <= 0 or i < a.control_per_kernel else archs[-1:]
        per_file[loc] += chosen
    n = sum(len(v) for v in per_file.values())
    print(f"{len(rows)} census rows, {len(unique)} distinct specializations; compiling {n} "
          f"({a.max_per_kernel or 'all'} per kernel) of {len(per_kernel)} kernels in {len(per_file)} files "
          f"for {', '.join(f'sm_{x}a' for x in archs)}" + (f"; {sum(unmatched.values())} rows of files not found "
                                                          f"under --conv" if unmatched else ""), flush=True)
    t0 = time.time()
    results = []
    with ThreadPoolExecutor(a.jobs) as pool:
        futs = [pool.submit(run_file, pathlib.Path(loc), ts, archs, a.timeout * len(ts) * len(archs))
                for loc, ts in per_file.items()]
        for f in futs:
            for r in f.result():
                results.append(r)
                res = r.get("results", {})
                state = r.get("load_error") or ", ".join(
                    f"sm_{x}: " + ("ok" if v.get("ok") else v.get("error", "?")[:100]) for x, v in res.items())
                print(f"[{time.time() - t0:6.0f}s] {r['rel']} {r['kernel']}: {state}", flush=True)
    if a.out:
        a.out.write_text("".join(json.dumps(r) + "\n" for r in results))
    md = summarize(results, archs)
    if a.md:
        a.md.write_text(md)
    print(md)
    target_ok = all(r.get("results", {}).get(str(archs[-1]), {}).get("ok") for r in results)
    return 0 if results and target_ok else 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["--worker"]:
        worker()
    else:
        sys.exit(main())
