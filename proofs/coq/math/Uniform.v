(* Uniformity over inputs: an error bound certified by the weights alone holds for every input at once.

   A pruned network's error g x - f x is, in every construction of the paper, a matrix D of entry errors applied to
   a feature vector phi x of the input with ||phi x|| <= ||x||: phi x = x for one matrix or a product of two
   (Lemma 7, Theorem 9's merged pairs), and phi x = (ReLU(x); ReLU(-x)) for Lemma 2's ReLU pair, whose two halves
   together have the norm of x (relu_split_norm, x = ReLU(x) - ReLU(-x)).  When one event E of the random weights
   bounds the entries of D (Lueker's event: every subset-sum problem solved for every target at once), the bound on
   the error follows on E for every input of the ball: no input enters the event (uniform_in_inputs). *)
From Coq Require Import Reals Lra Lia.
From SlthMath Require Import Objects Sums Matrix Triangle Blocks.
Open Scope R_scope.

Theorem uniform_in_inputs : forall (E : Prop) (m n N : nat) (f g phi : vec -> vec) (D : mat) (eta beta : R),
  (forall x i, (i < m)%nat -> g x i - f x i = matvec N D (phi x) i) ->
  (forall x, norm N (phi x) <= norm n x) ->
  (E -> forall i j, (i < m)%nat -> (j < N)%nat -> Rabs (D i j) <= eta) ->
  E -> forall x, norm n x <= beta -> norm m (vsub (g x) (f x)) <= sqrt (INR m) * sqrt (INR N) * eta * beta.
Proof.
  intros E m n N f g phi D eta beta Hdiff Hphi HD HE x Hx.
  rewrite (norm_ext m _ (matvec N D (phi x))) by (intros i Hi; apply Hdiff, Hi).
  eapply Rle_trans; [apply (uniform_in_x m N D eta (HD HE))|].
  assert (Hc : 0 <= sqrt (INR m) * sqrt (INR N) * eta).
  { destruct m as [|m']; [simpl INR; rewrite sqrt_0; lra|]. destruct N as [|N']; [simpl INR; rewrite sqrt_0; lra|].
    assert (0 <= eta) by (eapply Rle_trans; [apply Rabs_pos | apply (HD HE 0%nat 0%nat); lia]).
    apply Rmult_le_pos; [apply Rmult_le_pos; apply sqrt_pos | assumption]. }
  apply Rmult_le_compat_l; [exact Hc|]. eapply Rle_trans; [apply Hphi | exact Hx].
Qed.

(* --- Lemma 2's features: the two halves ReLU(x) and ReLU(-x) of the input ---------------------------------- *)

(* (ReLU(x_0), ..., ReLU(x_(n-1)), ReLU(-x_0), ..., ReLU(-x_(n-1))), a vector of size 2n *)
Definition relu_split (n : nat) (x : vec) : vec :=
  fun j => if Nat.ltb j n then relu (x j) else relu (- x (j - n)%nat).

Lemma relu_sub_neg : forall a, relu a - relu (- a) = a.
Proof. intros a. unfold relu, Rmax. destruct (Rle_dec 0 a), (Rle_dec 0 (- a)); lra. Qed.

Lemma relu_sq_split : forall a, relu a * relu a + relu (- a) * relu (- a) = a * a.
Proof. intros a. unfold relu, Rmax. destruct (Rle_dec 0 a), (Rle_dec 0 (- a)); nra. Qed.

Theorem relu_split_norm : forall n x, norm (n + n) (relu_split n x) = norm n x.
Proof.
  intros n x. unfold norm. f_equal. rewrite sum_app.
  rewrite (sum_ext n (fun k => relu_split n x (n + k)%nat * relu_split n x (n + k)%nat)
                   (fun k => relu (- x k) * relu (- x k)))
    by (intros k Hk; unfold relu_split; replace (Nat.ltb (n + k) n) with false by (symmetry; apply Nat.ltb_ge; lia);
        replace (n + k - n)%nat with k by lia; reflexivity).
  rewrite (sum_ext n (fun k => relu_split n x k * relu_split n x k) (fun k => relu (x k) * relu (x k)))
    by (intros k Hk; unfold relu_split; rewrite (proj2 (Nat.ltb_lt k n)) by exact Hk; reflexivity).
  rewrite <- sum_plus. apply sum_ext. intros. apply relu_sq_split.
Qed.

(* Lemma 2's pair error as a matrix on the features: W x = [W  -W] (ReLU(x); ReLU(-x)) *)
Lemma matvec_relu_split : forall n W x i,
  matvec (n + n) (fun i j => if Nat.ltb j n then W i j else - W i (j - n)%nat) (relu_split n x) i = matvec n W x i.
Proof.
  intros n W x i. unfold matvec. rewrite sum_app.
  rewrite (sum_ext n (fun k => (if Nat.ltb (n + k) n then W i (n + k)%nat else - W i (n + k - n)%nat) *
                               relu_split n x (n + k)%nat) (fun k => - W i k * relu (- x k)))
    by (intros k Hk; unfold relu_split; replace (Nat.ltb (n + k) n) with false by (symmetry; apply Nat.ltb_ge; lia);
        replace (n + k - n)%nat with k by lia; reflexivity).
  rewrite (sum_ext n (fun k => (if Nat.ltb k n then W i k else - W i (k - n)%nat) * relu_split n x k)
                   (fun k => W i k * relu (x k)))
    by (intros k Hk; unfold relu_split; rewrite (proj2 (Nat.ltb_lt k n)) by exact Hk; reflexivity).
  rewrite <- sum_plus. apply sum_ext. intros k _. rewrite <- (relu_sub_neg (x k)) at 3. ring.
Qed.
