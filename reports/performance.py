"""The measured figures of ``benchmarks/`` as the docs print them: the table of docs/performance.md (each command's
committed figure, cold and warm, beside its goal), and the sentences the README, docs/scale-out.md and docs/proofs.md
quote (``suite_time``, ``task_throughput``, ``diff_time``).

Every figure is read from the JSON file a script of ``benchmarks/`` wrote with ``--write`` (with the load average and
the cores it was taken at; the commit is in the file); a figure no committed file holds reads "not measured", never
a number from anywhere else. ``GOALS`` is the one list of commands and goals; ``table()`` renders it (``slth docs``
prints it into the page's ``performance-goals`` block).
"""
from __future__ import annotations

import re
from pathlib import Path

from slt.inputs import InputError, read_json

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
NOT_MEASURED = "not measured"


def _data(name: str):
    """The committed benchmark file ``name`` as read by the one JSON reader, or None when there is none."""
    path = BENCH / name
    return read_json(path, "benchmark file") if path.exists() else None


def _get(value, *keys):
    for k in keys:
        if isinstance(value, dict):
            value = value.get(k)
        elif isinstance(value, list) and isinstance(k, int) and -len(value) <= k < len(value):
            value = value[k]
        else:
            return None
    return value


def _num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _span(s: float) -> str:
    return f"{s:g} s" if s < 120 else f"{s:.0f} s ({s / 60:.1f} min)"


def _conditions(fig: dict, data: dict) -> str:
    """"load L, N cores" of a figure: its own ``machine``, else what its file recorded for it (a load no file
    recorded is left out)."""
    load = next((x for x in (_get(fig, "machine", "load", 0), fig.get("load_before"),
                             _get(data, "load_average_before", 0)) if _num(x)), None)
    m = re.search(r"(\d+) CPUs", data["machine"]) if isinstance(data.get("machine"), str) else None
    cores = next((x for x in (_get(fig, "machine", "cores"), fig.get("cores"), data.get("cores"),
                              m and int(m.group(1))) if _num(x)), None)
    return ", ".join(([f"load {load:.1f}"] if _num(load) else [])
                     + [f"{cores} cores" if _num(cores) else "cores not recorded"])


def figure(data, fig, how: str = "") -> str:
    """One figure: its wall and CPU seconds (what it has of them) and its conditions, or ``NOT_MEASURED``."""
    if not isinstance(fig, dict):
        return NOT_MEASURED
    if fig.get("timed_out") and _num(fig.get("limit_s")):
        return f"not finished in {_span(fig['limit_s'])} wall, stopped there{how} ({_conditions(fig, data)})"
    parts = [f"{_span(fig[k])} {w}" for k, w in (("cpu_s", "CPU"), ("wall_s", "wall")) if _num(fig.get(k))]
    if not parts:
        return NOT_MEASURED
    return f"{', '.join(parts)}{how} ({_conditions(fig, data)})"


def _fig(file: str, pick, how: str | None = ""):
    """A getter of the figure ``pick(data)`` of the committed file ``file``, said with ``how`` (None: with the
    command it timed)."""
    def get():
        data = _data(file)
        fig = pick(data)
        said = f" as `{fig['command']}`" if isinstance(fig, dict) and fig.get("command") else ""
        return figure(data, fig, said if how is None else how)
    return get


def _profile(name: str):
    return _fig("test-suite-time.json", lambda data: _get(data, "profiles", name), None)


def _command(key: str):
    return _fig("commands-time.json", lambda data: _get(data, "runs", key), None)


def _diff_run(i: int):
    return _fig("diff-time.json", lambda data: _get(data, "runs", i), f" (run {i + 1})")


def _coq(which: str):
    return _fig("coq-cold.json", lambda data: _get(data, which))


def _replay(key: str):
    return _fig("coq-replay.json", lambda data: next((r for r in _get(data, "rows") or [] if isinstance(r, dict)
                                                      and r.get("key") == key), None))


