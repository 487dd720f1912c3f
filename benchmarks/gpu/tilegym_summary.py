#!/usr/bin/env python3
"""Summarizes TileGym test runs (benchmarks/gpu/tilegym_tests_on_device.sh) into Markdown.

Input: RUNDIR/<backend>/<name>.xml (JUnit from pytest --junitxml), <name>.log
(pytest -v output) and <name>.rc (exit status; 124/137 = the per-file timeout
killed it, then the counts come from the -v log and are partial).
Output: a Markdown table per backend (passed/failed/skipped/errors per test
file, failures grouped by a category of their first error line) and, where the
run checked ops against cuTile (<name>.diff.jsonl), a per-op table of that
check, on stdout or --md; every JUnit file merged into one <testsuites>
document (--xml).
"""

import argparse
import json
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

# First-line patterns -> category, first match wins. Order: specific before generic.
CATEGORIES = [
    (r"cutile2triton: op .* has no converted implementation", "op not converted"),
    (r"file timed out before the report", "file timeout (no message)"),
    (r"Timeout|Failed: Timeout", "test timeout"),
    (r"CompilationError|triton\.compiler\.errors|^at \d+:\d+:", "Triton compile error"),
    (r"autotune found no working configuration", "autotune: no config worked"),
    (r"OutOfResources|out of resource", "out of resources (shared memory/registers)"),
    (r"illegal memory access|CUDA error|cudaError|AcceleratorError", "CUDA error"),
    (r"OutOfMemoryError|out of memory", "out of memory"),
    (r"cutile2triton differential:", "differs from cuTile (differential check)"),
    (r"Tensor-likes are not close|Mismatched elements|not close|allclose|Max abs", "numerical mismatch"),
    (r"^AssertionError", "assertion"),
    (r"^(\w+(?:\.\w+)*(?:Error|Exception))", None),  # None: the exception type itself
]


def categorize(line):
    m = re.search(r"configs failed; first: (.*)", line)  # the converted exhaustive_search: say why
    if m:
        return f"autotune: every config failed ({categorize(m.group(1))})"
    for pat, cat in CATEGORIES:
        m = re.search(pat, line)
        if m:
            return cat or m.group(1).split(".")[-1]
    if re.search(r"tuple index out of range", line):
        return "IndexError"
    return "other"


def first_line(text):
    for line in (text or "").splitlines():
        line = line.strip()
        if line.startswith("E "):
            line = line[1:].strip()
        if line:
            return line[:240]
    return ""


def from_xml(path):
    counts, fails, skips = Counter(), [], Counter()
    root = ET.parse(path).getroot()
    for tc in root.iter("testcase"):
        kind = "passed"
        for child in tc:
            if child.tag in ("failure", "error", "skipped"):
                kind = {"failure": "failed", "error": "errors", "skipped": "skipped"}[child.tag]
                msg = first_line(child.get("message") or child.text)
                if kind == "skipped":
                    skips[re.sub(r"\d+", "N", msg)[:100]] += 1
                else:
                    fails.append((tc.get("name"), msg))
                break
        counts[kind] += 1
    return counts, fails, skips, root


def from_log(path):
    counts, fails = Counter(), []
    # `-v` lines: "tests/x.py::test[id] PASSED  [ 48%]"; ids may hold spaces ("(1, 1, 16, 32)").
    for m in re.finditer(r"::(\S.*?) (PASSED|FAILED|SKIPPED|ERROR|XFAIL|XPASS)\b", path.read_text(errors="replace")):
        kind = {"PASSED": "passed", "FAILED": "failed", "SKIPPED": "skipped", "ERROR": "errors",
                "XFAIL": "skipped", "XPASS": "passed"}[m.group(2)]
        counts[kind] += 1
        if kind in ("failed", "errors"):
            fails.append((m.group(1), "(no message: file timed out before the report)"))
    return counts, fails


def summarize(rundir):
    rows, suites = [], []
    for bdir in sorted(p for p in Path(rundir).iterdir() if p.is_dir()):
        shard_order = lambda p: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", p.stem)]  # shard2 < shard10
        for log in sorted(bdir.glob("*.log"), key=shard_order):
            name = log.stem
            xml, rcf = bdir / f"{name}.xml", bdir / f"{name}.rc"
            rc = int(rcf.read_text().strip() or -1) if rcf.exists() else -1
            note, skips = "", Counter()
            if xml.exists():
                counts, fails, skips, root = from_xml(xml)
                for s in root.iter("testsuite"):
                    s.set("name", f"{bdir.name}:{name}")
                    suites.append(s)
            else:
                counts, fails = from_log(log)
                note = "timed out (partial, from -v log)" if rc in (124, 137) else f"no JUnit (exit {rc})"
                if rc == 125:
                    note = "not run (out of time)"
                elif rc not in (124, 137):
                    tail = [l for l in log.read_text(errors="replace").splitlines() if l.strip()][-3:]
                    note += ": " + " | ".join(t[:160] for t in tail)
            if rc in (124, 137) and xml.exists():
                note = "timed out"
            if rc == 5 and xml.exists():
                note = "no case selected"
            cats = Counter(categorize(m) for _, m in fails)
            examples = {}
            for n, m in fails:
                examples.setdefault(categorize(m), (n, m))
            base, _, shard = name.partition(".shard")  # run_one's NAME.shardKofN: one of N processes
            rows.append(dict(backend=bdir.name, file=base.replace("__", "/") + ".py", shard=shard.replace("of", "/"),
                             note=note, cats=cats, examples=examples, skips=skips,
                             **{k: counts.get(k, 0) for k in ("passed", "failed", "skipped", "errors")}))
    return merge_shards(rows), suites


