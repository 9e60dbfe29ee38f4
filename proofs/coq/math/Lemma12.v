(* Lemma 12's logit step: for a merged W with ||W|| <= 1 and inputs moved by at most eps,
     |x_i^T W x_k - x'_i^T W x'_k| <= 2 alpha eps                                           (lemma12_logit)
   through x_i^T W x_k - x'_i^T W x'_k = (x_i - x'_i)^T W x_k + x'_i^T W (x_k - x'_k).
   The second term needs ||x'_i|| <= alpha, which the printed lemma does not assume (a perturbed input can have
   norm alpha + eps): without it the step is false (lemma12_logit_needs_x'_bound, one dimension, alpha = 1,
   eps = 1/2, every token moved outwards: the logit moves by 5/4 > 2 alpha eps = 1). *)
From Coq Require Import Reals Lra Lia.
From SlthMath Require Import Objects Sums Matrix Triangle Attention.
Open Scope R_scope.

(* x^T W y *)
Definition bilin (d : nat) (x : vec) (W : mat) (y : vec) : R := dot d (vecmat d x W) y.

Lemma bilin_matvec : forall d x W y, bilin d x W y = dot d x (matvec d W y).
Proof.
  intros. unfold bilin, dot, vecmat, matvec.
  rewrite (sum_ext d _ (fun j => sum d (fun i => x i * W i j * y j))) by (intros; rewrite <- sum_scal_r; reflexivity).
  rewrite sum_swap. apply sum_ext. intros i _. rewrite <- sum_scal_l. apply sum_ext. intros. ring.
Qed.

(* |u . v| <= ||u|| ||v|| *)
Lemma dot_abs_le : forall n u v, Rabs (dot n u v) <= norm n u * norm n v.
Proof.
  intros n u v. unfold dot. apply Rabs_le. split.
  - pose proof (dot_le_norms n (fun k => - u k) v) as H.
    rewrite (norm_ext n (fun k => - u k) (fun k => -1 * u k)), norm_scale in H by (intros; ring).
    rewrite (sum_ext n _ (fun k => -1 * (u k * v k))), sum_scal_l in H by (intros; ring).
    replace (Rabs (-1)) with 1 in H by (rewrite Rabs_left; lra). lra.
  - apply dot_le_norms.
Qed.

(* |x^T W y| <= ||x|| ||y|| when ||W|| <= 1 *)
Lemma bilin_le : forall d x W y, op_bound d d W 1 -> Rabs (bilin d x W y) <= norm d x * norm d y.
Proof.
  intros d x W y HW. rewrite bilin_matvec. eapply Rle_trans; [apply dot_abs_le|].
  apply Rmult_le_compat_l; [apply norm_nonneg|]. rewrite <- (Rmult_1_l (norm d y)). apply HW.
Qed.

Lemma bilin_split : forall d xi xk xi' xk' W,
  bilin d xi W xk - bilin d xi' W xk' = bilin d (vsub xi xi') W xk + bilin d xi' W (vsub xk xk').
Proof.
  intros. rewrite !bilin_matvec. unfold dot, vsub, matvec.
  rewrite <- sum_minus, <- sum_plus. apply sum_ext. intros i _.
  rewrite (sum_ext d (fun j => W i j * (xk j - xk' j)) (fun j => W i j * xk j - W i j * xk' j)) by (intros; ring).
  rewrite sum_minus. ring.
Qed.

(* the step, under the hypothesis it needs: ||x'_i|| <= alpha *)
Theorem lemma12_logit : forall d W xi xk xi' xk' alpha eps, op_bound d d W 1 ->
  norm d xk <= alpha -> norm d xi' <= alpha ->
  norm d (vsub xi xi') <= eps -> norm d (vsub xk xk') <= eps ->
  Rabs (bilin d xi W xk - bilin d xi' W xk') <= 2 * alpha * eps.
Proof.
  intros d W xi xk xi' xk' alpha eps HW Hk Hi' Hdi Hdk. rewrite bilin_split.
  eapply Rle_trans; [apply Rabs_triang|].
  pose proof (bilin_le d (vsub xi xi') W xk HW). pose proof (bilin_le d xi' W (vsub xk xk') HW).
  pose proof (norm_nonneg d (vsub xi xi')). pose proof (norm_nonneg d xk').
  pose proof (norm_nonneg d xk). pose proof (norm_nonneg d xi'). pose proof (norm_nonneg d (vsub xk xk')).
  assert (norm d (vsub xi xi') * norm d xk <= eps * alpha) by (apply Rmult_le_compat; lra).
  assert (norm d xi' * norm d (vsub xk xk') <= alpha * eps) by (apply Rmult_le_compat; lra).
  lra.
Qed.

(* --- without ||x'_i|| <= alpha the step is false ---------------------------------------------------------- *)

Lemma norm1 : forall v, norm 1 v = Rabs (v 0%nat).
Proof. intros. unfold norm. simpl. rewrite Rplus_0_l. apply sqrt_Rsqr_abs. Qed.

Lemma op_bound_one : op_bound 1 1 (fun _ _ => 1) 1.
Proof. intros x. rewrite !norm1. unfold matvec. simpl. replace (0 + 1 * x 0%nat) with (x 0%nat) by ring. lra. Qed.

Theorem lemma12_logit_needs_x'_bound : exists d W xi xk xi' xk' alpha eps,
  op_bound d d W 1 /\ norm d xi <= alpha /\ norm d xk <= alpha /\ norm d xi' <= alpha + eps /\
  norm d xk' <= alpha + eps /\ norm d (vsub xi xi') <= eps /\ norm d (vsub xk xk') <= eps /\
  Rabs (bilin d xi W xk - bilin d xi' W xk') > 2 * alpha * eps.
Proof.
  exists 1%nat, (fun _ _ => 1), (fun _ => 1), (fun _ => 1), (fun _ => 3 / 2), (fun _ => 3 / 2), 1, (1 / 2).
  unfold bilin, dot, vecmat, vsub. rewrite !norm1. simpl.
  repeat split; [apply op_bound_one | ..]; rewrite ?Rabs_pos_eq by lra; try lra.
  - rewrite Rabs_minus_sym, Rabs_pos_eq; lra.
  - rewrite Rabs_minus_sym, Rabs_pos_eq; lra.
  - rewrite Rabs_left; lra.
Qed.

(* the printed step as a proposition: only the unperturbed tokens are in the ball *)
Definition lemma12_logit_printed : Prop := forall d W xi xk xi' xk' alpha eps, op_bound d d W 1 ->
  norm d xi <= alpha -> norm d xk <= alpha -> norm d (vsub xi xi') <= eps -> norm d (vsub xk xk') <= eps ->
  Rabs (bilin d xi W xk - bilin d xi' W xk') <= 2 * alpha * eps.

(* it is false: the point above satisfies its hypotheses and violates its conclusion *)
Theorem lemma12_logit_printed_false : ~ lemma12_logit_printed.
Proof.
  intros P. destruct lemma12_logit_needs_x'_bound
    as (d & W & xi & xk & xi' & xk' & alpha & eps & HW & Hi & Hk & _ & _ & Hdi & Hdk & Hgt).
  pose proof (P d W xi xk xi' xk' alpha eps HW Hi Hk Hdi Hdk). lra.
Qed.
