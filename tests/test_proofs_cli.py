"""`slth proofs`: the step table with method and domain, counts a reader can check, exit codes."""
import bounds
from bounds.prove import kernel
from bounds.prove.verify import StepResult
from reports import proofs
from reports.cli import main


def test_unknown_statement_is_a_usage_error(capsys):
    assert main(["proofs", "--statement", "theorem99"]) == 2
    err = capsys.readouterr().err
    assert "unknown statement" in err and len(err.strip().splitlines()) == 1


def test_table_has_method_and_domain_and_the_counts_add_up(capsys):
    assert main(["proofs", "--statement", "lemma7", "--statement", "lemma5"]) == 0
    out = capsys.readouterr().out
    # the final verdicts from the kernel statuses the command itself uses (the committed result for this bounds/)
    results = proofs.kernel_verdicts(bounds.verify("lemma7") + bounds.verify("lemma5"), None)
    c = proofs.counts(results)
    assert sum(c["method"].values()) == sum(c["domain"].values()) == c["steps"] - c["failed"] == len(results)
    assert sum(c["method_domain"].values()) == len(results) == c["verdict"]["certified"]
    assert (f"{len(results)} proof steps ({len(results)} steps of the encoded proofs and 0 scalar facts): "
            f"{len(results)} certified, 0 refuted, 0 not proved") in out
    assert f"first pass: {len(results)} pre-checked" in out
    assert (f"{len(results)} of {len(results)} pre-checked, each on the whole declared domain: "
            f"{c['method']['symbolic']} symbolically (SymPy), {c['method']['interval']} by an interval certificate; "
            f"of the {c['method']['interval']} interval steps {c['arb']['yes']} re-checked in Arb") in out
    assert out.index("columns: verdict = certified") < out.index("== supported forms")  # the key comes first
    for r in results:
        assert r.step in out


def test_a_failing_step_exits_1(monkeypatch, capsys):
    bad = StepResult("lemma7", "L7x", "interval", False, "lhs > rhs", {}, {"eps": 0.5, "lhs": 2.0, "rhs": 1.0},
                     "box: eps in [0.5, 1]", 0.5)
    monkeypatch.setattr(bounds, "verify", lambda name, catalogue=None, on_step=None: [bad])
    assert main(["proofs", "--statement", "lemma7"]) == 1
    assert "refuted" in capsys.readouterr().out


def test_slack_table_renders_rows():
    rows = [{"statement": "lemma5", "constant": "the 4", "printed": 4.0, "tightest": 4.0, "ratio": 1.0,
             "forced": True, "first_failing": 3.97, "fails_at": "lemma5:L5b", "direction": "searched downwards",
             "note": ""}]
    text = proofs.slack_table(rows)
    assert "printed/tightest" in text and "forced" in text and "lemma5:L5b" in text


def test_slth_proofs_uses_the_committed_kernel_result_for_this_bounds_and_replays_with_coq(monkeypatch):
    """The kernel statuses of `slth proofs` are the run record's: the committed result when its key matches (labelled
    as committed, no coqc run), a replay when it does not or when ``--coq`` asks for one."""
    from bounds.prove import kernel
    from bounds.prove.verify import StepResult
    from reports import proofs
    from reports.record import verified

    results = [StepResult("lemma2", "L2a", "symbolic", True), StepResult("lemma2", "L2b", "symbolic", True)]
    rows = {"lemma2\tL2a": "kernel-checked", "lemma2\tL2b": "kernel-checked"}
    label = kernel.committed_source("Coq 8.16.1", "2026-01-01T00:00:00Z")
    replays = []
    monkeypatch.setattr(kernel, "replay", lambda *a, **k: replays.append(a) or ({}, kernel.REPLAYED))
    monkeypatch.setattr(verified, "kernel_key", lambda: "this tree")
    monkeypatch.setattr(verified, "_committed", lambda committed, part, want, log:
                        (rows, label) if want == "this tree" else None)
    judged = proofs.kernel_verdicts(results, None)
    assert [j.verdict for j in judged] == ["certified", "certified"] and replays == []
    assert all(j.source == label for j in judged) and label.startswith(kernel.COMMITTED)
    proofs.kernel_verdicts(results, "/tmp/somewhere")
    assert len(replays) == 1  # --coq replays
    monkeypatch.setattr(verified, "kernel_key", lambda: "an edited tree")
    monkeypatch.setattr(kernel, "missing", lambda: None)
    judged = proofs.kernel_verdicts(results, None)
    assert len(replays) == 2 and judged[0].source == kernel.REPLAYED  # no committed result for it: replayed
