"""Figure 5 (Section 4.2): error against the input length T for the Figure 4 target at n = 20 and 40.

T = 2^3 .. 2^13 (quick: .. 2^11), long sequences through the merged-attention kernel ``slt._sweep_kernels``.
Per (init, n) the slope of log(mean error) against log T with its 95% interval (``fits.length_trend``).
"""
from __future__ import annotations

from slt.figures import register
from slt.figures._mha import DEPENDS, MHAFigure
from slt.figures.fits import length_trend
from slt.figures.plans import Plan
from slt.figures.summaries import summarise
from slt.figures.targets import mha_item

TASK_DEPENDS = DEPENDS
RNG_CODE = 5


def item(seed: int, **params) -> dict:
    """One (initialisation, width, length, source seed) of Figure 5."""
    return mha_item(RNG_CODE, True, seed, **params)


class Fig5(MHAFigure):
    name = "fig5"
    title = "Figure 5: MHA, error against the input length"
    task_fn = staticmethod(item)
    paper = {"claim": "the error does not grow with the input length T"}
    plans = {False: Plan("fig5", (20, 40), tuple(2 ** k for k in range(3, 14)), 100, 2),
             True: Plan("fig5", (20, 40), tuple(2 ** k for k in range(3, 12)), 10, 2)}
    render = {"kind": "length", "x": "T", "xlabel": "input length T", "log_x": 2, "log_y": True}

    def summarise(self, plan, rows, info) -> dict:
        summary = summarise(rows)
        return {"summary": summary, "length_trend": length_trend(summary), **self.entry_errors(rows)}

    def findings(self, p5) -> tuple[dict, list]:
        """Does the error grow with T (a slope interval above 0), and is the wider source below the narrower one
        at every T (theory initialisation)?"""
        trend = p5.get("length_trend", [])
        if not trend:
            return {}, []
        bounded = [t for t in trend if t["slope_ci"][0] <= 0]
        by_n = {}
        for r in p5["summary"]:
            if r["init"] == "theory" and r["solver"] == "exact":
                by_n.setdefault(r["n"], []).append(r["mean"])
        widths = sorted(by_n)
        lower = len(widths) > 1 and all(a > b for a, b in zip(by_n[widths[0]], by_n[widths[-1]]))
        text = (f"Fig. 5 (T up to {max(t['T_max'] for t in trend)}): {len(bounded)} of {len(trend)} slope intervals "
                "of log error against log T reach 0 or below (no growth with T)")
        if len(widths) > 1:
            text += (f"; for the theory initialisation the error at n = {widths[-1]} is "
                     f"{'below' if lower else 'not everywhere below'} that at n = {widths[0]} at every T.")
        else:
            text += "."
        return {"bounded": len(bounded), "slopes": len(trend), "wider_lower": bool(lower)}, [text]


FIGURE = register(Fig5())
