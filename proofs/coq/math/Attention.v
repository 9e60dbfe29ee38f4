(* Theorem 9's step S1: a head is its merged form,
     sigma(x_i^T W_Q (X W_K)^T / sqrt dK ; a_i) X W_V W_O = sigma(x_i^T W_QK X^T ; a_i) X W_VO
   with W_QK = W_Q W_K^T / sqrt dK and W_VO = W_V W_O (eq. 10-11): the logits agree (merged_logits) and
   (X W_V) W_O = X (W_V W_O) (matmul_assoc). *)
From Coq Require Import Reals Lra Lia.
From SlthMath Require Import Objects Sums.
Open Scope R_scope.

(* the order of a double sum does not matter *)
Lemma sum_swap : forall n m (f : nat -> nat -> R),
  sum n (fun i => sum m (fun j => f i j)) = sum m (fun j => sum n (fun i => f i j)).
Proof.
  induction n as [|n IH]; intros m f; simpl.
  - rewrite sum_const. ring.
  - rewrite IH, <- sum_plus. reflexivity.
Qed.

Lemma matmul_assoc : forall n p (A B C : mat) i j,
  matmul p (matmul n A B) C i j = matmul n A (matmul p B C) i j.
Proof.
  intros. unfold matmul.
  rewrite (sum_ext p _ (fun k => sum n (fun l => A i l * B l k * C k j)))
    by (intros; rewrite <- sum_scal_r; reflexivity).
  rewrite sum_swap. apply sum_ext. intros l _. rewrite <- sum_scal_l. apply sum_ext. intros. ring.
Qed.

(* a product of two sums is the double sum of the products *)
Lemma sum_prod : forall n m f g, sum n f * sum m g = sum n (fun p => sum m (fun q => f p * g q)).
Proof.
  intros. rewrite <- sum_scal_r. apply sum_ext. intros p _. rewrite <- sum_scal_l. reflexivity.
Qed.

(* sum over (m, p, q) read in the order (q, p, m) *)
Lemma sum_rotate : forall a b c (F : nat -> nat -> nat -> R),
  sum a (fun m => sum b (fun p => sum c (fun q => F m p q)))
    = sum c (fun q => sum b (fun p => sum a (fun m => F m p q))).
Proof.
  intros. rewrite sum_swap.
  rewrite (sum_ext b _ (fun p => sum c (fun q => sum a (fun m => F m p q)))) by (intros; apply sum_swap).
  apply sum_swap.
Qed.

Lemma sum_scal_lr : forall n c d f, c * sum n f * d = sum n (fun m => c * f m * d).
Proof. intros. rewrite <- sum_scal_l, <- sum_scal_r. reflexivity. Qed.

(* x_i^T W_Q (x_k^T W_K)^T / sqrt dK = x_i^T W_QK x_k: both are the triple sum over (m, p, q) of
   x_ip WQ_pm x_kq WK_qm / sqrt dK *)
Lemma merged_logits : forall d1 dK WQ WK (X : mat) i k,
  logits d1 dK WQ WK X i k = dot d1 (vecmat d1 (X i) (WQK dK WQ WK)) (X k).
Proof.
  intros. unfold logits, dot, vecmat, WQK, mscale, matmul, transpose, Rdiv.
  set (s := / sqrt (INR dK)).
  transitivity (sum dK (fun m => sum d1 (fun p => sum d1 (fun q => s * (X i p * WQ p m) * (X k q * WK q m))))).
  - rewrite <- sum_scal_r. apply sum_ext. intros m _. rewrite Rmult_comm, sum_prod, <- sum_scal_l.
    apply sum_ext. intros p _. rewrite <- sum_scal_l. apply sum_ext. intros. ring.
  - transitivity (sum d1 (fun q => sum d1 (fun p => sum dK (fun m => X i p * (s * (WQ p m * WK q m)) * X k q)))).
    + etransitivity; [apply (sum_rotate dK d1 d1 (fun m p q => s * (X i p * WQ p m) * (X k q * WK q m)))|].
      apply sum_ext. intros q _. apply sum_ext. intros p _. apply sum_ext. intros m _. ring.
    + symmetry. apply sum_ext. intros q _. rewrite <- sum_scal_r. apply sum_ext. intros p _.
      rewrite <- sum_scal_l, sum_scal_lr. reflexivity.
Qed.

(* Theorem 9's S1: a head equals its merged form *)
Theorem head_merged_eq : forall T d1 dK dV WQ WK WV WO (X a : mat) i c,
  head T d1 dK dV WQ WK WV WO X a i c = head_merged T d1 (WQK dK WQ WK) (WVO dV WV WO) X a i c.
Proof.
  intros. unfold head, head_merged, vecmat at 1 2, WVO.
  apply sum_ext. intros k _. rewrite matmul_assoc. f_equal. unfold softmax.
  rewrite (sum_ext T (fun k0 => a i k0 * exp (logits d1 dK WQ WK X i k0)) _)
    by (intros; rewrite merged_logits; reflexivity).
  rewrite merged_logits. reflexivity.
Qed.
