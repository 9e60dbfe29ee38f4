"""The paper's statements and proofs as SymPy data (arXiv 2511.04217)."""
