"""What a Coq run will cost, said before it starts: which coqc calls it needs (``plan``) and their CPU time and memory
as measured (``benchmarks/coq-cold.json``, written by ``benchmarks/bench_axioms_coq.py``: one figure per coqc call,
``compile:<file>``, ``check``, ``axioms`` (one coqc for every step file's ``Print Assumptions``), ``math:<file>``;
the median of the last cold runs measured).

A step file needs coqc when its text (with Common's and coqc's version) or its ``.vo`` differs from the build
folder's record (``build_dir``); then the statement check runs again (keyed by every ``.vo``), and its records say
what the lemmas rest on (``statement_check.assumptions``): the ``axioms`` call is needed only for a build folder
whose check records lack that list, or where it names an axiom beyond Coq's standard ones.  A mathematics file
needs coqc when its text, a file it imports or its ``.vo`` changed (``coq_math.compile``'s record), and
``rests_on`` when any of them did.  A call the table does not know costs the
largest figure of its kind."""
from __future__ import annotations

import json
from pathlib import Path

from .build import build_dir, build_root, current, load_state
from .files import entries, file_key, text
from .runner import JOBS_ENV, coqc_version
from .tactics import load_tactics

ROOT = Path(__file__).resolve().parents[3]
TABLE = ROOT / "benchmarks" / "coq-cold.json"
PYTHON_MB = 100
"""Peak memory of the Python process itself (SymPy, the catalogue, the exporter: 80 MB measured), beside its coqc
children."""


def table(path: Path = TABLE) -> dict:
    """``{stage: {"cpu_s", "rss_mb"}}`` as measured ({} when the file is missing or unreadable)."""
    try:
        stages = json.loads(path.read_text()).get("stages", {})
        return {k: v for k, v in stages.items() if isinstance(v, dict)}
    except (OSError, ValueError, AttributeError):
        return {}


def python_cpu(path: Path = TABLE) -> float:
    """The CPU seconds of the Python process itself in the measured cold runs (``python_cpu_s``, their median, or
    ``cold.python_cpu_s`` of a table of one run: the exporter, the catalogue, the queries' parsing), 0.0 when the
    file lacks it."""
    try:
        data = json.loads(path.read_text())
        value = data.get("python_cpu_s", data.get("cold", {}).get("python_cpu_s", 0.0))
        return float(value) if isinstance(value, (int, float)) and value >= 0 else 0.0
    except (OSError, ValueError, AttributeError):
        return 0.0


def plan(directory, axioms: bool = True, math: bool = True) -> list[str]:
    """The coqc calls (stages) a ``--coq`` run into ``directory`` will make now."""
    directory = Path(directory).resolve()
    build = build_dir(directory)
    ents = entries()
    tactics = load_tactics()
    version = coqc_version()
    state = load_state(build / "state.json")
    files = state.get("files", {}) if state.get("version") == version and isinstance(state.get("files"), dict) else {}
    stages, keys = [], {}
    for stem in ents:  # Common first: every other file's key includes Common's
        full = text(stem, ents[stem], tactics)
        keys[stem] = file_key(full, version, "" if stem == "Common" else keys["Common"])
        if not current(files.get(stem), keys[stem], build / f"{stem}.vo"):
            stages.append(f"compile:{stem}")
    if stages or not isinstance(state.get("check"), dict):
        stages.append("check")
    checked = state.get("check") if isinstance(state.get("check"), dict) else {}
    recorded = isinstance(checked.get("files"), dict) and all(
        isinstance(r, dict) and isinstance(r.get("axioms"), list) for r in checked["files"].values())
    if axioms and not stages and not isinstance(state.get("axioms"), dict) and not recorded:
        stages.append("axioms")  # else the statement check's records say what the lemmas rest on
    if math:
        stages += math_plan(version)
    return stages


def math_plan(version: str) -> list[str]:
    from .. import coq_math
    try:
        folder = build_root() / "math"
        rec = load_state(folder / coq_math.STATE)
    except OSError:
        rec = {}
    files = coq_math.with_statements()
    done = rec.get("files", {}) if rec.get("version") == version and isinstance(rec.get("files"), dict) else {}
    digest, out = coq_math.keys(files, version), []
    for stem in coq_math.order(files):
        if not current(done.get(stem), digest[stem], folder / f"{stem}.vo"):
            out.append(f"math:{stem}")
    if out or not (build_root() / "math" / coq_math.RESTS).exists():
        out.append("math:StatementAssumptions")
    return out


def estimate(stages: list[str], jobs: int, measured: dict | None = None) -> dict:
    """``{"cpu_s", "wall_s", "peak_mb", "peak_one_mb"}`` of the stages: CPU summed, wall time on ``jobs`` free cores
    (the CPU shared out, never less than the longest call), peak memory with ``jobs`` coqc at once and with one."""
    measured = table() if measured is None else measured

    def cost(stage):
        if stage in measured:
            return measured[stage]
        kind = stage.split(":")[0]
        same = [v for k, v in measured.items() if k.split(":")[0] == kind] or list(measured.values()) or [
            {"cpu_s": 0.0, "rss_mb": 0}]
        return {"cpu_s": max(v["cpu_s"] for v in same), "rss_mb": max(v["rss_mb"] for v in same)}

    costs = [cost(s) for s in stages]
    cpu = sum(c["cpu_s"] for c in costs)
    rss = sorted((c["rss_mb"] for c in costs), reverse=True)
    return {"cpu_s": cpu, "wall_s": max([cpu / max(1, jobs)] + [c["cpu_s"] for c in costs]),
            "peak_mb": PYTHON_MB + sum(rss[:jobs]), "peak_one_mb": PYTHON_MB + (rss[0] if rss else 0)}


