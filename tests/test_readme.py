"""The README's "Your first kernel" commands run as written (the command line swapped for `python -m
cutile2triton`, the same entry point): a newcomer's first step must not rot."""

import os
import re
import subprocess
import sys
from pathlib import Path

import cutile2triton

ROOT = Path(__file__).resolve().parent.parent


def test_readme_first_kernel_runs(tmp_path):
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"Your first kernel[^\n]*\n```bash\n(.*?)\n```", readme, re.S).group(1)
    script = re.sub(r"^cutile2triton ", f"{sys.executable} -m cutile2triton ", block, flags=re.M)
    script = script.replace("python3 -c", f"{sys.executable} -c")
    pkg_parent = str(Path(cutile2triton.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([pkg_parent, str(tmp_path)]))
    r = subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().splitlines()[-1] == "True", r.stdout + r.stderr
