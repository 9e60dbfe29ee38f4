"""Report sections of Figures 7-8 and of the two regression-token readings: rendered from stored summaries only."""
from __future__ import annotations

import math

from reports.sections import gpt2 as gpt2_section
from reports.sections import token as token_section
from slt.gpt2 import figures


def _payload(name):
    star = figures.theory_scale(64)
    rows = []
    for s in (1.0, star, 5.0):
        for seed, e in enumerate((0.0, 0.001, -0.001)):
            loss = 3.0 + math.log(s / star) ** 2 + e
            rows.append(({"model": dict(d_model=64, n_head=1, n_layer=2, qk_scale=s)}, seed,
                         {"final_val_loss": loss, "val_loss": [4.0, 3.5, loss], "weights_unchanged": True,
                          "seconds": 1.0}))
    summary = figures.summarise(name, rows)
    payload = {"figure": name, "title": f"Figure {name}", "quick": True, "paper": {"claim": figures.PAPER_CLAIM[name]},
               "summary": summary, "compute_s": 9.0,
               "plan": {"widths": [dict(n_layer=2, d_model=64, context=32, init_std=0.069, keep=0.3, n_head=1)],
                        "recipe": dict(lr=1e-2, lr_min=1e-3, epochs=2, steps_per_epoch=3, batch=4), "seeds": 3,
                        "device": "cpu"},
               "target": {"corpus": {"sha256": "ab" * 32, "source": "Python stdlib"}}}
    payload["verdict"], payload["findings"] = figures.findings(payload)
    return payload


def test_gpt2_section_renders_the_stored_verdicts():
    record = {"figures": {n: {"source": "cached", "payload": _payload(n)} for n in ("fig7", "fig8")}}
    section = gpt2_section.render(record)
    assert "fig8: n_K = 64 supported" in section.summary and "fig7: n_K = 64 supported" in section.summary
    assert "<img" in section.html and "verdict <b>supported</b>" in section.html
    assert gpt2_section.render({"figures": {}}) is None and gpt2_section.render({}) is None


def test_token_section_needs_a_learned_token_summary():
    base = {"target": {"trained": True, "val_mse": 3.27, "baseline_mse": 3.28,
                       "regression_token": {"reading": "zero", "vector": [0.0, 0.0]}},
            "fits": {"theory": {"linear": {"gamma": 0.3, "gamma_ci": [0.2, 0.4], "delta": 0.1, "delta_ci": [0.08, 0.12]}}},
            "findings": ["Fig. 4: something"], "quick": True}
    learned = dict(base, target=dict(base["target"], val_mse=1.0,
                                     regression_token={"reading": "learned", "vector": [0.1, -0.1]}))
    from reports.record.assemble import figure_entry  # the record decides whether a target learns; the section renders it

    assert token_section.render({"figures": {"fig4": figure_entry("fig4", base, "s")}}) is None
    section = token_section.render({"figures": {"fig4": figure_entry("fig4", base, "s"),
                                                "fig4-learned-token": figure_entry("fig4-learned-token", learned, "s")}})
    assert "fig4: target does not learn" in section.summary and "fig4-learned-token: target learns" in section.summary
    assert "delta = 0.1" in section.html