def _none():
    return NOT_MEASURED


GOALS = [
    # (command, goal, cold figure, warm figure, the script that measures it)
    ("`python -m pip install -e . && slth report` (the README's main command; measured: `slth report`, the install "
     "not counted)", "cold: at most 60 s CPU, kernel verdicts included", _command("report-cold"),
     _command("report-warm"), "python benchmarks/bench_commands.py --write"),
    ("`python -m pytest checks` as typed", "cold: at most 300 s wall on 2 cores; warm: at most 30 s wall",
     _profile("checks-cold"), _profile("checks-warm"), "python benchmarks/bench_checks.py --write"),
    ("`slth diff --against HEAD` after a one-constant edit", "second run: at most 3 s wall",
     _diff_run(0), _diff_run(1), "python benchmarks/bench_diff.py --write"),
    ("`slth proofs --axioms --coq`", "cold: at most 120 s CPU", _coq("cold"), _coq("warm"),
     "python benchmarks/bench_axioms_coq.py --write"),
    ("`python -m pip install -e '.[torch]' && python -m pytest -n auto` (the README's test command)",
     "at most 15 min wall on 2 cores, fresh clone", _profile("default"), _none,
     "python benchmarks/bench_suite.py --write"),
    ("`slth proofs`", "cold: at most 30 s CPU", _command("proofs-cold"), _command("proofs-warm"),
     "python benchmarks/bench_commands.py --write"),
    ("`slth proofs` after a one-constant edit of `bounds/` (Theorem 11's split eps/4 -> eps/5)", "at most 30 s",
     _command("proofs-edit"), _none, "python benchmarks/bench_commands.py --write"),
    ("`slth proofs` after Theorem 14's kappa 65 -> 64.2", "at most 30 s", _command("proofs-edit-kappa"), _none,
     "python benchmarks/bench_commands.py --write"),
    ("`slth proofs` after Lemma 13's factor 2 -> 1.99", "at most 30 s", _command("proofs-edit-lemma13"), _none,
     "python benchmarks/bench_commands.py --write"),
    ("`slth proofs --slack` (the slack of every constant)", "cold: at most 120 s", _command("slack-cold"), _none,
     "python benchmarks/bench_commands.py --write"),
    ("the Coq replay of every step (`bounds.prove.coq`)", "no goal of its own", _replay("replay-cold"),
     _replay("replay-warm"), "python benchmarks/bench_coq.py --write"),
]
"""Each command, its goal, how its cold and warm figures are read from the committed files, and the command that
measures them."""


def _label(row: dict) -> str:
    return re.sub(r" tcp://\S+", "", str(row.get("label")))  # the scheduler's port of that run says nothing


def others() -> str:
    """The figures that are neither cold nor warm runs of a command with a goal: the task throughput
    (``bench_tasks.py``), ``slth proofs`` as the caches stood and the re-check alone (``bench_recheck``), ``slth
    proofs`` and ``slth proofs --coq`` after the replay (``bench_coq.py``)."""
    out = []
    data = _data("bench_tasks.json")
    rows = [r for r in (_get(data, "rows") or []) if isinstance(r, dict) and _num(r.get("tasks_per_s"))]
    out.append("task throughput (`python benchmarks/bench_tasks.py --write`): " + (
        "; ".join(f"{_label(r)} with {r.get('workers')} worker(s) "
                  f"{r['tasks_per_s']:.2f} tasks/s ({_conditions(r, data)})" for r in rows) or NOT_MEASURED))
    data = _data("recheck-time.json")
    fig = {"cpu_s": data.get("slth_proofs_cpu_s"), "wall_s": data.get("slth_proofs_wall_s"),
           "machine": data.get("machine")} if isinstance(data, dict) else None
    out.append("`slth proofs` with the caches as they stood (`python -m benchmarks.bench_recheck --write`): "
               + figure(data, fig) + (f"; the re-check of {data.get('certificates')} certificates alone "
                                      f"{data.get('recheck_cpu_s')} s CPU" if fig and _num(data.get("recheck_cpu_s"))
                                      else ""))
    for key, words in (("proofs", "`slth proofs` after the Coq replay"), ("proofs-coq-warm", "`slth proofs --coq`, "
                                                                          "warm folder")):
        out.append(f"{words} (`python benchmarks/bench_coq.py --write`): {_replay(key)()}")
    return "Other figures:\n\n" + "\n".join(f"- {line}" for line in out)


