(* A model of the hypotheses of the probabilistic statements (Statements.v): the Dirac probability at the one
   sample of unit, a class of items for which Lueker's corollary holds there, and concrete widths, budgets and
   random weights that meet every hypothesis of each probabilistic statement theorem: a grid of items
   -1/K .. -1/K, 1/K .. 1/K for stmt_lemma7, stmt_lemma2 and stmt_theorem9; the items -1, 1/2, ..., 1/2^30 for
   stmt_theorem10, stmt_theorem11 and stmt_theorem14; and one token of norm 0 with zero targets for the premises of
   stmt_lemma8, stmt_lemma5, stmt_lemma12 and stmt_lemma13.  Each theorem is applied to them below: its hypotheses
   are not contradictory.  The model shows the hypotheses consistent, not the cited corollary true of uniform products.  Compiled by the
   tests beside the generated Statements.v (bounds.prove.coq_math.model_check). *)
From Coq Require Import Reals Lra Lia.
From Interval Require Import Tactic.
From SlthMath Require Import Objects Sums Blocks Premises Probability Events Theorem11 ChainModels Statements.
Open Scope R_scope.

(* --- a grid of items covers [-1, 1] ------------------------------------------------------------------------- *)

Definition first_mask (j : nat) : nat -> R := fun k => if Nat.ltb k j then 1 else 0.

Lemma first_mask_01 : forall j k, first_mask j k = 0 \/ first_mask j k = 1.
Proof. intros j k. unfold first_mask. destruct (Nat.ltb k j); auto. Qed.

Lemma sum_first_mask : forall j N f, (j <= N)%nat -> sum N (fun k => first_mask j k * f k) = sum j f.
Proof.
  intros j N f. induction N as [|N IH]; intros H.
  - assert (j = 0)%nat by lia. subst. reflexivity.
  - destruct (Nat.eq_dec j (S N)) as [->|Ne].
    + simpl. rewrite (sum_ext N (fun k => first_mask (S N) k * f k) f).
      * unfold first_mask. rewrite (proj2 (Nat.ltb_lt N (S N))) by lia. ring.
      * intros k Hk. unfold first_mask. rewrite (proj2 (Nat.ltb_lt k (S N))) by lia. ring.
    + simpl. rewrite IH by lia. unfold first_mask. rewrite (proj2 (Nat.ltb_ge N j)) by lia. ring.
Qed.

(* every y in [0, M c] is within c of a multiple j c, j <= M *)
Lemma near_multiple : forall M c y, 0 < c -> 0 <= y <= INR M * c -> exists j, (j <= M)%nat /\ Rabs (INR j * c - y) <= c.
Proof.
  induction M as [|M IH]; intros c y Hc Hy.
  - exists 0%nat. split; [lia|]. simpl in *. rewrite Rabs_left1; lra.
  - rewrite S_INR in Hy. destruct (Rle_dec y (INR M * c)) as [L|L].
    + destruct (IH c y Hc) as [j [Hj Hb]]; [lra|]. exists j. split; [lia | exact Hb].
    + exists (S M). split; [lia|]. rewrite S_INR. unfold Rabs. destruct (Rcase_abs _); lra.
Qed.

(* A zeros, then K items -c, then 2K items c, with K c = 1: every z in [-1, 1] within c of a subset sum *)
Lemma grid_cover : forall A K N c (x : nat -> R), 0 < c -> INR K * c = 1 -> (A + 3 * K <= N)%nat ->
  (forall k, (k < A)%nat -> x k = 0) -> (forall k, (A <= k < A + K)%nat -> x k = - c) ->
  (forall k, (A + K <= k < A + 3 * K)%nat -> x k = c) ->
  forall eps, c <= eps -> subset_sums_cover N x eps.
