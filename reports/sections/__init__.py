"""Report sections, in the order they appear.

Each module named here defines ``render(ctx: reports.build.Context) -> reports.build.Section``.
"""
SECTIONS = [
    "reports.sections.statements",
    "reports.sections.proofs",
    "reports.sections.empirical",
    "reports.sections.reproduction",
]
