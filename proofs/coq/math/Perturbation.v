(* Lemma 12 and Lemma 13: a target MHA and a target block move little when their input tokens move little.
   X' with ||x_k - x'_k|| <= eps for every token k, ||x_k|| <= alpha, and ||x'_k|| <= alpha (the hypothesis the
   logit step needs, which the paper does not state: Lemma12.v shows the step false without it):
     ||Attn(x_i) - Attn(x'_i)|| <= H sqrt(d1) (alpha (exp(4 alpha eps) - 1) + eps)               (lemma12_mha)
     ||Blk(x_i) - Blk(x'_i)|| <= 2 H sqrt(d1) (alpha (exp(4 alpha eps) - 1) + 2 eps)              (lemma13_block)
   The proof is the paper's: per head, the logits move by at most 2 alpha eps (lemma12_logit on the merged W_QK,
   ||W_QK|| <= 1), so ||(p - p') X|| <= sqrt(d1) alpha (exp(4 alpha eps) - 1) (Lemma 8); ||p'(X - X')|| <= sqrt(d1) eps
   (Hoelder); both times ||W_V W_O|| <= 1, summed over the H heads.  The block adds x_i and applies a 1-Lipschitz
   ReLU net F: ||Blk(x) - Blk(x')|| <= 2 ||y - y'|| with y = Attn(x)^T + x, which is where the factor 2 of Lemma 13's
   proof comes from (the printed statement lacks it). *)
From Coq Require Import Reals Lra Lia.
From SlthMath Require Import Objects Sums Softmax Matrix Triangle Attention Induction Lemma12.
Open Scope R_scope.

(* --- a row vector times a matrix ------------------------------------------------------------------------- *)

(* (y^T W) . v = y . (W v) *)
Lemma vecmat_dot : forall m n y (W : mat) v, dot n (vecmat m y W) v = dot m y (matvec n W v).
Proof.
  intros. unfold dot, vecmat, matvec.
  rewrite (sum_ext n _ (fun j => sum m (fun k => y k * W k j * v j))) by (intros; rewrite <- sum_scal_r; reflexivity).
  rewrite sum_swap. apply sum_ext. intros k _. rewrite <- sum_scal_l. apply sum_ext. intros. ring.
Qed.

(* ||y^T W|| <= c ||y|| from ||W x|| <= c ||x||: a matrix and its transpose have the same operator norm *)
Lemma vecmat_le_op : forall m n W c y, op_bound m n W c -> 0 <= c -> norm n (vecmat m y W) <= c * norm m y.
Proof.
  intros m n W c y HW Hc. set (v := vecmat m y W).
  assert (Hsq : norm n v * norm n v <= c * norm m y * norm n v).
  { rewrite norm_sq. change (sum n (fun i => v i * v i)) with (dot n v v). unfold v at 1. rewrite vecmat_dot.
    eapply Rle_trans; [apply Rle_abs|]. eapply Rle_trans; [apply dot_abs_le|].
    replace (c * norm m y * norm n v) with (norm m y * (c * norm n v)) by ring.
    apply Rmult_le_compat_l; [apply norm_nonneg | apply HW]. }
  pose proof (norm_nonneg n v). pose proof (norm_nonneg m y).
  assert (0 <= c * norm m y) by (apply Rmult_le_pos; assumption).
  destruct (Rle_or_lt (norm n v) (c * norm m y)) as [L | L]; [exact L|].
  assert (0 < (norm n v - c * norm m y) * norm n v) by (apply Rmult_lt_0_compat; lra). nra.
Qed.

(* p^T (A B) = (p^T A) B *)
Lemma vecmat_matmul : forall T n p (A B : mat) j, vecmat T p (matmul n A B) j = vecmat n (vecmat T p A) B j.
Proof.
  intros. unfold vecmat, matmul.
  rewrite (sum_ext T _ (fun k => sum n (fun l => p k * A k l * B l j))) by (intros; rewrite <- sum_scal_l;
    apply sum_ext; intros; ring).
  rewrite sum_swap. apply sum_ext. intros l _. rewrite <- sum_scal_r. reflexivity.
Qed.

Lemma vecmat_ext : forall n u v (B : mat) j, (forall k, (k < n)%nat -> u k = v k) -> vecmat n u B j = vecmat n v B j.
Proof. intros n u v B j H. unfold vecmat. apply sum_ext. intros k Hk. rewrite H by exact Hk. reflexivity. Qed.

Lemma vecmat_vsub : forall n u v (B : mat) j, vecmat n u B j - vecmat n v B j = vecmat n (vsub u v) B j.
Proof. intros. unfold vecmat, vsub. rewrite <- sum_minus. apply sum_ext. intros. ring. Qed.

(* --- the merged W_QK has norm at most 1 ------------------------------------------------------------------- *)

Lemma inv_sqrt_le_1 : forall n, 0 <= / sqrt (INR n) <= 1.
Proof.
  intros [|n].
  - simpl. rewrite sqrt_0, Rinv_0. lra.
  - assert (H1 : 1 <= sqrt (INR (S n))) by (rewrite <- sqrt_1; apply sqrt_le_1_alt, (le_INR 1); lia).
    split; [apply Rlt_le, Rinv_0_lt_compat; lra|]. rewrite <- Rinv_1. apply Rinv_le_contravar; lra.
Qed.

(* W_QK x = (W_Q (x^T W_K)^T) / sqrt dK *)
Lemma matvec_WQK : forall d1 dK WQ WK x i,
  matvec d1 (WQK dK WQ WK) x i = / sqrt (INR dK) * matvec dK WQ (vecmat d1 x WK) i.
Proof.
  intros. unfold matvec, WQK, mscale, matmul, transpose, vecmat.
  rewrite <- sum_scal_l.
  rewrite (sum_ext d1 _ (fun j => sum dK (fun m => / sqrt (INR dK) * (WQ i m * (x j * WK j m)))))
    by (intros; rewrite <- sum_scal_l, <- sum_scal_r; apply sum_ext; intros; ring).
  rewrite sum_swap. apply sum_ext. intros m _. repeat rewrite <- sum_scal_l. apply sum_ext. intros. ring.
Qed.

(* ||W_QK|| <= 1 / sqrt dK <= 1 from ||W_Q||, ||W_K|| <= 1 (Theorem 9's step S1) *)
Lemma WQK_op : forall d1 dK WQ WK, op_bound d1 dK WQ 1 -> op_bound d1 dK WK 1 -> op_bound d1 d1 (WQK dK WQ WK) 1.
Proof.
  intros d1 dK WQ WK HQ HK x. rewrite (norm_ext d1 _ (fun i => / sqrt (INR dK) * matvec dK WQ (vecmat d1 x WK) i))
    by (intros; apply matvec_WQK).
  rewrite norm_scale. destruct (inv_sqrt_le_1 dK) as [H0 H1]. rewrite Rabs_pos_eq by exact H0.
  pose proof (norm_nonneg d1 (matvec dK WQ (vecmat d1 x WK))).
  apply Rle_trans with (norm d1 (matvec dK WQ (vecmat d1 x WK))); [nra|].
  eapply Rle_trans; [apply HQ|]. rewrite Rmult_1_l. apply (vecmat_le_op d1 dK WK 1 x HK); lra.
Qed.

(* --- one head --------------------------------------------------------------------------------------------- *)

(* the softmax of the moved logits z' is the softmax of z shifted by e = z' - z *)
Lemma softmax_as_shift : forall T a z z' j, softmax T a z' j = softmax T a (vadd z (vsub z' z)) j.
Proof.
  intros. unfold softmax, vadd, vsub. replace (z j + (z' j - z j)) with (z' j) by ring.
  f_equal. apply sum_ext. intros. replace (z k + (z' k - z k)) with (z' k) by ring. reflexivity.
Qed.

(* ||p (X - X')|| <= sqrt(d1) eps for a softmax p and rows moved by at most eps (Hoelder, entry by entry) *)
Lemma softmax_moved_rows : forall T d1 a z (X X' : mat) eps, is_mask T a ->
  (forall k, (k < T)%nat -> norm d1 (vsub (X k) (X' k)) <= eps) -> 0 <= eps ->
  norm d1 (vsub (vecmat T (softmax T a z) X) (vecmat T (softmax T a z) X')) <= sqrt (INR d1) * eps.
Proof.
  intros T d1 a z X X' eps Ha HX He. apply norm_le_sqrt_dim; [| exact He]. intros j Hj.
  replace (vsub (vecmat T (softmax T a z) X) (vecmat T (softmax T a z) X') j)
    with (sum T (fun k => softmax T a z k * vsub (X k) (X' k) j))
    by (unfold vsub, vecmat; rewrite <- sum_minus; apply sum_ext; intros; ring).
  eapply Rle_trans; [apply (hoelder T _ (fun k c => vsub (X k) (X' k) c) j eps)|].
  - intros k Hk. eapply Rle_trans; [apply (entry_le_norm d1 (vsub (X k) (X' k)) j Hj) | apply HX; exact Hk].
  - rewrite (sum_ext T _ (softmax T a z)) by (intros; apply Rabs_pos_eq, softmax_nonneg; auto).
    rewrite softmax_sum by exact Ha. lra.
Qed.

Theorem lemma12_head : forall T d1 dK dV d2 WQ WK WV WO (X X' a : mat) i alpha eps,
  op_bound d1 dK WQ 1 -> op_bound d1 dK WK 1 -> op_bound d1 dV WV 1 -> op_bound dV d2 WO 1 ->
  is_mask T (a i) -> (i < T)%nat ->
  (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) -> (forall k, (k < T)%nat -> norm d1 (X' k) <= alpha) ->
  (forall k, (k < T)%nat -> norm d1 (vsub (X k) (X' k)) <= eps) ->
  norm d2 (vsub (head T d1 dK dV WQ WK WV WO X a i) (head T d1 dK dV WQ WK WV WO X' a i))
    <= sqrt (INR d1) * (alpha * (exp (4 * alpha * eps) - 1) + eps).
Proof.
  intros T d1 dK dV d2 WQ WK WV WO X X' a i alpha eps HQ HK HV HO Ha Hi HX HX' Hd.
  assert (He : 0 <= eps) by (eapply Rle_trans; [apply norm_nonneg | apply (Hd i Hi)]).
  set (z := logits d1 dK WQ WK X i). set (z' := logits d1 dK WQ WK X' i).
  set (p := softmax T (a i) z). set (p' := softmax T (a i) z').
  (* the head is the row p X times W_V W_O *)
  assert (Hrow : forall Y c, vecmat T (softmax T (a i) (logits d1 dK WQ WK Y i)) (matmul dV (matmul d1 Y WV) WO) c
                             = vecmat dV (vecmat d1 (vecmat T (softmax T (a i) (logits d1 dK WQ WK Y i)) Y) WV) WO c).
  { intros. rewrite vecmat_matmul. unfold vecmat at 1 3. apply sum_ext. intros. rewrite vecmat_matmul. reflexivity. }
  unfold head. rewrite (norm_ext d2 _ (vecmat dV (vecmat d1 (vsub (vecmat T p X) (vecmat T p' X')) WV) WO)).
  2: { intros c _. unfold vsub at 1. rewrite !Hrow, vecmat_vsub. apply vecmat_ext. intros l _.
       unfold vsub at 1. apply vecmat_vsub. }
  eapply Rle_trans; [apply (vecmat_le_op dV d2 WO 1); [exact HO | lra]|]. rewrite Rmult_1_l.
  eapply Rle_trans; [apply (vecmat_le_op d1 dV WV 1); [exact HV | lra]|]. rewrite Rmult_1_l.
  (* ||p X - p' X'|| <= ||p X - p' X|| + ||p' X - p' X'|| *)
  eapply Rle_trans; [apply (vsub_split d1 _ (vecmat T p' X))|].
  rewrite Rmult_plus_distr_l, <- Rmult_assoc. apply Rplus_le_compat.
  - (* the logits move by at most 2 alpha eps (Lemma 12's logit step on the merged W_QK), then Lemma 8 *)
    assert (Hz : norm_max T (vsub z' z) <= 2 * alpha * eps).
    { apply norm_max_le; [| pose proof (norm_nonneg d1 (X i)); pose proof (HX i Hi); nra].
      intros k Hk. unfold vsub, z, z'. rewrite !merged_logits, Rabs_minus_sym.
      apply (lemma12_logit d1 (WQK dK WQ WK)); auto using WQK_op. }
    rewrite (norm_ext d1 (vsub (vecmat T p X) (vecmat T p' X))
               (vsub (vecmat T p X) (vecmat T (softmax T (a i) (vadd z (vsub z' z))) X))).
    2: { intros c _. unfold vsub. f_equal. apply vecmat_ext. intros k _. apply softmax_as_shift. }
    replace (4 * alpha * eps) with (2 * (2 * alpha * eps)) by ring.
    apply (lemma8 T d1 (a i) z (vsub z' z) X alpha); auto.
  - apply softmax_moved_rows; auto.
Qed.

(* --- Lemma 12: the MHA ------------------------------------------------------------------------------------ *)

(* ||sum_h v_h|| <= sum_h ||v_h|| *)
Lemma norm_sum : forall H n (v : nat -> vec), norm n (fun c => sum H (fun h => v h c)) <= sum H (fun h => norm n (v h)).
Proof.
  intros H n v. rewrite (norm_ext n _ (fun c => sum H (fun h => 1 * v h c))) by (intros; apply sum_ext; intros; ring).
  eapply Rle_trans; [apply (norm_combination H n (fun _ => 1) v)|].
  right. apply sum_ext. intros. rewrite Rabs_R1. ring.
Qed.

Theorem lemma12_mha : forall H T d1 dK dV d2 (WQ WK WV WO : nat -> mat) (X X' a : mat) i alpha eps,
  (forall h, (h < H)%nat -> op_bound d1 dK (WQ h) 1 /\ op_bound d1 dK (WK h) 1 /\ op_bound d1 dV (WV h) 1 /\
                            op_bound dV d2 (WO h) 1) ->
  is_mask T (a i) -> (i < T)%nat ->
  (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) -> (forall k, (k < T)%nat -> norm d1 (X' k) <= alpha) ->
  (forall k, (k < T)%nat -> norm d1 (vsub (X k) (X' k)) <= eps) ->
  norm d2 (vsub (mha H T d1 dK dV WQ WK WV WO X a i) (mha H T d1 dK dV WQ WK WV WO X' a i))
    <= INR H * sqrt (INR d1) * (alpha * (exp (4 * alpha * eps) - 1) + eps).
Proof.
  intros H T d1 dK dV d2 WQ WK WV WO X X' a i alpha eps HW Ha Hi HX HX' Hd.
  rewrite (norm_ext d2 _ (fun c => sum H (fun h => vsub (head T d1 dK dV (WQ h) (WK h) (WV h) (WO h) X a i)
                                                        (head T d1 dK dV (WQ h) (WK h) (WV h) (WO h) X' a i) c)))
    by (intros; unfold mha, vsub; rewrite <- sum_minus; reflexivity).
  eapply Rle_trans; [apply norm_sum|]. rewrite Rmult_assoc, <- sum_const. apply sum_le. intros h Hh.
  destruct (HW h Hh) as [HQ [HK [HV HO]]]. apply lemma12_head; auto.
Qed.

(* --- Lemma 13: the block ---------------------------------------------------------------------------------- *)

(* a ReLU net with every ||W_l|| <= 1 is 1-Lipschitz *)
Lemma hidden_lipschitz : forall dims W l u v, (forall k, (k < l)%nat -> op_bound (dims (S k)) (dims k) (W k) 1) ->
  norm (dims l) (vsub (hidden dims W l u) (hidden dims W l v)) <= norm (dims O) (vsub u v).
Proof.
  intros dims W l u v HW. induction l as [|l IH]; simpl; [lra|].
  eapply Rle_trans; [apply relu_layer_lipschitz; apply HW; lia | apply IH; intros; apply HW; lia].
Qed.

Lemma relu_net_lipschitz : forall L dims W u v, (1 <= L)%nat ->
  (forall l, (l < L)%nat -> op_bound (dims (S l)) (dims l) (W l) 1) ->
  norm (dims L) (vsub (relu_net L dims W u) (relu_net L dims W v)) <= norm (dims O) (vsub u v).
Proof.
  intros [|L] dims W u v HL HW; [lia|]. unfold relu_net. simpl pred.
  rewrite (norm_ext _ _ (matvec (dims L) (W L) (vsub (hidden dims W L u) (hidden dims W L v))))
    by (intros; unfold vsub at 1; apply matvec_sub_at).
  eapply Rle_trans; [apply HW; lia|]. rewrite Rmult_1_l. apply hidden_lipschitz. intros; apply HW; lia.
Qed.

Theorem lemma13_block : forall H T d1 dK dV (WQ WK WV WO : nat -> mat) L (W : nat -> mat) (X X' a : mat) i alpha eps,
  (1 <= H)%nat -> (1 <= d1)%nat -> (1 <= L)%nat ->
  (forall h, (h < H)%nat -> op_bound d1 dK (WQ h) 1 /\ op_bound d1 dK (WK h) 1 /\ op_bound d1 dV (WV h) 1 /\
                            op_bound dV d1 (WO h) 1) ->
  (forall l, (l < L)%nat -> op_bound d1 d1 (W l) 1) ->
  is_mask T (a i) -> (i < T)%nat ->
  (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) -> (forall k, (k < T)%nat -> norm d1 (X' k) <= alpha) ->
  (forall k, (k < T)%nat -> norm d1 (vsub (X k) (X' k)) <= eps) ->
  norm d1 (vsub (block H T d1 dK dV WQ WK WV WO L (fun _ => d1) W X a i)
                (block H T d1 dK dV WQ WK WV WO L (fun _ => d1) W X' a i))
    <= 2 * INR H * sqrt (INR d1) * (alpha * (exp (4 * alpha * eps) - 1) + 2 * eps).
Proof.
  intros H T d1 dK dV WQ WK WV WO L W X X' a i alpha eps HH Hd1 HL HW HF Ha Hi HX HX' Hd.
  set (y := vadd (mha H T d1 dK dV WQ WK WV WO X a i) (X i)).
  set (y' := vadd (mha H T d1 dK dV WQ WK WV WO X' a i) (X' i)).
  (* ||Blk(x) - Blk(x')|| <= ||F(y) - F(y')|| + ||y - y'|| <= 2 ||y - y'|| *)
  assert (Hblk : norm d1 (vsub (block H T d1 dK dV WQ WK WV WO L (fun _ => d1) W X a i)
                              (block H T d1 dK dV WQ WK WV WO L (fun _ => d1) W X' a i))
                 <= 2 * norm d1 (vsub y y')).
  { rewrite (norm_ext d1 _ (vadd (vsub (relu_net L (fun _ => d1) W y) (relu_net L (fun _ => d1) W y')) (vsub y y')))
      by (intros; unfold block, y, y', vadd, vsub; ring).
    eapply Rle_trans; [apply norm_triangle|].
    pose proof (relu_net_lipschitz L (fun _ => d1) W y y' HL HF). simpl in H0. lra. }
  (* ||y - y'|| <= ||Attn(x) - Attn(x')|| + ||x_i - x'_i|| <= Lemma 12 + eps *)
  assert (Hy : norm d1 (vsub y y') <= INR H * sqrt (INR d1) * (alpha * (exp (4 * alpha * eps) - 1) + eps) + eps).
  { rewrite (norm_ext d1 _ (vadd (vsub (mha H T d1 dK dV WQ WK WV WO X a i) (mha H T d1 dK dV WQ WK WV WO X' a i))
                                 (vsub (X i) (X' i)))) by (intros; unfold y, y', vadd, vsub; ring).
    eapply Rle_trans; [apply norm_triangle|]. apply Rplus_le_compat; [apply lemma12_mha; auto | apply Hd, Hi]. }
  (* eps <= H sqrt(d1) eps *)
  assert (He : 0 <= eps) by (eapply Rle_trans; [apply norm_nonneg | apply (Hd i Hi)]).
  assert (Hs : 1 <= INR H * sqrt (INR d1)).
  { assert (1 <= INR H) by (apply (le_INR 1); lia).
    assert (1 <= sqrt (INR d1)) by (rewrite <- sqrt_1; apply sqrt_le_1_alt, (le_INR 1); lia). nra. }
  assert (Hg : 0 <= alpha * (exp (4 * alpha * eps) - 1) + eps).
  { pose proof (norm_nonneg d1 (X i)). pose proof (HX i Hi).
    assert (0 <= exp (4 * alpha * eps) - 1) by (pose proof (exp_ineq1_le (4 * alpha * eps)); nra). nra. }
  nra.
Qed.
