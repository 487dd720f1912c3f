"""Table of cuTile's own benchmark suite run as it is and converted (cutile_python_bench_on_device.sh).

    python3 benchmarks/gpu/cutile_python_bench_summary.py DIR   ->  Markdown on stdout

DIR holds pytest-benchmark JSON files orig-<bench>.json (backends `cutile` and `torch`: cuTile's kernels and
PyTorch) and conv-<bench>.json (backend `cutile`, whose host code launches the converted Triton kernels),
and the JUnit files beside them. A case is a benchmark's parameter set without the backend; its times are
pytest-benchmark's medians (seconds in the JSON, µs here). speed = cuTile's median / the converted one's
(above 1: the converted kernel is faster). Failures (a bench checks its result against PyTorch before timing,
so a wrong result fails there) and cases timed on one side only are listed under the table.
"""

from __future__ import annotations

import json
import math
import pathlib
import sys
import xml.etree.ElementTree as ET

BACKENDS = ("cutile", "torch")


def split_name(name: str):
    """'bench_moe[110x1024-float16-cutile]' -> ('bench_moe', '110x1024-float16', 'cutile'); the backend is the
    parameter id that names one (cutile-python's conftest `backend` fixture and bench_fft's `fft_backend`)."""
    base, _, rest = name.partition("[")
    ids = rest.rstrip("]").split("-") if rest else []
    backend = next((i for i in ids if i in BACKENDS), "")
    return base, "-".join(i for i in ids if i != backend), backend


def medians(path: pathlib.Path):
    """{(bench, case, backend): median µs} of one pytest-benchmark JSON file ({} if missing)."""
    if not path.is_file():
        return {}
    out = {}
    for b in json.loads(path.read_text()).get("benchmarks", []):
        out[split_name(b["name"])] = b["stats"]["median"] * 1e6
    return out


def failures(path: pathlib.Path):
    """[(test name, first line of the message)] of the failed and erroring cases of a JUnit file."""
    if not path.is_file():
        return []
    out = []
    for case in ET.parse(path).getroot().iter("testcase"):
        for tag in ("failure", "error"):
            for f in case.findall(tag):
                msg = (f.get("message") or f.text or "").strip().splitlines()
                out.append((case.get("name", "?"), msg[0][:160] if msg else tag))
    return out


def summarize(folder: pathlib.Path) -> str:
    orig, conv = {}, {}
    fails = []
    for p in sorted(folder.glob("orig-*.json")):
        orig.update(medians(p))
    for p in sorted(folder.glob("conv-*.json")):
        conv.update(medians(p))
    for side in ("orig", "conv"):
        for p in sorted(folder.glob(f"{side}-*.xml")):
            fails += [(side, n, m) for n, m in failures(p)]
    cases = sorted({(b, c) for (b, c, k) in orig if k == "cutile"} | {(b, c) for (b, c, k) in conv if k == "cutile"})
    lines = ["| bench | case | cuTile µs | converted µs | PyTorch µs | speed (cuTile / converted) |",
             "|---|---|---|---|---|---|"]
    ratios, one_side = [], []
    for b, c in cases:
        ct_us, tr_us = orig.get((b, c, "cutile")), conv.get((b, c, "cutile"))
        pt_us = orig.get((b, c, "torch"))
        if ct_us is None or tr_us is None:
            one_side.append(f"{b}[{c}]: {'converted' if ct_us is None else 'cuTile'} only")
            continue
        r = ct_us / tr_us
        ratios.append((r, b, c))
        pt = f"{pt_us:.1f}" if pt_us is not None else "—"
        lines.append(f"| {b} | {c} | {ct_us:.1f} | {tr_us:.1f} | {pt} | {r:.2f}× |")
    out = ["# cuTile's benchmark suite, cuTile vs converted Triton", ""] + lines + [""]
    if ratios:
        gm = math.exp(sum(math.log(r) for r, _, _ in ratios) / len(ratios))
        below = [f"{b}[{c}] {r:.2f}×" for r, b, c in sorted(ratios) if r < 0.8]
        out.append(f"Geometric mean speed over {len(ratios)} cases: **{gm:.2f}×**; below 0.8×: "
                   f"{len(below)}{' (' + ', '.join(below) + ')' if below else ''}.")
    else:
        out.append("No case was timed on both sides.")
    if one_side:
        out += ["", "Timed on one side only: " + "; ".join(one_side) + "."]
    if fails:
        out += ["", "Failures:"] + [f"- {side}: {n}: {m}" for side, n, m in fails]
    else:
        out += ["", "No failures on either side."]
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) != 2:
        sys.exit(__doc__)
    sys.stdout.write(summarize(pathlib.Path(argv[1])))


if __name__ == "__main__":
    main(sys.argv)
