"""Prints the spill census (c2t_census_spill.py) grouped: count, (bench file, kernel, warps, spills at the rule's warps, at
twice, with TMA descriptors at the rule's, whether descriptors were chosen).

    python3 benchmarks/gpu/census/spill_summary.py CENSUS.jsonl ..."""
import collections
import json
import re
import sys

seen = collections.Counter()
for path in sys.argv[1:]:
    try:
        for l in open(path):
            r = json.loads(l)
            seen[((re.findall(r"bench_\w+\.py", r["argv"]) or [r["argv"][:40]])[-1], r["kernel"], r["warps"], r["spills"], r["spills_twice"],
                  r.get("spills_tma"), r.get("tma", False))] += 1
    except FileNotFoundError:
        print("no census", path)
for k, n in sorted(seen.items()):
    print(n, k)
