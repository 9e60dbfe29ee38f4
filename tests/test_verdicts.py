"""One verdict function (``slt.measure.verdicts``): a failure rate "holds" only when the upper end
of its 95% interval is at most eps, "fails" when the one-sided test rejects, otherwise it is "undecided at this
power"; and every place that shows a verdict (the summary, the empirical verdicts table, every per-point row, the
evidence section, ``slth rate``'s line and ``slth diff``) shows that word and no other."""
from __future__ import annotations

import copy
import re

import pytest

from slt.measure import empirical as measuring
from slt.measure import stats, verdicts
from slt.tasks import Task


def _rate_result(statement, eps, failures, trials, **params):
    test = stats.excess_test(failures, trials, eps)
    return {"statement": statement, "params": {**params, "eps": eps}, "C": 2.1, "widths": {"n": 8},
            "failures": failures, "trials": trials, "rate": test.rate, "interval": list(test.interval),
            "pvalue": test.pvalue, "level": test.level,
            "power": {"power": test.power, "detectable_rate": test.detectable_rate, "target_rate": test.target_rate,
                      "meets_target": test.meets_target},
            "passed": test.passed, "worst": 0.1, "bound": eps, "ratio": 0.5, "command": f"rerun {statement}",
            "failing_commands": []}


# (statement, eps, failures, trials) -> the verdict the rule of docs/checks.md gives
POINTS = [
    ("theorem9", 0.2, 0, 3, verdicts.UNDECIDED),    # [0, 0.7076]: once shown as a green "pass" at eps = 0.2
    ("theorem9", 0.3, 0, 15, verdicts.HOLDS),       # upper end 0.218 <= 0.3: decided, the statement still is not
    ("lemma7", 0.1, 0, 60, verdicts.HOLDS),         # upper end 0.06 <= 0.1
    ("lemma7", 0.2, 0, 40, verdicts.HOLDS),
    ("lemma2", 0.1, 9, 20, verdicts.FAILS),         # the test rejects
]


def _expected(eps, failures, trials):
    test = stats.excess_test(failures, trials, eps)
    if not test.passed:
        return verdicts.FAILS
    return verdicts.HOLDS if test.interval[1] <= eps else verdicts.UNDECIDED


def test_the_rule_on_numbers():
    assert verdicts.rate_word(False, 0.7076, 0.2) == verdicts.UNDECIDED
    assert verdicts.rate_word(False, 0.46, 0.2) == verdicts.UNDECIDED  # an upper end above eps: never "holds"
    assert verdicts.rate_word(False, 0.2, 0.2) == verdicts.HOLDS
    assert verdicts.rate_word(True, 0.9, 0.2) == verdicts.FAILS
    assert verdicts.combine([verdicts.HOLDS, verdicts.UNDECIDED]) == verdicts.UNDECIDED
    assert verdicts.combine([verdicts.UNDECIDED, verdicts.FAILS, verdicts.HOLDS]) == verdicts.FAILS
    assert verdicts.combine([]) == verdicts.HOLDS
    with pytest.raises(ValueError, match="unknown verdict 'pass'"):
        verdicts.combine(["pass"])
    with pytest.raises(ValueError, match="finite"):
        verdicts.rate_word(False, float("nan"), 0.1)


def test_power_is_one_sentence():
    test = stats.excess_test(0, 18, 0.3)
    sentence = verdicts.power_sentence({"power": 0.8, "detectable_rate": test.detectable_rate,
                                        "target_rate": test.target_rate, "meets_target": test.meets_target})
    assert sentence.startswith(f"detects a failure rate of {test.detectable_rate:.2g} or more with probability 0.8")
    assert "True" not in sentence and "False" not in sentence and "=" not in sentence


@pytest.fixture(scope="module")
def record(proofs_record):
    tasks, results = [], []
    for statement, eps, failures, trials, _ in POINTS:
        params = {"d1": 2, "d2": 2} if statement != "theorem9" else {"d1": 2, "d2": 2, "H": 1}
        tasks.append(Task(f"empirical:rate:{statement}", measuring.rate, {}, 0))
        results.append(_rate_result(statement, eps, failures, trials, **params))
    case = {"parameters": {"T": 5}, "seed": 0, "measured": 2.0, "bound": 1.0, "ratio": 2.0, "violated": True,
            "command": "rerun lemma13", "detail": "", "counterexample": {"X": [[1.0]]}}
    tasks.append(Task("empirical:stored:lemma13:printed", measuring.rate, {}, 0))
    results.append({"cases": [case]})
    rec = copy.deepcopy(proofs_record)
    rec["empirical"] = {**measuring.decide(tasks, results), "wall_s": 1.0, "tasks": len(tasks)}
    rec["profile"] = "quick"
    return rec


