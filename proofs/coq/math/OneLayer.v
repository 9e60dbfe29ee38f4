(* Lemma 2's construction (Pensia et al.): one ReLU layer W x, ||x|| <= 1, by two pruned layers
   F_S(x) = (W~2 (.) M2) ReLU((W~1 (.) M1) x) with n = d1 n' hidden units, the first matrix block diagonal
   (hidden unit j n' + k sees only x_j, with weight u_jk: first_block of Blocks.v), the second split into blocks
   m_ijk v_ijk (second_block).
     hidden unit j n' + k is ReLU(u_jk x_j)                                         (first_block_hidden)
     ReLU(u x) = ReLU(u) ReLU(x) + ReLU(-u) ReLU(-x),  x = ReLU(x) - ReLU(-x)        (relu_mul, relu_split)
     so (F_S x)_i = sum_j ReLU(x_j) SP_ij + ReLU(-x_j) SN_ij with the subset sums
     SP_ij = sum_k m_ijk v_ijk ReLU(u_jk) (target W_ij) and SN_ij = sum_k m_ijk v_ijk ReLU(-u_jk) (target -W_ij)
     and ||W x - F_S x|| <= sqrt(d1) sqrt(d2) delta ||x|| <= sqrt(2 d1 d2) delta ||x||  (one_layer_gap)
   One mask serves both halves: a unit with u_jk > 0 adds nothing to SN_ij, one with u_jk <= 0 nothing to SP_ij
   (merged_mask_pos, merged_mask_neg). *)
From Coq Require Import Reals Lra Lia.
From SlthMath Require Import Objects Sums Matrix Blocks.
Open Scope R_scope.

Lemma relu_mul : forall u x, relu (u * x) = relu u * relu x + relu (- u) * relu (- x).
Proof. intros u x. unfold relu, Rmax. repeat destruct Rle_dec; nra. Qed.

Lemma relu_split : forall x, x = relu x - relu (- x).
Proof. intros x. unfold relu, Rmax. repeat destruct Rle_dec; lra. Qed.

Lemma relu_abs : forall x, relu x + relu (- x) = Rabs x.
Proof. intros x. unfold relu, Rmax. repeat destruct Rle_dec; unfold Rabs; destruct Rcase_abs; lra. Qed.

Lemma relu_nonneg : forall x, 0 <= relu x.
Proof. intros x. apply Rmax_l. Qed.

Lemma relu_zero : forall x, x <= 0 -> relu x = 0.
Proof. intros x H. unfold relu. apply Rmax_left. exact H. Qed.

(* hidden unit j n' + k of the first pruned layer is u_jk x_j *)
Lemma first_block_hidden : forall d1 n' u x j k, (j < d1)%nat -> (k < n')%nat ->
  matvec d1 (first_block n' u) x (j * n' + k)%nat = u j k * x j.
Proof.
  intros d1 n' u x j k Hj Hk. unfold matvec, first_block. rewrite block_div, block_mod by exact Hk.
  rewrite (sum_ext d1 _ (fun c => if Nat.eqb c j then u c k * x c else 0)).
  - apply (sum_pick d1 j (fun c => u c k * x c)). exact Hj.
  - intros c _. destruct (Nat.eq_dec c j) as [->|N]; [rewrite Nat.eqb_refl; ring|].
    replace (Nat.eqb j c) with false by (symmetry; apply Nat.eqb_neq; lia).
    replace (Nat.eqb c j) with false by (symmetry; apply Nat.eqb_neq; lia). ring.
Qed.

(* output i of the pruned pair: sum_j sum_k m_ijk v_ijk ReLU(u_jk x_j) *)
Lemma second_block_out : forall d1 n' m v u x i,
  matvec (d1 * n') (second_block n' m v) (vrelu (matvec d1 (first_block n' u) x)) i
  = sum d1 (fun j => sum n' (fun k => m i j k * v i j k * relu (u j k * x j))).
Proof.
  intros. unfold matvec at 1. rewrite sum_blocks. apply sum_ext. intros j Hj. apply sum_ext. intros k Hk.
  unfold second_block, vrelu. rewrite block_div, block_mod by exact Hk. rewrite first_block_hidden by assumption.
  reflexivity.
Qed.

(* the error of output i splits over the two halves ReLU(x_j), ReLU(-x_j) *)
Lemma one_layer_entry : forall d1 n' m v u (W : mat) x i,
  matvec d1 W x i - matvec (d1 * n') (second_block n' m v) (vrelu (matvec d1 (first_block n' u) x)) i
  = sum d1 (fun j => relu (x j) * (W i j - sum n' (fun k => m i j k * (v i j k * relu (u j k))))
                   + relu (- x j) * (- W i j - sum n' (fun k => m i j k * (v i j k * relu (- u j k))))).
Proof.
  intros. rewrite second_block_out. unfold matvec. rewrite <- sum_minus. apply sum_ext. intros j _.
  rewrite (sum_ext n' _ (fun k => relu (x j) * (m i j k * (v i j k * relu (u j k)))
                               + relu (- x j) * (m i j k * (v i j k * relu (- u j k)))))
    by (intros; rewrite relu_mul; ring).
  rewrite sum_plus, !sum_scal_l. rewrite (relu_split (x j)) at 1. ring.
Qed.

(* ||W x - F_S(x)|| <= sqrt(2 d1 d2) delta ||x|| when every subset sum is within delta of its target; the proof
   gives sqrt(d1 d2) delta ||x||, and the paper's stacked input (ReLU(x); ReLU(-x)) of dimension 2 d1 pays sqrt 2 *)
Theorem one_layer_gap : forall d1 d2 n' (m v : nat -> nat -> nat -> R) (u : nat -> nat -> R) (W : mat) delta x,
  (forall i j, (i < d2)%nat -> (j < d1)%nat ->
     Rabs (sum n' (fun k => m i j k * (v i j k * relu (u j k))) - W i j) <= delta) ->
  (forall i j, (i < d2)%nat -> (j < d1)%nat ->
     Rabs (sum n' (fun k => m i j k * (v i j k * relu (- u j k))) - - W i j) <= delta) ->
  0 <= delta ->
  norm d2 (vsub (matvec d1 W x) (matvec (d1 * n') (second_block n' m v) (vrelu (matvec d1 (first_block n' u) x))))
    <= sqrt 2 * (sqrt (INR d1) * sqrt (INR d2)) * delta * norm d1 x.
Proof.
  intros d1 d2 n' m v u W delta x HP HN Hd.
  assert (Hrow : forall i, (i < d2)%nat -> Rabs (vsub (matvec d1 W x)
      (matvec (d1 * n') (second_block n' m v) (vrelu (matvec d1 (first_block n' u) x))) i)
      <= delta * (sqrt (INR d1) * norm d1 x)).
  { intros i Hi. unfold vsub. rewrite one_layer_entry. eapply Rle_trans; [apply sum_abs|].
    eapply Rle_trans; [| apply Rmult_le_compat_l; [exact Hd | apply l1_le_sqrt_norm]].
    rewrite <- sum_scal_l. apply sum_le. intros j Hj. eapply Rle_trans; [apply Rabs_triang|].
    rewrite !Rabs_mult, !(Rabs_pos_eq (relu _)) by apply relu_nonneg.
    rewrite <- (relu_abs (x j)). pose proof (relu_nonneg (x j)). pose proof (relu_nonneg (- x j)).
    rewrite (Rabs_minus_sym (W i j)), (Rabs_minus_sym (- W i j)).
    pose proof (HP i j Hi Hj). pose proof (HN i j Hi Hj).
    apply Rle_trans with (relu (x j) * delta + relu (- x j) * delta); [| lra].
    apply Rplus_le_compat; apply Rmult_le_compat_l; assumption. }
  pose proof (sqrt_pos (INR d1)). pose proof (sqrt_pos (INR d2)). pose proof (norm_nonneg d1 x).
  assert (0 <= delta * (sqrt (INR d1) * norm d1 x)) by (apply Rmult_le_pos; [| apply Rmult_le_pos]; lra).
  eapply Rle_trans; [apply norm_le_sqrt_dim; [exact Hrow | assumption]|].
  assert (1 <= sqrt 2) by (rewrite <- sqrt_1; apply sqrt_le_1_alt; lra).
  assert (0 <= sqrt (INR d2) * (delta * (sqrt (INR d1) * norm d1 x))) by (apply Rmult_le_pos; lra).
  replace (sqrt 2 * (sqrt (INR d1) * sqrt (INR d2)) * delta * norm d1 x)
    with (sqrt 2 * (sqrt (INR d2) * (delta * (sqrt (INR d1) * norm d1 x)))) by ring.
  rewrite <- (Rmult_1_l (sqrt (INR d2) * (delta * (sqrt (INR d1) * norm d1 x)))) at 1.
  apply Rmult_le_compat_r; lra.
Qed.

(* one mask for both halves: m_ijk = mP_ijk where u_jk > 0, mN_ijk where u_jk <= 0 *)
Lemma merged_mask_pos : forall n' (mP mN v' u' : nat -> R),
  sum n' (fun k => (if Rle_dec (u' k) 0 then mN k else mP k) * (v' k * relu (u' k)))
  = sum n' (fun k => mP k * (v' k * relu (u' k))).
Proof.
  intros. apply sum_ext. intros k _. destruct (Rle_dec (u' k) 0) as [L|L]; [rewrite relu_zero by exact L; ring|].
  reflexivity.
Qed.

Lemma merged_mask_neg : forall n' (mP mN v' u' : nat -> R),
  sum n' (fun k => (if Rle_dec (u' k) 0 then mN k else mP k) * (v' k * relu (- u' k)))
  = sum n' (fun k => mN k * (v' k * relu (- u' k))).
Proof.
  intros. apply sum_ext. intros k _. destruct (Rle_dec (u' k) 0) as [L|L]; [reflexivity|].
  rewrite relu_zero by lra. ring.
Qed.
