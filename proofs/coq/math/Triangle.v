(* The triangle inequality for the Euclidean norm, and Lemma 8 without its sqrt(d1):
     ||u + v|| <= ||u|| + ||v||                                   (norm_triangle, from Cauchy-Schwarz)
     ||sum_k q_k X_k|| <= sum_k |q_k| ||X_k||                     (norm_combination)
     ||sigma(z;a) X - sigma(z+e;a) X|| <= alpha (exp(2 eps) - 1)  (lemma8_rows)
   The paper bounds each of the d1 entries by alpha sum_k |p_k - p'_k| and pays sqrt(d1) for the norm; bounding
   the rows' combination directly loses no such factor. *)
From Coq Require Import Reals Lra Lia.
From SlthMath Require Import Objects Sums Softmax Matrix.
Open Scope R_scope.

Lemma norm_ext : forall n u v, (forall j, (j < n)%nat -> u j = v j) -> norm n u = norm n v.
Proof. intros n u v H. unfold norm. f_equal. apply sum_ext. intros j Hj. rewrite H by exact Hj. reflexivity. Qed.

Lemma sqrt_sq_le : forall x y, x * x <= y * y -> 0 <= y -> x <= y.
Proof. intros x y H Hy. destruct (Rle_or_lt x y) as [L | L]; [exact L | nra]. Qed.

(* sum_k u_k v_k <= ||u|| ||v|| *)
Lemma dot_le_norms : forall n u v, sum n (fun k => u k * v k) <= norm n u * norm n v.
Proof.
  intros n u v. apply sqrt_sq_le; [| apply Rmult_le_pos; apply norm_nonneg].
  unfold norm. replace (sqrt (sum n (fun i => u i * u i)) * sqrt (sum n (fun i => v i * v i)) *
                        (sqrt (sum n (fun i => u i * u i)) * sqrt (sum n (fun i => v i * v i))))
    with ((sqrt (sum n (fun i => u i * u i)) * sqrt (sum n (fun i => u i * u i))) *
          (sqrt (sum n (fun i => v i * v i)) * sqrt (sum n (fun i => v i * v i)))) by ring.
  rewrite !sqrt_sqrt by apply sumsq_nonneg. apply cauchy_schwarz.
Qed.

Lemma norm_sq : forall n v, norm n v * norm n v = sum n (fun i => v i * v i).
Proof. intros. unfold norm. apply sqrt_sqrt, sumsq_nonneg. Qed.

Theorem norm_triangle : forall n u v, norm n (vadd u v) <= norm n u + norm n v.
Proof.
  intros n u v. apply sqrt_sq_le; [| pose proof (norm_nonneg n u); pose proof (norm_nonneg n v); lra].
  rewrite norm_sq. unfold vadd.
  rewrite (sum_ext n _ (fun k => u k * u k + 2 * (u k * v k) + v k * v k)) by (intros; ring).
  rewrite !sum_plus, sum_scal_l, <- !norm_sq. pose proof (dot_le_norms n u v). nra.
Qed.

Lemma norm_scale : forall n c v, norm n (fun j => c * v j) = Rabs c * norm n v.
Proof.
  intros n c v. unfold norm.
  rewrite (sum_ext n _ (fun j => (c * c) * (v j * v j))) by (intros; ring). rewrite sum_scal_l.
  rewrite sqrt_mult by (apply Rle_0_sqr || apply sumsq_nonneg). rewrite <- sqrt_Rsqr_abs. reflexivity.
Qed.

Theorem norm_combination : forall T n (q : vec) (X : mat),
  norm n (fun j => sum T (fun k => q k * X k j)) <= sum T (fun k => Rabs (q k) * norm n (X k)).
Proof.
  induction T as [|T IH]; intros n q X; simpl.
  - unfold norm. rewrite (sum_ext n _ (fun _ => 0)) by (intros; ring). rewrite sum_const, Rmult_0_r, sqrt_0. lra.
  - change (fun j => sum T (fun k => q k * X k j) + q T * X T j)
      with (vadd (fun j => sum T (fun k => q k * X k j)) (fun j => q T * X T j)).
    eapply Rle_trans; [apply norm_triangle|]. rewrite norm_scale.
    apply Rplus_le_compat_r. apply IH.
Qed.

(* Lemma 8 with alpha (exp(2 eps) - 1) in place of sqrt(d1) alpha (exp(2 eps) - 1) *)
Theorem lemma8_rows : forall (T d1 : nat) (a z e : vec) (X : mat) (alpha eps : R),
  is_mask T a -> norm_max T e <= eps -> (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) ->
  norm d1 (vsub (vecmat T (softmax T a z) X) (vecmat T (softmax T a (vadd z e)) X))
    <= alpha * (exp (2 * eps) - 1).
Proof.
  intros T d1 a z e X alpha eps Ha He HX.
  assert (Hek : forall k, (k < T)%nat -> Rabs (e k) <= eps)
    by (intros k Hk; eapply Rle_trans; [apply norm_max_ge_entry; exact Hk | exact He]).
  destruct (mask_len T a Ha) as [k0 Hk0].
  assert (Halpha : 0 <= alpha) by (eapply Rle_trans; [apply norm_nonneg | apply (HX k0 Hk0)]).
  rewrite (norm_ext d1 _ (fun j => sum T (fun k => (softmax T a z k - softmax T a (vadd z e) k) * X k j)))
    by (intros; apply vecmat_sub).
  eapply Rle_trans; [apply norm_combination|].
  eapply Rle_trans.
  - apply (sum_le T _ (fun k => alpha * Rabs (softmax T a z k - softmax T a (vadd z e) k))).
    intros k Hk. rewrite Rmult_comm. apply Rmult_le_compat_r; [apply Rabs_pos | auto].
  - rewrite sum_scal_l. apply Rmult_le_compat_l; [exact Halpha | apply l1_shift; auto].
Qed.

(* ||sigma(z;a) X|| <= alpha when every row of X has norm <= alpha: a convex combination of the rows (Theorem 9's
   step S3b bounds this norm by sqrt(d1) alpha) *)
Theorem softmax_rows_norm : forall (T d1 : nat) (a z : vec) (X : mat) (alpha : R),
  is_mask T a -> (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) ->
  norm d1 (vecmat T (softmax T a z) X) <= alpha.
Proof.
  intros T d1 a z X alpha Ha HX. unfold vecmat. eapply Rle_trans; [apply norm_combination|].
  apply Rle_trans with (sum T (fun k => alpha * softmax T a z k)).
  2: { rewrite sum_scal_l, softmax_sum by exact Ha. lra. }
  apply sum_le. intros k Hk. rewrite Rabs_pos_eq by (apply softmax_nonneg; auto).
  rewrite Rmult_comm. apply Rmult_le_compat_r; [apply softmax_nonneg; auto | auto].
Qed.