def test_the_record_stores_the_rule(record):
    emp = record["empirical"]
    rates = [c for c in emp["checks"] if c["kind"] == "rate"]
    for c, (_, eps, failures, trials, word) in zip(rates, POINTS):
        assert c["verdict"] == c["decision"]["word"] == _expected(eps, failures, trials) == word
    assert emp["verdicts"]["theorem9"] == emp["decisions"]["theorem9"] == verdicts.UNDECIDED
    assert emp["verdicts"]["lemma7"] == verdicts.HOLDS and emp["verdicts"]["lemma2"] == verdicts.FAILS
    assert emp["verdicts"]["lemma13:printed"] == verdicts.FAILS


def _strip(html):
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_every_place_of_the_page_agrees(record):
    from reports.build import render_html, render_sections

    html = render_html(render_sections(record), record)
    html = re.sub(r'<span class="tok">([^<]*)</span>', r"\1", html)  # numbers kept on one line: read as text
    html = re.sub(r'<span class="(\w+) tok">', r'<span class="\1">', html)  # a verdict word kept on one line
    html = __import__("html").unescape(html)
    emp = record["empirical"]
    # the summary row of each statement: its word, styled by it, and never "holds" for an undecided one
    for name, word in emp["verdicts"].items():
        if ":" in name:
            continue
        row = re.search(f'<tr id="summary-{name}">(.*?)</tr>', html, re.S).group(1)
        css = {"holds": "pass", "fails": "fail"}.get(word, "warn")
        cells = [c.strip() for c in row.split("</td>") if c.strip()]  # statement, proofs, empirical, ...
        assert len(cells) >= 3 and "proofs-" in cells[1], (name, row[:400])
        head = re.match(r'<td><span class="(\w+)">([^<]*)</span>', cells[2])  # the empirical cell's headline
        assert head and head.group(1) == css and re.match(re.escape(word) + r"( at the tested points only \(.*?\))?:",
                                                          head.group(2)), (name, word, row[:400])
        if word != verdicts.HOLDS:
            assert "holds" not in head.group(2) and '"pass"' not in head.group(0), (name, head.group(0))
    # the empirical verdicts table
    for name, word in emp["verdicts"].items():
        css = {"holds": "pass", "fails": "fail"}.get(word, "warn")
        from slt.claims import reading_words
        shown = reading_words(record, name)  # names read as the paper numbers them
        assert f'<tr><td>{shown}</td><td><span class="{css}">{word}</span></td></tr>' in html, (name, shown)
    # every per-point row: its own word, in the per-point table and in the summary's per-point list
    for c in (c for c in emp["checks"] if c["kind"] == "rate"):
        css = {"holds": "pass", "fails": "fail"}.get(c["verdict"], "warn")
        text = c["decision"]["text"]  # the page was unescaped above
        assert html.count(f'<span class="{css}">{c["verdict"]}</span> ({text})') == 1, c["id"]
    per_point = re.findall(r'<td><span class="(\w+)">([a-z ]+)</span><br><small>[^<]*</small></td><td><code>rerun', html)
    assert sorted(w for _, w in per_point) == sorted(c["verdict"] for c in emp["checks"] if c["kind"] == "rate")
    for word in ("pass", "FAIL", "violated", "True", "False"):  # no other verdict word, no Python boolean
        assert f">{word}</span>" not in html and f"<td>{word}</td>" not in html, word


def test_slth_rate_and_stats_state_the_same_word():
    for _, eps, failures, trials, _ in POINTS:
        test = stats.excess_test(failures, trials, eps)
        assert test.verdict == _expected(eps, failures, trials)
        assert f"-> {test.verdict} (" in test.describe()


def test_slth_diff_shows_the_word(record):
    from slt import diff

    old = copy.deepcopy(record)
    for c in old["empirical"]["checks"]:  # a record written before slt.measure.verdicts
        if c["kind"] == "rate":
            c["verdict"] = "pass" if c["passed"] else "FAIL"
    old["empirical"]["verdicts"] = {k: ("violated" if v == "fails" else "holds")
                                    for k, v in old["empirical"]["verdicts"].items()}
    assert diff.compare(old, record).empirical == []  # the old words are recomputed, not compared as changes
    new = copy.deepcopy(record)
    decided = next(c for c in new["empirical"]["checks"] if c["statement"] == "lemma7")
    decided.update(trials=3, interval=list(stats.excess_test(0, 3, decided["params"]["eps"]).interval))
    new["empirical"] = verdicts.redecide(new["empirical"])
    d = diff.compare(record, new)
    assert d.empirical == [{"statement": "lemma7", "old": verdicts.HOLDS, "new": verdicts.UNDECIDED}]
    assert [c["new"] for c in d.checks] == [verdicts.UNDECIDED]
