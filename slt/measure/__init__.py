"""The measuring library: every measurement the checks, the calibration, the run record and the report use.

``slt.measure.statements.<name>``: one module per statement (trial, measure, grids, re-run); the rest are shared
machinery (statistics, evidence, strategies, searches, calibration). Imports ``bounds`` and ``slt``; never ``checks``.
"""
