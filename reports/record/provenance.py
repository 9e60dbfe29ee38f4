"""Where a run record comes from: the git commit and dirty flag, the hash of ``bounds/``, package versions, seeds,
the command and the wall times."""
from __future__ import annotations

import datetime
import hashlib
import platform
import subprocess
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
"""The repository root (the git checkout whose commit the record names)."""
PACKAGES = ("slth-harness", "numpy", "scipy", "sympy", "mpmath", "numba", "jinja2", "matplotlib", "hypothesis",
            "dask", "distributed", "torch", "gurobipy", "highspy")


def _git(*args) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def package_version(name: str) -> str | None:
    """The installed version of package ``name``, or None when it is not installed."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def bounds_hash() -> str:
    digest = hashlib.sha256()
    base = ROOT / "bounds"
    for source in sorted(base.rglob("*.py")):
        digest.update(str(source.relative_to(base)).encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()


def provenance(seed: int, command: str, wall: dict) -> dict:
    from bounds.prove.verify import SEED  # here: the version lookup above is also read where bounds is not loaded

    packages = {name: v for name in PACKAGES if (v := package_version(name)) is not None}
    commit = _git("rev-parse", "HEAD")
    status = _git("status", "--porcelain")
    return {"git_commit": commit.strip() if commit else None, "git_dirty": None if status is None else bool(status.strip()),
            "bounds_hash": bounds_hash(), "packages": packages, "python": platform.python_version(),
            "platform": platform.platform(), "seeds": {"base": int(seed), "verifier": int(SEED)},
            "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "command": command, "wall_s": wall}
