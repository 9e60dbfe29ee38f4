"""Figures 7 and 8 of the paper: edge-popup strong lottery tickets in a small GPT-2 whose query/key weights are
scaled by ``s`` (Section 4.3, Appendix B).

- ``slt.gpt2.corpus``: the offline corpus (the Python standard library's source, byte tokens); numpy only.
- ``slt.gpt2.model``: the decoder with edge-popup masks (PyTorch, the optional ``[torch]`` extra).
- ``slt.gpt2.train``: the edge-popup training run of one (configuration, seed) and its validation-loss curve.
- ``slt.gpt2.figures``: the plans, sweeps, summaries and verdicts of Figures 7 and 8.

Modules that need PyTorch import it themselves; importing this package does not.
"""
