(* Theorem 10 (Pensia et al. 2020, Theorem 1): a deep ReLU net approximated layer by layer.

   Target: F_T = relu_net L dims W, layer l of size dims (l+1) x dims l with ||W_l|| <= 1.  Source: the net of 2L
   layers that interleaves the pruned pairs, relu_net (2L) (interleave dims n) (interleave B1 B2), where layer l's
   pair u |-> B2_l ReLU(B1_l u) has hidden width n_l.  Given Lemma 2's conclusion for each pair at the budget
   eps/(2L) (lemma2_conclusion: within eps/(2L) of W_l u for every ||u|| <= 1), the source is within
   exp(alpha eps/2) - 1 of the target for every ||x|| <= alpha with alpha >= 1 (deep_relu_net):
     - a pair is positively homogeneous, so it errs by at most ||u|| eps/(2L) on every u (pair_error_scaled);
     - the layers compose by the induction over layers (layers_induction) with e_l = (1 + g)^l - 1,
       g = alpha eps/(2L): layer l's input has norm <= alpha + e_l <= alpha (1 + e_l) as alpha >= 1 (step T10b);
     - (1 + g)^L = exp(L ln(1 + g)) <= exp(L g) = exp(alpha eps/2) (pow_as_exp_increasing, ln(1 + g) <= g). *)
From Coq Require Import Reals Lra Lia.
From SlthMath Require Import Objects Sums Triangle Induction.
Open Scope R_scope.

(* --- one pruned pair ------------------------------------------------------------------------------------ *)

