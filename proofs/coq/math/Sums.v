(* Finite sums and the two norms: the facts every other file uses. *)
From Coq Require Import Reals Lra Lia.
From SlthMath Require Import Objects.
Open Scope R_scope.

(* --- finite sums ------------------------------------------------------------------------------------------ *)

Lemma sum_ext : forall n f g, (forall k, (k < n)%nat -> f k = g k) -> sum n f = sum n g.
Proof.
  induction n as [|n IH]; intros f g E; simpl; [reflexivity|].
  rewrite (IH f g) by (intros; apply E; lia). rewrite (E n) by lia. reflexivity.
Qed.

Lemma sum_plus : forall n f g, sum n (fun k => f k + g k) = sum n f + sum n g.
Proof. induction n as [|n IH]; intros; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma sum_minus : forall n f g, sum n (fun k => f k - g k) = sum n f - sum n g.
Proof. induction n as [|n IH]; intros; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma sum_scal_l : forall n c f, sum n (fun k => c * f k) = c * sum n f.
Proof. induction n as [|n IH]; intros; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma sum_scal_r : forall n c f, sum n (fun k => f k * c) = sum n f * c.
Proof. induction n as [|n IH]; intros; simpl; [ring|]. rewrite IH. ring. Qed.

Lemma sum_const : forall n c, sum n (fun _ => c) = INR n * c.
Proof. induction n as [|n IH]; intros; [simpl; ring|]. simpl sum. rewrite IH, S_INR. ring. Qed.

Lemma sum_le : forall n f g, (forall k, (k < n)%nat -> f k <= g k) -> sum n f <= sum n g.
Proof.
  induction n as [|n IH]; intros f g H; simpl; [lra|].
  apply Rplus_le_compat; [apply IH; intros; apply H; lia | apply H; lia].
Qed.

Lemma sum_nonneg : forall n f, (forall k, (k < n)%nat -> 0 <= f k) -> 0 <= sum n f.
Proof.
  intros n f H. rewrite <- (Rmult_0_r (INR n)), <- sum_const. apply sum_le. exact H.
Qed.

(* a sum of nonnegative terms is at least each of its terms *)
Lemma sum_ge_term : forall n f j, (forall k, (k < n)%nat -> 0 <= f k) -> (j < n)%nat -> f j <= sum n f.
Proof.
  induction n as [|n IH]; intros f j H Hj; [lia|]. simpl.
  destruct (Nat.eq_dec j n) as [->|N].
  - assert (0 <= sum n f) by (apply sum_nonneg; intros; apply H; lia). lra.
  - assert (f j <= sum n f) by (apply IH; [intros; apply H; lia | lia]).
    assert (0 <= f n) by (apply H; lia). lra.
Qed.

(* a sum of nonnegative terms with one term positive is positive *)
Lemma sum_pos : forall n f j, (forall k, (k < n)%nat -> 0 <= f k) -> (j < n)%nat -> 0 < f j -> 0 < sum n f.
Proof. intros n f j H Hj Hp. pose proof (sum_ge_term n f j H Hj). lra. Qed.

(* the triangle inequality for sums *)
Lemma sum_abs : forall n f, Rabs (sum n f) <= sum n (fun k => Rabs (f k)).
Proof.
  induction n as [|n IH]; intros; simpl; [rewrite Rabs_R0; lra|].
  eapply Rle_trans; [apply Rabs_triang|]. specialize (IH f). lra.
Qed.

(* --- the Euclidean norm ----------------------------------------------------------------------------------- *)

Lemma norm_nonneg : forall n v, 0 <= norm n v.
Proof. intros. apply sqrt_pos. Qed.

Lemma sumsq_nonneg : forall n v, 0 <= sum n (fun i => v i * v i).
Proof. intros. apply sum_nonneg. intros. apply Rle_0_sqr. Qed.

(* every entry is at most the Euclidean norm: |v_j| <= ||v|| *)
Lemma entry_le_norm : forall n v j, (j < n)%nat -> Rabs (v j) <= norm n v.
Proof.
  intros n v j Hj. unfold norm. rewrite <- sqrt_Rsqr_abs. apply sqrt_le_1_alt.
  unfold Rsqr. apply (sum_ge_term n (fun i => v i * v i)); [intros; apply Rle_0_sqr | exact Hj].
Qed.

(* ||v|| <= sqrt n * B when every entry satisfies |v_j| <= B *)
Lemma norm_le_sqrt_dim : forall n v B,
  (forall j, (j < n)%nat -> Rabs (v j) <= B) -> 0 <= B -> norm n v <= sqrt (INR n) * B.
Proof.
  intros n v B H HB. unfold norm.
  rewrite <- (sqrt_square B) by exact HB. rewrite <- sqrt_mult; [| apply pos_INR | apply Rle_0_sqr].
  apply sqrt_le_1_alt. rewrite <- sum_const. apply sum_le. intros j Hj.
  rewrite <- (Rabs_pos_eq (v j * v j)) by apply Rle_0_sqr.
  rewrite Rabs_mult. specialize (H j Hj).
  apply Rmult_le_compat; auto using Rabs_pos.
Qed.

(* ||v|| <= sqrt n ||v||_max *)
Lemma norm_max_ge_entry : forall n v j, (j < n)%nat -> Rabs (v j) <= norm_max n v.
Proof.
  induction n as [|n IH]; intros v j Hj; [lia|]. simpl.
  destruct (Nat.eq_dec j n) as [->|N]; [apply Rmax_r|].
  eapply Rle_trans; [apply IH; lia | apply Rmax_l].
Qed.

Lemma norm_max_nonneg : forall n v, 0 <= norm_max n v.
Proof. induction n as [|n IH]; intros; simpl; [lra|]. eapply Rle_trans; [apply IH | apply Rmax_l]. Qed.

Lemma norm_max_le : forall n v B, (forall j, (j < n)%nat -> Rabs (v j) <= B) -> 0 <= B -> norm_max n v <= B.
Proof.
  induction n as [|n IH]; intros v B H HB; simpl; [exact HB|].
  apply Rmax_lub; [apply IH; [intros; apply H; lia | exact HB] | apply H; lia].
Qed.

Lemma norm_le_sqrt_dim_max : forall n v, norm n v <= sqrt (INR n) * norm_max n v.
Proof. intros. apply norm_le_sqrt_dim; [apply norm_max_ge_entry | apply norm_max_nonneg]. Qed.