Proof.
  intros A K N c x Hc HK HN H0 Hm Hp eps He z Hz.
  destruct (near_multiple (2 * K) c (z + 1) Hc) as [j [Hj Hb]]; [rewrite mult_INR; simpl INR; lra|].
  exists (first_mask (A + K + j)). split; [intros; apply first_mask_01|].
  rewrite sum_first_mask by lia.
  replace (A + K + j)%nat with (A + (K + j))%nat by lia. rewrite sum_app, sum_app.
  rewrite (sum_ext A x (fun _ => 0)) by (intros; apply H0; lia).
  rewrite (sum_ext K (fun k => x (A + k)%nat) (fun _ => - c)) by (intros; apply Hm; lia).
  rewrite (sum_ext j (fun k => x (A + (K + k))%nat) (fun _ => c)) by (intros; apply Hp; lia).
  rewrite !sum_const. simpl INR in *. replace (INR A * 0 + (INR K * - c + INR j * c) - z) with (INR j * c - (z + 1))
    by lra. lra.
Qed.

(* --- the model ------------------------------------------------------------------------------------------------ *)

Definition w0 : unit := tt.
Definition P0 : outer_prob unit := dirac w0.

(* the class: the sample's items cover [-1, 1] within every budget the corollary's width allows *)
Definition grid_class (C : R) (N : nat) (X : nat -> unit -> R) : Prop :=
  forall eps, 0 < eps < 1 -> n_lueker C eps <= INR N -> subset_sums_cover N (fun k => X k w0) (err_lueker eps).

Lemma lueker_in_model : forall C, lueker_cited P0 (grid_class C) C.
Proof.
  intros C N X eps HX He Hw. apply dirac_whp; [unfold fail_lueker; lra|]. exact (HX eps He Hw).
Qed.

Definition K0 : nat := 32.
Definition c0 : R := / 32.

Lemma K0c0 : INR K0 * c0 = 1.
Proof. unfold K0, c0. replace (INR 32) with 32 by (simpl; lra). field. Qed.

(* a width N with N / C <= 16/5 allows only budgets eps >= exp(-16/5) > 1/32 *)
Lemma budget_floor : forall C N eps, 0 < C -> INR N <= 16 / 5 * C -> 0 < eps < 1 -> n_lueker C eps <= INR N ->
  c0 <= eps.
Proof.
  intros C N eps HC HN He Hw. unfold n_lueker, c0 in *.
  assert (L : ln (/ eps) <= 16 / 5) by (apply (Rmult_le_reg_l C); [exact HC | nra]).
  assert (E : / eps <= exp (16 / 5)) by (rewrite <- (exp_ln (/ eps)) by (apply Rinv_0_lt_compat; lra);
                                             destruct (Rle_lt_or_eq_dec _ _ L) as [Lt|Eq];
                                             [left; apply exp_increasing, Lt | rewrite Eq; right; reflexivity]).
  assert (exp (16 / 5) <= 32) by interval.
  assert (/ eps <= 32) by lra. apply Rinv_le_contravar in H0; [| apply Rinv_0_lt_compat; lra].
  rewrite Rinv_inv in H0. exact H0.
Qed.

(* items: the grid from position A on, in a family of width N = A + 3 K0 (or more) *)
Definition grid (A : nat) (k : nat) : R :=
  if Nat.ltb k A then 0 else if Nat.ltb k (A + K0) then - c0 else if Nat.ltb k (A + 3 * K0) then c0 else 0.

Lemma grid_in_class : forall C A N, 0 < C -> (A + 3 * K0 <= N)%nat -> INR N <= 16 / 5 * C ->
  grid_class C N (fun k _ => grid A k).
Proof.
  intros C A N HC HA HN eps He Hw. unfold err_lueker.
  apply (grid_cover A K0 N c0); [unfold c0; lra | exact K0c0 | exact HA | | | | ].
  - intros k Hk. unfold grid. rewrite (proj2 (Nat.ltb_lt k A)) by lia. reflexivity.
  - intros k Hk. unfold grid. rewrite (proj2 (Nat.ltb_ge k A)) by lia. rewrite (proj2 (Nat.ltb_lt k (A + K0))) by lia.
    reflexivity.
  - intros k Hk. unfold grid. rewrite (proj2 (Nat.ltb_ge k A)) by lia. rewrite (proj2 (Nat.ltb_ge k (A + K0))) by lia.
    rewrite (proj2 (Nat.ltb_lt k (A + 3 * K0))) by lia. reflexivity.
  - apply (budget_floor C N eps HC HN He Hw).