(* u |-> B2 ReLU(B1 u): B1 of size n x d, B2 of size d' x n *)
Definition pair (d n : nat) (B1 B2 : mat) (u : vec) : vec := matvec n B2 (vrelu (matvec d B1 u)).

(* Lemma 2's conclusion for one pair: ||B2 ReLU(B1 u) - W u|| <= err for every ||u|| <= 1 *)
Definition lemma2_conclusion (d n d' : nat) (W B1 B2 : mat) (err : R) : Prop :=
  forall u, norm d u <= 1 -> norm d' (vsub (pair d n B1 B2 u) (matvec d W u)) <= err.

Lemma relu_scale : forall c x, 0 <= c -> relu (c * x) = c * relu x.
Proof. intros c x Hc. unfold relu, Rmax. destruct (Rle_dec 0 (c * x)), (Rle_dec 0 x); nra. Qed.

Lemma matvec_scale : forall n W c u i, matvec n W (vscale c u) i = c * matvec n W u i.
Proof. intros. unfold matvec, vscale. rewrite <- sum_scal_l. apply sum_ext. intros. ring. Qed.

Lemma pair_scale : forall d n B1 B2 c u i, 0 <= c -> pair d n B1 B2 (vscale c u) i = c * pair d n B1 B2 u i.
Proof.
  intros d n B1 B2 c u i Hc. unfold pair, matvec at 1 3. rewrite <- sum_scal_l. apply sum_ext. intros k _.
  unfold vrelu. rewrite matvec_scale, relu_scale by exact Hc. ring.
Qed.

(* positive homogeneity: the error on the unit ball bounds the error on every u by err ||u|| *)
Theorem pair_error_scaled : forall d n d' W B1 B2 err, lemma2_conclusion d n d' W B1 B2 err ->
  forall u, norm d' (vsub (pair d n B1 B2 u) (matvec d W u)) <= err * norm d u.
Proof.
  intros d n d' W B1 B2 err H u.
  set (D := norm d' (vsub (pair d n B1 B2 u) (matvec d W u))).
  assert (Ht : forall t, 0 < t -> norm d u <= t -> D <= err * t).
  { intros t Ht Hu. assert (Hi : 0 < / t) by (apply Rinv_0_lt_compat; exact Ht).
    assert (Hn : norm d (vscale (/ t) u) <= 1).
    { unfold vscale. rewrite norm_scale, Rabs_pos_eq by lra.
      apply (Rmult_le_reg_l t); [exact Ht|]. rewrite <- Rmult_assoc, Rinv_r, Rmult_1_l, Rmult_1_r by lra. exact Hu. }
    pose proof (H _ Hn) as Hb.
    rewrite (norm_ext d' _ (fun j => / t * vsub (pair d n B1 B2 u) (matvec d W u) j)) in Hb
      by (intros j _; unfold vsub; rewrite pair_scale, matvec_scale by lra; ring).
    rewrite norm_scale, Rabs_pos_eq in Hb by lra. fold D in Hb.
    apply (Rmult_le_compat_l t) in Hb; [| lra]. rewrite <- Rmult_assoc, Rinv_r, Rmult_1_l in Hb by lra. lra. }
  destruct (Rlt_or_le 0 (norm d u)) as [Hpos | Hz].
  - apply Ht; lra.
  - assert (Hu0 : norm d u = 0) by (pose proof (norm_nonneg d u); lra). rewrite Hu0, Rmult_0_r.
    assert (HD : 0 <= D) by apply norm_nonneg.
    destruct (Rle_or_lt err 0) as [He | He].
    + pose proof (Ht 1 Rlt_0_1 ltac:(lra)). lra.
    + destruct (Rle_or_lt D 0) as [|HDp]; [exact H0|].
      pose proof (Ht (D / (2 * err)) ltac:(apply Rdiv_lt_0_compat; lra)
                    ltac:(rewrite Hu0; left; apply Rdiv_lt_0_compat; lra)) as HH.
      replace (err * (D / (2 * err))) with (D / 2) in HH by (field; lra). lra.
Qed.

(* --- the layers ----------------------------------------------------------------------------------------- *)

(* ReLU after a layer (b = false), or none after the last (b = true) *)
Definition act (b : bool) (v : vec) : vec := if b then v else vrelu v.

Lemma act_lipschitz : forall b m u v, norm m (vsub (act b u) (act b v)) <= norm m (vsub u v).
Proof.
  intros [|] m u v; [apply Rle_refl|]. apply norm_le_entrywise. intros j _. apply relu_lipschitz.
Qed.

Lemma act_norm : forall b m u, norm m (act b u) <= norm m u.
Proof. intros [|] m u; [apply Rle_refl|]. apply norm_le_entrywise. intros j _. apply relu_abs_le. Qed.

Lemma linear_lipschitz : forall m n W u v, op_bound m n W 1 ->
  norm m (vsub (matvec n W u) (matvec n W v)) <= 1 * norm n (vsub u v).
Proof.
  intros m n W u v HW. rewrite (norm_ext m _ (matvec n W (vsub u v))) by (intros; apply matvec_sub_at). apply HW.
Qed.

(* layer l of a net of L layers (the zero map past the last layer) *)
Definition layer (L : nat) (F : nat -> vec -> vec) (l : nat) (u : vec) : vec :=
  if Nat.ltb l L then act (Nat.eqb (S l) L) (F l u) else fun _ => 0.

Lemma layer_in : forall L F l u, (l < L)%nat -> layer L F l u = act (Nat.eqb (S l) L) (F l u).
Proof. intros. unfold layer. rewrite (proj2 (Nat.ltb_lt l L)) by exact H. reflexivity. Qed.

(* the target net is its L layers in turn *)
Lemma hidden_iter : forall L dims W x l, (l < L)%nat ->
  hidden dims W l x = iter (layer L (fun l => matvec (dims l) (W l))) l x.
Proof.
  intros L dims W x. induction l as [|l IH]; intros Hl; [reflexivity|]. simpl. rewrite IH by lia.
  rewrite layer_in by lia. replace (Nat.eqb (S l) L) with false by (symmetry; apply Nat.eqb_neq; lia). reflexivity.
Qed.

Lemma relu_net_iter : forall L dims W x, (1 <= L)%nat ->
  relu_net L dims W x = iter (layer L (fun l => matvec (dims l) (W l))) L x.
Proof.
  intros L dims W x HL. destruct L as [|L']; [lia|]. unfold relu_net. simpl pred. simpl iter.
  rewrite layer_in, Nat.eqb_refl by lia. rewrite (hidden_iter (S L')) by lia. reflexivity.
Qed.

(* the source: layer 2l is B1_l (width n_l out of dims_l), layer 2l+1 is B2_l *)
Definition interleave {X : Type} (a b : nat -> X) (k : nat) : X :=
  if Nat.even k then a (Nat.div2 k) else b (Nat.div2 k).

Lemma interleave_even : forall X (a b : nat -> X) l, interleave a b (2 * l) = a l.
Proof. intros. unfold interleave. rewrite Nat.even_mul, Nat.div2_double. reflexivity. Qed.

Lemma interleave_odd : forall X (a b : nat -> X) l, interleave a b (S (2 * l)) = b l.
Proof.
  intros. unfold interleave. rewrite Nat.even_succ, Nat.odd_mul, Nat.div2_succ_double. reflexivity.
Qed.

Lemma hidden_source_iter : forall L dims n B1 B2 x l, (l < L)%nat ->
  hidden (interleave dims n) (interleave B1 B2) (2 * l) x
    = iter (layer L (fun l => pair (dims l) (n l) (B1 l) (B2 l))) l x.
Proof.
  intros L dims n B1 B2 x. induction l as [|l IH]; intros Hl; [reflexivity|].
  replace (2 * S l)%nat with (S (S (2 * l))) by lia. cbn [hidden iter].
  rewrite !interleave_odd, !interleave_even, IH by lia. rewrite layer_in by lia.
  replace (Nat.eqb (S l) L) with false by (symmetry; apply Nat.eqb_neq; lia). reflexivity.
Qed.

Lemma source_iter : forall L dims n B1 B2 x, (1 <= L)%nat ->
  relu_net (2 * L) (interleave dims n) (interleave B1 B2) x
    = iter (layer L (fun l => pair (dims l) (n l) (B1 l) (B2 l))) L x.
Proof.
  intros L dims n B1 B2 x HL. destruct L as [|L']; [lia|]. unfold relu_net.
  replace (pred (2 * S L')) with (S (2 * L')) by lia. cbn [hidden iter].
  rewrite !interleave_odd, !interleave_even, (hidden_source_iter (S L')) by lia.
  rewrite layer_in, Nat.eqb_refl by lia. reflexivity.
Qed.

(* --- the recursion and its closed form ------------------------------------------------------------------ *)

Lemma geometric : forall g l, sum l (fun k => g * (1 + g) ^ k) = (1 + g) ^ l - 1.
Proof. intros g. induction l as [|l IH]; simpl; [ring | rewrite IH; ring]. Qed.

(* T10d-T10e: (1 + g)^L - 1 <= exp(L g) - 1 for g >= 0, through (1 + g)^L = exp(L ln(1 + g)) *)
Lemma power_le_exp : forall g L, 0 <= g -> (1 + g) ^ L <= exp (INR L * g).
Proof.
  intros g L Hg. destruct pow_as_exp_increasing as [Hpow Hinc]. rewrite Hpow by lra.
  assert (Hln : ln (1 + g) <= g).
  { destruct Hg as [Hg | <-]; [| rewrite Rplus_0_r, ln_1; lra].
    rewrite <- (ln_exp g) at 2. left. apply ln_increasing; [lra | apply exp_ineq1; lra]. }
  assert (H : INR L * ln (1 + g) <= INR L * g) by (apply Rmult_le_compat_l; [apply pos_INR | exact Hln]).
  destruct H as [H | ->]; [left; apply Hinc, H | apply Rle_refl].
Qed.

(* --- Theorem 10 ----------------------------------------------------------------------------------------- *)

Theorem deep_relu_net : forall (L : nat) (dims n : nat -> nat) (W B1 B2 : nat -> mat) (alpha eps : R) (x : vec),
  (1 <= L)%nat -> 1 <= alpha -> 0 <= eps ->
  (forall l, (l < L)%nat -> op_bound (dims (S l)) (dims l) (W l) 1) ->
  (forall l, (l < L)%nat -> lemma2_conclusion (dims l) (n l) (dims (S l)) (W l) (B1 l) (B2 l) (eps / (2 * INR L))) ->
  norm (dims O) x <= alpha ->
  norm (dims L) (vsub (relu_net (2 * L) (interleave dims n) (interleave B1 B2) x) (relu_net L dims W x))
    <= exp (alpha * eps / 2) - 1.
Proof.
  intros L dims n W B1 B2 alpha eps x HL Ha He HW H2 Hx.
  assert (HLr : 0 < INR L) by (apply lt_0_INR; lia).
  set (r := eps / (2 * INR L)). assert (Hr : 0 <= r) by (unfold r; apply Rmult_le_pos; [lra | left; apply Rinv_0_lt_compat; lra]).
  set (g := alpha * r). assert (Hg : 0 <= g) by (unfold g; nra).
  set (f := layer L (fun l => matvec (dims l) (W l))). set (s := layer L (fun l => pair (dims l) (n l) (B1 l) (B2 l))).
  rewrite source_iter, relu_net_iter by exact HL. fold f s.
  assert (Herr : forall l, err (fun _ => 1) (fun k => g * (1 + g) ^ k) l = (1 + g) ^ l - 1)
    by (intros; rewrite err_unit; apply geometric).
  apply Rle_trans with ((1 + g) ^ L - 1).
  - rewrite <- Herr. apply (layers_induction dims f s (fun _ => 1) (fun _ => alpha)); [intros; lra | | | | exact Hx].
    + (* each target layer is 1-Lipschitz *)
      intros l u v. unfold f, layer. destruct (Nat.ltb_spec l L) as [Hl | Hl].
      * eapply Rle_trans; [apply act_lipschitz | apply linear_lipschitz, HW, Hl].
      * rewrite (norm_ext _ _ (fun _ => 0)) by (intros; unfold vsub; ring). unfold norm.
        rewrite (sum_ext _ _ (fun _ => 0)) by (intros; ring). rewrite sum_const, Rmult_0_r, sqrt_0.
        rewrite Rmult_1_l. apply norm_nonneg.
    + (* and keeps the ball of radius alpha *)
      intros l u Hu. unfold f, layer. destruct (Nat.ltb_spec l L) as [Hl | Hl].
      * eapply Rle_trans; [apply act_norm|]. eapply Rle_trans; [apply (HW l Hl) | lra].
      * unfold norm. rewrite (sum_ext _ _ (fun _ => 0)) by (intros; ring). rewrite sum_const, Rmult_0_r, sqrt_0. lra.
    + (* layer l's pair errs by at most ||u|| r <= (alpha + e_l) r <= alpha (1 + e_l) r (T10b) *)
      intros l u Hu. rewrite Herr in Hu. unfold s, f, layer. destruct (Nat.ltb_spec l L) as [Hl | Hl].
      * eapply Rle_trans; [apply act_lipschitz|].
        eapply Rle_trans; [apply (pair_error_scaled _ _ _ (W l)), H2, Hl|]. fold r.
        assert (Hp : 1 <= (1 + g) ^ l) by (apply pow_R1_Rle; lra).
        apply Rle_trans with (r * (alpha + ((1 + g) ^ l - 1))); [apply Rmult_le_compat_l; assumption|].
        set (P := (1 + g) ^ l) in *.
        assert (0 <= r * ((alpha - 1) * (P - 1))) by (apply Rmult_le_pos; [| apply Rmult_le_pos]; lra).
        unfold g. nra.
      * rewrite (norm_ext _ _ (fun _ => 0)) by (intros; unfold vsub; ring). unfold norm.
        rewrite (sum_ext _ _ (fun _ => 0)) by (intros; ring). rewrite sum_const, Rmult_0_r, sqrt_0.
        apply Rmult_le_pos; [exact Hg | apply pow_le; lra].
  - (* (1 + g)^L <= exp(L g) = exp(alpha eps/2) *)
    apply Rplus_le_compat_r. eapply Rle_trans; [apply power_le_exp, Hg|].
    right. f_equal. unfold g, r. field. lra.
Qed.
