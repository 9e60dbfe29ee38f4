"""The `slth` command line and the self-contained HTML report (bound versus empirical)."""
