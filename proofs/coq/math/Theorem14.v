(* Theorem 14 composed from Theorem 11's on-event form and Lemma 13 (lemma13_block), about the real blocks.

   The transformer of B blocks (0-based here: block b is the paper's block b + 1) maps T tokens of size d1 through
   target_block b in turn (tf_target), its pruned source through pruned_block b with block b's items and masks
   (tf_pruned); every block sees the same attention masks a.  The chain is blocks_chain (Transformer.v) with
     - the target's norms: ||Blk_T(x_i)|| <= 2 (H beta + beta) on tokens of norm <= beta (block_norm, T14a's first
       inequality), and 2 (H beta_b + beta_b) <= beta_(b+1) of the schedule;
     - Lemma 13 in the form lemma13_block proves (the factor 2 of its proof's last line) at input norm c_b and
       perturbation delta_b, on the target's tokens (norm <= beta_b <= c_b) and the source's tokens: their norm
       <= beta_b + delta_b <= c_b comes from the chain itself (T14c: the source's tokens are within delta_b of the
       target's), not from a hypothesis on the perturbed tokens;
     - Theorem 11's conclusion for block b at input norm c_b and budget eps_b (block 0 receives the exact input, of
       norm beta_0 <= c_0);
     - eps_0 <= delta_1 and eps_b + Lemma 13's bound <= delta_(b+1) (T14b, T14d).
   One choice of the B blocks' masks (finite_choice_of) puts the source's tokens within delta_B of the target's on
   every input whose tokens have norm <= beta_0, of every length T, for every attention mask
   (theorem14_of_theorem11_lemma13). *)
From Coq Require Import Reals Lra Lia.
From SlthMath Require Import Objects Sums Triangle Induction Mha Deep Perturbation Transformer Probability Theorem10 Theorem11.
Open Scope R_scope.

Definition tf_target (H T d1 dK dV L : nat) (t : nat -> target) (a : mat) (b : nat) (Y : mat) : mat :=
  fun i => target_block H T d1 dK dV L (t b) Y a i.

Definition tf_pruned (H T d1 L : nat) (nM nF : nat -> nat) (s : nat -> items) (m : nat -> masks) (a : mat) (b : nat)
    (Y : mat) : mat :=
  fun i => pruned_block H T d1 (nM b) (nF b) L (s b) (m b) Y a i.

(* Lemma 13's bound as lemma13_block proves it: 2 H sqrt(d1) (alpha (exp(4 alpha eps) - 1) + 2 eps) *)
Definition lemma13_bound (H d1 : nat) (alpha eps : R) : R :=
  2 * INR H * sqrt (INR d1) * (alpha * (exp (4 * alpha * eps) - 1) + 2 * eps).

(* --- the target block's norm ----------------------------------------------------------------------------- *)

Lemma hidden_zero : forall dims W l j, hidden dims W l (fun _ => 0) j = 0.
Proof.
  intros dims W l. induction l as [|l IH]; intros j; [reflexivity|]. simpl. unfold vrelu, matvec.
  rewrite (sum_ext _ _ (fun _ => 0)) by (intros; rewrite IH; ring). rewrite sum_const, Rmult_0_r.
  unfold relu. apply Rmax_left. lra.
Qed.

Lemma relu_net_zero : forall L dims W j, relu_net L dims W (fun _ => 0) j = 0.
Proof.
  intros. unfold relu_net, matvec. rewrite (sum_ext _ _ (fun _ => 0)) by (intros; rewrite hidden_zero; ring).
  rewrite sum_const. ring.
Qed.

Lemma relu_net_norm : forall L d1 W y, (1 <= L)%nat -> (forall l, (l < L)%nat -> op_bound d1 d1 (W l) 1) ->
  norm d1 (relu_net L (fun _ => d1) W y) <= norm d1 y.
Proof.
  intros L d1 W y HL HW. pose proof (relu_net_lipschitz L (fun _ => d1) W y (fun _ => 0) HL HW) as P. simpl in P.
  rewrite (norm_ext d1 (vsub y (fun _ => 0)) y) in P by (intros; unfold vsub; ring).
  rewrite (norm_ext d1 (vsub _ _) (relu_net L (fun _ => d1) W y)) in P; [exact P|].
  intros j _. unfold vsub. rewrite relu_net_zero. ring.
Qed.

(* ||Blk_T(x_i)|| <= 2 (||Attn_T(x_i)|| + ||x_i||) <= 2 (H beta + beta) *)
Theorem block_norm : forall H T d1 dK dV L (t : target) (X a : mat) i beta,
  (1 <= L)%nat -> target_norms H d1 dK dV L t -> (i < T)%nat -> is_mask T (a i) -> tokens_le T d1 X beta ->
  norm d1 (target_block H T d1 dK dV L t X a i) <= 2 * (INR H * beta + beta).
Proof.
  intros H T d1 dK dV L t X a i beta HL [HW HF] Hi Hm HX.
  set (y := vadd (mha H T d1 dK dV (tQ t) (tK t) (tV t) (tO t) X a i) (X i)).
  assert (Hy : norm d1 y <= INR H * beta + beta).
  { eapply Rle_trans; [apply norm_triangle|]. apply Rplus_le_compat; [| apply HX, Hi].
    apply mha_norm; [exact Hm | exact HX |]. intros h Hh. destruct (HW h Hh) as [_ [_ [HV HO]]]. exact (conj HV HO). }
  unfold target_block, block. fold y. eapply Rle_trans; [apply norm_triangle|].
  pose proof (relu_net_norm L d1 (tF t) y HL HF). lra.
Qed.

(* --- Theorem 14 ------------------------------------------------------------------------------------------ *)

Theorem theorem14_of_theorem11_lemma13 : forall (H d1 dK dV L B : nat) (nM nF : nat -> nat) (s : nat -> items)
    (t : nat -> target) (beta delta eps c : nat -> R),
  (1 <= H)%nat -> (1 <= d1)%nat -> (1 <= L)%nat -> (1 <= B)%nat ->
  (forall b, (b < B)%nat -> target_norms H d1 dK dV L (t b)) ->
  (forall b, (b < B)%nat -> 2 * (INR H * beta b + beta b) <= beta (S b)) ->
  beta O <= c O -> (forall b, (1 <= b < B)%nat -> beta b + delta b <= c b) ->
  (forall b, (b < B)%nat -> theorem11_masks H d1 dK dV (nM b) (nF b) L (s b) (t b) (c b) (eps b)) ->
  eps O <= delta 1%nat -> (forall b, (1 <= b < B)%nat -> eps b + lemma13_bound H d1 (c b) (delta b) <= delta (S b)) ->
  exists m : nat -> masks, (forall b, (b < B)%nat -> masks_binary H d1 L (m b)) /\
    forall (T : nat) (a : mat), (forall i, (i < T)%nat -> is_mask T (a i)) ->
    forall X : mat, tokens_le T d1 X (beta O) ->
      tokens_near T d1 (blocks (tf_pruned H T d1 L nM nF s m a) B X) (blocks (tf_target H T d1 dK dV L t a) B X)
        (delta B).
Proof.
  intros H d1 dK dV L B nM nF s t beta delta eps c HH Hd1 HL HB Ht Hgrow Hc0 Hc H11 H0 Hstep.
  destruct (finite_choice_of _ no_masks B _ H11) as [m Hm].
  exists m. split; [intros b Hb; exact (proj1 (Hm b Hb))|]. intros T a Ha X HX.
  set (delta' := fun b => match b with O => 0 | S _ => delta b end).
  replace (delta B) with (delta' B) by (unfold delta'; destruct B; [lia | reflexivity]).
  apply (blocks_chain T d1 (tf_target H T d1 dK dV L t a) (tf_pruned H T d1 L nM nF s m a) beta delta' eps
           (fun b => lemma13_bound H d1 (c b) (delta b)) X B).
  - (* the target's norms *)
    intros b Y Hb HY i Hi. eapply Rle_trans; [| apply Hgrow, Hb].
    apply block_norm; [exact HL | apply Ht, Hb | exact Hi | apply Ha, Hi | exact HY].
  - (* Lemma 13 at input norm c_b: the target's tokens have norm <= beta_b <= c_b, the source's
       <= beta_b + delta_b <= c_b (T14c) *)
    intros b Y Y' Hb HY HY' i Hi. destruct b as [|b]; [lia|]. cbv beta in HY'. unfold delta' in HY'.
    assert (Hd : 0 <= delta (S b)) by (eapply Rle_trans; [apply norm_nonneg | apply (HY' i Hi)]).
    pose proof (Hc (S b) Hb) as HT14c.
    destruct (Ht (S b) ltac:(lia)) as [HW HF].
    unfold tf_target, target_block. rewrite norm_vsub_sym.
    apply (lemma13_block H T d1 dK dV _ _ _ _ L _ Y Y' a i (c (S b)) (delta (S b)) HH Hd1 HL HW HF (Ha i Hi) Hi).
    + intros k Hk. pose proof (HY k Hk). lra.
    + intros k Hk. eapply Rle_trans; [apply (norm_le_sub _ _ (Y k))|].
      pose proof (HY k Hk). pose proof (HY' k Hk). lra.
    + intros k Hk. rewrite norm_vsub_sym. apply HY', Hk.
  - (* Theorem 11 at block b on inputs of norm <= beta_b + delta_b <= c_b *)
    intros b Y' Hb HY' i Hi. unfold tf_pruned, tf_target. apply (proj2 (Hm b Hb)); [| exact Hi | apply Ha, Hi].
    intros k Hk. eapply Rle_trans; [apply HY', Hk|]. unfold delta'. destruct b as [|b]; [lra | apply Hc; lia].
  - lia.
  - exact H0.
  - intros b Hb. destruct b as [|b]; [lia|]. apply Hstep, Hb.
  - unfold delta'. lra.
  - exact HX.
Qed.

(* --- with probability ------------------------------------------------------------------------------------ *)

(* Every block's random items are a function of the sample w of an outer probability P.  If, except with
   probability at most fail_b, block b's Theorem 11 masks exist for every target block (one event for all targets),
   then except with probability at most fail_0 + .. + fail_(B-1) (the union bound over the blocks), for every
   target transformer masks of all B blocks exist with the source within delta_B of the target on every input. *)
Theorem theorem14_whp : forall (Omega : Type) (P : outer_prob Omega) (H d1 dK dV L B : nat) (nM nF : nat -> nat)
    (s : Omega -> nat -> items) (beta delta eps c fail : nat -> R),
  (1 <= H)%nat -> (1 <= d1)%nat -> (1 <= L)%nat -> (1 <= B)%nat ->
  (forall b, (b < B)%nat -> 2 * (INR H * beta b + beta b) <= beta (S b)) ->
  beta O <= c O -> (forall b, (1 <= b < B)%nat -> beta b + delta b <= c b) ->
  eps O <= delta 1%nat -> (forall b, (1 <= b < B)%nat -> eps b + lemma13_bound H d1 (c b) (delta b) <= delta (S b)) ->
  (forall b, (b < B)%nat -> whp P (fun w => forall tb : target, target_norms H d1 dK dV L tb ->
     theorem11_masks H d1 dK dV (nM b) (nF b) L (s w b) tb (c b) (eps b)) (fail b)) ->
  whp P (fun w => forall t : nat -> target, (forall b, (b < B)%nat -> target_norms H d1 dK dV L (t b)) ->
    exists m : nat -> masks, (forall b, (b < B)%nat -> masks_binary H d1 L (m b)) /\
    forall (T : nat) (a : mat), (forall i, (i < T)%nat -> is_mask T (a i)) ->
    forall X : mat, tokens_le T d1 X (beta O) ->
      tokens_near T d1 (blocks (tf_pruned H T d1 L nM nF (s w) m a) B X) (blocks (tf_target H T d1 dK dV L t a) B X)
        (delta B))
    (sum B fail).
Proof.
  intros Omega P H d1 dK dV L B nM nF s beta delta eps c fail HH Hd1 HL HB Hgrow Hc0 Hc H0 Hstep H11.
  eapply whp_mono; [| apply Rle_refl | apply (whp_all P B _ fail H11)].
  intros w Hw t Ht. cbv beta in Hw.
  exact (theorem14_of_theorem11_lemma13 H d1 dK dV L B nM nF (s w) t beta delta eps c
           HH Hd1 HL HB Ht Hgrow Hc0 Hc (fun b Hb => Hw b Hb (t b) (Ht b Hb)) H0 Hstep).
Qed.
