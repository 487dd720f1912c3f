"""Human-readable output: progress bar and summary tables (rich when installed,
plain text otherwise; rich is optional so that conversion needs nothing else)."""

from __future__ import annotations

import sys
from collections import Counter
from typing import List

try:  # optional dependency
    from rich.console import Console
    from rich.progress import Progress as _RichProgress
    from rich.table import Table
except ImportError:  # pragma: no cover - exercised when rich is absent
    Console = _RichProgress = Table = None


class Progress:
    """A progress bar over files for directory runs (stderr; silent when not a terminal)."""

    def __init__(self, enabled: bool):
        self._bar = None
        if enabled and _RichProgress is not None and sys.stderr.isatty():
            self._bar = _RichProgress(console=Console(stderr=True), transient=True)
            self._task = self._bar.add_task("converting", total=None)
            self._bar.start()

    def advance(self, report) -> None:
        if self._bar is not None:
            self._bar.update(self._task, advance=1, description=f"converting {report.source}")

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()


def _first_error(r) -> str:
    """The first error for the file's row: `line:col: message`, or the message alone when it has no
    position (e.g. an unusable output path), without the file name the row already shows."""
    for d in r.diagnostics:
        if d.get("severity") == "error":
            msg = d["message"]
            for prefix in (f"{r.source}: error: ", f"{r.output}: error: " if r.output else None):
                if prefix and msg.startswith(prefix):
                    msg = msg[len(prefix):]
            return f"{d['line']}:{d['col']}: {msg}" if d.get("line") else msg
    return ""


def print_summary(reports: List, verbose: bool) -> None:
    """One row per file (for folder runs) and the counts per outcome."""
    counts = Counter(r.status for r in reports)
    # A failed file's row names no output: nothing was written there.
    rows = [(r.source, r.status, "" if r.status == "failed" else r.output or "", _first_error(r))
            for r in reports if verbose or r.status != "skipped"]
    if Table is not None and verbose and sys.stdout.isatty():
        t = Table(title="cutile2triton convert")
        for col in ("file", "status", "output", "first diagnostic"):
            t.add_column(col, overflow="fold")
        for row in rows:
            t.add_row(*row)
        Console().print(t)
    elif verbose:
        for row in rows:
            print("  ".join(x for x in row if x))
    summary = ", ".join(f"{counts[k]} {k}" for k in ("converted", "unchanged", "would-change", "failed", "exists", "skipped") if counts[k])
    if not verbose and len(reports) == 1 and reports[0].status in ("converted", "unchanged", "would-change") \
            and reports[0].output:
        summary += f": {reports[0].output}"  # a single file's row is not printed: where it went (or would)
    elif not verbose and len(reports) == 1 and reports[0].status == "failed":
        summary += f": {reports[0].source} (diagnostics on stderr, no file written)"
    elif not verbose and len(reports) == 1 and reports[0].status == "skipped":
        summary += f": {reports[0].source} has no cuda.tile import, nothing to convert (no file written)"
    print(summary or "no files: no .py file under the given paths")


def _param_text(p: dict) -> str:
    kind = p.get("kind")
    if kind == "array" and p.get("rank"):
        return f"{p.get('name', '?')}: {p['rank']}-D array"
    if kind == "launch_constant":  # read from the kernel's enclosing scope, not passed by ct.launch
        return f"{p.get('name', '?')}: constexpr read at launch"
    return p.get("name", "?") + (f": {kind}" if kind else "")


def _access_text(a: dict) -> str:
    """One memory access of the pre-flight report in words: `line 28: load of A (2-D tile, padding ZERO):
    pointer path; TMA: descriptor A_desc behind USE_TMA ...`."""
    op = a.get("op", "?")
    what = {"load": "load of", "store": "store to", "gather": "gather from", "scatter": "scatter to"}.get(op, f"{op} on")
    padding = {"UNDETERMINED": "unspecified"}.get(a.get("padding"), a.get("padding"))  # cuTile's default
    shape = [f"{a['tile_rank']}-D tile" if a.get("tile_rank") else "", f"padding {padding}" if padding else "",
             f"order {a['order']}" if a.get("order") not in (None, "", "C") else ""]
    detail = ", ".join(x for x in shape if x)
    path = {"pointer_mask": "pointer + mask", "pointer_unmasked": "pointer, no mask (bounds checks off)",
            "pointer_scalar": "scalar pointer"}.get(a.get("strategy"), a.get("strategy") or "?")
    note = a.get("tma_note") or ""
    if a.get("tma_candidate"):
        tma = f"; TMA: {note}" if note else ""
    else:  # why there is no descriptor path, for tiles of 2-D+ arrays (TileGym's usual case)
        tma = f"; no TMA: {note}" if note and (a.get("array_rank") or 0) >= 2 else ""
    return f"line {a.get('line')}: {what} {a.get('array')}{f' ({detail})' if detail else ''}: {path}{tma}"