def merge_shards(rows):
    """One row per (backend, file): the shards of a file (--c2t-shard K/N) added up, their notes
    prefixed with the shard, and a note saying how many processes shared the file."""
    merged = {}
    for r in rows:
        key = (r["backend"], r["file"])
        note = f"shard {r['shard']}: {r['note']}" if r["shard"] and r["note"] else r["note"]
        if key not in merged:
            merged[key] = dict(r, note=note, shards=1 if r["shard"] else 0)
            continue
        m = merged[key]
        for k in ("passed", "failed", "skipped", "errors"):
            m[k] += r[k]
        m["cats"] = m["cats"] + r["cats"]
        m["skips"] = m["skips"] + r["skips"]
        for cat, ex in r["examples"].items():
            m["examples"].setdefault(cat, ex)
        m["note"] = "; ".join(n for n in (m["note"], note) if n)
        m["shards"] += 1
    out = []
    for m in merged.values():
        if m["shards"]:
            m["note"] = "; ".join(n for n in (f"{m['shards']} shards", m["note"]) if n)
        out.append(m)
    return out


def combined(rows):
    """One table: each test file, converted Triton beside cuTile."""
    by = {}
    for r in rows:
        by.setdefault(r["file"], {})[r["backend"]] = r
    k = ("passed", "failed", "skipped", "errors")
    cell = lambda r: " / ".join(str(r[x]) for x in k) if r else "-"
    out = ["| test file | c2t_triton P / F / S / E | cutile P / F / S / E | c2t_triton failure categories (count) | note |",
           "|---|---|---|---|---|"]
    for f in sorted(by):
        t, c = by[f].get("triton"), by[f].get("cutile")
        cats = "; ".join(f"{n} ({m})" for n, m in t["cats"].most_common()) if t else ""
        notes = "; ".join(f"{b}: {r['note']}" for b, r in sorted(by[f].items()) if r["note"]).replace("|", "/")
        out.append(f"| {f} | {cell(t)} | {cell(c)} | {cats} | {notes} |")
    return out + [""]


def markdown(rows):
    out = combined(rows) if len({r["backend"] for r in rows}) > 1 else []
    for backend in sorted({r["backend"] for r in rows}, key=lambda b: (b != "triton", b)):
        rs = [r for r in rows if r["backend"] == backend]
        tot = Counter()
        for r in rs:
            for k in ("passed", "failed", "skipped", "errors"):
                tot[k] += r[k]
        title = "converted Triton (`c2t_triton` cases)" if backend == "triton" else f"`{backend}` cases"
        out += [f"### {title}: {tot['passed']} passed, {tot['failed']} failed, {tot['skipped']} skipped, "
                f"{tot['errors']} errors in {len(rs)} files", "",
                "| test file | passed | failed | skipped | errors | failure categories (count) | note |",
                "|---|---:|---:|---:|---:|---|---|"]
        for r in rs:
            cats = "; ".join(f"{c} ({n})" for c, n in r["cats"].most_common())
            out.append(f"| {r['file']} | {r['passed']} | {r['failed']} | {r['skipped']} | {r['errors']} | "
                       f"{cats} | {r['note'].replace('|', '/')} |")
        out += ["", f"First error line per file and category ({backend}):", ""]
        for r in rs:
            for cat, (n, m) in r["examples"].items():
                m = m.replace("|", "/").replace("`", "'")
                out.append(f"- {r['file']} [{cat}] `{n}`: {m}")
        skips = Counter()
        for r in rs:
            skips.update(r["skips"])
        if skips:
            out += ["", f"Most common skip reasons ({backend}):", ""]
            out += [f"- {n} x {s}" for s, n in skips.most_common(8)]
        out.append("")
    return "\n".join(out)


def _cell(text) -> str:
    """text for one Markdown table cell: one line, no column bar, no code-span break."""
    return " ".join(str(text).replace("|", "/").replace("`", "'").split())


