"""Report sections, in the order they appear.

Each module named here defines ``render(record: dict) -> reports.build.Section | None`` (None: the record holds
no data for it): it fills the jinja2 template ``reports/templates/sections/<name>.html`` from the run record and
measures nothing.
"""
SECTIONS = [
    "reports.sections.findings",
    "reports.sections.summary",
    "reports.sections.statements",
    "reports.sections.proofs",
    "reports.sections.empirical",
    "reports.sections.evidence",
    "reports.sections.calibration_trend",
    "reports.sections.reproduction",
    "reports.sections.token",
    "reports.sections.gpt2",
]
