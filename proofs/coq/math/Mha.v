(* Theorem 9's deterministic content: a pruned MHA whose merged matrices are close to the target's, entry by
   entry, is close to the target MHA on every input.
     ||A^T x|| <= c ||x|| from ||A x|| <= c ||x||                                   (op_transpose)
     ||W_QK|| <= 1/sqrt(d_K) <= 1 and ||W_VO^T|| <= 1 from the four target norms     (WQK_op, WVO_op)
     one merged head: ||head_S - head_T|| <= sqrt(d1) alpha (exp(2 L) - 1)
                                            + sqrt(d1) alpha (sqrt(d1) sqrt(d2) v)   (head_gap: S2b, S2c, S3a, S3b)
     the MHA: ||Attn_S - Attn_T|| <= H max_h ||head_S - head_T||                     (mha_gap: S3c)
   and the pruned sources of Lemma 7's construction (src_Q, src_K, src_V, src_O): their merged matrices are
   the block products of Lemma 7, entry by entry (src_QK, src_VO). *)
From Coq Require Import Reals Lra Lia.
From SlthMath Require Import Objects Sums Softmax Matrix Blocks Attention Triangle.
Open Scope R_scope.

(* a choice for each of finitely many indices, in any inhabited type *)
Lemma finite_choice_of : forall (A : Type) (d : A) (P : nat) (Q : nat -> A -> Prop),
  (forall p, (p < P)%nat -> exists x, Q p x) -> exists M : nat -> A, forall p, (p < P)%nat -> Q p (M p).
Proof.
  intros A d. induction P as [|P IH]; intros Q Hq; [exists (fun _ => d); intros; lia|].
  destruct (IH Q) as [M HM]; [intros; apply Hq; lia|]. destruct (Hq P) as [x Hx]; [lia|].
  exists (fun p => if Nat.eqb p P then x else M p). intros p Hp.
  destruct (Nat.eqb_spec p P) as [->|N]; [exact Hx | apply HM; lia].
Qed.

(* --- operator-norm bounds ------------------------------------------------------------------------------- *)

Lemma op_bound_mono : forall m n W c c', op_bound m n W c -> c <= c' -> op_bound m n W c'.
Proof.
  intros m n W c c' H Hc x. eapply Rle_trans; [apply H|].
  apply Rmult_le_compat_r; [apply norm_nonneg | exact Hc].
Qed.

Lemma op_bound_ext : forall m n (A B : mat) c, (forall i j, A i j = B i j) -> op_bound m n A c -> op_bound m n B c.
Proof.
  intros m n A B c E HA x. rewrite (norm_ext m _ (matvec n A x)); [apply HA|].
  intros i _. unfold matvec. apply sum_ext. intros j _. rewrite E. reflexivity.
Qed.

Lemma matvec_matmul : forall n p A B x i, matvec p (matmul n A B) x i = matvec n A (matvec p B x) i.
Proof.
  intros. unfold matvec, matmul.
  rewrite (sum_ext p _ (fun j => sum n (fun k => A i k * B k j * x j))) by (intros; rewrite <- sum_scal_r; reflexivity).
  rewrite sum_swap. apply sum_ext. intros k _. rewrite <- sum_scal_l. apply sum_ext. intros. ring.
Qed.

(* ||A B|| <= ||A|| ||B|| *)
Lemma op_matmul : forall m n p A B a b, op_bound m n A a -> op_bound n p B b -> 0 <= a ->
  op_bound m p (matmul n A B) (a * b).
Proof.
  intros m n p A B a b HA HB Ha x.
  rewrite (norm_ext m _ (matvec n A (matvec p B x))) by (intros; apply matvec_matmul).
  eapply Rle_trans; [apply HA|]. rewrite Rmult_assoc. apply Rmult_le_compat_l; [exact Ha | apply HB].
Qed.

Lemma op_mscale : forall m n A c k, op_bound m n A c -> op_bound m n (mscale k A) (Rabs k * c).
Proof.
  intros m n A c k HA x.
  rewrite (norm_ext m _ (fun i => k * matvec n A x i))
    by (intros; unfold matvec, mscale; rewrite <- sum_scal_l; apply sum_ext; intros; ring).
  rewrite norm_scale, Rmult_assoc. apply Rmult_le_compat_l; [apply Rabs_pos | apply HA].
