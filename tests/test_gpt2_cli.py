"""`slth reproduce fig7|fig8`: registered, and a clear exit 2 naming the extra when PyTorch is absent."""
from __future__ import annotations

import pytest

from reports import cli
from slt import figures


def test_fig7_and_fig8_are_registered():
    assert {"fig7", "fig8"} <= set(figures.names())
    assert figures.get("fig8").render["kind"] == "gpt2"


@pytest.mark.parametrize("name", ["fig7", "fig8"])
def test_without_torch_exits_2_naming_the_extra(name, monkeypatch, tmp_path, capsys):
    from slt import train

    monkeypatch.setattr(train, "torch_available", lambda: False)
    assert cli.main(["reproduce", name, "--quick", "--results", str(tmp_path)]) == 2  # before any cluster starts
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "[torch]" in err[0] and name in err[0]
    assert not (tmp_path / "reproduction").exists()


def test_device_applies_to_the_gpt2_figures_only(tmp_path, capsys):
    for name in ("fig4", "fig8-replication"):  # the replication is a registered CPU design
        assert cli.main(["reproduce", name, "--quick", "--device", "cuda", "--results", str(tmp_path)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "fig7 and fig8 only" in err[0] and name in err[0]
    assert figures.get("fig8-replication").device == "cpu"


def test_cuda_plan_is_the_papers(monkeypatch):
    fig = figures.get("fig8")
    monkeypatch.setattr(fig, "device", "cuda")
    p = fig.plan(False)
    assert p.device == "cuda" and {m["d_model"] for m in p.widths} == {256, 768}
    assert all(m["d_model"] // m["n_head"] == 64 for m in p.widths)
