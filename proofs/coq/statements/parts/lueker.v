
(* Lueker's corollary as the paper cites it (Events.v: lueker_corollary), its width, error and failure printed from
   the bounds catalogue: the one cited result, a hypothesis of every theorem that uses it, proved nowhere *)
Definition n_lueker (C eps : R) : R := {w:n}.
Definition err_lueker (eps : R) : R := {bound}.
Definition fail_lueker (eps : R) : R := {fail}.
Definition lueker_cited {Omega} (P : outer_prob Omega) (lueker_class : nat -> (nat -> Omega -> R) -> Prop) (C : R)
  : Prop := lueker_corollary P lueker_class (n_lueker C) err_lueker fail_lueker.

(* at eps = 1 the failure budget is 1, met by every event: the corollary extends to 0 < eps <= 1 (the steps bound
   each per-problem budget by 1) *)
Lemma lueker_upto1 : forall {Omega} (P : outer_prob Omega) lueker_class C, lueker_cited P lueker_class C ->
  forall N X eps, premise_lueker_items lueker_class N X -> 0 < eps <= 1 -> n_lueker C eps <= INR N ->
  whp P (fun w => subset_sums_cover N (fun k => X k w) (err_lueker eps)) (fail_lueker eps).
Proof.
  intros Omega P cl C L N X eps HX [He0 He1] Hw. destruct (Rle_lt_or_eq_dec eps 1 He1) as [Hlt|Heq].
  - apply L; [exact HX | split; assumption | exact Hw].
  - apply whp_one. unfold fail_lueker. rewrite Heq. lra.
Qed.
