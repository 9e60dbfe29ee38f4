"""Report sections, in the order they appear.

Each module listed in ``SECTIONS`` defines ``render(record: dict) -> reports.render.Section | None`` (None: the
record holds no data for it): it fills the jinja2 template ``reports/templates/sections/<name>.html`` from the run
record and measures nothing. ``NAMES`` are the names ``slth report --only`` takes.
"""
from reports.sections import (calibration_trend, empirical, evidence, findings, glossary, gpt2, proofs, reproduction,
                              statements, summary, token)

SECTIONS = [findings, summary, statements, proofs, empirical, evidence, calibration_trend, reproduction, token, gpt2,
            glossary]
NAMES = {module.__name__.rsplit(".", 1)[-1]: module for module in SECTIONS}
