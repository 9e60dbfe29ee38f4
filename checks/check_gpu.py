"""Theorem 9 through the PyTorch forward pass (``slt.measure.gpu``): on the CPU at small sizes in every run, on CUDA
at d1 = d2 = 16, H = 8 and T up to 2^14 behind the ``gpu`` marker. Without the ``[torch]`` extra both are skipped
with that reason."""
from __future__ import annotations

import pytest

from slt.measure.evidence import report_failures

torch = pytest.importorskip("torch", reason="PyTorch not installed (optional [torch] extra: pip install -e .[torch])")


def test_theorem9_torch_path_on_the_cpu():
    from slt.measure.gpu import length_cases

    cases, agreement = length_cases(seed=5, d1=2, d2=2, H=2, eps=0.2, lengths=(16, 256), device="cpu")
    assert agreement <= 1e-10, f"torch (cpu) and slt.models.mha differ by {agreement:.3g}"
    assert not report_failures(cases), report_failures(cases)


@pytest.mark.gpu
def test_theorem9_large_dimensions_and_length_on_gpu():
    from slt.measure.gpu import length_cases

    cases, agreement = length_cases(seed=5, d1=16, d2=16, H=8, eps=0.2, lengths=(2**10, 2**12, 2**14), device="cuda")
    assert agreement <= 1e-10, f"torch (cuda) and slt.models.mha differ by {agreement:.3g}"
    assert not report_failures(cases), report_failures(cases)
