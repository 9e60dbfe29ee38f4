"""Each target family of ``slt.targets.FAMILIES`` in words, for a reader: the report's glossary prints these
(``tests/test_one_truth.py`` holds every family the report names to an entry here)."""
from __future__ import annotations

FAMILY_MEANING = {
    "random": "the harness's default draw: a Gaussian matrix rescaled to a spectral norm drawn from U(0, 1]",
    "identity": "the m x n matrix with ones on its diagonal",
    "signed_permutation": "a random partial permutation matrix with random signs",
    "orthogonal": "a Haar-random matrix with orthonormal rows or columns (every singular value 1)",
    "single_entry": "one random entry +-1, the rest 0",
    "rank_one": "u v^T with u, v Gaussian unit vectors (norm 1)",
    "gaussian_max_norm": "a Gaussian matrix rescaled to spectral norm 1 (under the max-entry hypothesis: to largest "
                         "entry 1), so it lies on the boundary of the hypothesis set",
    "sign_matrix": "every entry +-1 at random (only under the max-entry hypothesis)",
}
"""What each target family is, in words (the report's glossary prints these)."""
