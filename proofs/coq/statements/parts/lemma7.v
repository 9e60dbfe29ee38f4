(* Lemma 7: width, error and failure probability as the paper prints them *)
Definition n_lemma7 (C : R) (d1 d2 : nat) (eps : R) : R := {w:n}.
Definition err_lemma7 (d1 d2 : nat) (eps : R) : R := {bound}.
Definition fail_lemma7 (d1 d2 : nat) (eps : R) : R := {fail}.
(* the event of Lemma 7 for the random weights v, u at the sample w: for every target W with entries in [-1, 1],
   masks m_ijk in {0, 1} put every entry of the pruned product within err *)
Definition lemma7_event {Omega} (d1 d2 n : nat) (v : nat -> nat -> nat -> Omega -> R) (u : nat -> nat -> Omega -> R)
    (err : R) (w : Omega) : Prop :=
  forall W : mat, (forall i j, (i < d2)%nat -> (j < d1)%nat -> Rabs (W i j) <= 1) ->
  exists m : nat -> nat -> nat -> R,
    (forall i j k, (i < d2)%nat -> (j < d1)%nat -> m i j k = 0 \/ m i j k = 1) /\
    forall i j, (i < d2)%nat -> (j < d1)%nat ->
      Rabs (matmul (d1 * (n / d1)) (second_block (n / d1) m (fun i j k => v i j k w)) (first_block (n / d1) (fun j k => u j k w)) i j
            - W i j) <= err.