def differential(rundir):
    """Markdown table of the differential check (RUNDIR/*/NAME.diff.jsonl, one JSON line per op call,
    cutile2triton.tilegym_differential): per op, calls, tensors compared, matches, mismatches, the other
    statuses, the largest share of the tolerance a match used, and the first mismatch or note. Lines that
    are not JSON records (a file cut off when its process was killed) are counted, not read. [] when the
    run made none."""
    calls, unread = [], 0
    for f in sorted(Path(rundir).glob("*/*.diff.jsonl")):
        for line in f.read_text(errors="replace").splitlines():
            try:
                rec = json.loads(line) if line.strip() else None
            except ValueError:
                rec = None
            if isinstance(rec, dict) and "op" in rec and "status" in rec:
                calls.append(rec)
            elif line.strip():
                unread += 1
    if not calls and not unread:
        return []
    ops = {}
    for c in calls:
        o = ops.setdefault(str(c["op"]), {"n": Counter(), "tensors": 0, "used": 0.0, "first": {}})
        o["n"][str(c["status"])] += 1
        o["tensors"] += int(c.get("compared") or 0)
        used = c.get("used")
        o["used"] = max(o["used"], used if isinstance(used, (int, float)) else 0.0)
        o["first"].setdefault(str(c["status"]), c)
    tot = Counter(str(c["status"]) for c in calls)
    counts = ", ".join(f"{n} {st}" for st, n in sorted(tot.items(), key=lambda kv: (kv[0] != "match", kv[0])))
    out = [f"### Differential check against cuTile: {len(calls)} op calls" + (f", {counts}" if counts else "")
           + (f"; {unread} line{'s' if unread != 1 else ''} not read" if unread else ""), "",
           "Each op call of a c2t_triton case ran cuTile's op on copies of its arguments, then the converted op; "
           "results and arguments afterwards compared at the workflow's tolerances doubled (fp32 2e-3, fp16/bf16 "
           "2e-2, fp8 one unit in the last place, integers exact); outputs on which cuTile differs from itself are "
           "left out (match_except_varying). `used`: the largest |converted - cuTile| / (atol + rtol |cuTile|) "
           "over the matching calls (0: bit-identical). Other statuses: cutile2triton/tilegym_differential.py.", "",
           "| op | calls | tensors compared | match | mismatch | other | used | first mismatch or note |",
           "|---|---:|---:|---:|---:|---|---:|---|"]
    for op in sorted(ops):
        o = ops[op]
        other = ", ".join(f"{n} {st}" for st, n in sorted(o["n"].items()) if st not in ("match", "mismatch"))
        first = next((o["first"][st] for st in ("mismatch", "converted_raised", "cutile_raised",
                                                "match_except_varying", "not_compared") if st in o["first"]), None)
        note = ""
        if first:
            w = first.get("worst") if isinstance(first.get("worst"), dict) else {}
            if w.get("reason"):
                detail = f"{w.get('where')}: {w['reason']}"
            elif w:
                detail = f"{w.get('where')}: {w.get('beyond')} of {w.get('of')} beyond" + (
                    f", max abs {w['max_abs']:.3g}" if isinstance(w.get("max_abs"), (int, float)) else "")
            else:
                detail = first.get("error") or (f"varying: {', '.join(map(str, first.get('varying', [])))}"
                                                if first.get("varying") else "")
            test = str(first.get("test") or "?").split("::")[-1]
            note = f"{_cell(first['status'])} in `{_cell(test)}`" + (f": {_cell(detail)[:240]}" if detail else "")
        out.append(f"| {_cell(op)} | {sum(o['n'].values())} | {o['tensors']} | {o['n']['match']} | "
                   f"{o['n']['mismatch']} | {_cell(other)} | {o['used']:.3f} | {note} |")
    return out + [""]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rundir")
    ap.add_argument("--md")
    ap.add_argument("--xml")
    ap.add_argument("--xml-lines", type=int, default=25, help="traceback lines kept per failure in --xml")
    a = ap.parse_args()
    rows, suites = summarize(a.rundir)
    md = "\n".join([markdown(rows), *differential(a.rundir)])
    if a.md:
        Path(a.md).write_text(md)
    else:
        sys.stdout.write(md)
    if a.xml:
        root = ET.Element("testsuites")
        root.extend(suites)
        for parent in root.iter():  # keep the file small: no captured output, tracebacks cut to their end
            for child in list(parent):
                if child.tag in ("system-out", "system-err"):
                    parent.remove(child)
                elif child.tag in ("failure", "error") and child.text:
                    lines = child.text.splitlines()
                    if len(lines) > a.xml_lines:
                        child.text = "\n".join([f"[... {len(lines) - a.xml_lines} lines cut]"] + lines[-a.xml_lines:])
        ET.ElementTree(root).write(a.xml, encoding="utf-8", xml_declaration=True)


if __name__ == "__main__":
    main()