def table() -> str:
    """The generated block: one row per ``GOALS`` entry, cold and warm."""
    rows = md_table(["command", "goal", "cold", "warm", "measured by"],
                    [[command, cell(goal), cell(cold()), cell(warm()), f"`{script}`" if script else "no script"]
                     for command, goal, cold, warm, script in GOALS])
    note = ("Cold: empty caches; warm: the same command again with nothing changed. Each figure is the one its "
            "benchmark last committed, with the cores it ran on and the commit it measured (in its file); "
            f"\"{NOT_MEASURED}\": no committed benchmark holds it.")
    return "\n".join(rows + ["", others()]) + "\n\n" + note


# --- the measurements the README and docs quote in sentences -----------------------------------------------------

def read_committed(path) -> dict:
    """A committed data file, read through the one bounded reader (a truncated or empty file is one line)."""
    data = read_json(path, "committed data file")
    if not isinstance(data, dict):
        raise InputError(f"committed data file {path}: not a JSON object")
    return data


def cell(text: str) -> str:
    """``text`` as one cell of a Markdown table."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def md_table(columns: list[str], rows) -> list[str]:
    """A Markdown table's lines: the header of ``columns``, its rule, and one line per row (a list of cells)."""
    head = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    return head + ["| " + " | ".join(map(str, row)) + " |" for row in rows]


SUITE_TIME = ROOT / "benchmarks" / "test-suite-time.json"
"""The measured wall time of the test run (``{"profiles": {name: {"wall_s", "cores", "command"}}, "created"}``),
written by whoever measures it; the README quotes it."""


def suite_time() -> str:
    """How long the test run takes, from ``SUITE_TIME`` (a sentence saying it is not measured when absent)."""
    if not SUITE_TIME.exists():
        return (f"How long the test run takes is not measured yet (`{SUITE_TIME.relative_to(ROOT)}` holds the "
                "measurement).")
    data = read_committed(SUITE_TIME)

    def span(s: float) -> str:
        return f"{s:g} s" if s < 120 else f"{round(s / 60, 1):g} minutes"

    parts = []
    for p in data["profiles"].values():
        extra = [f"{span(p['cpu_s'])} of CPU"] if "cpu_s" in p else []
        label = f" ({p['label']})" if p.get("label") else ""
        parts.append(f"`{p['command']}`{label} {span(p['wall_s'])} wall on {p['cores']} cores"
                     + (f" ({', '.join(extra)})" if extra else ""))
    return "Measured: " + "; ".join(parts) + "."


TASK_THROUGHPUT = ROOT / "benchmarks" / "bench_tasks.json"
"""The measured throughput of ``slt.tasks`` (written by ``python benchmarks/bench_tasks.py``); docs/scale-out.md
quotes it."""