def message(stages: list[str], jobs: int, measured: dict | None = None, python_s: float | None = None) -> str:
    """One line: what the run needs before it starts (nothing, or the coqc calls with their CPU and memory); the CPU
    said is the coqc calls' and the Python process's (``python_s``, default: ``python_cpu()`` when ``measured`` is
    the committed table, else 0)."""
    if not stages:
        return "warm: every Coq file is compiled and every Print Assumptions recorded; no coqc to run"
    python_s = (python_cpu() if measured is None else 0.0) if python_s is None else python_s
    e = estimate(stages, jobs, measured)
    e["cpu_s"] += python_s
    kinds = {k: sum(s.split(":")[0] == k for s in stages) for k in ("compile", "check", "axioms", "math")}
    what = ", ".join(n for n in (f"{kinds['compile']} step file(s) to compile" if kinds["compile"] else "",
                                 "the statement check" if kinds["check"] else "",
                                 f"{kinds['axioms']} Print Assumptions run(s)" if kinds["axioms"] else "",
                                 f"{kinds['math']} mathematics coqc call(s)" if kinds["math"] else "") if n)
    one = (f"; with {JOBS_ENV}=1 about {e['peak_one_mb'] / 1024:.1f} GB and {e['cpu_s']:.0f} s on one core"
           if jobs > 1 else "")
    return (f"needs {len(stages)} coqc call(s) ({what}): about {e['cpu_s']:.0f} s of CPU, {e['wall_s']:.0f} s on "
            f"{jobs} free core(s), {e['peak_mb'] / 1024:.1f} GB at peak with {jobs} coqc at once{one} "
            f"(measured per call in benchmarks/coq-cold.json); warm (nothing changed): no coqc")


def summary(path: Path = TABLE) -> str:
    """The measured cold and warm cost of ``slth proofs --axioms --coq`` as a paragraph (``slth docs`` prints it
    into docs/kernel-checked.md): the newest cold run's own figures, then what the estimates read (the median per
    call over the runs the table keeps); ``KeyError`` or ``TypeError`` when the file lacks a figure."""
    data = json.loads(path.read_text())
    runs = data.get("runs") or [{"stages": data["stages"]}]
    st, cold, warm = runs[0]["stages"], data["cold"], data["warm"]

    def part(kind, prefix=None):
        calls = {k: v for k, v in st.items() if k.split(":")[0] == kind and (prefix is None or k.startswith(prefix))}
        return len(calls), sum(v["cpu_s"] for v in calls.values()), calls

    nc, cc, comp = part("compile")
    na, ca, _ = part("axioms")
    _, cm, _ = part("math")
    big = max(comp, key=lambda k: comp[k]["cpu_s"])
    sa = st.get("math:StatementAssumptions", {"cpu_s": 0.0})["cpu_s"]
    coq = cc + st["check"]["cpu_s"] + ca + cm
    two = sorted((v["rss_mb"] for v in st.values()), reverse=True)[:2]
    where = data.get("machine") or "machine not recorded"
    return (f"Measured (`benchmarks/bench_axioms_coq.py`; {where}): cold, from an empty cache, "
            f"`slth proofs --axioms --coq` makes {len(st)} coqc calls, {coq:.0f} s of CPU: {nc} step files "
            f"compiled ({cc:.0f} s, {big.split(':')[1]}.v {comp[big]['cpu_s']:.0f} s of it), the statement check "
            f"({st['check']['cpu_s']:.0f} s, with the one `Print Assumptions` for the tuple of every checked constant: "
            f"one query, since each query walks CoqInterval's proofs again and Coq keeps nothing between two; what "
            f"the kernel-checked lemmas rest on is read from it"
            + (f", and {na} more `Print Assumptions` run(s), {ca:.0f} s" if na else ", no other `Print Assumptions` "
               "of the lemmas") +
            f") and the mathematics files ({cm - sa:.0f} s) with one `Print Assumptions` for the tuple of the "
            f"statement theorems ({sa:.0f} s); with Python, {cold['cpu_s']:.0f} s of CPU in all. Each coqc that loads CoqInterval holds "
            f"{min(v['rss_mb'] for v in comp.values()) / 1024:.2f} to {max(v['rss_mb'] for v in st.values()) / 1024:.2f}"
            f" GB; two at once about {sum(two) / 1024:.1f} GB. Warm (nothing changed), the same command runs "
            f"{warm.get('coqc_calls', 0)} coqc calls: {warm['cpu_s']:.1f} s of CPU, {warm['max_rss_mb']} MB."
            f" The estimates add up, per coqc call, the median over the last {len(runs)} cold run(s) the file keeps"
            f" ({sum(v['cpu_s'] for v in data['stages'].values()):.0f} s of CPU for these calls)."
            + (f" The estimate the command printed before this cold run started: {cold['estimate_cpu_s']:.0f} s of "
               f"CPU, {cold['estimate_off']:+.1%} of what it spent (the benchmark records whether that is within 25%)."
               if "estimate_cpu_s" in cold else ""))