Qed.

(* --- Lemma 7: d1 = d2 = 1, eps = 1/2, C = 30, n = 96 = 3 K0 items per entry: v u = grid -------------------------- *)

Definition v7 (i j k : nat) (w : unit) : R := grid 0 k.
Definition u7 (j k : nat) (w : unit) : R := 1.

Lemma lemma7_items : forall i j, (i < 1)%nat -> (j < 1)%nat ->
  premise_lueker_items (grid_class 30) (96 / 1) (fun k w => v7 i j k w * u7 j k w).
Proof.
  intros i j _ _. unfold premise_lueker_items, v7, u7.
  intros eps He Hw. pose proof (grid_in_class 30 0 96 ltac:(lra) ltac:(unfold K0; lia)
    ltac:(replace (INR 96) with 96 by (simpl; lra); lra) eps He Hw) as G.
  intros z Hz. destruct (G z Hz) as [m [Hm Hb]]. exists m. split; [exact Hm|].
  rewrite (sum_ext _ _ (fun k => m k * grid 0 k)) by (intros; ring). exact Hb.
Qed.

Lemma lemma7_width : n_lemma7 30 1 1 (1 / 2) <= INR 96.
Proof. unfold n_lemma7. replace (INR 1) with 1 by (simpl; lra). replace (INR 96) with 96 by (simpl; lra). interval. Qed.

Definition lemma7_in_the_model :=
  stmt_lemma7 unit P0 (grid_class 30) 30 ltac:(lra) (lueker_in_model 30) 1 1 96 (1 / 2) v7 u7
    ltac:(lia) ltac:(lia) ltac:(lra) ltac:(lra) lemma7_width ltac:(reflexivity) lemma7_items.

(* --- Lemma 2: d1 = d2 = 1, eps = 1/2, C = 60, n = 192: u = 1 on the first 96 units, -1 on the next 96; v = the grid
   on each half, so v max(0, u) is the grid from 0 and v max(0, -u) the grid from 96 ----------------------------- *)

Definition u2 (j k : nat) (w : unit) : R := if Nat.ltb k 96 then 1 else -1.
Definition v2 (i j k : nat) (w : unit) : R := if Nat.ltb k 96 then grid 0 k else grid 96 k.

Lemma relu_1 : relu 1 = 1.
Proof. unfold relu, Rmax. destruct (Rle_dec 0 1); lra. Qed.
Lemma relu_m1 : relu (-1) = 0.
Proof. unfold relu, Rmax. destruct (Rle_dec 0 (-1)); lra. Qed.

Lemma lemma2_items_pos : forall i j, (i < 1)%nat -> (j < 1)%nat ->
  premise_lueker_items (grid_class 60) (192 / 1) (fun k w => v2 i j k w * relu (u2 j k w)).
Proof.
  intros i j _ _ eps He Hw. pose proof (grid_in_class 60 0 192 ltac:(lra) ltac:(unfold K0; lia)
    ltac:(replace (INR 192) with 192 by (simpl; lra); lra) eps He Hw) as G.
  intros z Hz. destruct (G z Hz) as [m [Hm Hb]]. exists m. split; [exact Hm|].
  rewrite (sum_ext _ _ (fun k => m k * grid 0 k)); [exact Hb|]. intros k Hk. unfold v2, u2.
  destruct (Nat.ltb k 96) eqn:E; cbv beta iota; [rewrite relu_1; ring|].
  rewrite relu_m1. unfold grid. apply Nat.ltb_ge in E. rewrite (proj2 (Nat.ltb_ge k 0)) by lia.
  rewrite (proj2 (Nat.ltb_ge k (0 + K0))) by (unfold K0; lia). rewrite (proj2 (Nat.ltb_ge k (0 + 3 * K0))) by (unfold K0; lia).
  ring.
Qed.

Lemma lemma2_items_neg : forall i j, (i < 1)%nat -> (j < 1)%nat ->
  premise_lueker_items (grid_class 60) (192 / 1) (fun k w => v2 i j k w * relu (- u2 j k w)).