Qed.

(* x . (A y) = (A^T x) . y *)
Lemma dot_matvec_transpose : forall m n A x y, dot m x (matvec n A y) = dot n (matvec m (transpose A) x) y.
Proof.
  intros. unfold dot, matvec, transpose.
  rewrite (sum_ext m _ (fun i => sum n (fun j => x i * A i j * y j)))
    by (intros; rewrite <- sum_scal_l; apply sum_ext; intros; ring).
  rewrite sum_swap. apply sum_ext. intros j _. rewrite <- sum_scal_r. apply sum_ext. intros. ring.
Qed.

(* ||A^T|| <= ||A||: ||A^T x||^2 = x . (A A^T x) <= ||x|| c ||A^T x|| *)
Theorem op_transpose : forall m n A c, op_bound m n A c -> 0 <= c -> op_bound n m (transpose A) c.
Proof.
  intros m n A c HA Hc x. set (z := matvec m (transpose A) x).
  assert (E : norm n z * norm n z = dot m x (matvec n A z)).
  { rewrite dot_matvec_transpose. fold z. unfold dot. apply norm_sq. }
  assert (B : dot m x (matvec n A z) <= norm m x * (c * norm n z)).
  { unfold dot at 1. eapply Rle_trans; [apply dot_le_norms|].
    apply Rmult_le_compat_l; [apply norm_nonneg | apply HA]. }
  pose proof (norm_nonneg n z). pose proof (norm_nonneg m x).
  destruct (Req_dec (norm n z) 0) as [Z|Z]; [rewrite Z; apply Rmult_le_pos; lra|].
  apply (Rmult_le_reg_r (norm n z)); [lra|]. nra.
Qed.

(* a row vector times a matrix: y W = W^T y *)
Lemma vecmat_transpose : forall n y W j, vecmat n y W j = matvec n (transpose W) y j.
Proof. intros. unfold vecmat, matvec, transpose. apply sum_ext. intros. ring. Qed.

(* S1: ||W_QK|| = ||W_Q W_K^T|| / sqrt d_K <= 1 when 1/sqrt d_K <= 1 *)
Theorem WQK_op : forall d1 dK WQ WK, (1 <= dK)%nat -> / sqrt (INR dK) <= 1 ->
  op_bound d1 dK WQ 1 -> op_bound d1 dK WK 1 -> op_bound d1 d1 (WQK dK WQ WK) 1.
Proof.
  intros d1 dK WQ WK HdK Hs HQ HK. unfold WQK.
  assert (P : 0 < / sqrt (INR dK)) by (apply Rinv_0_lt_compat, sqrt_lt_R0, lt_0_INR; lia).
  eapply op_bound_mono; [apply op_mscale, (op_matmul d1 dK d1 WQ (transpose WK) 1 1); [exact HQ | | lra]|].
  - apply op_transpose; [exact HK | lra].
  - rewrite Rabs_pos_eq by lra. lra.
Qed.

(* ||W_VO^T|| = ||W_O^T W_V^T|| <= 1 *)
Theorem WVO_op : forall d1 dV d2 WV WO, op_bound d1 dV WV 1 -> op_bound dV d2 WO 1 ->
  op_bound d2 d1 (transpose (WVO dV WV WO)) 1.
Proof.
  intros d1 dV d2 WV WO HV HO. rewrite <- (Rmult_1_l 1).
  apply (op_bound_ext d2 d1 (matmul dV (transpose WO) (transpose WV))).
  - intros i j. unfold transpose, WVO, matmul. apply sum_ext. intros. ring.
  - apply op_matmul; [apply op_transpose; [exact HO | lra] | apply op_transpose; [exact HV | lra] | lra].
Qed.

(* --- one merged head ------------------------------------------------------------------------------------ *)