def task_throughput() -> str:
    """The task-throughput table of ``TASK_THROUGHPUT``, with the machine as measured."""
    data = read_committed(TASK_THROUGHPUT)
    rows = data["rows"]
    one = next(r for r in rows if r["workers"] == 1 and "LocalCluster" in r["label"])
    out = [f"Measured by `{data['command'].split(' --output')[0]}` : {data['tasks']} "
           f"'{data['work']}' tasks of about {1 / one['tasks_per_s']:.2f} s each on one worker, best of "
           f"{len(one['runs'])} runs, on {data['cores']} cores:", ""]
    out += md_table(["configuration", "workers", "tasks/s", "speed-up vs 1 worker", "efficiency"],
                    [[cell(re.sub(r" tcp://\S+", f" ({r['workers']} worker processes)", r["label"])), r["workers"],
                      f"{r['tasks_per_s']:.2f}", f"{r['speedup_vs_1_worker']:.2f}", f"{r['efficiency']:.2f}"]
                     for r in rows])
    best = max((r for r in rows if r["workers"] == 2 and "LocalCluster" in r["label"]), key=lambda r: r["tasks_per_s"],
               default=None)
    ext = next((r for r in rows if "tcp://" in r["label"]), None)
    if best and ext:
        out += ["", f"The external scheduler's rate is {100 * (1 - ext['tasks_per_s'] / best['tasks_per_s']):.0f}% "
                    "below the LocalCluster's at the same number of workers."]
    return "\n".join(out)


DIFF_TIME = ROOT / "benchmarks" / "diff-time.json"
"""The measured runs of ``slth diff --against HEAD`` after a one-constant edit (``{"edit", "command", "cores",
"runs": [{"run", "wall_s", "cpu_s", "exit", "load_before", "verified"}], "created"}``), written by
``python benchmarks/bench_diff.py --write``; docs/proofs.md quotes it."""


def diff_time() -> str:
    """How long ``slth diff --against HEAD`` takes after a one-constant edit, run after run, from ``DIFF_TIME``
    (a sentence saying it is not measured when absent)."""
    if not DIFF_TIME.exists():
        return (f"How long it takes is not measured yet (`{DIFF_TIME.relative_to(ROOT)}` holds the measurement, "
                "`python benchmarks/bench_diff.py --write` writes it).")
    data = read_committed(DIFF_TIME)
    runs = "; ".join(f"run {r['run']}: {r['wall_s']:g} s wall, {r['cpu_s']:g} s CPU" for r in data["runs"])
    return (f"Measured (`{data['command']}`: {data['edit']} in a fresh clone with an empty cache folder, then the "
            f"diff run {len(data['runs'])} times on {data['cores']} cores): {runs}.")


def gpu_run() -> str:
    """The lent CUDA machine's run of ``benchmarks/bench_gpu.py`` (``gpu-cuda.json``): the ``gpu``-marked checks'
    outcomes and the paper-size step cost, with what a full Figure 8 at the paper's sizes would take at that rate."""
    from slt.gpt2 import figures

    data = _data("gpu-cuda.json")
    if not isinstance(data, dict):
        return "The `gpu`-marked checks have no committed run on a CUDA device (`benchmarks/bench_gpu.py`)."
    dev, tests = data["device"], data["checks"]["tests"]
    done = "; ".join(f"`{t['test']}` {t['outcome']} ({t['seconds']:g} s)" for t in tests)
    steps = data["paper_steps"]
    rates = " and ".join(f"{r['seconds'] / r['steps']:.3g} s at {r['n_layer']} x {r['d_model']}" for r in steps)
    full = " and ".join(f"{r['full_run_estimate_s'] / 60:.0f}" for r in steps)
    plan = figures.plan(False, "cuda")
    runs = {r["d_model"]: len(set(plan.scales) | {figures.theory_scale(r["d_model"] // r["n_head"])}) * plan.seeds
            for r in steps}
    hours = sum(runs[r["d_model"]] * r["full_run_estimate_s"] for r in steps) / 3600
    return (f"On a CUDA device ({dev['name']}, PyTorch {dev['torch']}, CUDA {dev['cuda']}; commit "
            f"`{data['machine']['commit']}`), `{data['command']}`: {done}. One training step of the paper's recipe "
            f"took {rates} ({steps[0]['steps']} steps, validation included), so one run of "
            f"{steps[0]['full_run_steps']:,} steps takes about {full} minutes, and Figure 8 at the paper's sizes "
            f"({' + '.join(str(runs[r['d_model']]) for r in steps)} runs) about {hours:.0f} GPU-hours: the paper-size "
            "figures were not run; Figures 7-8 are decided at the small sizes on the CPU.")
