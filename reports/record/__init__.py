"""The run record: one versioned JSON document holding everything a run of the harness decides; the report's model.

Its modules (``schema``: the JSON Schema and the checks of sense; ``files``: load and write; ``assemble``: runs the
harness into a record, by profile; ``suites`` and ``verified``: the variant and mutation rows; ``provenance``) import
one way (assemble -> verified -> suites, never back; ``tests/test_record_imports.py``). This package exports the
schema and the I/O; the assembling module (which imports the measuring library) is imported by the commands that run
the harness. ``slth run`` writes records, ``slth report --from`` renders one, ``slth diff`` compares two.

Schema, version ``SCHEMA_VERSION`` (every field listed is required; ``|null`` marks fields that may be null,
``[...]`` lists of objects whose fields are required likewise)::

    schema           "slth-run-record"
    schema_version   1
    profile          "proofs" | "quick" | "full"
    parts            which parts were run: "proofs", "variants", "mutations", "empirical", "figures", "slack"
    provenance       git_commit|null, git_dirty|null, bounds_hash (SHA-256 of bounds/*.py), packages {name:
                     version}, python, platform, seeds {base, verifier}, created (UTC, ISO 8601), command,
                     wall_s {part: seconds, total}
    statements [...] name, title, numbering, quantity, hypotheses [MathML], conclusion {text, mathml},
                     probability {text, mathml}|null, widths {name: {text, mathml}}, width_params [names],
                     variants [{name, description}], axioms [{kind, name, says, detail, cited_by}] (optional: the
                     results it rests on that the harness does not prove, bounds.prove.axioms; absent in older records)
    exponents [...]  Theorem 14's per-block width exponents: width, base, text, mathml
    steps [...]      statement ("facts" for the elementary facts), step, supported (a step of a supported form),
                     method (symbolic | interval | sampled), domain ("whole", "box: ..." or "sampled"), ok (the
                     step is certified), verdict ("certified" | "refuted" | "not proved": the kernel's verdict,
                     ``bounds.prove.kernel``; "ok" | "FAILED" in older records), margin (smallest rhs/lhs found)|null,
                     detail, arb (the Arb re-check of an interval certificate, optional), first_pass (optional:
                     "pre-checked" | "refuted" | "not proved", the SymPy / interval / Arb pass), coq (optional: the
                     Coq status, ``bounds.prove.coq``: "kernel-checked", "rejected: ...", "not exported: ...", "not
                     checked: ..." or "no proof kernel: ..."), kernel_source (optional: "kernel-checked in this
                     run", "kernel result committed for this exact bounds/ and exporter", or the no-kernel line),
                     open_ends (optional, with a counterexample: {parameter: [[bound, "eps < 1"], ...]}), box {},
                     counterexample {}|null, note, relies_on [], inequality (MathML, small steps)|null
    variants [...]|null   statement, variant, description, expected [[statement, step]], broken [{statement, step,
                     method, counterexample, open_ends}], unproved [{statement, step}] (optional: the steps neither
                     pre-checked nor refuted under the reading), verdict ("as expected" | "unexpected")
    mutations [...]|null   name, statement, expected [statement, step], caught_by [[statement, step]],
                     verdict ("caught" | "SURVIVED"), counterexample|null
    widths [...]     statement, width, point {parameter: value}, C, value (smallest integer width on the
                     default grid GRID at C = DEFAULT_C)
    calibration      file, command, definition, level, confidence, safety, statements {name: {C|null,
                     C_low|null, C_high|null, points, note, and for a statement with target families
                     C_random (the random-target C), worst_target, worst_command, targets /
                     targets_verify {C, point, trials, worst, command, families [{family, failures, trials, rate,
                     pvalue, passed}]}, growth {C, target, params, command, rows [{eps, failures, trials, rate_over_eps,
                     ci_over_eps, pvalue, passed, power_2eps}], verdict, coefficients}}}, large and
                     large_worst (slt.measure.calibrate.trend_summary of calibration-large.json and of the
                     worst-target large grid, calibration-large-worst.json)|null
    empirical|null   checks [{id, statement, kind, verdict, ratio, command|null, ...}] (a rate check also
                     holds params, C, widths, failures, trials, rate, interval, pvalue, level, power|null,
                     passed, worst, bound), tightness [{check, statement, ratio, where}], length_sweeps {name:
                     {info, rows}}, verdicts {statement or "statement:printed": "holds" | "fails" |
                     "undecided at this power" (slt.measure.verdicts)},
                     decisions {probabilistic statement: "holds" | "fails" | "undecided at this power"} (a rate
                     check also holds its decision {word, text}), wall_s, tasks
    figures|null     {fig4|fig5|fig6: {source, payload (the figure summary: fits, findings when present)}}
    empirical_source|null  (optional) which measurements "empirical" holds: kind ("this run" | "committed"),
                     profile, file|null, command|null, created|null, git_commit|null, why (why the committed
                     full-power record was not used, or ""), own_quick (the run's own quick counts, when committed)
    findings|null    (optional: absent in older records) ``slt.measure.findings.decide``: banner {proofs, empirical,
                     printed_refuted, profile}, items [{id, status, title, sentences, counterexample {columns,
                     rows}|null, test, command|null, evidence, statements}], notes {statement: text} (the README's
                     findings as sentences)
    formalization|null  (optional: absent in older records) ``bounds.prove.coq_math.blueprint``: statements {name:
                     {formalized, theorem|null, rests_on [premises]|null, lueker_alone, cites [premises]}},
                     premises {name: {proved, coq, by [theorems], says}}, counts {proved, premises, alone,
                     statements}, line (the counts as one line); the proof map draws it
    slack [...]|null (optional: absent or null when not computed; ``slth run --slack``, always in ``--full``) the
                     slack of every proof constant (``bounds.prove.slack.rows``): statement, constant, printed,
                     printed_exact, tightest|null, tightest_exact|null, first_failing|null,
                     first_failing_exact|null, ratio|null, forced, direction, fails_at|null,
                     counterexample|null, probes, note
"""
from __future__ import annotations

from reports.record.files import dumps, load, write
from reports.record.schema import PROFILES, SCHEMA, SCHEMA_VERSION, RecordError, failed_steps, validate

__all__ = ["PROFILES", "SCHEMA", "SCHEMA_VERSION", "RecordError", "dumps", "failed_steps", "load", "validate",
           "write"]
