"""The ``gpu``-marked checks on a CUDA machine, and what one training step of the paper's GPT-2 sizes costs there.

- ``tests``: ``python -m pytest -m gpu`` on ``checks/test_gpu.py`` and ``tests/test_gpt2.py`` in a child process; each
  test's outcome and seconds are read from its JUnit XML (a skipped test is stored as skipped, with its reason);
- ``paper_steps``: per width of ``slt.gpt2.figures.GPU_PLAN`` (the paper's sizes and recipe), 40 training steps of
  Figure 7's first configuration, timed with the device synchronised, and the full recipe's steps (epochs x steps per
  epoch) that one run of Figures 7-8 takes at that rate (validation included in the 40 steps, so an upper estimate).

Not a timed assertion. Without PyTorch or a CUDA device: one line, exit 2.  ``--write`` stores the figures in
``benchmarks/gpu-cuda.json`` (``--output`` elsewhere), which ``slth docs`` prints in docs/figures.md.

Usage: ``python benchmarks/bench_gpu.py [--commit SHA] [--write | --output PATH]``."""
from __future__ import annotations

import dataclasses
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run as a script: the repository's packages first

from benchmarks.common import InputError, machine, parser, run, write  # noqa: E402

OUTPUT = ROOT / "benchmarks" / "gpu-cuda.json"
PROG = "python benchmarks/bench_gpu.py"
FILES = ("checks/test_gpu.py", "tests/test_gpt2.py")
STEPS = 40


def junit_tests(path) -> list[dict]:
    """``[{"test", "outcome", "seconds", "reason"}]`` from a pytest JUnit XML file."""
    out = []
    for case in ET.parse(path).getroot().iter("testcase"):
        name = f"{case.get('classname', '').replace('.', '/')}.py::{case.get('name')}"
        node = next((n for n in map(case.find, ("failure", "error", "skipped")) if n is not None), None)
        outcome = "passed" if node is None else {"failure": "failed", "error": "error", "skipped": "skipped"}[node.tag]
        out.append({"test": name, "outcome": outcome, "seconds": round(float(case.get("time", 0)), 2),
                    "reason": "" if node is None else node.get("message", "")})
    return out


def gpu_tests() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        xml = Path(tmp) / "junit.xml"
        proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:xdist", "-p", "no:cacheprovider", "-m", "gpu",
                               "-q", f"--junitxml={xml}", *FILES], cwd=ROOT, capture_output=True, text=True)
        if not xml.exists():
            raise InputError(f"pytest wrote no JUnit file (exit {proc.returncode}): {proc.stderr.strip()[-300:]}")
        return {"exit": proc.returncode, "tests": junit_tests(xml)}


def paper_steps() -> list[dict]:
    import torch

    from slt.gpt2 import figures
    from slt.gpt2.train import run_item

    p = figures.plan(False, "cuda")
    full = p.recipe["epochs"] * p.recipe["steps_per_epoch"]
    rows = []
    for model in p.widths:
        task = figures.tasks("fig7", dataclasses.replace(p, widths=(model,), seeds=1))[0]
        params = dict(task.params, recipe=dict(task.params["recipe"], epochs=1, steps_per_epoch=STEPS, val_windows=64))
        torch.cuda.synchronize()
        start = time.perf_counter()
        out = run_item(seed=0, **params)
        torch.cuda.synchronize()
        seconds = time.perf_counter() - start
        rows.append({"n_layer": model["n_layer"], "d_model": model["d_model"], "n_head": model["n_head"],
                     "context": model["context"], "batch": p.recipe["batch"], "steps": STEPS,
                     "seconds": round(seconds, 2), "full_run_steps": full,
                     "full_run_estimate_s": round(seconds / STEPS * full, 1),
                     "weights_unchanged": bool(out["weights_unchanged"])})
        print(f"{model['n_layer']} x {model['d_model']}: {seconds / STEPS:.3f} s per step", flush=True)
    return rows


def main(argv=None) -> int:
    ap = parser(PROG, "the gpu-marked checks and the paper-size step cost on a CUDA device", OUTPUT)
    ap.add_argument("--output", type=Path, help="store the figures at this path instead")
    ap.add_argument("--commit", help="the commit the working tree is at (a copy without .git cannot tell)")
    args = ap.parse_args(argv)
    try:
        import torch
    except ImportError:
        raise InputError("PyTorch is not installed (the [torch] extra)") from None
    if not torch.cuda.is_available():
        raise InputError("no CUDA device visible to PyTorch: this benchmark runs only on a machine with one")
    where = machine()
    if args.commit:
        where["commit"] = args.commit
    data = {"command": PROG, "machine": where,
            "device": {"name": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda},
            "checks": gpu_tests(), "paper_steps": paper_steps()}
    for t in data["checks"]["tests"]:
        print(f"{t['outcome']:8s} {t['seconds']:7.2f} s  {t['test']}")
    if args.output or args.write:
        write(args.output or OUTPUT, data)
    return 0 if data["checks"]["exit"] == 0 else 1


if __name__ == "__main__":
    sys.exit(run(main, PROG))
