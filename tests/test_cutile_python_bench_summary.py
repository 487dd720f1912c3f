"""CPU test of benchmarks/gpu/cutile_python_bench_summary.py: pytest-benchmark JSON of cuTile's suite run as
it is (backends cutile, torch) and converted (backend cutile) are paired per case without the backend's
parameter id, wherever it stands; failures from the JUnit files and cases timed on one side are listed."""

import importlib.util
import json
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("cp_summary", ROOT / "benchmarks/gpu/cutile_python_bench_summary.py")
summary = importlib.util.module_from_spec(spec)
spec.loader.exec_module(summary)


def _bench_json(path, medians_s):
    path.write_text(json.dumps({"benchmarks": [{"name": n, "stats": {"median": m, "mean": m * 1.1}}
                                               for n, m in medians_s.items()]}))


def test_cases_pair_across_sides_and_backend_positions(tmp_path):
    _bench_json(tmp_path / "orig-bench_moe.json", {
        "bench_moe[110x1024-float16-cutile]": 40e-6, "bench_moe[110x1024-float16-torch]": 90e-6,
        "bench_moe[256x2048-bfloat16-cutile]": 100e-6})
    _bench_json(tmp_path / "conv-bench_moe.json", {
        "bench_moe[110x1024-float16-cutile]": 20e-6, "bench_moe[256x2048-bfloat16-cutile]": 125e-6,
        "bench_moe[1x1-float32-cutile]": 5e-6})
    _bench_json(tmp_path / "orig-bench_fft.json", {"bench_fft[cutile-16384x16-complex64]": 30e-6})
    (tmp_path / "conv-bench_fft.xml").write_text(
        '<testsuites><testsuite><testcase name="bench_fft[cutile-16384x16-complex64]">'
        '<failure message="AssertionError: Tensor-likes are not close!&#10;Mismatched elements: 3">x</failure>'
        '</testcase><testcase name="bench_fft[cutile-1x1-complex64]"/></testsuite></testsuites>')
    out = summary.summarize(tmp_path)
    assert "| bench_moe | 110x1024-float16 | 40.0 | 20.0 | 90.0 | 2.00× |" in out, out
    assert "| bench_moe | 256x2048-bfloat16 | 100.0 | 125.0 | — | 0.80× |" in out, out
    gm = math.sqrt(2.0 * 0.8)
    assert f"over 2 cases: **{gm:.2f}×**; below 0.8×: 0." in out, out
    assert "bench_moe[1x1-float32]: converted only" in out and "bench_fft[16384x16-complex64]: cuTile only" in out
    assert "- conv: bench_fft[cutile-16384x16-complex64]: AssertionError: Tensor-likes are not close!" in out, out


def test_split_name_keeps_other_ids():
    assert summary.split_name("bench_fft[cutile-16384x16-complex32]") == ("bench_fft", "16384x16-complex32", "cutile")
    assert summary.split_name("bench_x") == ("bench_x", "", "")


def test_nothing_timed_says_so(tmp_path):
    assert "No case was timed on both sides." in summary.summarize(tmp_path)
