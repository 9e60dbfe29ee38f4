From SlthMath Require Import Theorem10.
(* Theorem 10's width, error and failure probability as the paper prints them *)
Definition n_theorem10 (C : R) (d1 d2 L : nat) (eps : R) : R := {w:n_l}.
Definition err_theorem10 (alpha eps : R) : R := {bound}.
Definition fail_theorem10 (eps : R) : R := {fail}.
(* the budget eps / (2L) at which each layer's Lemma 2 is applied *)
Definition budget_theorem10 (L : nat) (eps : R) : R := {c:budget}.

Section theorem10.
(* T10a: Lemma 2 with (d1, d2) = (d_l, d_(l+1)) at the layer budget needs at most the printed width *)
Lemma theorem10_layer_width : forall C (d1 d2 L : nat) eps, 0 < C -> (1 <= d1)%nat -> (1 <= d2)%nat -> (1 <= L)%nat ->
  0 < eps -> eps < 1 -> n_lemma2 C d1 d2 (budget_theorem10 L eps) <= n_theorem10 C d1 d2 L eps.
Proof.
  intros C d1 d2 L eps HC Hd1 Hd2 HL He0 He1. unfold n_lemma2, n_theorem10, budget_theorem10.
  let S := fresh in instance {step:T10a} S; eapply Rle_trans; [| eapply Rle_trans; [exact S|]]; apply Req_le;
    [f_equal; f_equal; sf | reflexivity].
Qed.
Variables (Omega : Type) (P : outer_prob Omega) (lueker_class : nat -> (nat -> Omega -> R) -> Prop) (C : R).
Hypothesis HC : 0 < C.
Hypothesis lueker : lueker_cited P lueker_class C.
(* the target's widths dims 0 .. dims L, the source's hidden widths n 0 .. n (L-1) *)
Variables (L : nat) (dims n : nat -> nat) (alpha eps : R).
(* alpha >= 1: the written proof's step T10b fails for alpha < 1 (a repaired reading of the printed alpha > 0) *)
Hypotheses (HL : (1 <= L)%nat) (Hdims : forall l, (l <= L)%nat -> (1 <= dims l)%nat) (Ha : 1 <= alpha)
  (Heps0 : 0 < eps) (Heps1 : eps < 1).
(* the printed width of every layer *)
Hypothesis Hn : forall l, (l < L)%nat -> n_theorem10 C (dims l) (dims (S l)) L eps <= INR (n l).
(* not in the printed statement: d_l divides n_l (Lemma 2's n_l / d_l units per input coordinate) *)
Hypothesis Hdiv : forall l, (l < L)%nat -> (n l mod dims l = 0)%nat.
(* layer l's random weights, Lemma 2's construction: first weights u l j k, second weights v l i j k *)
Variables (v : nat -> nat -> nat -> nat -> Omega -> R) (u : nat -> nat -> nat -> Omega -> R).
(* the modelling hypothesis of Lemma 2, for every layer *)
Hypothesis items_pos : forall l, (l < L)%nat -> forall i j, (i < dims (S l))%nat -> (j < dims l)%nat ->
  premise_lueker_items lueker_class (n l / dims l) (fun k w => v l i j k w * relu (u l j k w)).
Hypothesis items_neg : forall l, (l < L)%nat -> forall i j, (i < dims (S l))%nat -> (j < dims l)%nat ->
  premise_lueker_items lueker_class (n l / dims l) (fun k w => v l i j k w * relu (- u l j k w)).
(* Theorem 10 (Pensia et al. 2020, Theorem 1): with probability at least 1 - eps, for every target net of L layers
   with ||W_l|| <= 1, masks in {0, 1} put the pruned net of 2L layers (pruned_net, Theorem10.v) within the printed
   error of the target on every input of norm at most alpha.  Differences from the printed statement: alpha >= 1
   (above); d_l divides n_l; one event for all targets *)
Theorem stmt_theorem10 : whp P (fun w => forall W : nat -> mat,
  (forall l, (l < L)%nat -> op_bound (dims (S l)) (dims l) (W l) 1) ->
  exists m : nat -> nat -> nat -> nat -> R,
    (forall l, (l < L)%nat -> binary3 (dims (S l)) (dims l) (m l)) /\
    forall x : vec, norm (dims O) x <= alpha ->
      norm (dims L) (vsub (pruned_net L dims (fun l => n l / dims l)%nat (fun l j k => u l j k w)
                             (fun l i j k => v l i j k w) m x) (relu_net L dims W x)) <= err_theorem10 alpha eps)
  (fail_theorem10 eps).
Proof.
  assert (HLr : 1 <= INR L) by (apply one_le_INR; exact HL).
  assert (Hb : 0 < budget_theorem10 L eps < 1) by (unfold budget_theorem10; split; [apply Rdiv_lt_0_compat; lra|];
    apply (Rmult_lt_reg_r (2 * INR L)); [lra|]; unfold Rdiv; rewrite Rmult_assoc, Rinv_l, Rmult_1_r by lra; lra).
  (* T10a: Lemma 2 at every layer, on its event *)
  assert (H2 : forall l, (l < L)%nat -> whp P (fun w => forall Wl : mat, op_bound (dims (S l)) (dims l) Wl 1 ->
      lemma2_masks (dims l) (dims (S l)) (n l / dims l) (fun j k => u l j k w) (fun i j k => v l i j k w) Wl
        (eps / (2 * INR L))) (budget_theorem10 L eps)).
  { intros l Hl. assert (Hd : (1 <= dims l)%nat) by (apply Hdims; lia). assert (Hd' : (1 <= dims (S l))%nat) by (apply Hdims; lia).
    eapply whp_mono; [| | exact (stmt_lemma2 Omega P lueker_class C HC lueker (dims l) (dims (S l)) (n l) (budget_theorem10 L eps)
      (v l) (u l) Hd Hd' (proj1 Hb) (proj2 Hb)
      (Rle_trans _ _ _ (theorem10_layer_width C (dims l) (dims (S l)) L eps HC Hd Hd' HL Heps0 Heps1) (Hn l Hl))
      (Hdiv l Hl) (items_pos l Hl) (items_neg l Hl))].
    - intros w G Wl HW. destruct (G Wl HW) as [m [Hm Hx]]. exists m. split; [exact Hm|].
      intros x Hx1. eapply Rle_trans; [exact (Hx x Hx1)|]. unfold err_lemma2, budget_theorem10. right. field. lra.
    - unfold fail_lemma2. right. reflexivity. }
  (* T10b-T10e on the event (theorem10_of_lemma2), T10f: the union bound over the L layers *)
  eapply whp_mono; [| | exact (theorem10_whp Omega P L dims (fun l => n l / dims l)%nat (fun w l j k => u l j k w)
                                 (fun w l i j k => v l i j k w) alpha eps (fun _ => budget_theorem10 L eps) HL Ha ltac:(lra) H2)].
  - intros w G W HW. destruct (G W HW) as [m [Hm Hx]]. exists m. split; [exact Hm|].
    intros x Hx1. eapply Rle_trans; [exact (Hx x Hx1)|]. unfold err_theorem10. via {step:T10e}.
  - rewrite sum_const. unfold fail_theorem10, budget_theorem10. via {step:T10f}.
Qed.
End theorem10.
