(* Entries and bilinear forms of a matrix:
     |W_ij| <= c from an operator-norm bound ||W x|| <= c ||x|| (all x)   (entry_le_op)
     (sum_k u_k v_k)^2 <= (sum_k u_k^2)(sum_k v_k^2)                     (cauchy_schwarz)
     |x^T A y| <= ||x|| ||y|| d1 max_ij |A_ij|                            (logit_bound, Theorem 9's step S2b) *)
From Coq Require Import Reals Lra Lia.
From SlthMath Require Import Objects Sums Softmax.
Open Scope R_scope.

(* --- the unit basis vector -------------------------------------------------------------------------------- *)

Lemma sum_zero : forall n f, (forall k, (k < n)%nat -> f k = 0) -> sum n f = 0.
Proof.
  intros n f H. rewrite (sum_ext n f (fun _ => 0)) by exact H. rewrite sum_const. ring.
Qed.

(* the sum of f_k picked out by e_j is f_j *)
Lemma sum_basis : forall n f j, (j < n)%nat -> sum n (fun k => f k * basis j k) = f j.
Proof.
  induction n as [|n IH]; intros f j Hj; [lia|]. simpl. unfold basis at 2.
  destruct (Nat.eq_dec j n) as [->|N].
  - rewrite Nat.eqb_refl, sum_zero; [ring|]. intros k Hk. unfold basis.
    replace (Nat.eqb k n) with false by (symmetry; apply Nat.eqb_neq; lia). ring.
  - replace (Nat.eqb n j) with false by (symmetry; apply Nat.eqb_neq; lia). rewrite IH by lia. ring.
Qed.

Lemma matvec_basis : forall n W i j, (j < n)%nat -> matvec n W (basis j) i = W i j.
Proof. intros. unfold matvec. apply sum_basis. assumption. Qed.

Lemma norm_basis : forall n j, (j < n)%nat -> norm n (basis j) = 1.
Proof. intros n j Hj. unfold norm. rewrite sum_basis by exact Hj. unfold basis. rewrite Nat.eqb_refl. apply sqrt_1. Qed.

(* |W_ij| <= c from ||W x|| <= c ||x|| for every x: apply the bound to the unit vector e_j *)
Theorem entry_le_op : forall m n W c i j, op_bound m n W c -> (i < m)%nat -> (j < n)%nat -> Rabs (W i j) <= c.
Proof.
  intros m n W c i j HW Hi Hj. rewrite <- (matvec_basis n W i j Hj).
  eapply Rle_trans; [apply entry_le_norm; exact Hi|].
  rewrite <- (Rmult_1_r c), <- (norm_basis n j Hj). apply HW.
Qed.

(* ||W||_max <= c *)
Corollary max_le_op : forall m n W c, op_bound m n W c -> 0 <= c -> mat_max m n W <= c.
Proof.
  intros m n W c HW Hc. apply norm_max_le; [| exact Hc]. intros i Hi.
  rewrite Rabs_pos_eq by apply norm_max_nonneg. apply norm_max_le; [| exact Hc].
  intros j Hj. apply (entry_le_op m n); auto.
Qed.

(* --- Cauchy-Schwarz --------------------------------------------------------------------------------------- *)

Lemma sum_sq_zero : forall n u j, sum n (fun k => u k * u k) = 0 -> (j < n)%nat -> u j = 0.
Proof.
  intros n u j H Hj. pose proof (sum_ge_term n (fun k => u k * u k) j (fun k _ => Rle_0_sqr (u k)) Hj).
  pose proof (Rle_0_sqr (u j)). unfold Rsqr in *. nra.
Qed.

(* sum_k (A v_k - B u_k)^2 = A (A C - B^2), the identity behind Cauchy-Schwarz *)
Lemma cs_identity : forall n u v,
  let A := sum n (fun k => u k * u k) in let B := sum n (fun k => u k * v k) in
  let C := sum n (fun k => v k * v k) in
  sum n (fun k => (A * v k - B * u k) * (A * v k - B * u k)) = A * (A * C - B * B).
Proof.
  intros n u v A B C.
  rewrite (sum_ext n _ (fun k => A * A * (v k * v k) - 2 * A * B * (u k * v k) + B * B * (u k * u k)))
    by (intros; ring).
  rewrite sum_plus, sum_minus, !sum_scal_l. fold A B C. ring.
Qed.

Theorem cauchy_schwarz : forall n u v,
  sum n (fun k => u k * v k) * sum n (fun k => u k * v k)
    <= sum n (fun k => u k * u k) * sum n (fun k => v k * v k).
Proof.
  intros n u v. pose proof (cs_identity n u v) as E. cbv zeta in E.
  pose proof (sumsq_nonneg n u) as HA.
  pose proof (sumsq_nonneg n (fun k => sum n (fun k => u k * u k) * v k - sum n (fun k => u k * v k) * u k)) as HS.
  cbv beta in HS. rewrite E in HS. destruct HA as [HA | HA].
  - apply (Rmult_le_reg_l (sum n (fun k => u k * u k))); [exact HA | nra].
  - rewrite (sum_zero n (fun k => u k * v k)) by (intros k Hk; rewrite (sum_sq_zero n u k (eq_sym HA) Hk); ring).
    rewrite <- HA. lra.
Qed.

(* sum_k |x_k| <= sqrt n ||x|| *)
Lemma l1_le_sqrt_norm : forall n x, sum n (fun k => Rabs (x k)) <= sqrt (INR n) * norm n x.
Proof.
  intros n x. unfold norm. rewrite <- sqrt_mult by (auto using pos_INR, sumsq_nonneg).
  rewrite <- (sqrt_square (sum n (fun k => Rabs (x k)))) by (apply sum_nonneg; intros; apply Rabs_pos).
  apply sqrt_le_1_alt.
  pose proof (cauchy_schwarz n (fun _ => 1) (fun k => Rabs (x k))) as CS. cbv beta in CS.
  rewrite (sum_ext n (fun k => 1 * Rabs (x k)) (fun k => Rabs (x k))) in CS by (intros; ring).
  rewrite (sum_ext n (fun k => 1 * 1) (fun _ => 1)), sum_const, Rmult_1_r in CS by (intros; ring).
  rewrite (sum_ext n (fun k => Rabs (x k) * Rabs (x k)) (fun k => x k * x k)) in CS
    by (intros; rewrite <- Rabs_mult; apply Rabs_pos_eq, Rle_0_sqr).
  exact CS.
Qed.

(* --- the logit bound -------------------------------------------------------------------------------------- *)

(* |x^T A y| <= M (sum_i |x_i|)(sum_j |y_j|) when every |A_ij| <= M *)
Lemma bilinear_l1 : forall n x y (A : mat) M, (forall i j, (i < n)%nat -> (j < n)%nat -> Rabs (A i j) <= M) ->
  Rabs (dot n (vecmat n x A) y) <= M * sum n (fun i => Rabs (x i)) * sum n (fun j => Rabs (y j)).
Proof.
  intros n x y A M H. unfold dot. eapply Rle_trans; [apply sum_abs|].
  rewrite <- sum_scal_l. apply sum_le. intros j Hj. rewrite Rabs_mult.
  apply Rmult_le_compat_r; [apply Rabs_pos|]. unfold vecmat. apply hoelder. intros. apply H; auto.
Qed.

(* Theorem 9's step S2b: |x^T A y| <= ||x|| ||y|| d1 max_ij |A_ij| *)
Theorem logit_bound : forall d1 x y (A : mat),
  Rabs (dot d1 (vecmat d1 x A) y) <= norm d1 x * norm d1 y * (INR d1 * mat_max d1 d1 A).
Proof.
  intros d1 x y A. set (M := mat_max d1 d1 A).
  assert (HM : forall i j, (i < d1)%nat -> (j < d1)%nat -> Rabs (A i j) <= M).
  { intros i j Hi Hj. unfold M, mat_max. eapply Rle_trans; [apply (norm_max_ge_entry d1 (A i) j Hj)|].
    eapply Rle_trans; [apply Rle_abs | apply (norm_max_ge_entry d1 (fun i => norm_max d1 (A i)) i Hi)]. }
  assert (M0 : 0 <= M) by apply norm_max_nonneg.
  eapply Rle_trans; [apply bilinear_l1; exact HM|].
  pose proof (l1_le_sqrt_norm d1 x). pose proof (l1_le_sqrt_norm d1 y).
  pose proof (sum_nonneg d1 (fun i => Rabs (x i)) (fun i _ => Rabs_pos (x i))).
  pose proof (sum_nonneg d1 (fun i => Rabs (y i)) (fun i _ => Rabs_pos (y i))).
  replace (norm d1 x * norm d1 y * (INR d1 * M)) with (M * (sqrt (INR d1) * norm d1 x) * (sqrt (INR d1) * norm d1 y))
    by (set (s := sqrt (INR d1)); rewrite <- (sqrt_sqrt (INR d1) (pos_INR d1)); unfold s; ring).
  apply Rmult_le_compat; [apply Rmult_le_pos; assumption | assumption | apply Rmult_le_compat_l; assumption |
                          assumption].
Qed.

(* --- a matrix small entry by entry is small on every input at once ---------------------------------------- *)

(* ||D x|| <= sqrt(m) sqrt(n) eta ||x|| for EVERY x, from |D_ij| <= eta for all i, j: the bound on the entries
   (one event of the random weights) serves all inputs; no input enters the hypothesis *)
Theorem uniform_in_x : forall m n (D : mat) eta, (forall i j, (i < m)%nat -> (j < n)%nat -> Rabs (D i j) <= eta) ->
  forall x, norm m (matvec n D x) <= sqrt (INR m) * sqrt (INR n) * eta * norm n x.
Proof.
  intros m n D eta H x.
  assert (Row : forall i, (i < m)%nat -> Rabs (matvec n D x i) <= eta * sum n (fun j => Rabs (x j))).
  { intros i Hi. unfold matvec. eapply Rle_trans; [apply sum_abs|]. rewrite <- sum_scal_l. apply sum_le.
    intros j Hj. rewrite Rabs_mult. apply Rmult_le_compat_r; [apply Rabs_pos | auto]. }
  destruct m as [|m'].
  - unfold norm. simpl. rewrite sqrt_0. lra.
  - destruct n as [|n'].
    + replace (norm 0 x) with 0 by (unfold norm; simpl; symmetry; apply sqrt_0). rewrite Rmult_0_r.
      apply Req_le. unfold norm. rewrite (sum_ext _ _ (fun _ => 0)) by (intros; unfold matvec; simpl; ring).
      rewrite sum_const, Rmult_0_r. apply sqrt_0.
    + assert (Heta : 0 <= eta) by (eapply Rle_trans; [apply Rabs_pos | apply (H 0%nat 0%nat); lia]).
      set (m := S m'). set (n := S n').
      replace (sqrt (INR m) * sqrt (INR n) * eta * norm n x) with (sqrt (INR m) * (eta * (sqrt (INR n) * norm n x)))
        by ring.
      apply norm_le_sqrt_dim; [| apply Rmult_le_pos; [exact Heta | apply Rmult_le_pos; [apply sqrt_pos | apply norm_nonneg]]].
      intros i Hi. eapply Rle_trans; [apply Row; exact Hi|].
      apply Rmult_le_compat_l; [exact Heta | apply l1_le_sqrt_norm].
Qed.