Proof.
  intros i j _ _ eps He Hw. pose proof (grid_in_class 60 96 192 ltac:(lra) ltac:(unfold K0; lia)
    ltac:(replace (INR 192) with 192 by (simpl; lra); lra) eps He Hw) as G.
  intros z Hz. destruct (G z Hz) as [m [Hm Hb]]. exists m. split; [exact Hm|].
  rewrite (sum_ext _ _ (fun k => m k * grid 96 k)); [exact Hb|]. intros k Hk. unfold v2, u2.
  destruct (Nat.ltb k 96) eqn:E; cbv beta iota.
  - replace (relu (- (1))) with 0 by (unfold relu, Rmax; destruct (Rle_dec _ _); lra). unfold grid. rewrite E. ring.
  - replace (relu (- -1)) with 1 by (unfold relu, Rmax; destruct (Rle_dec _ _); lra). ring.
Qed.

Lemma lemma2_width : n_lemma2 60 1 1 (1 / 2) <= INR 192.
Proof. unfold n_lemma2. replace (INR 1) with 1 by (simpl; lra). replace (INR 192) with 192 by (simpl; lra). interval. Qed.

Definition lemma2_in_the_model :=
  stmt_lemma2 unit P0 (grid_class 60) 60 ltac:(lra) (lueker_in_model 60) 1 1 192 (1 / 2) v2 u2
    ltac:(lia) ltac:(lia) ltac:(lra) ltac:(lra) lemma2_width ltac:(reflexivity) lemma2_items_pos lemma2_items_neg.

(* --- Theorem 9: H = d1 = d2 = d_K = d_V = 1, alpha = 1, eps = 1/2, C = 30, n_K = n_V = 96 --------------------- *)

Definition vQ9 (h i j k : nat) (w : unit) : R := grid 0 k.
Definition uQ9 (h j k : nat) (w : unit) : R := 1.

Lemma theorem9_items : forall h, (h < 1)%nat -> forall i j, (i < 1)%nat -> (j < 1)%nat ->
  premise_lueker_items (grid_class 30) (96 / 1) (fun k w => vQ9 h i j k w * uQ9 h j k w).
Proof. intros h _ i j Hi Hj. exact (lemma7_items i j Hi Hj). Qed.

Lemma theorem9_width_K : n_K_theorem9 30 1 1 1 1 (1 / 2) <= INR 96.
Proof.
  unfold n_K_theorem9. replace (INR 1) with 1 by (simpl; lra). replace (INR 96) with 96 by (simpl; lra).
  rewrite sqrt_1. interval.
Qed.

Lemma theorem9_width_V : n_V_theorem9 30 1 1 1 1 (1 / 2) <= INR 96.
Proof.
  unfold n_V_theorem9. replace (INR 1) with 1 by (simpl; lra). replace (INR 96) with 96 by (simpl; lra).
  rewrite sqrt_1. interval.
Qed.

Lemma sqrt_INR_1 : sqrt (INR 1) <= 1.
Proof. replace (INR 1) with 1 by (simpl; lra). rewrite sqrt_1. lra. Qed.

Definition theorem9_in_the_model :=
  stmt_theorem9 unit P0 (grid_class 30) 30 ltac:(lra) (lueker_in_model 30) 1 1 1 1 1 96 96 1 (1 / 2)
    ltac:(lia) ltac:(lia) ltac:(lia) ltac:(lia) ltac:(lra) ltac:(lra) sqrt_INR_1 sqrt_INR_1
    theorem9_width_K theorem9_width_V ltac:(reflexivity) ltac:(reflexivity) vQ9 vQ9 uQ9 uQ9 theorem9_items theorem9_items.

(* --- a binary family of items covers [-1, 1] with m + 1 items -------------------------------------------------- *)

(* the items -1, 1/2, 1/4, ..., 1/2^m: every y in [0, 1] lies within 1/2^m above a sum of the last m (greedy digits),
   and a z in [-1, 0) is -1 plus such a y *)
