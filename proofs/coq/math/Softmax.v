(* Lemma 8 and Lemma 5: the softmax perturbation bound, for every sequence length T, width d1, mask a and
   logit vector z.  The proof is the paper's:
     p'_j = p_j exp(e_j) / Z with Z = sum_k p_k exp(e_k)                         (softmax_shift)
     exp(-eps) <= Z <= exp(eps)                                                   (Z_bounds)
     |1 - exp(e_j)/Z| <= exp(2 eps) - 1                                           (ratio_bound, eq. 9)
     sum_k |p_k - p'_k| <= exp(2 eps) - 1                                         (l1_shift)
     |(pX - p'X)_j| <= alpha sum_k |p_k - p'_k|                                   (hoelder)
     ||v|| <= sqrt d1 max_j |v_j|                                                 (norm_le_sqrt_dim) *)
From Coq Require Import Reals Lra Lia.
From SlthMath Require Import Objects Sums.
Open Scope R_scope.

(* --- the masked softmax is a probability vector ----------------------------------------------------------- *)

Lemma mask_nonneg : forall T a k, is_mask T a -> (k < T)%nat -> 0 <= a k.
Proof. intros T a k [H _] Hk. destruct (H k Hk) as [-> | ->]; lra. Qed.

Lemma weight_nonneg : forall T a z k, is_mask T a -> (k < T)%nat -> 0 <= a k * exp (z k).
Proof. intros. apply Rmult_le_pos; [eapply mask_nonneg; eauto | apply Rlt_le, exp_pos]. Qed.

(* the denominator sum_k a_k exp(z_k) is positive: the mask keeps a position *)
Lemma denom_pos : forall T a z, is_mask T a -> 0 < sum T (fun k => a k * exp (z k)).
Proof.
  intros T a z Ha. pose proof Ha as [H [j [Hj Aj]]].
  apply (sum_pos T _ j); [intros k Hk; apply (weight_nonneg T a z k Ha Hk) | exact Hj |].
  rewrite Aj, Rmult_1_l. apply exp_pos.
Qed.

Lemma softmax_nonneg : forall T a z k, is_mask T a -> (k < T)%nat -> 0 <= softmax T a z k.
Proof.
  intros T a z k Ha Hk. unfold softmax. apply Rmult_le_pos; [apply (weight_nonneg T); auto |].
  apply Rlt_le, Rinv_0_lt_compat, denom_pos; auto.
Qed.

Lemma softmax_sum : forall T a z, is_mask T a -> sum T (softmax T a z) = 1.
Proof.
  intros T a z Ha. unfold softmax, Rdiv. rewrite sum_scal_r. pose proof (denom_pos T a z Ha).
  field. lra.
Qed.

(* a masked position gets weight 0 *)
Lemma softmax_off_mask : forall T a z j, a j = 0 -> softmax T a z j = 0.
Proof. intros T a z j H. unfold softmax. rewrite H. unfold Rdiv. ring. Qed.

(* --- the softmax perturbation identity -------------------------------------------------------------------- *)

(* Z = sum_k p_k exp(e_k) *)
Definition Zshift (T : nat) (p e : vec) : R := sum T (fun k => p k * exp (e k)).

Lemma softmax_shift : forall T a z e j, is_mask T a ->
  softmax T a (vadd z e) j = softmax T a z j * exp (e j) / Zshift T (softmax T a z) e.
Proof.
  intros T a z e j Ha. unfold softmax, Zshift, vadd.
  set (S := sum T (fun k => a k * exp (z k))).
  assert (HS : 0 < S) by apply (denom_pos T a z Ha).
  assert (HS' : 0 < sum T (fun k => a k * exp (z k + e k))) by apply (denom_pos T a (vadd z e) Ha).
  assert (E : sum T (fun k => a k * exp (z k) / S * exp (e k)) = / S * sum T (fun k => a k * exp (z k + e k))).
  { rewrite <- sum_scal_l. apply sum_ext. intros k _. rewrite exp_plus. field. lra. }
  rewrite E, exp_plus. field. lra.
Qed.

(* --- eq. (9) ---------------------------------------------------------------------------------------------- *)

Lemma exp_mono : forall x y, x <= y -> exp x <= exp y.
Proof. intros x y [H | ->]; [left; apply exp_increasing; exact H | right; reflexivity]. Qed.

Lemma abs_between : forall x b, Rabs x <= b -> - b <= x <= b.
Proof. intros x b H. pose proof (Rle_abs x). pose proof (Rle_abs (- x)). rewrite Rabs_Ropp in *. lra. Qed.

Lemma exp_between : forall x eps, Rabs x <= eps -> exp (- eps) <= exp x <= exp eps.
Proof. intros x eps H. apply abs_between in H. split; apply exp_mono; lra. Qed.

Lemma Z_bounds : forall T a z e eps, is_mask T a -> (forall k, (k < T)%nat -> Rabs (e k) <= eps) ->
  exp (- eps) <= Zshift T (softmax T a z) e <= exp eps.
Proof.
  intros T a z e eps Ha He. unfold Zshift.
  rewrite <- (Rmult_1_l (exp (- eps))), <- (Rmult_1_l (exp eps)), <- (softmax_sum T a z Ha), <- !sum_scal_r.
  split; apply sum_le; intros k Hk; pose proof (exp_between _ _ (He k Hk)); pose proof (softmax_nonneg T a z k Ha Hk);
    apply Rmult_le_compat_l; lra.
Qed.

(* 1 - exp(-x) <= exp(x) - 1, i.e. exp(x) + exp(-x) >= 2 *)
Lemma exp_sym_gap : forall x, 1 - exp (- x) <= exp x - 1.
Proof.
  intros x. rewrite exp_Ropp. pose proof (exp_pos x) as P.
  assert (exp x + / exp x - 2 = (exp x - 1) * (exp x - 1) / exp x) by (field; lra).
  assert (0 <= (exp x - 1) * (exp x - 1) / exp x)
    by (apply Rmult_le_pos; [apply Rle_0_sqr | apply Rlt_le, Rinv_0_lt_compat; lra]).
  lra.
Qed.

(* a ratio between exp(-x) and exp(x) is within exp(x) - 1 of 1 *)
Lemma near_one : forall r x, exp (- x) <= r <= exp x -> Rabs (1 - r) <= exp x - 1.
Proof. intros r x H. pose proof (exp_sym_gap x). apply Rabs_le. lra. Qed.

(* a quotient of two numbers in [lo, hi] lies in [lo/hi, hi/lo] *)
Lemma div_between : forall u Z lo hi, 0 < lo -> lo <= u <= hi -> lo <= Z <= hi -> lo / hi <= u / Z <= hi / lo.
Proof.
  intros u Z lo hi Hlo Hu HZ. unfold Rdiv.
  split; apply Rmult_le_compat; try lra; try (apply Rlt_le, Rinv_0_lt_compat; lra);
    apply Rinv_le_contravar; lra.
Qed.

Lemma exp_double : forall x, exp x / exp (- x) = exp (2 * x) /\ exp (- x) / exp x = exp (- (2 * x)).
Proof.
  intros x. unfold Rdiv. rewrite <- !exp_Ropp, Ropp_involutive, <- !exp_plus. split; f_equal; ring.
Qed.

(* eq. (9): |1 - exp(e_j)/Z| <= exp(2 eps) - 1 *)
Lemma ratio_bound : forall Z ej eps, exp (- eps) <= Z <= exp eps -> Rabs ej <= eps ->
  Rabs (1 - exp ej / Z) <= exp (2 * eps) - 1.
Proof.
  intros Z ej eps HZ He. apply near_one. destruct (exp_double eps) as [Up Lo]. rewrite <- Up, <- Lo.
  apply div_between; [apply exp_pos | apply exp_between; exact He | exact HZ].
Qed.

(* --- Lemma 8 ---------------------------------------------------------------------------------------------- *)

(* sum_k |p_k - p'_k| <= exp(2 eps) - 1 *)
Lemma l1_shift : forall T a z e eps, is_mask T a -> (forall k, (k < T)%nat -> Rabs (e k) <= eps) ->
  sum T (fun k => Rabs (softmax T a z k - softmax T a (vadd z e) k)) <= exp (2 * eps) - 1.
Proof.
  intros T a z e eps Ha He. pose proof (Z_bounds T a z e eps Ha He) as HZ.
  apply Rle_trans with (sum T (fun k => softmax T a z k * (exp (2 * eps) - 1))).
  2: { rewrite sum_scal_r, softmax_sum by exact Ha. lra. }
  apply sum_le. intros k Hk. rewrite softmax_shift by exact Ha.
  replace (softmax T a z k - softmax T a z k * exp (e k) / Zshift T (softmax T a z) e)
    with (softmax T a z k * (1 - exp (e k) / Zshift T (softmax T a z) e)) by (unfold Rdiv; ring).
  rewrite Rabs_mult, (Rabs_pos_eq _ (softmax_nonneg T a z k Ha Hk)).
  apply Rmult_le_compat_l; [apply softmax_nonneg; auto | apply ratio_bound; auto].
Qed.

(* Hoelder, entry by entry: |sum_k q_k X_kj| <= alpha sum_k |q_k| when every |X_kj| <= alpha *)
Lemma hoelder : forall T (q : vec) (X : mat) j alpha, (forall k, (k < T)%nat -> Rabs (X k j) <= alpha) ->
  Rabs (sum T (fun k => q k * X k j)) <= alpha * sum T (fun k => Rabs (q k)).
Proof.
  intros T q X j alpha H. eapply Rle_trans; [apply sum_abs|]. rewrite <- sum_scal_l. apply sum_le.
  intros k Hk. rewrite Rabs_mult, Rmult_comm. apply Rmult_le_compat_r; [apply Rabs_pos | auto].
Qed.

Lemma vecmat_sub : forall T p p' (X : mat) j,
  vsub (vecmat T p X) (vecmat T p' X) j = sum T (fun k => (p k - p' k) * X k j).
Proof.
  intros. unfold vsub, vecmat. rewrite <- sum_minus. apply sum_ext. intros. ring.
Qed.

(* the mask keeps a position, so T >= 1 *)
Lemma mask_len : forall T a, is_mask T a -> exists k, (k < T)%nat.
Proof. intros T a [_ [k [Hk _]]]. eauto. Qed.

Theorem lemma8 : forall (T d1 : nat) (a z e : vec) (X : mat) (alpha eps : R),
  is_mask T a -> norm_max T e <= eps -> (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) ->
  norm d1 (vsub (vecmat T (softmax T a z) X) (vecmat T (softmax T a (vadd z e)) X))
    <= sqrt (INR d1) * alpha * (exp (2 * eps) - 1).
Proof.
  intros T d1 a z e X alpha eps Ha He HX.
  assert (Hek : forall k, (k < T)%nat -> Rabs (e k) <= eps)
    by (intros k Hk; eapply Rle_trans; [apply norm_max_ge_entry; exact Hk | exact He]).
  destruct (mask_len T a Ha) as [k0 Hk0].
  assert (Halpha : 0 <= alpha) by (eapply Rle_trans; [apply norm_nonneg | apply (HX k0 Hk0)]).
  assert (Heps : 0 <= eps) by (eapply Rle_trans; [apply Rabs_pos | apply (Hek k0 Hk0)]).
  assert (Hgap : 0 <= exp (2 * eps) - 1) by (pose proof (exp_ineq1_le (2 * eps)); lra).
  rewrite Rmult_assoc. apply norm_le_sqrt_dim; [| apply Rmult_le_pos; auto].
  intros j Hj. rewrite vecmat_sub.
  eapply Rle_trans.
  - apply hoelder. intros k Hk. eapply Rle_trans; [apply (entry_le_norm d1 (X k) j Hj) | apply (HX k Hk)].
  - apply Rmult_le_compat_l; [exact Halpha | apply l1_shift; auto].
Qed.

(* --- Lemma 5 ---------------------------------------------------------------------------------------------- *)

(* exp y <= 1 / (1 - y) for y < 1, from 1 - y <= exp (-y) *)
Lemma exp_le_inv : forall y, y < 1 -> exp y <= / (1 - y).
Proof.
  intros y Hy. pose proof (exp_ineq1_le (- y)) as H. rewrite exp_Ropp in H.
  rewrite <- (Rinv_inv (exp y)). apply Rinv_le_contravar; lra.
Qed.

(* exp(2x) - 1 <= 4x on [0, 1/2]: by exp y <= 1/(1-y) on [0, 1/4] (tight at 0); on [1/4, 1/2], with y = 1 - 2x,
   exp(2x) = e / exp(y/2)^2 <= 3 / (1 + y/2)^2 (e <= 3, 1 + y/2 <= exp(y/2)), and 3 <= (1 + 4x)(1 + y/2)^2 there *)
Lemma exp_two_le : forall x, 0 <= x -> x <= 1/2 -> exp (2 * x) - 1 <= 4 * x.
Proof.
  intros x H0 H1. destruct (Rle_lt_dec x (1/4)) as [Hs|Hl].
  - pose proof (exp_le_inv (2 * x) ltac:(lra)) as E.
    assert (/ (1 - 2 * x) <= 1 + 4 * x).
    { apply (Rmult_le_reg_r (1 - 2 * x)); [lra|]. rewrite Rinv_l by lra. nra. }
    lra.
  - set (h := (1 - 2 * x) / 2).
    assert (E : exp (2 * x) = exp 1 * / (exp h * exp h)).
    { rewrite <- exp_plus, <- exp_Ropp, <- exp_plus. f_equal. unfold h. field. }
    pose proof (exp_ineq1_le h) as Hh. pose proof exp_le_3 as H3. pose proof (exp_pos 1) as Hp.
    assert (Hq : 0 < 1 + h) by (unfold h; lra).
    assert (Hi : / (exp h * exp h) <= / ((1 + h) * (1 + h))).
    { apply Rinv_le_contravar; [nra | apply Rmult_le_compat; lra]. }
    assert (Hb : 3 * / ((1 + h) * (1 + h)) <= 1 + 4 * x).
    { apply (Rmult_le_reg_r ((1 + h) * (1 + h))); [nra|].
      rewrite Rmult_assoc, Rinv_l by nra. unfold h.
      assert (0 <= (1 - 2 * x) * ((2 * x - 1/2) * (4 - 2 * x))) by (repeat apply Rmult_le_pos; lra).
      nra. }
    assert (0 < / (exp h * exp h)) by (apply Rinv_0_lt_compat; pose proof (exp_pos h); nra).
    rewrite E. nra.
Qed.

Theorem lemma5 : forall (T d1 : nat) (a z e : vec) (X : mat) (alpha eps : R),
  is_mask T a -> norm_max T e <= eps -> eps <= 1/2 -> (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) ->
  norm d1 (vsub (vecmat T (softmax T a z) X) (vecmat T (softmax T a (vadd z e)) X))
    <= 4 * sqrt (INR d1) * alpha * eps.
Proof.
  intros T d1 a z e X alpha eps Ha He Hh HX.
  destruct (mask_len T a Ha) as [k0 Hk0].
  assert (Halpha : 0 <= alpha) by (eapply Rle_trans; [apply norm_nonneg | apply (HX k0 Hk0)]).
  assert (Heps : 0 <= eps)
    by (pose proof (norm_max_ge_entry T e k0 Hk0); pose proof (Rabs_pos (e k0)); lra).
  eapply Rle_trans; [apply lemma8; eauto|].
  replace (4 * sqrt (INR d1) * alpha * eps) with (sqrt (INR d1) * alpha * (4 * eps)) by ring.
  apply Rmult_le_compat_l; [apply Rmult_le_pos; [apply sqrt_pos | exact Halpha] | apply exp_two_le; auto].
Qed.