def print_analysis(results: List[dict]) -> None:
    """The pre-flight report as text (the workflow's first phase): per file whether it converts, per
    kernel its parameters, every tile memory access with the path the converter takes, the cuTile
    operations, helpers and layout flags, then the host code's launches and diagnostics."""
    for res in results:
        print(f"{res.get('file')}:")
        if not res.get("is_cutile", True):
            print("  not a cuTile module (no cuda.tile import): nothing to convert")
        elif res.get("ok"):
            print(f"  converts: yes ({len(res.get('kernels', []))} kernel(s))")
        else:
            errors = sum(d.get("severity") == "error" for d in res.get("diagnostics", []))
            print(f"  converts: no ({errors} error(s), below)")
        for k in res.get("kernels", []):
            params = ", ".join(_param_text(p) for p in k.get("params", []))
            print(f"  kernel {k.get('name')}({params})  line {k.get('line')}")
            for a in k.get("accesses", []):
                print(f"    {_access_text(a)}")
            if k.get("ops"):
                print(f"    cuTile operations: {', '.join(k['ops'])}")
            for u in k.get("unsupported", []):  # what stops the kernel converting, next to its operations
                print(f"    not convertible: {u.get('what')} at line {u.get('line')} (error below)")
            if k.get("helpers"):
                print(f"    helpers called: {', '.join(k['helpers'])}")
            if k.get("layout_flags"):
                print(f"    layout flags (constexpr; one kernel per value is the workflow's option where one mode is "
                      f"slow): {', '.join(k['layout_flags'])}")
            for n in k.get("notes", []):
                print(f"    note: {n}")
        host = res.get("host") or {}
        if res.get("is_cutile", True) and host:
            parts = [f"{host.get('launch_sites', 0)} ct.launch call(s)"]
            if host.get("autotune"):
                parts.append(f"autotuning: {len(host['autotune'])} search(es)")
            if host.get("register_impl"):
                parts.append(f"register_impl: {len(host['register_impl'])}")
            print(f"  host code: {'; '.join(parts)}")
        rendered = res.get("rendered")
        if rendered:  # compiler form, as convert prints it: file:line:col, the source line, a caret
            print("\n".join("  " + ln for ln in rendered.rstrip("\n").split("\n")))
        else:
            for d in res.get("diagnostics", []):
                print(f"  {res.get('file')}:{d.get('line')}:{d.get('col')}: {d.get('severity')}: {d.get('message')}")
        if res.get("is_cutile", True) and not res.get("kernels") and not res.get("diagnostics"):
            print("  (no cuTile kernels)")


def _by_family(ops: List[dict]) -> dict:
    families: dict = {}
    for op in ops:
        families.setdefault(op["family"], []).append(op)
    return families


def print_operations(ops: List[dict]) -> None:
    """`cutile2triton ops`: per family, each operation as written in cuTile code, then what Triton does."""
    for family, members in _by_family(ops).items():
        print(f"{family}:")
        for op in members:
            print(f"  {op['call']}\n      -> {op['triton']}")
    print(f"{len(ops)} operations")


def operations_markdown(ops: List[dict]) -> str:
    """`cutile2triton ops --markdown`: the text of docs/OPERATIONS.md."""
    cell = lambda t: t.replace("|", "\\|")  # noqa: E731
    out = ["# Supported cuTile operations", "",
           "Generated by `cutile2triton ops --markdown` from the converter's registry (one entry per operation, "
           "`cpp/lower/op_registry.h`); `tests/test_cli.py` checks that this file is its current output. "
           "An operation not listed is reported at conversion as one cutile2triton does not support, with the "
           "file, line and column. `=` marks optional parameters. Python operators on tiles (`+`, `*`, `//`, `@`, "
           "comparisons, `~`, ...) are lowered as the operation they stand for (`ct.add`, `ct.mul`, `ct.floordiv`, "
           "`ct.matmul`, ...).", "",
           f"{len(ops)} operations in {len(_by_family(ops))} families.", ""]
    for family, members in _by_family(ops).items():
        out += [f"## {family}", "", "| cuTile | converted Triton |", "|---|---|"]
        out += [f"| `{cell(op['call'])}` | {cell(op['triton'])} |" for op in members]
        out.append("")
    return "\n".join(out)