Definition binx (m k : nat) : R := if Nat.eqb k 0 then -1 else if Nat.leb k m then (/ 2) ^ k else 0.

Lemma sum_head : forall n f, sum (S n) f = f O + sum n (fun k => f (S k)).
Proof.
  induction n as [|n IH]; intros f; [simpl; ring|]. change (sum (S (S n)) f) with (sum (S n) f + f (S n)).
  rewrite IH. change (sum (S n) (fun k => f (S k))) with (sum n (fun k => f (S k)) + f (S n)). ring.
Qed.

Lemma binary_digits : forall m y, 0 <= y <= 1 -> exists mu : nat -> R, (forall k, mu k = 0 \/ mu k = 1) /\
  0 <= y - sum m (fun j => mu j * (/ 2) ^ (S j)) <= (/ 2) ^ m.
Proof.
  induction m as [|m IH]; intros y Hy.
  - exists (fun _ => 0). split; [auto|]. simpl. lra.
  - destruct (IH y Hy) as [mu [Hmu [R0 R1]]].
    set (r := y - sum m (fun j => mu j * (/ 2) ^ S j)) in *.
    assert (Hh : (/ 2) ^ m = 2 * (/ 2) ^ S m) by (simpl; field).
    assert (Hp : 0 < (/ 2) ^ S m) by (apply pow_lt; lra).
    set (b := if Rle_dec ((/ 2) ^ S m) r then 1 else 0).
    exists (fun k => if Nat.eqb k m then b else mu k). split.
    + intros k. destruct (Nat.eqb k m); [unfold b; destruct (Rle_dec _ _); auto | apply Hmu].
    + change (sum (S m) ?f) with (sum m f + f m). cbv beta. rewrite Nat.eqb_refl.
      rewrite (sum_ext m _ (fun j => mu j * (/ 2) ^ S j)).
      * fold r. replace (y - (sum m (fun j => mu j * (/ 2) ^ S j) + b * (/ 2) ^ S m)) with (r - b * (/ 2) ^ S m)
          by (unfold r; ring).
        unfold b. destruct (Rle_dec _ _); lra.
      * intros k Hk. rewrite (proj2 (Nat.eqb_neq k m)) by lia. reflexivity.
Qed.

(* the family binx m placed at positions A0 .. A0 + m of N items covers [-1, 1] within 1/2^m, whatever the others *)
Lemma binary_cover : forall m A0 N (x : nat -> R), (A0 + S m <= N)%nat ->
  (forall k, (k <= m)%nat -> x (A0 + k)%nat = binx m k) -> forall eps, (/ 2) ^ m <= eps -> subset_sums_cover N x eps.
