
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

(* Lueker's corollary as printed holds for no item class with a family of one item, whatever C > 0: at
   eps = exp (-1/C) the printed width C ln (1/eps) is 1, one item x has the subset sums 0 and x, and no such pair
   covers both -1 and 1 within eps < 1; so the cover fails at every sample, with outer probability 1 > eps. *)
Lemma abs_le_between : forall t e, Rabs t <= e -> - e <= t <= e.
Proof. intros t e H. pose proof (Rle_abs t) as A. pose proof (Rle_abs (- t)) as B. rewrite Rabs_Ropp in B. lra. Qed.

Lemma one_item_covers_not : forall (x : nat -> R) eps, eps < 1 -> ~ subset_sums_cover 1 x eps.
Proof.
  intros x eps He H.
  destruct (H 1 ltac:(lra)) as [m [Hm Hz]]. destruct (H (-1) ltac:(lra)) as [m' [Hm' Hz']].
  simpl in Hz, Hz'. rewrite Rplus_0_l in Hz, Hz'.
  destruct (Hm 0%nat) as [E|E]; destruct (Hm' 0%nat) as [E'|E']; rewrite E in Hz; rewrite E' in Hz';
    apply abs_le_between in Hz; apply abs_le_between in Hz'; lra.
Qed.

Theorem lueker_as_printed_fails_one_item : forall {Omega} (P : outer_prob Omega)
  (lueker_class : nat -> (nat -> Omega -> R) -> Prop) C
  (X : nat -> Omega -> R), 0 < C -> lueker_class 1%nat X -> ~ lueker_cited P lueker_class C.
Proof.
  intros Omega P cl C X HC HX L.
  set (eps := exp (- / C)).
  assert (He : 0 < eps < 1).
  { split; [apply exp_pos|]. unfold eps. rewrite <- exp_0. apply exp_increasing.
    pose proof (Rinv_0_lt_compat C HC). lra. }
  assert (Hw : n_lueker C eps <= INR 1).
  { unfold n_lueker, eps. rewrite <- exp_Ropp, ln_exp, Ropp_involutive. simpl. right. field. lra. }
  pose proof (L 1%nat X eps HX He Hw) as W. unfold whp, err_lueker, fail_lueker in W.
  assert (Pr P (fun _ => True) <= Pr P (fun w => ~ subset_sums_cover 1 (fun k => X k w) eps)).
  { apply Pr_mono. intros w _. apply one_item_covers_not. lra. }
  rewrite Pr_full in H. lra.
Qed.
