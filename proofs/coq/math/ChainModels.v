(* The hypotheses of Theorems 10, 11 and 14 (Theorem10.v, Theorem11.v, Theorem14.v) are satisfiable: each theorem
   applied to one model that meets every hypothesis, so none of them holds because its hypotheses contradict.

   The model: all target weights 0 (norm 0 <= 1), all random items 0, all masks 0.  Then the target and the pruned
   ReLU nets are 0, both MHAs are 0, so every block maps a token x_i to x_i and every gap is 0 <= every budget
   (zero_block_token).  The probabilistic forms take the Dirac probability at the one sample (Probability.v:
   dirac_whp).  Theorem 14's schedule here has H = d1 = 1, beta_b = 4^b, c_b = 2 beta_b and delta_b = eps_b = 0. *)
From Coq Require Import Reals Lra Lia.
From SlthMath Require Import Objects Sums Triangle Induction Blocks Mha Deep Transformer Probability Theorem10
  Theorem11 Theorem14.
Open Scope R_scope.

Definition zero_mat : mat := fun _ _ => 0.

Lemma sum_zero_terms : forall n f, (forall k, f k = 0) -> sum n f = 0.
Proof. intros n f H. rewrite (sum_ext n f (fun _ => 0)) by (intros; apply H). rewrite sum_const. ring. Qed.

Lemma norm_zero_vec : forall n (v : vec), (forall j, v j = 0) -> norm n v = 0.
Proof. intros n v H. unfold norm. rewrite sum_zero_terms by (intros; rewrite H; ring). apply sqrt_0. Qed.

Lemma op_bound_zero : forall m n (W : mat), (forall i j, W i j = 0) -> op_bound m n W 1.
Proof.
  intros m n W H x. rewrite norm_zero_vec by (intros; unfold matvec; apply sum_zero_terms; intros; rewrite H; ring).
  rewrite Rmult_1_l. apply norm_nonneg.
Qed.

(* a ReLU net whose last layer is 0 is 0 *)
Lemma relu_net_last_zero : forall L dims W x j, (forall r c, W (pred L) r c = 0) -> relu_net L dims W x j = 0.
Proof. intros. unfold relu_net, matvec. apply sum_zero_terms. intros k. rewrite H. ring. Qed.

(* an MHA whose output matrices are 0 is 0 *)
Lemma mha_zero : forall H T d1 dK dV WQ WK WV (WO : nat -> mat) X a i j, (forall h r c, WO h r c = 0) ->
  mha H T d1 dK dV WQ WK WV WO X a i j = 0.
Proof.
  intros. unfold mha, head, vecmat, matmul. apply sum_zero_terms. intros h. apply sum_zero_terms. intros k.
  rewrite sum_zero_terms; [ring|]. intros l. rewrite H0. ring.
Qed.

Definition zero_target : target := Build_target (fun _ => zero_mat) (fun _ => zero_mat) (fun _ => zero_mat)
  (fun _ => zero_mat) (fun _ => zero_mat).
Definition zero_items : items := Build_items (fun _ _ _ _ => 0) (fun _ _ _ => 0) (fun _ _ _ _ => 0) (fun _ _ _ => 0)
  (fun _ _ _ => 0) (fun _ _ _ _ => 0).

Lemma zero_target_norms : forall H d1 dK dV L, target_norms H d1 dK dV L zero_target.
Proof. intros. split; [intros; repeat split | intros]; apply op_bound_zero; reflexivity. Qed.

Lemma no_masks_binary : forall H d1 L, masks_binary H d1 L no_masks.
Proof. intros. split; [intros; split | intros]; intros i j k _ _; left; reflexivity. Qed.

(* both blocks of the model map the token x_i to x_i *)
Lemma zero_block_token : forall H T d1 nM nF L X a i j, (1 <= L)%nat ->
  pruned_block H T d1 nM nF L zero_items no_masks X a i j = X i j /\
  target_block H T d1 0 0 L zero_target X a i j = X i j.
Proof.
  intros H T d1 nM nF L X a i j HL. unfold pruned_block, target_block, block, vadd. split.
  - rewrite relu_net_last_zero, mha_zero; [ring | |].
    + intros. cbn. unfold src_O, transpose, second_block. ring.
    + intros r c. replace (pred (2 * L)) with (S (2 * pred L)) by lia. rewrite interleave_odd.
      unfold second_block. cbn. ring.
  - rewrite relu_net_last_zero, mha_zero; [ring | reflexivity | reflexivity].
Qed.

Lemma zero_lemma2_masks : forall d d' n' err, 0 <= err ->
  lemma2_masks d d' n' (fun _ _ => 0) (fun _ _ _ => 0) zero_mat err.
Proof.
  intros d d' n' err He. exists (fun _ _ _ => 0). split; [intros i j k _ _; left; reflexivity|].
  intros x _. rewrite norm_zero_vec; [exact He|]. intros j. unfold vsub, matvec, second_block, zero_mat.
  rewrite !sum_zero_terms by (intros; ring). ring.
Qed.

Lemma zero_theorem9_masks : forall H d1 nM alpha err, 0 <= err ->
  theorem9_masks H d1 0 0 nM zero_items zero_target alpha err.
Proof.
  intros H d1 nM alpha err He. exists (fun _ _ _ _ => 0), (fun _ _ _ _ => 0).
  split; [intros h _; split; intros i j k _ _; left; reflexivity|].
  intros T X a _ i _ _. rewrite norm_zero_vec; [exact He|]. intros j. unfold vsub.
  rewrite !mha_zero; [ring | reflexivity |]. intros. cbn. unfold src_O, transpose, second_block. ring.
Qed.

Lemma zero_theorem11_masks : forall H d1 nM nF L c err, (1 <= L)%nat -> 0 <= err ->
  theorem11_masks H d1 0 0 nM nF L zero_items zero_target c err.
Proof.
  intros H d1 nM nF L c err HL He. exists no_masks. split; [apply no_masks_binary|].
  intros T X a _ i _ _. rewrite norm_zero_vec; [exact He|]. intros j. unfold vsub.
  destruct (zero_block_token H T d1 nM nF L X a i j HL) as [-> ->]. ring.
Qed.

(* --- each theorem applied to the model ------------------------------------------------------------------- *)

Example theorem10_model := theorem10_of_lemma2 1 (fun _ => 1%nat) (fun _ => 1%nat) (fun _ _ _ => 0)
  (fun _ _ _ _ => 0) (fun _ => zero_mat) 1 (1 / 2) (le_n 1) (Rle_refl 1) ltac:(lra)
  (fun l _ => op_bound_zero _ _ _ (fun _ _ => eq_refl))
  (fun l _ => zero_lemma2_masks 1 1 1 (1 / 2 / (2 * INR 1)) ltac:(simpl; lra)).

Example theorem11_model := theorem11_of_theorem9_lemma2 1 1 0 0 1 1 1 zero_items zero_target 1 0 3 (1 / 2)
  (le_n 1) (zero_target_norms 1 1 0 0 1) ltac:(lra) ltac:(lra) ltac:(simpl; lra)
  (zero_theorem9_masks 1 1 1 1 0 (Rle_refl 0))
  (fun l _ => zero_lemma2_masks 1 1 1 (1 / 2 / (2 * INR 1)) ltac:(simpl; lra)).

Lemma model_schedule_growth : forall b, 2 * (INR 1 * 4 ^ b + 4 ^ b) <= 4 ^ S b.
Proof. intros b. simpl. lra. Qed.

Lemma model_schedule_near : forall b, 4 ^ b + 0 <= 2 * 4 ^ b.
Proof. intros b. pose proof (pow_le 4 b ltac:(lra)). lra. Qed.

Lemma model_schedule_step : forall b, 0 + lemma13_bound 1 1 (2 * 4 ^ b) 0 <= 0.
Proof.
  intros b. unfold lemma13_bound. rewrite Rmult_0_r, exp_0. simpl INR. rewrite sqrt_1. right. ring.
Qed.

Example theorem14_model := theorem14_of_theorem11_lemma13 1 1 0 0 1 2 (fun _ => 1%nat) (fun _ => 1%nat)
  (fun _ => zero_items) (fun _ => zero_target)
  (fun b => 4 ^ b) (fun _ => 0) (fun _ => 0) (fun b => 2 * 4 ^ b)
  (le_n 1) (le_n 1) (le_n 1) ltac:(lia)
  (fun b _ => zero_target_norms 1 1 0 0 1) (fun b _ => model_schedule_growth b)
  ltac:(simpl; lra) (fun b _ => model_schedule_near b)
  (fun b _ => zero_theorem11_masks 1 1 1 1 1 _ _ (le_n 1) (Rle_refl 0))
  (Rle_refl 0) (fun b _ => model_schedule_step b).

(* the probabilistic forms: their hypotheses hold under any outer probability (here the Dirac probability at the
   one sample) with failure budgets 1 (whp_one) *)
Example theorem10_whp_model := theorem10_whp unit (dirac tt) 1 (fun _ => 1%nat) (fun _ => 1%nat)
  (fun _ _ _ _ => 0) (fun _ _ _ _ _ => 0) 1 (1 / 2) (fun _ => 1) (le_n 1) (Rle_refl 1) ltac:(lra)
  (fun l _ => whp_one (dirac tt) _ 1 (Rle_refl 1)).

Example theorem11_whp_model := theorem11_whp unit (dirac tt) 1 1 0 0 1 1 1 (fun _ => zero_items) 1 0 3 (1 / 2) 1
  (fun _ => 1) (le_n 1) ltac:(lra) ltac:(lra) ltac:(simpl; lra) (whp_one (dirac tt) _ 1 (Rle_refl 1))
  (fun l _ => whp_one (dirac tt) _ 1 (Rle_refl 1)).

Example theorem14_whp_model := theorem14_whp unit (dirac tt) 1 1 0 0 1 2 (fun _ => 1%nat) (fun _ => 1%nat)
  (fun _ _ => zero_items) (fun b => 4 ^ b) (fun _ => 0) (fun _ => 0) (fun b => 2 * 4 ^ b) (fun _ => 1)
  (le_n 1) (le_n 1) (le_n 1) ltac:(lia)
  (fun b _ => model_schedule_growth b)
  ltac:(simpl; lra) (fun b _ => model_schedule_near b)
  (Rle_refl 0) (fun b _ => model_schedule_step b)
  (fun b _ => whp_one (dirac tt) _ 1 (Rle_refl 1)).
