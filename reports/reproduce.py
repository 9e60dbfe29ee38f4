"""`slth reproduce NAME [--quick]`: a registered figure of the paper (``slt.figures``: Figures 4, 5 and 6 on the
angular-velocity task, and whatever else is registered); argument parsing and printing only.

Tasks run on dask.distributed (LocalCluster by default, ``--scheduler``/$SLTH_SCHEDULER, ``--workers``); progress
goes to stderr; every (configuration, source seed) result is cached under ``<results>/tasks`` as soon as it is
computed (atomically), so an interrupted run resumes where it stopped. The summary (means, standard deviations,
fits next to the paper's gamma = 0.8, delta = 0.06) is printed and written to
``<results>/reproduction/<figure>[-quick].json``, which the report's "Reproduction" section reads.
"""
from __future__ import annotations

import argparse
import sys
import time

from slt import figures

from reports.cli import workers
from reports.paths import check_outputs
from slt.inputs import InputError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("figure", choices=figures.names(), help="which figure to reproduce")
    parser.add_argument("--quick", action="store_true", help="a reduced sweep (fewer widths, lengths and sources)")
    parser.add_argument("--results", default="results", help="folder of cached results (default: %(default)s)")
    parser.add_argument("--no-train", action="store_true",
                        help="use the untrained (paper-initialised) MHA target even when PyTorch is installed")
    parser.add_argument("--mip", default="highs", choices=["highs", "gurobi", "none"],
                        help="mixed-integer solver of Figure 4's floor comparison (default: %(default)s)")
    parser.add_argument("--scheduler", default=None,
                        help="address of a running Dask scheduler, or 'synchronous' (default: $SLTH_SCHEDULER, else a "
                             "LocalCluster on this machine)")
    parser.add_argument("--workers", type=workers, default=None,
                        help="LocalCluster worker processes (default: one per core; 0: run in this process)")
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"],
                        help="device of the GPT-2 figures (fig7, fig8); cuda runs the paper's GPT-2 sizes "
                             "(default: %(default)s)")


def _fmt_fit(fit) -> str:
    if "error" in fit:
        return f"no fit ({fit['error']})"
    lo_g, hi_g = fit["gamma_ci"]
    lo_d, hi_d = fit["delta_ci"]
    return (f"gamma = {fit['gamma']:.3g} [{lo_g:.3g}, {hi_g:.3g}], delta = {fit['delta']:.4g} [{lo_d:.4g}, {hi_d:.4g}]"
            f" on n = {int(fit['n_used'][0])}..{int(fit['n_used'][-1])} ({len(fit['n_used'])} widths)")


