"""The paper's figures as registered definitions, run on ``slt.tasks`` (``slth reproduce NAME``).

Layout (one job per module, no branching on figure names):

- ``plans``: ``Plan`` (widths, lengths, sources, ...) and the protocol constants (``TOL``, ``FIT_FLOOR``, ...);
- ``targets``: targets, test data, tickets and per-source errors (the numerics the figures share; worker side);
- ``fig4``, ``fig5``, ``fig6``: one module per figure definition (Section 4.2 / Appendix B.1);
- ``summaries``: per-width statistics over sources, summary files;
- ``fits``: exponential decays, length trends.

THE REGISTRY: ``REGISTRY`` maps a name to a ``Figure`` object; ``register(figure)`` adds one (a figure module
registers itself when imported; ``_load_all`` imports every module of the package that calls ``register``, on
first use). A figure
provides:

- ``name`` (e.g. "fig4"), ``title``, ``paper`` (the paper's numbers it is compared with, a dict);
- ``plan(quick) -> Plan`` (``plans`` dict keyed by ``quick``; tests may swap entries);
- ``target(plan, results_dir, train, log) -> (target_params: dict, info: dict)``: what every task needs to
  rebuild the target (JSON) and a description (``info["tag"]``, ``info["trained"]``);
- ``tasks(plan, target_params, info) -> list[slt.tasks.Task]``: one independent task per (configuration, seed),
  whose function (``task_fn``: a module-level function, as a ``staticmethod``; ``slt.tasks.Task`` stores its
  "package.module:function" name) returns a JSON-able dict of finite numbers;
- ``summarise(plan, rows, info) -> dict``: the payload entries computed from ``rows`` (``[(params, seed, result)]``):
  ``summary`` (``summaries.summarise``) and the fits;
- ``next_plan(plan, payload) -> Plan | None`` (optional): a sequential design's next look (Figures 7-8: more
  seeds where a look left the verdict undecided); ``reproduce`` runs looks until it returns None;
- ``extra(plan, rows, payload, **run) -> dict`` (optional): more sweeps (Figure 4's mixed-integer floor);
- ``findings(payload) -> (verdict: dict, findings: list[str])``: the headline statements, each decided from the
  numbers in the payload; stored in the summary, so reports render them without deciding anything;
- ``render``: hints for the report (dict: ``kind`` = "decay" | "length" | "blocks", axis labels, ...).

``reproduce(name, quick, ...)`` runs (or resumes) any registered figure: the target, the tasks through
``slt.tasks.execute`` (per-task cache under ``<results>/tasks``; LocalCluster, ``scheduler``, ``workers`` as
there), ``summarise``, ``extra``, ``findings``, and writes the summary atomically (``summary_path``).
"""
from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import time
from pathlib import Path

from slt.figures.plans import FIT_FLOOR, INITS, Plan, TOL
from slt.figures.summaries import committed_summary_path, compute_seconds, load_summary, summary_path, write_summary
from slt.tasks import cluster, code_fingerprint, execute

__all__ = ["Figure", "REGISTRY", "register", "get", "names", "reproduce", "summary_path", "committed_summary_path",
           "load_summary", "Plan", "INITS", "TOL", "FIT_FLOOR"]

REGISTRY: dict = {}


class Figure:
    """Base of a figure definition (see the module docstring for the interface)."""
    name: str = ""
    title: str = ""
    paper: dict = {}
    plans: dict = {}
    render: dict = {}
    task_fn = None

    def plan(self, quick: bool = False) -> Plan:
        try:
            return self.plans[bool(quick)]
        except KeyError:
            raise ValueError(f"{self.name} has no {'quick' if quick else 'full'} plan") from None

    def target(self, plan, results_dir, train, log):
        raise NotImplementedError

    def tasks(self, plan, target_params, info) -> list:
        raise NotImplementedError

    def summarise(self, plan, rows, info) -> dict:
        raise NotImplementedError

    def extra(self, plan, rows, payload, **run) -> dict:
        return {}

    def next_plan(self, plan, payload):
        """The plan of a further look when the figure's design is sequential and this look left it undecided; None
        (the default) ends the run."""
        return None

    def findings(self, payload) -> tuple[dict, list]:
        return {}, []


def register(figure: Figure) -> Figure:
    if not figure.name:
        raise ValueError("a figure needs a name")
    REGISTRY[figure.name] = figure
    return figure


def _load_all():
    """Import (and so register) every module of this package that calls ``register``, in the order of their names,
    on first use of the registry: the figure modules import the registry, never the reverse."""
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if "register(" in (Path(__path__[0]) / f"{info.name}.py").read_text():
            importlib.import_module(f"{__name__}.{info.name}")


def names() -> list[str]:
    _load_all()
    return list(REGISTRY)


def get(name: str) -> Figure:
    _load_all()
    try:
        return REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown figure {name!r}; expected one of {', '.join(REGISTRY)}") from None


def run_tasks(tasks, results_dir, desc, scheduler=None, workers=None, progress=True):
    """``slt.tasks.execute`` with the figures' cache folder (``<results>/tasks``); returns ``[(params, seed, result)]``."""
    results = execute(tasks, cache_dir=Path(results_dir) / "tasks", scheduler=scheduler, workers=workers,
                      progress=progress, desc=desc)
    return [(t.params, t.seed, r) for t, r in zip(tasks, results)]


def reproduce(name, quick=False, results_dir="results", train=True, mip_backend="highs", log=None, scheduler=None,
              workers=None, progress=True):
    """Run (or resume) figure ``name`` and write its summary (``summary_path``) atomically; returns the summary
    (progress goes through tqdm to stderr)."""
    figure = get(name)
    log = log or (lambda msg: None)
    start = time.perf_counter()
    p = figure.plan(quick)
    label = f"{name}{' quick' if quick else ''}"
    with cluster(scheduler, workers):
        target_params, info = figure.target(p, results_dir, train, log)
        while True:  # one pass, or one per look of a sequential plan (``Figure.next_plan``)
            tasks = figure.tasks(p, target_params, info)
            rows = run_tasks(tasks, results_dir, label, progress=progress)
            payload = {"figure": name, "title": figure.title, "quick": bool(quick), "plan": dataclasses.asdict(p),
                       "target": info, "tol": TOL, "fit_floor": FIT_FLOOR, "paper": figure.paper,
                       "code": code_fingerprint(*tasks[0].modules()) if tasks else None,
                       "compute_s": compute_seconds(rows), "render": figure.render,
                       **figure.summarise(p, rows, info)}
            nxt = figure.next_plan(p, payload)
            if nxt is None:
                break
            log(f"{label}: this look left the verdict open; running the next look")
            p = nxt
        payload.update(figure.extra(p, rows, payload, results_dir=results_dir, train=train, mip_backend=mip_backend,
                                    log=log, target_params=target_params, info=info, label=label, progress=progress))
    payload["verdict"], payload["findings"] = figure.findings(payload)
    payload["wall_s"] = time.perf_counter() - start
    write_summary(summary_path(results_dir, name, quick), payload)
    return payload
