(* Lemma 2: width, error and failure probability as the paper prints them *)
Definition n_lemma2 (C : R) (d1 d2 : nat) (eps : R) : R := {w:n}.
Definition err_lemma2 (d1 d2 : nat) (eps : R) : R := {bound}.
Definition fail_lemma2 (d1 d2 : nat) (eps : R) : R := {fail}.

Section lemma2.
Variables (Omega : Type) (P : outer_prob Omega) (lueker_class : nat -> (nat -> Omega -> R) -> Prop) (C : R).
Hypothesis HC : 0 < C.
Hypothesis lueker : lueker_cited P lueker_class C.
(* the random weights of the construction (n = d1 n' hidden units, unit j n' + k with first weight u_jk and second
   weights v_ijk) *)
Variables (d1 d2 n : nat) (eps : R) (v : nat -> nat -> nat -> Omega -> R) (u : nat -> nat -> Omega -> R).
Hypotheses (Hd1 : (1 <= d1)%nat) (Hd2 : (1 <= d2)%nat) (Heps0 : 0 < eps) (Heps1 : eps < 1).
Hypothesis Hn : n_lemma2 C d1 d2 eps <= INR n.
(* not in the printed statement: d1 divides n (n' = n / d1 units per input coordinate) *)
Hypothesis Hdiv : (n mod d1 = 0)%nat.
(* the modelling hypothesis: the half-rectified products v_ijk max(0, u_jk) and v_ijk max(0, -u_jk) of uniform
   weights are in Lueker's class *)
Hypothesis items_pos : forall i j, (i < d2)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (n / d1) (fun k w => v i j k w * relu (u j k w)).
Hypothesis items_neg : forall i j, (i < d2)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (n / d1) (fun k w => v i j k w * relu (- u j k w)).
(* Lemma 2 (Pensia et al.): with probability at least 1 - eps, for every target W with ||W|| <= 1, masks m_ijk in
   {0, 1} put the pruned pair within the printed error of W x for every x with ||x|| <= 1 at once.  Differences from
   the printed statement: d1 divides n; one event for all targets *)
Theorem stmt_lemma2 : whp P (fun w => forall W : mat, op_bound d2 d1 W 1 ->
  exists m : nat -> nat -> nat -> R,
    (forall i j k, (i < d2)%nat -> (j < d1)%nat -> m i j k = 0 \/ m i j k = 1) /\
    forall x : vec, norm d1 x <= 1 ->
      norm d2 (vsub (matvec d1 W x) (matvec (d1 * (n / d1)) (second_block (n / d1) m (fun i j k => v i j k w))
                     (vrelu (matvec d1 (first_block (n / d1) (fun j k => u j k w)) x)))) <= err_lemma2 d1 d2 eps)
  (fail_lemma2 d1 d2 eps).
Proof.
  set (n' := (n / d1)%nat).
  assert (Hper : 0 < {c:per_problem} <= 1).
  { split; [| let S := fresh in instance {step:L2b-eps} S; eapply Rle_trans; [| exact S]; right; sf].
    assert (0 < INR d1) by (apply lt_0_INR; lia). assert (0 < INR d2) by (apply lt_0_INR; lia).
    repeat (apply Rmult_lt_0_compat || apply Rdiv_lt_0_compat || apply Rinv_0_lt_compat); lra. }
  (* L2b: the printed width gives n' >= C log(2 d1 d2 / eps) per block *)
  assert (Hw : n_lueker C {c:per_problem} <= INR n').
  { apply block_width; [exact Hd1 | exact Hdiv|]. eapply Rle_trans; [| exact Hn].
    unfold n_lueker, n_lemma2. via {step:L2b}. }
  assert (Hd : d1 <> 0%nat) by lia.
  assert (Hij : forall p, (p < d2 * d1)%nat -> (p / d1 < d2)%nat /\ (p mod d1 < d1)%nat)
    by (intros p Hp; split; [apply Nat.div_lt_upper_bound; [exact Hd | lia] | apply Nat.mod_upper_bound; exact Hd]).
  assert (Hpos : forall p, (p < d2 * d1)%nat -> whp P (fun w => subset_sums_cover n'
      (fun k => v (p / d1)%nat (p mod d1)%nat k w * relu (u (p mod d1)%nat k w)) (err_lueker {c:per_problem}))
      (fail_lueker {c:per_problem})).
  { intros p Hp. apply (lueker_upto1 P lueker_class C lueker n'); [| exact Hper | exact Hw].
    apply items_pos; apply Hij, Hp. }
  assert (Hneg : forall p, (p < d2 * d1)%nat -> whp P (fun w => subset_sums_cover n'
      (fun k => v (p / d1)%nat (p mod d1)%nat k w * relu (- u (p mod d1)%nat k w)) (err_lueker {c:per_problem}))
      (fail_lueker {c:per_problem})).
  { intros p Hp. apply (lueker_upto1 P lueker_class C lueker n'); [| exact Hper | exact Hw].
    apply items_neg; apply Hij, Hp. }
  pose proof (whp_and P _ _ _ _ (whp_all_const P (d2 * d1) _ _ Hpos) (whp_all_const P (d2 * d1) _ _ Hneg)) as Hboth.
  eapply whp_mono; [| | exact Hboth].
  - (* L2c, L2d: on the event, the construction (lemma2_on_event) for the 2 d1 d2 problems *)
    intros w [Ep En] W HW.
    destruct (lemma2_on_event d1 d2 n' (fun i j k => v i j k w) (fun j k => u j k w) (err_lueker {c:per_problem})
      Hd1 Hd2 (proj1 (lueker_event_all _ _ _ _) Ep) (proj1 (lueker_event_all _ _ _ _) En) W HW) as [m [Hm Hb]].
    exists m. split; [exact Hm|]. intros x Hx. eapply Rle_trans; [exact (Hb x Hx)|].
      unfold err_lueker, err_lemma2. via {step:L2d}.
  - (* L2e: the union bound over the problems counted by the printed constant problems *)
    unfold fail_lueker, fail_lemma2.
    apply Rle_trans with ({c:problems} * (1 - (1 - {c:per_problem}))); [right; rewrite mult_INR; sf|].
    via {step:L2e}.
Qed.
End lemma2.