Section lemma7.
(* the sample space, its outer probability, Lueker's class of items and the universal constant C > 0 *)
Variables (Omega : Type) (P : outer_prob Omega) (lueker_class : nat -> (nat -> Omega -> R) -> Prop) (C : R).
Hypothesis HC : 0 < C.
(* the cited result *)
Hypothesis lueker : lueker_cited P lueker_class C.
(* the random weights: W~1 (.) M1 keeps in hidden rows j n' .. j n' + n' - 1 only column j, entries u_jk; row i of
   W~2 splits into blocks v_ijk (Lemma 7's construction, n = d1 n' hidden units) *)
Variables (d1 d2 n : nat) (eps : R) (v : nat -> nat -> nat -> Omega -> R) (u : nat -> nat -> Omega -> R).
(* 0 < eps <= 1: the printed statement has eps < 1; at eps = 1 the failure budget is 1 and the theorem holds for
   every event (Theorem 9's budgets eps_QK, eps_VO are only shown <= 1) *)
Hypotheses (Hd1 : (1 <= d1)%nat) (Hd2 : (1 <= d2)%nat) (Heps0 : 0 < eps) (Heps1 : eps <= 1).
(* the printed width *)
Hypothesis Hn : n_lemma7 C d1 d2 eps <= INR n.
(* not in the printed statement: d1 divides n, so that each of the d1 blocks has n' = n / d1 units and
   n' >= C log(d1 d2 / eps) follows from the printed width (for d1 not dividing n, floor(n / d1) can miss it) *)
Hypothesis Hdiv : (n mod d1 = 0)%nat.
(* the modelling hypothesis: the items v_ijk u_jk (k < n') of each entry (i, j), products of uniform weights, are in
   Lueker's class *)
Hypothesis items : forall i j, (i < d2)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (n / d1) (fun k w => v i j k w * u j k w).
(* Lemma 7 (Lemma 4 of the main text) as the appendix states it: with probability at least 1 - eps, for every target
   W with entries in [-1, 1], masks m_ijk in {0, 1} put every entry of the pruned product within the printed error.
   Differences from the printed statement: d1 divides n (above); the event is one for all targets at once
   (stronger than the printed order "for W, with probability") *)
Theorem stmt_lemma7 : whp P (lemma7_event d1 d2 n v u (err_lemma7 d1 d2 eps)) (fail_lemma7 d1 d2 eps).
Proof.
  destruct (Rle_lt_or_eq_dec eps 1 Heps1) as [Hlt|Heq]; [| apply whp_one; unfold fail_lemma7; rewrite Heq; lra].
  unfold lemma7_event.
  set (n' := (n / d1)%nat). set (ep := eps / (INR d1 * INR d2)).
  assert (0 < INR d1) by (apply lt_0_INR; lia). assert (0 < INR d2) by (apply lt_0_INR; lia).
  assert (Hep : 0 < ep <= 1).
  { unfold ep. split; [apply Rdiv_lt_0_compat; [lra | nra]|].
    assert (1 <= INR d1) by (apply one_le_INR; exact Hd1). assert (1 <= INR d2) by (apply one_le_INR; exact Hd2).
    apply Rle_trans with eps; [| lra]. unfold Rdiv. rewrite <- (Rmult_1_r eps) at 2.
    apply Rmult_le_compat_l; [lra|]. rewrite <- Rinv_1. apply Rinv_le_contravar; nra. }
  (* L7a: the printed width gives n' >= C log(d1 d2 / eps) per block *)
  assert (Hw : n_lueker C ep <= INR n').
  { apply block_width; [exact Hd1 | exact Hdiv|]. eapply Rle_trans; [| exact Hn].
    unfold n_lueker, n_lemma7, ep. via {step:L7a}. }
  (* Lueker's corollary for each of the d2 d1 problems, problem p = i d1 + j *)
  assert (Hp : forall p, (p < d2 * d1)%nat -> whp P (fun w => subset_sums_cover n'
      (fun k => v (p / d1)%nat (p mod d1)%nat k w * u (p mod d1)%nat k w) (err_lueker ep)) (fail_lueker ep)).
  { intros p Hp. assert (Hd : d1 <> 0%nat) by lia.
    apply (lueker_upto1 P lueker_class C lueker n' (fun k w => v (p / d1)%nat (p mod d1)%nat k w * u (p mod d1)%nat k w));
      [| exact Hep | exact Hw].
    apply items; [apply Nat.div_lt_upper_bound; [exact Hd | lia] | apply Nat.mod_upper_bound; exact Hd]. }
  (* L7c: the union bound over the d1 d2 entries *)
  eapply whp_mono; [| | exact (whp_all_const P (d2 * d1) _ _ Hp)].
  - (* L7b: on the event, the construction (lemma7_on_event) *)
    intros w Hall W HW.
    destruct (lemma7_on_event d1 d2 n' (fun i j k => v i j k w) (fun j k => u j k w) (err_lueker ep)
      (proj1 (lueker_event_all _ _ _ _) Hall) W HW) as [m [Hm Hb]].
    exists m. split; [exact Hm|]. intros i j Hi Hj. eapply Rle_trans; [apply Hb; assumption|].
    unfold err_lueker, err_lemma7, ep. via {step:L7b}.
  - unfold fail_lueker, fail_lemma7, ep. rewrite mult_INR. via {step:L7c}.
Qed.
End lemma7.

(* the main text's form (Lemma 4): ||W|| <= 1 gives every entry in [-1, 1] *)
Corollary lemma7_op_norm : forall Omega (P : outer_prob Omega) lueker_class C, 0 < C -> lueker_cited P lueker_class C ->
  forall (d1 d2 n : nat) (eps : R) v u, (1 <= d1)%nat -> (1 <= d2)%nat -> 0 < eps -> eps <= 1 ->
  n_lemma7 C d1 d2 eps <= INR n -> (n mod d1 = 0)%nat ->
  (forall i j, (i < d2)%nat -> (j < d1)%nat -> premise_lueker_items lueker_class (n / d1) (fun k w => v i j k w * u j k w)) ->
  whp P (fun w => forall W : mat, op_bound d2 d1 W 1 ->
  exists m : nat -> nat -> nat -> R,
    (forall i j k, (i < d2)%nat -> (j < d1)%nat -> m i j k = 0 \/ m i j k = 1) /\
    forall i j, (i < d2)%nat -> (j < d1)%nat ->
      Rabs (matmul (d1 * (n / d1)) (second_block (n / d1) m (fun i j k => v i j k w)) (first_block (n / d1) (fun j k => u j k w)) i j
            - W i j) <= err_lemma7 d1 d2 eps) (fail_lemma7 d1 d2 eps).
Proof.
  intros Omega P cl C HC L d1 d2 n eps v u Hd1 Hd2 He0 He1 Hn Hdiv Hi.
  eapply whp_mono; [| apply Rle_refl | exact (stmt_lemma7 Omega P cl C HC L d1 d2 n eps v u Hd1 Hd2 He0 He1 Hn Hdiv Hi)].
  intros w G W HW. unfold lemma7_event in G. apply G. intros i j Hi' Hj'. exact (entry_le_op d2 d1 W 1 i j HW Hi' Hj').
Qed.
