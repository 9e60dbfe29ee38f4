"""The Coq prelude of the exported steps has one source, the committed ``proofs/coq/Common.v``: the exporter reads it
from there (``bounds.prove.coq.export.prelude``) and writes ``Common.v`` back as that prelude and the facts."""
from __future__ import annotations

import pytest

from bounds.prove.coq import export


def test_the_prelude_is_read_from_common_v():
    text = export.COMMON.read_text()
    assert export.PRELUDE == export.prelude() and export.PRELUDE in text
    assert export.PRELUDE.startswith("From Coq Require Import") and "Ltac slth_nz" in export.PRELUDE
    assert "(* facts:" not in export.PRELUDE and "(* facts:" in text  # the facts are not part of it
    assert "Definition is_int" not in export.__loader__.get_source(export.__name__)  # no second copy in Python


def test_an_edited_common_v_changes_the_prelude_and_a_broken_one_is_refused(tmp_path):
    path = tmp_path / "Common.v"
    path.write_text(export.COMMON.read_text().replace("Definition is_int", "Definition is_integer"))
    assert "Definition is_integer" in export.prelude(path) and export.prelude(path) != export.PRELUDE
    path.write_text("(* nothing *)\n")
    with pytest.raises(ValueError, match="not the Coq prelude"):
        export.prelude(path)
    with pytest.raises(ValueError, match="cannot read the Coq prelude"):
        export.prelude(tmp_path / "missing.v")
