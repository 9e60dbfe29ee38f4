"""Strong lottery tickets built exactly as the paper's proofs build them (docs/statements.md: Lemma 2, Lemma 7, Theorems 9, 10, 11 and 14).

``lemma7`` (Lemma 7 / Lemma 4), ``lemma2`` and ``relu_net`` (Lemma 2 / Theorem 10, Pensia et al.) in
:mod:`slt.construct.linear`; ``mha`` (Theorem 9 / 3), ``block`` (Theorem 11), ``transformer``
(Theorem 14 / 6) in :mod:`slt.construct.attention`. Every subset sum goes to ``slt.subset_sum.solve``.
"""
from slt.construct.attention import BlockTicket, MHATicket, TransformerTicket, block, mha, transformer
from slt.construct.linear import Lemma2Ticket, Lemma7Ticket, ReLUNetTicket, lemma2, lemma7, relu_net

__all__ = ["lemma7", "lemma2", "relu_net", "mha", "block", "transformer",
           "Lemma7Ticket", "Lemma2Ticket", "ReLUNetTicket", "MHATicket", "BlockTicket", "TransformerTicket"]