Lemma softmax_ext : forall T a z z' j, (forall k, z k = z' k) -> softmax T a z j = softmax T a z' j.
Proof.
  intros T a z z' j E. unfold softmax. rewrite (E j). f_equal. apply sum_ext. intros. rewrite E. reflexivity.
Qed.

Lemma vecmat_matmul : forall T d1 (p : vec) (X W : mat) c,
  vecmat T p (matmul d1 X W) c = vecmat d1 (vecmat T p X) W c.
Proof.
  intros. unfold vecmat, matmul.
  rewrite (sum_ext T _ (fun k => sum d1 (fun j => p k * X k j * W j c)))
    by (intros; rewrite <- sum_scal_l; apply sum_ext; intros; ring).
  rewrite sum_swap. apply sum_ext. intros j _. rewrite <- sum_scal_r. reflexivity.
Qed.

(* y' B - y A = y' (B - A) + (y' - y) A *)
Lemma vecmat_split : forall n y' y (B A : mat) c,
  vecmat n y' B c - vecmat n y A c = vecmat n y' (fun r c => B r c - A r c) c + vecmat n (vsub y' y) A c.
Proof. intros. unfold vecmat, vsub. rewrite <- sum_minus, <- sum_plus. apply sum_ext. intros. ring. Qed.

(* the logit moves by x_i^T (B - A) x_k *)
Lemma logit_sub : forall d1 (xi xk : vec) (B A : mat),
  dot d1 (vecmat d1 xi B) xk - dot d1 (vecmat d1 xi A) xk = dot d1 (vecmat d1 xi (fun r c => B r c - A r c)) xk.
Proof.
  intros. unfold dot, vecmat. rewrite <- sum_minus. apply sum_ext. intros j _.
  rewrite <- Rmult_minus_distr_r, <- sum_minus. f_equal. apply sum_ext. intros. ring.
Qed.

Lemma norm_vsub_sym : forall n u v, norm n (vsub u v) = norm n (vsub v u).
Proof.
  intros. rewrite (norm_ext n (vsub u v) (fun j => -1 * vsub v u j)) by (intros; unfold vsub; ring).
  rewrite norm_scale. replace (Rabs (-1)) with 1 by (rewrite Rabs_left; lra). ring.
Qed.

Lemma mat_max_le : forall m n (A : mat) q, (forall r c, (r < m)%nat -> (c < n)%nat -> Rabs (A r c) <= q) -> 0 <= q ->
  mat_max m n A <= q.
Proof.
  intros m n A q H Hq. unfold mat_max. apply norm_max_le; [| exact Hq]. intros r Hr.
  rewrite Rabs_pos_eq by apply norm_max_nonneg. apply norm_max_le; [| exact Hq]. intros c Hc. apply H; auto.
Qed.

(* Theorem 9's S2b-S3b for one head: the source head of merged matrices (Bqk, Bvo) against the target head of
   (Aqk, Avo), for entry errors |Bqk - Aqk| <= q and |Bvo - Avo| <= v, ||Avo^T|| <= 1, and a logit bound
   alpha^2 d1 q <= L.  S2b: |e_k| <= ||x_i|| ||x_k|| d1 q <= L (logit_bound); S2c: Lemma 8 at eps_max = L;
   S3a: ||(p - p') X Avo|| <= ||(p - p') X||; S3b: ||p' X (Bvo - Avo)|| <= alpha sqrt(d2) sqrt(d1) v (a convex
   combination of rows, then uniform_in_x), written sqrt(d1) alpha (sqrt(d1) sqrt(d2) v) as the paper's S3b. *)
Theorem head_gap : forall T d1 d2 (Aqk Bqk Avo Bvo X a : mat) i alpha q v L,
  (1 <= d1)%nat -> (1 <= d2)%nat -> (i < T)%nat -> is_mask T (a i) ->
  (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) -> op_bound d2 d1 (transpose Avo) 1 ->
  (forall r c, (r < d1)%nat -> (c < d1)%nat -> Rabs (Bqk r c - Aqk r c) <= q) ->
  (forall r c, (r < d1)%nat -> (c < d2)%nat -> Rabs (Bvo r c - Avo r c) <= v) ->
  alpha * alpha * (INR d1 * q) <= L ->
  norm d2 (vsub (head_merged T d1 Bqk Bvo X a i) (head_merged T d1 Aqk Avo X a i))
    <= sqrt (INR d1) * alpha * (exp (2 * L) - 1) + sqrt (INR d1) * alpha * (sqrt (INR d1) * sqrt (INR d2) * v).
Proof.
  intros T d1 d2 Aqk Bqk Avo Bvo X a i alpha q v L Hd1 Hd2 Hi Ha HX HA Hq Hv HL.
  destruct (mask_len T (a i) Ha) as [k0 Hk0].
  assert (Halpha : 0 <= alpha) by (eapply Rle_trans; [apply norm_nonneg | apply (HX k0 Hk0)]).
  assert (Hq0 : 0 <= q) by (eapply Rle_trans; [apply Rabs_pos | apply (Hq 0%nat 0%nat); lia]).
  assert (Hv0 : 0 <= v) by (eapply Rle_trans; [apply Rabs_pos | apply (Hv 0%nat 0%nat); lia]).
  set (z := fun k => dot d1 (vecmat d1 (X i) Aqk) (X k)).
  set (z' := fun k => dot d1 (vecmat d1 (X i) Bqk) (X k)).
  set (e := fun k => z' k - z k).
  set (y := vecmat T (softmax T (a i) z) X). set (y' := vecmat T (softmax T (a i) z') X).
  set (D := fun r c => Bvo r c - Avo r c).
  (* the difference splits into the value error and the softmax error *)
  rewrite (norm_ext d2 _ (vadd (matvec d1 (transpose D) y') (matvec d1 (transpose Avo) (vsub y' y)))).
  2: { intros c _. unfold vsub, vadd, head_merged. fold z z'. rewrite !vecmat_matmul. fold y y'.
       rewrite vecmat_split, !vecmat_transpose. reflexivity. }
  eapply Rle_trans; [apply norm_triangle|]. rewrite Rplus_comm. apply Rplus_le_compat.
  - (* S2b, S2c, S3a *)
    eapply Rle_trans; [apply HA|]. rewrite Rmult_1_l, norm_vsub_sym.
    assert (He : norm_max T e <= L).
    { apply norm_max_le; [| eapply Rle_trans; [| exact HL]; apply Rmult_le_pos; [nra | apply Rmult_le_pos;
        [apply pos_INR | exact Hq0]]].
      intros k Hk. unfold e, z, z'. rewrite logit_sub. eapply Rle_trans; [apply logit_bound|].
      eapply Rle_trans; [| exact HL].
      apply Rmult_le_compat; [apply Rmult_le_pos; apply norm_nonneg | apply Rmult_le_pos; [apply pos_INR |
        apply norm_max_nonneg] | apply Rmult_le_compat; auto using norm_nonneg; apply HX; auto |].
      apply Rmult_le_compat_l; [apply pos_INR | apply mat_max_le; auto]. }
    eapply Rle_trans; [| apply (lemma8 T d1 (a i) z e X alpha L Ha He HX)].
    right. apply norm_ext. intros j _. unfold vsub, y, y', vecmat. f_equal. apply sum_ext. intros k _.
    rewrite (softmax_ext T (a i) z' (vadd z e)); [reflexivity|]. intros m. unfold vadd, e. ring.
  - (* S3b *)
    eapply Rle_trans; [apply uniform_in_x|].
    + intros r c Hr Hc. unfold transpose, D. apply Hv; auto.
    + assert (Hy : norm d1 y' <= alpha) by (apply softmax_rows_norm; auto).
      assert (1 <= sqrt (INR d1)) by (rewrite <- sqrt_1; apply sqrt_le_1_alt; apply (le_INR 1); exact Hd1).
      pose proof (sqrt_pos (INR d2)). pose proof (norm_nonneg d1 y').
      assert (0 <= sqrt (INR d2) * sqrt (INR d1) * v) by (apply Rmult_le_pos; [apply Rmult_le_pos|]; lra).
      apply Rle_trans with (sqrt (INR d2) * sqrt (INR d1) * v * alpha); [apply Rmult_le_compat_l; lra|].
      replace (sqrt (INR d1) * alpha * (sqrt (INR d1) * sqrt (INR d2) * v))
        with (sqrt (INR d1) * (sqrt (INR d2) * sqrt (INR d1) * v * alpha)) by ring.
      rewrite <- (Rmult_1_l (sqrt (INR d2) * sqrt (INR d1) * v * alpha)) at 1.
      apply Rmult_le_compat_r; [apply Rmult_le_pos|]; lra.
Qed.

(* S1 for a source and a target head: both are their merged heads *)
Lemma norm_heads_merged : forall T d1 d2 dK dV dK' dV' WQ WK WV WO WQ' WK' WV' WO' (X a : mat) i,
  norm d2 (vsub (head T d1 dK' dV' WQ' WK' WV' WO' X a i) (head T d1 dK dV WQ WK WV WO X a i))
  = norm d2 (vsub (head_merged T d1 (WQK dK' WQ' WK') (WVO dV' WV' WO') X a i)
                  (head_merged T d1 (WQK dK WQ WK) (WVO dV WV WO) X a i)).
Proof. intros. apply norm_ext. intros. unfold vsub. rewrite !head_merged_eq. reflexivity. Qed.

(* --- the MHA: the heads' errors add up ------------------------------------------------------------------- *)

Theorem mha_gap : forall (H T d1 d2 dK dV dK' dV' : nat) (WQ WK WV WO WQ' WK' WV' WO' : nat -> mat) (X a : mat) i B,
  (forall h, (h < H)%nat -> norm d2 (vsub (head T d1 dK' dV' (WQ' h) (WK' h) (WV' h) (WO' h) X a i)
                                          (head T d1 dK dV (WQ h) (WK h) (WV h) (WO h) X a i)) <= B) ->
  norm d2 (vsub (mha H T d1 dK' dV' WQ' WK' WV' WO' X a i) (mha H T d1 dK dV WQ WK WV WO X a i)) <= INR H * B.
Proof.
  intros H T d1 d2 dK dV dK' dV' WQ WK WV WO WQ' WK' WV' WO' X a i B HB.
  set (G := fun h => vsub (head T d1 dK' dV' (WQ' h) (WK' h) (WV' h) (WO' h) X a i)
                          (head T d1 dK dV (WQ h) (WK h) (WV h) (WO h) X a i)).
  rewrite (norm_ext d2 _ (fun c => sum H (fun h => 1 * G h c))).
  2: { intros c _. unfold G, mha, vsub. rewrite <- sum_minus. apply sum_ext. intros. ring. }
  eapply Rle_trans; [apply norm_combination|]. rewrite <- sum_const. apply sum_le. intros h Hh.
  rewrite Rabs_R1, Rmult_1_l. apply HB. exact Hh.
Qed.

(* Theorem 11's B2a: ||Attn_T(x_i)|| <= H alpha for targets with ||W_V||, ||W_O|| <= 1 (each head is
   sigma X W_VO, a convex combination of rows of norm <= alpha times ||W_VO^T|| <= 1) *)
Theorem mha_norm : forall (H T d1 d2 dK dV : nat) (WQ WK WV WO : nat -> mat) (X a : mat) i alpha,
  is_mask T (a i) -> (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) ->
  (forall h, (h < H)%nat -> op_bound d1 dV (WV h) 1 /\ op_bound dV d2 (WO h) 1) ->
  norm d2 (mha H T d1 dK dV WQ WK WV WO X a i) <= INR H * alpha.
Proof.
  intros H T d1 d2 dK dV WQ WK WV WO X a i alpha Ha HX HW.
  rewrite (norm_ext d2 _ (fun c => sum H (fun h => 1 * head T d1 dK dV (WQ h) (WK h) (WV h) (WO h) X a i c)))
    by (intros; unfold mha; apply sum_ext; intros; ring).
  eapply Rle_trans; [apply norm_combination|]. rewrite <- sum_const. apply sum_le. intros h Hh.
  rewrite Rabs_R1, Rmult_1_l.
  rewrite (norm_ext d2 _ (matvec d1 (transpose (WVO dV (WV h) (WO h)))
                            (vecmat T (softmax T (a i) (fun k => dot d1 (vecmat d1 (X i) (WQK dK (WQ h) (WK h))) (X k))) X)))
    by (intros; rewrite head_merged_eq; unfold head_merged; rewrite vecmat_matmul, vecmat_transpose; reflexivity).
  destruct (HW h Hh) as [HV HO]. eapply Rle_trans; [apply (WVO_op d1 dV d2 _ _ HV HO)|].
  rewrite Rmult_1_l. apply softmax_rows_norm; assumption.
Qed.

(* Theorem 9's conclusion for a source MHA (weights WQ' .. WO') and a target MHA (WQ .. WO): within err of it on
   every input X whose rows have norm at most alpha, for every length T, every mask and every token *)
Definition theorem9_conclusion (H d1 d2 dK dV dK' dV' : nat) (WQ' WK' WV' WO' WQ WK WV WO : nat -> mat)
    (alpha err : R) : Prop :=
  forall (T : nat) (X a : mat), (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) ->
  forall i, (i < T)%nat -> is_mask T (a i) ->
    norm d2 (vsub (mha H T d1 dK' dV' WQ' WK' WV' WO' X a i) (mha H T d1 dK dV WQ WK WV WO X a i)) <= err.

(* --- the pruned sources of Lemma 7's construction -------------------------------------------------------- *)

(* n_K = d1 n' query/key units: W~_Q (.) M_Q is the masked second block matrix and W~_K (.) M_K the transposed
   block-diagonal first one, both with entries (rescaled items) times n_K^(1/4), so that entries of the rescaled
   sources are the items v, u of Lueker's problems; n_V = d1 n' value/output units: W~_V (.) M_V is the
   transposed first block matrix, W~_O (.) M_O the transposed masked second one (Lemma 7 on W_VO^T) *)
Definition src_Q (n' d1 : nat) (m v : nat -> nat -> nat -> R) : mat :=
  mscale (sqrt (sqrt (INR (d1 * n')))) (second_block n' m v).
Definition src_K (n' d1 : nat) (u : nat -> nat -> R) : mat :=
  mscale (sqrt (sqrt (INR (d1 * n')))) (transpose (first_block n' u)).
Definition src_V (n' : nat) (u : nat -> nat -> R) : mat := transpose (first_block n' u).
Definition src_O (n' : nat) (m v : nat -> nat -> nat -> R) : mat := transpose (second_block n' m v).

(* the source's W_QK = W~_Q W~_K^T / sqrt n_K is the block product of Lemma 7 *)
Lemma src_QK : forall n' d1 m v u r c,
  WQK (d1 * n') (src_Q n' d1 m v) (src_K n' d1 u) r c = matmul (d1 * n') (second_block n' m v) (first_block n' u) r c.
Proof.
  intros. unfold WQK, mscale, matmul, src_Q, src_K, mscale, transpose.
  destruct (Nat.eq_dec (d1 * n') 0) as [Z|Z]; [rewrite Z; simpl; ring|].
  set (s := sqrt (sqrt (INR (d1 * n')))).
  assert (Hs : s * s = sqrt (INR (d1 * n'))) by (unfold s; apply sqrt_sqrt, sqrt_pos).
  assert (P : 0 < sqrt (INR (d1 * n'))) by (apply sqrt_lt_R0, lt_0_INR; lia).
  rewrite (sum_ext _ _ (fun k => (s * s) * (second_block n' m v r k * first_block n' u k c))) by (intros; ring).
  rewrite sum_scal_l, Hs. field. lra.
Qed.

(* the source's W_VO = W~_V W~_O is the transposed block product of Lemma 7 *)
Lemma src_VO : forall n' d1 m v u r c,
  WVO (d1 * n') (src_V n' u) (src_O n' m v) r c = matmul (d1 * n') (second_block n' m v) (first_block n' u) c r.
Proof. intros. unfold WVO, matmul, src_V, src_O, transpose. apply sum_ext. intros. ring. Qed.
