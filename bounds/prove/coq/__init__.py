"""Every proof step and scalar fact exported to Coq and checked by its kernel (CoqInterval for the arithmetic):
``printer`` (SymPy -> Coq Reals), ``export`` (a lemma per step with premises from the ``Param`` declarations),
``cascade`` (its candidate tactics), ``tactics`` (the tactic filter and the recorded tactics), ``files`` (the ``.v``
texts), ``search`` (the tactic search), ``runner`` (coqc), ``build`` (the folders and their records),
``statement_check`` (each compiled constant against its statement, ``Print Assumptions``) and ``check`` (the verdict
per step)."""