def format_summary(payload) -> str:
    """Plain-text table of a figure's summary (what ``main`` prints)."""
    lines = [f"{payload['figure']}{' (quick)' if payload['quick'] else ''}: target {payload['target']['tag']}"
             + ("" if payload["target"]["trained"] else f" (UNTRAINED: {payload['target'].get('reason', 'as the paper')})")]
    multi = bool(payload["summary"]) and isinstance(payload["summary"][0]["mean"], list)  # one value per block
    lines.append(f"{'init':7s} {'n':>4s} {'T':>5s}  mean +- std over sources of max-over-tokens error (mean over test batch)")
    for r in payload["summary"]:
        mean, std = r["mean"], r["std"]
        cells = ("  ".join(f"b{b + 1}: {m:.3e} +- {s:.1e}" for b, (m, s) in enumerate(zip(mean, std))) if multi
                 else f"{mean:.3e} +- {std:.1e}")
        lines.append(f"{r['init']:7s} {r['n']:4d} {r['T']:5d}  {cells}")
    paper = payload["paper"]
    for init, by_space in payload.get("fits", {}).items():
        for space, fit in by_space.items():
            label = f"fit {init:7s} {space:6s}"
            if multi and isinstance(fit, list):
                lines.append(f"{label}: block 1: {_fmt_fit(fit[0])}")
                lines += [f"{'':22s}  block {b + 2}: gamma = {f['gamma']:.3g} [{f['gamma_ci'][0]:.3g}, {f['gamma_ci'][1]:.3g}]"
                          for b, f in enumerate(fit[1:])]
            else:
                lines.append(f"{label}: {_fmt_fit(fit)}")
    for t in payload.get("length_trend", []):
        lo, hi = t["slope_ci"]
        lines.append(f"length trend {t['init']:7s} n={t['n']:3d}: d log(err) / d log(T) = {t['slope']:+.3f} [{lo:+.3f}, {hi:+.3f}],"
                     f" largest/smallest mean over T = 8..{t['T_max']}: {t['max_over_min']:.2f}")
    if "fits" in payload:
        claim = (f"gamma = {paper['gamma']}, delta = {paper['delta']}" if "gamma" in paper
                 else f"{paper.get('claim', 'no fitted curve')} (n in {paper.get('range', '?')})")
        lines.append(f"paper (Fig. {payload['figure'][3:]}): {claim}; log fits use means > "
                     f"{payload['fit_floor']:g} (subset sums solved to {payload['tol']:g} per entry); linear fits use every width")
    mip = payload.get("mip")
    if mip:
        if "error" in mip:
            lines.append(f"mixed-integer floor ({mip['backend']}): not run: {mip['error']}")
        else:
            exact = {(e["init"], e["n"]): e for e in mip["exact_same_sources"]}
            for r, q, v in zip(mip["summary"], mip["qk_entry_error"], mip["vo_entry_error"]):
                e = exact.get((r["init"], r["n"]), {"mean": float("nan"), "median": float("nan")})
                lines.append(f"mixed-integer ({mip['backend']}) {r['init']:7s} n={r['n']:3d}: error mean {r['mean']:.3e}, "
                             f"median {r['median']:.3e} (ours on the same {r['sources']} sources: mean {e['mean']:.3e}, "
                             f"median {e['median']:.3e}); worst entry QK {q['mean']:.1e}, VO {v['mean']:.1e} (means)")
            lines.append(f"mixed-integer solver time {mip['solver_s']:.0f} s, {mip.get('timeouts', 0)} entries hit the "
                         f"{mip.get('time_limit', float('nan')):g} s limit")
    lines.append(f"wall time {payload['wall_s']:.1f} s this run; compute time of all items {payload['compute_s']:.1f} s")
    return "\n".join(lines)


def main(args: argparse.Namespace) -> int:
    figure = figures.get(args.figure)
    if args.device != "cpu":
        if args.device not in getattr(figure, "devices", ("cpu",)):
            raise InputError(f"--device {args.device} applies to the GPT-2 figures fig7 and fig8 only, not {args.figure}")
        figure.device = args.device
    # before any work: the summary file can be written, the cluster named exists (one line, exit 2)
    check_outputs(("summary file", figures.summary_path(args.results, args.figure, args.quick)),
                  create=("summary file",))
    from reports.record.assemble import check_cluster
    check_cluster(args.scheduler)
    log = lambda msg: print(msg, file=sys.stderr)  # noqa: E731
    try:  # an optional extra the figure needs (the message names it): checked before any work starts
        getattr(figure, "preflight", lambda: None)()
        start = time.perf_counter()
        payload = figures.reproduce(args.figure, quick=args.quick, results_dir=args.results, train=not args.no_train,
                                    mip_backend=None if args.mip == "none" else args.mip, log=log,
                                    scheduler=args.scheduler, workers=args.workers)
    except ModuleNotFoundError as exc:
        raise InputError(str(exc)) from None
    print(figure.format_summary(payload) if hasattr(figure, "format_summary") else format_summary(payload))
    for line in payload.get("findings", []):
        print(f"finding: {line}")
    print(f"wrote {figures.summary_path(args.results, args.figure, args.quick)} ({time.perf_counter() - start:.1f} s)")
    return 0