Proof.
  intros m A0 N x HN Hx eps He z Hz.
  set (y := if Rle_dec 0 z then z else z + 1). set (b0 := if Rle_dec 0 z then 0 else 1).
  destruct (binary_digits m y) as [mu [Hmu Hr]]; [unfold y; destruct (Rle_dec 0 z); lra|].
  set (mu' := fun k => match k with O => b0 | S j => mu j end).
  exists (fun k => if andb (Nat.leb A0 k) (Nat.ltb k (A0 + S m)) then mu' (k - A0)%nat else 0). split.
  - intros k. destruct (andb _ _); [| auto]. destruct (k - A0)%nat; [unfold b0; destruct (Rle_dec 0 z); auto | apply Hmu].
  - replace N with (A0 + (S m + (N - A0 - S m)))%nat by lia. rewrite !sum_app.
    rewrite (sum_ext A0 _ (fun _ => 0)) by (intros k Hk; rewrite (proj2 (Nat.leb_gt A0 k)) by lia; simpl; ring).
    rewrite (sum_ext (N - A0 - S m) _ (fun _ => 0))
      by (intros k Hk; rewrite (proj2 (Nat.ltb_ge _ _)) by lia; rewrite Bool.andb_false_r; ring).
    rewrite (sum_ext (S m) _ (fun k => mu' k * binx m k)).
    + rewrite !sum_const, sum_head. cbv beta. unfold mu' at 1.
      rewrite (sum_ext m _ (fun j => mu j * (/ 2) ^ S j)).
      * unfold binx at 1. simpl Nat.eqb. cbv iota.
        unfold y, b0 in *. destruct (Rle_dec 0 z); rewrite Rabs_left1 || rewrite Rabs_right; lra.
      * intros j Hj. unfold mu', binx. simpl Nat.eqb. rewrite (proj2 (Nat.leb_le (S j) m)) by lia. reflexivity.
    + intros k Hk. rewrite (proj2 (Nat.leb_le A0 (A0 + k))) by lia. rewrite (proj2 (Nat.ltb_lt _ _)) by lia.
      simpl andb. replace (A0 + k - A0)%nat with k by lia. rewrite Hx by lia. reflexivity.
Qed.

(* --- 64 items per problem, C = 4: the first 32 positions hold binx 30, so do the last 32 ------------------------ *)

(* the width 64 with C = 4 allows only budgets eps >= exp (-16) >= 1/2^30 *)
Lemma bin_floor : forall eps, 0 < eps < 1 -> n_lueker 4 eps <= INR 64 -> (/ 2) ^ 30 <= eps.
Proof.
  intros eps He Hw. unfold n_lueker in Hw. replace (INR 64) with 64 in Hw by (simpl; lra).
  assert (L : ln (/ eps) <= 16) by lra.
  assert (E : / eps <= exp 16) by (rewrite <- (exp_ln (/ eps)) by (apply Rinv_0_lt_compat; lra);
                                   destruct (Rle_lt_or_eq_dec _ _ L) as [Lt|Eq];
                                   [left; apply exp_increasing, Lt | rewrite Eq; right; reflexivity]).
  assert (exp 16 <= 2 ^ 30) by interval.
  rewrite pow_inv. replace eps with (/ / eps) by (field; lra). apply Rinv_le_contravar; [apply Rinv_0_lt_compat; lra | lra].
Qed.

Definition vb (k : nat) : R := if Nat.ltb k 32 then binx 30 k else binx 30 (k - 32).
Definition ub (k : nat) : R := if Nat.ltb k 32 then 1 else -1.

Lemma bin_class : forall A0 (X : nat -> unit -> R), (A0 + 31 <= 64)%nat ->
  (forall k, (k <= 30)%nat -> X (A0 + k)%nat w0 = binx 30 k) -> grid_class 4 64 X.
Proof.
  intros A0 X HA HX eps He Hw. unfold err_lueker.
  exact (binary_cover 30 A0 64 (fun k => X k w0) HA HX eps (bin_floor eps He Hw)).
Qed.

Lemma vb_class : grid_class 4 64 (fun k _ => vb k).
Proof.
  apply (bin_class 0); [lia|]. intros k Hk. unfold vb. simpl Nat.add. rewrite (proj2 (Nat.ltb_lt k 32)) by lia. reflexivity.
Qed.

Lemma pos_class : grid_class 4 64 (fun k _ => vb k * relu (ub k)).
Proof.
  apply (bin_class 0); [lia|]. intros k Hk. unfold vb, ub. simpl Nat.add. rewrite (proj2 (Nat.ltb_lt k 32)) by lia.
  rewrite relu_1. ring.
Qed.

Lemma neg_class : grid_class 4 64 (fun k _ => vb k * relu (- ub k)).
Proof.
  apply (bin_class 32); [lia|]. intros k Hk. unfold vb, ub. rewrite (proj2 (Nat.ltb_ge (32 + k) 32)) by lia.
  replace (32 + k - 32)%nat with k by lia.
  replace (relu (- -1)) with 1 by (unfold relu, Rmax; destruct (Rle_dec _ _); lra). ring.
Qed.

Lemma INR_1 : INR 1 = 1.
Proof. reflexivity. Qed.
Lemma INR_64 : INR 64 = 64.
Proof. simpl; lra. Qed.

(* --- Theorem 10: L = 1, d_0 = d_1 = 1, alpha = 1, eps = 1/2, C = 4, n_0 = 64 ------------------------------------- *)

Definition dims10 (l : nat) : nat := 1.
Definition n10 (l : nat) : nat := 64.
Definition v10 (l i j k : nat) (w : unit) : R := vb k.
Definition u10 (l j k : nat) (w : unit) : R := ub k.

Lemma theorem10_width : forall l, (l < 1)%nat -> n_theorem10 4 (dims10 l) (dims10 (S l)) 1 (1 / 2) <= INR (n10 l).
Proof. intros l _. unfold n_theorem10, dims10, n10. rewrite INR_1, INR_64. interval. Qed.

Definition theorem10_in_the_model :=
  stmt_theorem10 unit P0 (grid_class 4) 4 ltac:(lra) (lueker_in_model 4) 1 dims10 n10 1 (1 / 2)
    ltac:(lia) ltac:(intros; unfold dims10; lia) ltac:(lra) ltac:(lra) ltac:(lra) theorem10_width
    ltac:(intros; reflexivity) v10 u10
    ltac:(intros; exact pos_class) ltac:(intros; exact neg_class).

(* --- Theorem 11: H = d1 = d_K = d_V = L = 1, alpha = 1, eps = 1/2, C = 4, n_MHA = n_FC = 64 ------------------- *)

Definition items64 : items := Build_items (fun h i j k => vb k) (fun h j k => 1) (fun h i j k => vb k) (fun h j k => 1)
  (fun l j k => ub k) (fun l i j k => vb k).

Lemma times_1_class : grid_class 4 64 (fun k _ => vb k * 1).
Proof.
  apply (bin_class 0); [lia|]. intros k Hk. unfold vb. simpl Nat.add. rewrite (proj2 (Nat.ltb_lt k 32)) by lia. ring.
Qed.

Lemma sqrt_INR_1' : sqrt (INR 1) <= 1.
Proof. rewrite INR_1, sqrt_1. lra. Qed.

Lemma theorem11_width_MHA : n_MHA_theorem11 4 1 1 1 (1 / 2) <= INR 64.
Proof. unfold n_MHA_theorem11. rewrite INR_1, INR_64, sqrt_1. interval. Qed.

Lemma theorem11_width_FC : n_FC_theorem11 4 1 1 1 1 (1 / 2) <= INR 64.
Proof. unfold n_FC_theorem11. rewrite INR_1, INR_64, sqrt_1. interval. Qed.

Definition theorem11_in_the_model :=
  stmt_theorem11 unit P0 (grid_class 4) 4 ltac:(lra) (lueker_in_model 4) 1 1 1 1 1 64 64 1 (1 / 2)
    ltac:(lia) ltac:(lia) ltac:(lia) ltac:(lia) ltac:(lra) ltac:(lra) sqrt_INR_1'
    theorem11_width_MHA theorem11_width_FC ltac:(reflexivity) ltac:(reflexivity) (fun _ => items64)
    ltac:(intros; exact times_1_class) ltac:(intros; exact times_1_class)
    ltac:(intros; exact pos_class) ltac:(intros; exact neg_class).

(* --- Theorem 14: B = 2 blocks, H = d1 = d_K = d_V = L = 1, alpha = 1, eps = 1/2, C = 4, every width 64 ---------- *)

Lemma INR_2 : INR 2 = 2.
Proof. simpl; lra. Qed.

Lemma theorem14_width_MHA_first : n_MHA_first_theorem14 4 1 1 2 1 (1 / 2) <= INR 64.
Proof. unfold n_MHA_first_theorem14. rewrite INR_1, INR_2, INR_64. interval. Qed.

Lemma theorem14_width_FC_first : n_FC_first_theorem14 4 1 1 2 1 1 (1 / 2) <= INR 64.
Proof. unfold n_FC_first_theorem14. rewrite INR_1, INR_2, INR_64. interval. Qed.

Lemma theorem14_width_MHA : forall k, (1 <= k < 2)%nat -> n_MHA_theorem14 4 1 1 2 (S k) 1 (1 / 2) <= INR 64.
Proof.
  intros k Hk. replace k with 1%nat by lia. unfold n_MHA_theorem14. rewrite INR_1, INR_2, INR_64. interval.
Qed.

Lemma theorem14_width_FC : forall k, (1 <= k < 2)%nat -> n_FC_theorem14 4 1 1 2 (S k) 1 1 (1 / 2) <= INR 64.
Proof.
  intros k Hk. replace k with 1%nat by lia. unfold n_FC_theorem14. rewrite INR_1, INR_2, INR_64. interval.
Qed.

Definition theorem14_in_the_model :=
  stmt_theorem14 unit P0 (grid_class 4) 4 ltac:(lra) (lueker_in_model 4) 1 1 2 1 1 1 1 (1 / 2) (fun _ => 64%nat)
    (fun _ => 64%nat) ltac:(lia) ltac:(lia) ltac:(lia) ltac:(lia) ltac:(lia) ltac:(lra) ltac:(lra) sqrt_INR_1'
    theorem14_width_MHA_first theorem14_width_FC_first theorem14_width_MHA theorem14_width_FC
    ltac:(intros; reflexivity) ltac:(intros; reflexivity) (fun _ _ => items64)
    ltac:(intros; exact times_1_class) ltac:(intros; exact times_1_class)
    ltac:(intros; exact pos_class) ltac:(intros; exact neg_class).

(* --- Lemmas 8, 5, 12 and 13: one token (T = d1 = 1) of norm 0, the mask (1), logits and errors 0, every target
   weight 0; each theorem's premises hold there and the theorem applies ------------------------------------------ *)

Definition mask1 : vec := fun _ => 1.
Definition zero_vec : vec := fun _ => 0.

Lemma mask1_is_mask : is_mask 1 mask1.
Proof. split; [intros; right; reflexivity | exists 0%nat; split; [lia | reflexivity]]. Qed.

Lemma norm_max_zero : norm_max 1 zero_vec <= 0.
Proof. apply norm_max_le; [intros; unfold zero_vec; rewrite Rabs_R0; lra | lra]. Qed.

Lemma rows_zero : forall k, (k < 1)%nat -> norm 1 (zero_mat k) <= 0.
Proof. intros k _. rewrite norm_zero_vec by reflexivity. lra. Qed.

Lemma rows_gap_zero : forall k, (k < 1)%nat -> norm 1 (vsub (zero_mat k) (zero_mat k)) <= 0.
Proof. intros k _. rewrite norm_zero_vec by (intros; unfold vsub, zero_mat; ring). lra. Qed.

Lemma zero_heads : forall h, (h < 1)%nat -> op_bound 1 1 zero_mat 1 /\ op_bound 1 1 zero_mat 1 /\
  op_bound 1 1 zero_mat 1 /\ op_bound 1 1 zero_mat 1.
Proof. intros. repeat split; apply op_bound_zero; reflexivity. Qed.

Definition lemma8_in_the_model :=
  stmt_lemma8 1 1 mask1 zero_vec zero_vec zero_mat 0 0 mask1_is_mask norm_max_zero rows_zero.

Definition lemma5_in_the_model :=
  stmt_lemma5 1 1 mask1 zero_vec zero_vec zero_mat 0 0 mask1_is_mask norm_max_zero ltac:(lra) rows_zero.

Definition lemma12_in_the_model :=
  stmt_lemma12 1 1 zero_mat 0 rows_zero 1 1 1 1 (fun _ => zero_mat) (fun _ => zero_mat) (fun _ => zero_mat)
    (fun _ => zero_mat) zero_mat (fun _ => mask1) 0 0 zero_heads mask1_is_mask ltac:(lia) rows_zero rows_gap_zero.

Definition lemma13_in_the_model :=
  stmt_lemma13 1 1 zero_mat 0 rows_zero 1 1 1 (fun _ => zero_mat) (fun _ => zero_mat) (fun _ => zero_mat)
    (fun _ => zero_mat) 1 (fun _ => zero_mat) zero_mat (fun _ => mask1) 0 0 ltac:(lia) ltac:(lia) ltac:(lia) zero_heads
    ltac:(intros; apply op_bound_zero; reflexivity) mask1_is_mask ltac:(lia) rows_zero rows_gap_zero.
