(* The constructions of Lemma 7 and Lemma 2 on Lueker's event, and Lueker's corollary as the cited result.

   On the event that every subset-sum problem of the construction is solved within a budget b for every target
   z in [-1, 1] (premise_lueker_event), masks exist for every target matrix at once: Lemma 7's entries are within b
   (lemma7_on_event), Lemma 2's pair is within sqrt(2 d1 d2) b of W x for every input of the unit ball
   (lemma2_on_event).  Lueker's corollary (lueker_corollary) says with what probability that event holds; it is
   stated here, never proved: the statements' theorems (Statements.v) take it as a hypothesis. *)
From Coq Require Import Reals Lra Lia.
From SlthMath Require Import Objects Sums Softmax Matrix Blocks Mha OneLayer Premises Probability.
Open Scope R_scope.

(* --- Lueker's corollary, the one cited result --------------------------------------------------------------- *)

(* every target z in [-1, 1] is within eps of a subset sum of the items x_0 .. x_(N-1) *)
Definition subset_sums_cover (N : nat) (x : nat -> R) (eps : R) : Prop :=
  forall z, -1 <= z <= 1 -> exists m : nat -> R, (forall k, m k = 0 \/ m k = 1) /\
    Rabs (sum N (fun k => m k * x k) - z) <= eps.

(* Lueker (1998), Cor. 3.3 as Pensia et al. (2020) use it: for N random items X_0 .. X_(N-1) (functions of the
   sample w) in Lueker's class under P, if N >= width eps then with probability at least 1 - fail eps (the outer
   probability of the failure at most fail eps) every z in [-1, 1] is within err eps of a subset sum, for
   0 < eps < 1.  width, err and fail are the corollary's printed expressions (Statements.v prints them from the
   bounds catalogue: C log(1/eps), eps and 1 - (1 - eps)).  lueker_class P N X reads "X_0 .. X_(N-1) are
   independent under P, each with a law that has a density bounded below on an interval around 0 (a uniform
   component)": independence and densities are not defined in this development, so the class is a parameter of
   the cited result, and which items belong to it is a separate hypothesis of each theorem
   (premise_lueker_items, the modelling hypothesis that the construction's products v u and v max(0, +-u) of
   uniform weights qualify). *)
Definition lueker_corollary {Omega} (P : outer_prob Omega) (lueker_class : nat -> (nat -> Omega -> R) -> Prop)
    (width err fail : R -> R) : Prop :=
  forall (N : nat) (X : nat -> Omega -> R) (eps : R), lueker_class N X -> 0 < eps < 1 -> width eps <= INR N ->
    whp P (fun w => subset_sums_cover N (fun k => X k w) (err eps)) (fail eps).

(* Lueker's event for P problems is the conjunction of the problems' covers *)
Lemma lueker_event_all : forall P N (item : nat -> nat -> R) b,
  (forall p, (p < P)%nat -> subset_sums_cover N (item p) b) <-> premise_lueker_event P N item b.
Proof. intros P N item b. unfold premise_lueker_event, subset_sums_cover. tauto. Qed.

(* --- Lemma 7 on the event ------------------------------------------------------------------------------------ *)

(* the d2 d1 problems of Lemma 7's construction: problem i d1 + j has the items v_ijk u_jk and the target W_ij;
   for every target W with entries in [-1, 1], masks m_ijk in {0, 1} put every entry of the pruned product within
   the budget b *)
