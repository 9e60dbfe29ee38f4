"""The findings about this harness's own calibrated constants (``slt.measure.findings.ABOUT``): whether the
universal constant C each statement is checked at covers every target family (``worst_targets``), and whether C
must grow as eps falls (``fixed_c_growth``).  Decided from the run record's calibration, as the findings about the
paper are (``slt.measure.findings``, which lists these among its ``FINDINGS``); and how every finding prints a
number, names a statement and says that its data is not in the record (``fmt``, ``heading``, ``missing``)."""
from __future__ import annotations

import math

from slt import claims
from slt import targets as target_families


def fmt(x) -> str:
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        return str(int(x)) if math.isfinite(x) and x == int(x) and abs(x) < 1e6 else f"{x:.4g}"
    return str(x)


def heading(record, name) -> str:
    st = next((s for s in record["statements"] if s["name"] == name), None)
    return claims.label(record, name) if st else name.capitalize()


def missing(fid, title, why, test, evidence="#proofs") -> dict:
    return {"id": fid, "status": "not in this record", "title": title, "sentences": [why], "counterexample": None,
            "test": test, "command": None, "evidence": evidence}


def _p(x) -> str:
    return f"{x:.2g}" if isinstance(x, (int, float)) and not isinstance(x, bool) else str(x)


def worst_targets(record) -> dict:
    """Per statement with a target matrix, the random-target C and the worst-target C where it was
    recalibrated, the worst target family and its failures at the C the families were run at, all from the record's
    calibration (``calibration.statements.<name>``: ``C``, ``C_random``, ``worst_target``, ``targets``). A statement
    with a target matrix but no worst-target C has its constant calibrated on random targets only, and so has the
    "holds" of its checks: listed in ``random_only`` (its summary row carries the flag)."""
    test = "tests/test_targets.py::test_a_worst_target_family_reproduces_its_stored_failures"
    cal = (record.get("calibration") or {}).get("statements") or {}
    names = [n for n in target_families.HYPOTHESIS if n in cal and cal[n].get("C") is not None]
    if record.get("empirical") is None:
        return missing("worst-targets", "The constant over every target: no empirical verdict in this record",
                        "This record holds no empirical checks, so no verdict whose coverage of targets to state; "
                        "slth run --quick measures them.", test, "#evidence")
    if not any(isinstance(cal[n].get("targets"), dict) for n in names):
        return missing("worst-targets", "The constant over every target: not measured in this record",
                        "The calibration this record carries holds no target families (slth targets families "
                        "measures them).", test, "#evidence")
    rows, sentences, random_only = [], [], []
    for n in names:
        rec = cal[n]
        recal = rec.get("C_random") is not None and rec.get("worst_target") is not None
        c_random = rec["C_random"] if recal else rec["C"]
        t = rec.get("targets") if isinstance(rec.get("targets"), dict) else None
        fam = next((f for f in (t or {}).get("families", []) if f.get("family") == t.get("worst")), None) if t else None
        rnd = next((f for f in (t or {}).get("families", []) if f.get("family") == "random"), None) if t else None
        v = rec.get("targets_verify") if isinstance(rec.get("targets_verify"), dict) else None
        vworst = max(v["families"], key=lambda f: f["failures"]) if v and v.get("families") else None
        if not recal:
            random_only.append(n)
        covers = f"the worst target family found ({rec['worst_target']})" if recal else "random targets only"
        rows.append([heading(record, n), fmt(c_random), fmt(rec["C"]) if recal else "not calibrated",
                     f"{t['worst']} at C = {fmt(t['C'])}" if fam else "not measured",
                     f"{fam['failures']}/{fam['trials']}" if fam else "-",
                     _p(fam.get("pvalue")) if fam else "-",
                     f"{rnd['failures']}/{rnd['trials']}" if rnd else "-", covers,
                     (f"{vworst['failures']}/{vworst['trials']} ({vworst['family']}, every family "
                      + ("passes" if all(f.get("passed") for f in v["families"]) else "NOT passing") + ")")
                     if vworst else "-"])
        at = (f"at C = {fmt(t['C'])} the {t['worst']} targets failed {fam['failures']} of {fam['trials']} trials "
              f"(random targets {rnd['failures']}/{rnd['trials']}; one-sided binomial test against eps: p = "
              f"{_p(fam.get('pvalue'))}, " + ("not rejected at this number of trials" if fam.get("passed") else
                                              "rejected") + ")") if fam and rnd else "no target family was measured"
        most = (f"every family failed 0/{vworst['trials']}" if vworst and vworst["failures"] == 0 else
                f"the most failures were {vworst['failures']}/{vworst['trials']} ({vworst['family']})" if vworst else "")
        other = (f" (not the C = {fmt(rec['C'])} the checks use: this record holds the every-family run at "
                 f"C = {fmt(v['C'])} only)") if v and float(v["C"]) != float(rec["C"]) else ""
        again = (f" At C = {fmt(v['C'])}{other} every family is run ({v['trials']} trials each, the same seeds): "
                 f"{most}, and "
                 + ("no family's test rejects." if all(f.get("passed") for f in v["families"]) else
                    "some family's test rejects.")) if vworst else ""
        if recal:
            sentences.append(f"{heading(record, n)}: C = {fmt(rec['C'])} is calibrated at the worst target family "
                             f"found ({rec['worst_target']}); calibrated on random targets alone it is {fmt(c_random)}; {at}."
                             + again)
        else:
            sentences.append(f"{heading(record, n)}: C = {fmt(rec['C'])} is calibrated on random targets only, so "
                             f"its empirical verdict covers random targets only; {at}.")
    title = ("The constants of " + ", ".join(heading(record, n) for n in random_only) + " are calibrated on random "
             "targets only: their \"holds\" covers random targets only." if random_only else
             "At the constants calibrated on random targets, identity-type targets fail far more often than eps; "
             "every statement with a target matrix is calibrated at its worst target family found, where no family "
             "shows an excess.")
    return {"id": "worst-targets", "status": "random targets only" if random_only else "worst targets",
            "title": title, "sentences": sentences,
            "table": {"columns": ["statement", "C on random targets", "C at the worst target", "worst family",
                                  "its failures", "p-value", "random targets' failures", "C covers",
                                  "at the calibrated C: most failures of any family"], "rows": rows},
            "counterexample": None, "test": test, "command": None, "evidence": "#evidence", "statements": names, "random_only": random_only}


