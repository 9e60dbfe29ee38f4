(* Theorem 10 (Pensia et al. 2020, Theorem 1) composed from Lemma 2's on-event form, about the real networks.

   Layer l of the target relu_net L dims W is W_l (size dims (l+1) x dims l, ||W_l|| <= 1).  Its source is Lemma 2's
   construction: n_l = dims l * n'_l hidden units, the first pruned matrix first_block n'_l u_l (the random items
   u_l), the second second_block n'_l m_l v_l (the random items v_l, the masks m_l).  The source net is
   pruned_net: the 2L pruned matrices in turn (relu_net of 2L layers).

   lemma2_masks is what stmt_lemma2 concludes for one layer on its Lueker events: masks in {0, 1} exist with the pair
   within err of W_l x for every ||x|| <= 1.  Given it for every layer at the budget eps / (2L), one choice of masks
   for all layers puts the pruned net within exp(alpha eps / 2) - 1 of the target net on every input of norm
   <= alpha, alpha >= 1 (theorem10_of_lemma2): the masks of the L layers are chosen at once (finite_choice_of), and
   the layers compose by deep_relu_net (the induction over layers, layers_induction). *)
From Coq Require Import Reals Lra Lia.
From SlthMath Require Import Objects Sums Triangle Induction Blocks Mha Deep Probability.
Open Scope R_scope.

(* the masks m_ijk of one layer are in {0, 1} (i < d', j < d) *)
Definition binary3 (d' d : nat) (m : nat -> nat -> nat -> R) : Prop :=
  forall i j k, (i < d')%nat -> (j < d)%nat -> m i j k = 0 \/ m i j k = 1.

(* Lemma 2's conclusion as stmt_lemma2 gives it for one layer (W of size d' x d, n' units per input coordinate) *)
Definition lemma2_masks (d d' n' : nat) (u : nat -> nat -> R) (v : nat -> nat -> nat -> R) (W : mat) (err : R)
    : Prop :=
  exists m : nat -> nat -> nat -> R, binary3 d' d m /\
    forall x : vec, norm d x <= 1 ->
      norm d' (vsub (matvec d W x) (matvec (d * n') (second_block n' m v) (vrelu (matvec d (first_block n' u) x))))
        <= err.

(* the pruned source net of 2L layers: layer 2l is first_block n'_l u_l, layer 2l+1 is second_block n'_l m_l v_l *)
Definition pruned_net (L : nat) (dims n' : nat -> nat) (u : nat -> nat -> nat -> R) (v m : nat -> nat -> nat -> nat -> R)
    (x : vec) : vec :=
  relu_net (2 * L) (interleave dims (fun l => (dims l * n' l)%nat))
    (interleave (fun l => first_block (n' l) (u l)) (fun l => second_block (n' l) (m l) (v l))) x.

(* one layer's on-event form is Deep.v's lemma2_conclusion for its pruned pair *)
Lemma lemma2_masks_pair : forall d d' n' u v W m err,
  (forall x : vec, norm d x <= 1 ->
     norm d' (vsub (matvec d W x) (matvec (d * n') (second_block n' m v) (vrelu (matvec d (first_block n' u) x))))
       <= err) ->
  lemma2_conclusion d (d * n') d' W (first_block n' u) (second_block n' m v) err.
Proof. intros d d' n' u v W m err H x Hx. unfold pair. rewrite norm_vsub_sym. apply H, Hx. Qed.

Theorem theorem10_of_lemma2 : forall (L : nat) (dims n' : nat -> nat) (u : nat -> nat -> nat -> R)
    (v : nat -> nat -> nat -> nat -> R) (W : nat -> mat) (alpha eps : R),
  (1 <= L)%nat -> 1 <= alpha -> 0 <= eps ->
  (forall l, (l < L)%nat -> op_bound (dims (S l)) (dims l) (W l) 1) ->
  (forall l, (l < L)%nat -> lemma2_masks (dims l) (dims (S l)) (n' l) (u l) (v l) (W l) (eps / (2 * INR L))) ->
  exists m : nat -> nat -> nat -> nat -> R,
    (forall l, (l < L)%nat -> binary3 (dims (S l)) (dims l) (m l)) /\
    forall x : vec, norm (dims O) x <= alpha ->
      norm (dims L) (vsub (pruned_net L dims n' u v m x) (relu_net L dims W x)) <= exp (alpha * eps / 2) - 1.
Proof.
  intros L dims n' u v W alpha eps HL Ha He HW H2.
  destruct (finite_choice_of _ (fun _ _ _ => 0) L _ H2) as [m Hm].
  exists m. split; [intros l Hl; exact (proj1 (Hm l Hl))|].
  intros x Hx. unfold pruned_net.
  apply (deep_relu_net L dims (fun l => (dims l * n' l)%nat) W (fun l => first_block (n' l) (u l))
           (fun l => second_block (n' l) (m l) (v l)) alpha eps x HL Ha He HW); [| exact Hx].
  intros l Hl. apply lemma2_masks_pair, (proj2 (Hm l Hl)).
Qed.

(* --- with probability ------------------------------------------------------------------------------------ *)

(* The random items of every layer are functions of the sample w of an outer probability P.  If for layer l, except
   with probability at most fail_l, masks exist for every target W_l with ||W_l|| <= 1 (Lemma 2's event: one event
   for all targets, at the budget eps / (2L)), then except with probability at most fail_0 + .. + fail_(L-1) (the
   union bound over the layers, whp_all), for every target net with ||W_l|| <= 1 masks of all layers exist with
   the pruned net within exp(alpha eps / 2) - 1 of the target net on every input of norm <= alpha. *)
Theorem theorem10_whp : forall (Omega : Type) (P : outer_prob Omega) (L : nat) (dims n' : nat -> nat)
    (u : Omega -> nat -> nat -> nat -> R) (v : Omega -> nat -> nat -> nat -> nat -> R) (alpha eps : R)
    (fail : nat -> R),
  (1 <= L)%nat -> 1 <= alpha -> 0 <= eps ->
  (forall l, (l < L)%nat -> whp P (fun w => forall Wl : mat, op_bound (dims (S l)) (dims l) Wl 1 ->
     lemma2_masks (dims l) (dims (S l)) (n' l) (u w l) (v w l) Wl (eps / (2 * INR L))) (fail l)) ->
  whp P (fun w => forall W : nat -> mat, (forall l, (l < L)%nat -> op_bound (dims (S l)) (dims l) (W l) 1) ->
    exists m : nat -> nat -> nat -> nat -> R,
      (forall l, (l < L)%nat -> binary3 (dims (S l)) (dims l) (m l)) /\
      forall x : vec, norm (dims O) x <= alpha ->
        norm (dims L) (vsub (pruned_net L dims n' (u w) (v w) m x) (relu_net L dims W x)) <= exp (alpha * eps / 2) - 1)
    (sum L fail).
Proof.
  intros Omega P L dims n' u v alpha eps fail HL Ha He H2.
  eapply whp_mono; [| apply Rle_refl | apply (whp_all P L _ fail H2)].
  intros w Hw W HW. cbv beta in Hw.
  exact (theorem10_of_lemma2 L dims n' (u w) (v w) W alpha eps HL Ha He HW (fun l Hl => Hw l Hl (W l) (HW l Hl))).
Qed.