Theorem lemma7_on_event : forall (d1 d2 n' : nat) (v : nat -> nat -> nat -> R) (u : nat -> nat -> R) (b : R),
  premise_lueker_event (d2 * d1) n' (fun p k => v (p / d1)%nat (p mod d1)%nat k * u (p mod d1)%nat k) b ->
  forall W : mat, (forall i j, (i < d2)%nat -> (j < d1)%nat -> Rabs (W i j) <= 1) ->
  exists m : nat -> nat -> nat -> R,
    (forall i j k, (i < d2)%nat -> (j < d1)%nat -> m i j k = 0 \/ m i j k = 1) /\
    forall i j, (i < d2)%nat -> (j < d1)%nat ->
      Rabs (matmul (d1 * n') (second_block n' m v) (first_block n' u) i j - W i j) <= b.
Proof.
  intros d1 d2 n' v u b Hev W HW.
  set (item := fun p k => v (p / d1)%nat (p mod d1)%nat k * u (p mod d1)%nat k).
  destruct (finite_choice_of _ (fun _ => 0) (d2 * d1) (fun p m => (forall k, m k = 0 \/ m k = 1) /\
      Rabs (sum n' (fun k => m k * item p k) - W (p / d1)%nat (p mod d1)%nat) <= b)) as [M HM].
  { intros p Hp. assert (Hd : d1 <> 0%nat) by (intros ->; lia).
    assert (Hi : (p / d1 < d2)%nat) by (apply Nat.div_lt_upper_bound; [exact Hd | lia]).
    assert (Hj : (p mod d1 < d1)%nat) by (apply Nat.mod_upper_bound; exact Hd).
    apply (Hev p Hp), abs_between, HW; assumption. }
  exists (fun i j => M (i * d1 + j)%nat). split.
  - intros i j k Hi Hj. apply (HM (i * d1 + j)%nat); nia.
  - intros i j Hi Hj. rewrite block_entry by exact Hj.
    destruct (HM (i * d1 + j)%nat) as [_ Hb]; [nia|].
    unfold item in Hb. rewrite block_div, block_mod in Hb by exact Hj.
    rewrite (sum_ext n' _ (fun k => M (i * d1 + j)%nat k * (v i j k * u j k))) by (intros; ring). exact Hb.
Qed.

(* --- Lemma 2 on the event ------------------------------------------------------------------------------------ *)

(* the 2 d1 d2 problems of Lemma 2's construction (n = d1 n' hidden units, unit j n' + k with first weight u_jk and
   second weights v_ijk): problem i d1 + j of the first half has the items v_ijk max(0, u_jk) (target W_ij), of the
   second half the items v_ijk max(0, -u_jk) (target -W_ij); for every target with ||W|| <= 1, masks put the
   pruned pair within sqrt(2 d1 d2) b of W x for every x with ||x|| <= 1 at once *)
Theorem lemma2_on_event : forall (d1 d2 n' : nat) (v : nat -> nat -> nat -> R) (u : nat -> nat -> R) (b : R),
  (1 <= d1)%nat -> (1 <= d2)%nat ->
  premise_lueker_event (d2 * d1) n' (fun p k => v (p / d1)%nat (p mod d1)%nat k * relu (u (p mod d1)%nat k)) b ->
  premise_lueker_event (d2 * d1) n' (fun p k => v (p / d1)%nat (p mod d1)%nat k * relu (- u (p mod d1)%nat k)) b ->
  forall W : mat, op_bound d2 d1 W 1 ->
  exists m : nat -> nat -> nat -> R,
    (forall i j k, (i < d2)%nat -> (j < d1)%nat -> m i j k = 0 \/ m i j k = 1) /\
    forall x : vec, norm d1 x <= 1 ->
      norm d2 (vsub (matvec d1 W x) (matvec (d1 * n') (second_block n' m v) (vrelu (matvec d1 (first_block n' u) x))))
        <= sqrt 2 * (sqrt (INR d1) * sqrt (INR d2)) * b * 1.
Proof.
  intros d1 d2 n' v u b Hd1 Hd2 Hpos Hneg W HW.
  assert (HWe : forall p, (p < d2 * d1)%nat -> -1 <= W (p / d1)%nat (p mod d1)%nat <= 1).
  { intros p Hp. assert (Hd : d1 <> 0%nat) by lia.
    assert (Hi : (p / d1 < d2)%nat) by (apply Nat.div_lt_upper_bound; [exact Hd | lia]).
    assert (Hj : (p mod d1 < d1)%nat) by (apply Nat.mod_upper_bound; exact Hd).
    apply abs_between, (entry_le_op d2 d1 W 1); assumption. }
  assert (HWn : forall p, (p < d2 * d1)%nat -> -1 <= - W (p / d1)%nat (p mod d1)%nat <= 1)
    by (intros p Hp; pose proof (HWe p Hp); lra).
  (* L2b, L2c: the masks of the 2 d1 d2 problems, chosen at once *)
  destruct (finite_choice_of _ (fun _ => 0) (d2 * d1) _ (fun p Hp => Hpos p Hp _ (HWe p Hp))) as [MP HP].
  destruct (finite_choice_of _ (fun _ => 0) (d2 * d1) _ (fun p Hp => Hneg p Hp _ (HWn p Hp))) as [MN HN].
  cbv beta in HP, HN.
  assert (Hper : 0 <= b) by (eapply Rle_trans; [apply Rabs_pos | apply (proj2 (HP 0%nat ltac:(nia)))]).
  (* one mask: the first half's where u_jk > 0, the second half's where u_jk <= 0 *)
  exists (fun i j k => if Rle_dec (u j k) 0 then MN (i * d1 + j)%nat k else MP (i * d1 + j)%nat k). split.
  - intros i j k Hi Hj. cbv beta. destruct (Rle_dec (u j k) 0);
      [apply (proj1 (HN (i * d1 + j)%nat ltac:(nia))) | apply (proj1 (HP (i * d1 + j)%nat ltac:(nia)))].
  - (* L2a, L2d: the error of every input at once *)
    intros x Hx. eapply Rle_trans; [apply (one_layer_gap d1 d2 n' _ v u W b)|].
    + intros i j Hi Hj. cbv beta. rewrite merged_mask_pos. destruct (HP (i * d1 + j)%nat) as [_ Hb]; [nia|].
      rewrite block_div, block_mod in Hb by exact Hj. exact Hb.
    + intros i j Hi Hj. cbv beta. rewrite merged_mask_neg. destruct (HN (i * d1 + j)%nat) as [_ Hb]; [nia|].
      rewrite block_div, block_mod in Hb by exact Hj. exact Hb.
    + exact Hper.
    + apply Rmult_le_compat_l; [| exact Hx].
      apply Rmult_le_pos; [apply Rmult_le_pos; [apply sqrt_pos | apply Rmult_le_pos; apply sqrt_pos] | exact Hper].
Qed.

(* --- the width of each subset-sum problem ------------------------------------------------------------------- *)

(* n = d1 n' with n' = floor(n / d1) when d1 divides n: n' = n / d1 as reals *)
Lemma width_per_block : forall n d1, (1 <= d1)%nat -> (n mod d1 = 0)%nat -> INR d1 * INR (n / d1) = INR n.
Proof.
  intros n d1 Hd Hm. rewrite <- mult_INR. f_equal. rewrite (Nat.div_mod_eq n d1) at 2. rewrite Hm. lia.
Qed.

(* the per-problem width from the printed width: d1 w <= n and d1 | n give w <= floor(n / d1) *)
Lemma block_width : forall n d1 w, (1 <= d1)%nat -> (n mod d1 = 0)%nat -> INR d1 * w <= INR n -> w <= INR (n / d1).
Proof.
  intros n d1 w Hd Hm Hw. rewrite <- (width_per_block n d1 Hd Hm) in Hw.
  assert (0 < INR d1) by (apply lt_0_INR; lia). nra.
Qed.