def fixed_c_growth(record) -> dict:
    """"Does C grow?": per statement the answer of ``slt.claims.growth`` (the fixed-C tests over eps at the worst
    target, ``calibration.statements.<name>.growth``, and the large grid's trends), the same sentences the report's
    calibration section shows; the table holds the fixed-C rows. Its status is "C grows" when a fixed-C test
    rejects."""
    test = "tests/test_targets.py::test_a_stored_fixed_C_row_reproduces"
    cal = (record.get("calibration") or {}).get("statements") or {}
    names = [n for n in target_families.HYPOTHESIS if isinstance((cal.get(n) or {}).get("growth"), dict)]
    if record.get("empirical") is None:
        return missing("fixed-c-growth", "Does C grow? No empirical verdict in this record",
                        "This record holds no empirical checks (slth run --quick measures them); the fixed-C tests "
                        "are in the calibration file.", test, "#evidence")
    if not names:
        return missing("fixed-c-growth", "Does C grow? No fixed-C test in this record",
                        "The calibration this record carries holds no fixed-C tests (slth targets fixed-c runs them).",
                        test, "#evidence")
    rows, undecided, grows = [], [], []
    for n in names:
        g = cal[n]["growth"]
        rs = sorted(g["rows"], key=lambda r: -r["eps"])
        lo, hi = rs[-1]["eps"], rs[0]["eps"]
        rejected = [r for r in rs if not r.get("passed")]
        worst_ci = max(r["ci_over_eps"][1] for r in rs)
        low_power = min(r.get("power_2eps") or 0 for r in rs)
        verdict = g.get("verdict") or ""
        if rejected or verdict.startswith("grows"):
            grows.append(n)
        elif not verdict.startswith("no growth"):
            undecided.append(n)
        rows.append([heading(record, n), fmt(g["C"]), g["target"], f"{fmt(hi)} .. {fmt(lo)}",
                     ", ".join(f"{r['failures']}/{r['trials']}" for r in rs), f"{worst_ci:.2g}",
                     f"{low_power:.2f}", verdict.split(":")[0] if verdict else "-"])
    answers = claims.growth(record)
    answer = claims.growth_answer(record)  # the one answer every page gives; its headline is the title
    title = "Does C grow? " + answer[0]
    sentences = answer[1:] + [answers[n]["sentence"] for n in names if n in answers]  # the per-eps details: the table
    if undecided and not grows:
        sentences.append("The failure model cannot tell 'falls at least like eps' from 'falls more slowly' for "
                         + ", ".join(heading(record, n) for n in undecided) + " at these trial counts (too few "
                         "failures); the per-eps tests above are the direct answer.")
    grows = [n for n in names if n in answers and answers[n]["fixed"] and answers[n]["fixed"]["grows"]]
    return {"id": "fixed-c-growth", "status": "C grows" if grows else "no growth seen",
            "title": title, "sentences": sentences,
            "table": {"columns": ["statement", "C", "target", "eps", "failures (largest eps first)",
                                  "largest 95% upper end of rate / eps", "least power vs 2 eps", "failure model"],
                      "rows": rows},
            "counterexample": None, "test": test, "command": cal[names[0]]["growth"].get("command"),
            "evidence": "#evidence", "statements": names}
