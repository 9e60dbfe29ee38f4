"""Theorem 9 through the PyTorch forward pass (``slt.measure.gpu``): on the CPU at small sizes in every run, on CUDA
at d1 = d2 = 16, H = 8 and T up to 2^14 behind the ``gpu`` marker (and at those sizes on the CPU in the thorough
profile). Without the ``[torch]`` extra both are skipped
with that reason."""
from __future__ import annotations

import pytest

from slt.measure.evidence import report_failures
from slt.measure.gpu import length_cases

torch = pytest.importorskip("torch", reason="PyTorch not installed (optional [torch] extra: pip install -e .[torch])")


def test_theorem9_torch_path_on_the_cpu():
    cases, agreement = length_cases(seed=5, d1=2, d2=2, H=2, eps=0.2, lengths=(16, 256), device="cpu")
    assert agreement <= 1e-10, f"torch (cpu) and slt.models.mha differ by {agreement:.3g}"
    assert not report_failures(cases), report_failures(cases)


@pytest.mark.parametrize("device", [pytest.param("cuda", marks=pytest.mark.gpu),
                                    pytest.param("cpu", marks=[pytest.mark.slow, pytest.mark.thorough])])
def test_theorem9_large_dimensions_and_length(device):
    """d1 = d2 = 16, H = 8, T up to 2^14: on CUDA behind the ``gpu`` marker; the same sizes on the CPU in the
    thorough profile (``slow``: about 2 GiB per head's logits at T = 2^14, minutes on 2 cores), so every part of the
    GPU check but the device has run somewhere."""
    cases, agreement = length_cases(seed=5, d1=16, d2=16, H=8, eps=0.2, lengths=(2**10, 2**12, 2**14), device=device)
    assert agreement <= 1e-10, f"torch ({device}) and slt.models.mha differ by {agreement:.3g}"
    assert not report_failures(cases), report_failures(cases)
