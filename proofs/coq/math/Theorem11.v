(* Theorem 11 composed from Theorem 9's and Lemma 2's on-event forms, about the real transformer block.

   A target block (target: the H heads' W_Q, W_K, W_V, W_O and the L layers W_F of its ReLU net, all of width d1)
   is target_block; a pruned block is pruned_block: the MHA of Lemma 7's construction with n_K = n_V = d1 nM units
   (src_Q .. src_O of the random items vQ, uQ, vV, uV and the masks mQ, mV), and the ReLU net of 2L layers of
   Lemma 2's construction with d1 nF hidden units per layer (the items uF, vF and the masks mF).

   block_gap is the proof's chain B1-B4 for one input: the source MHA within e_mha of the target's (B1),
   ||Attn_S(x_i)^T + x_i|| <= alpha + e_mha + H alpha <= c (B2), Theorem 10's argument on the ReLU nets at input norm
   c and error eps_fc (B3), the triangle inequality with the 1-Lipschitz target net (B4):
     ||Blk_S(x_i) - Blk_T(x_i)|| <= exp(c eps_fc / 2) - 1 + 2 e_mha.
   theorem11_of_theorem9_lemma2 picks the masks: given Theorem 9's conclusion (masks of the MHA, within e_mha on
   every input of norm <= alpha) and Lemma 2's for every layer at eps_fc / (2L), one choice of all the block's masks
   works for every input X whose tokens have norm <= alpha, every length T, every attention mask and every token. *)
From Coq Require Import Reals Lra Lia.
From SlthMath Require Import Objects Sums Triangle Induction Blocks Mha Deep Perturbation Transformer Probability Theorem10.
Open Scope R_scope.

(* the weights of a target block *)
Record target := { tQ : nat -> mat; tK : nat -> mat; tV : nat -> mat; tO : nat -> mat; tF : nat -> mat }.

(* the random items of a pruned block (rescaled to U[-1, 1]) and its masks *)
Record items := { vQ : nat -> nat -> nat -> nat -> R; uQ : nat -> nat -> nat -> R;
                  vV : nat -> nat -> nat -> nat -> R; uV : nat -> nat -> nat -> R;
                  uF : nat -> nat -> nat -> R; vF : nat -> nat -> nat -> nat -> R }.
Record masks := { mQ : nat -> nat -> nat -> nat -> R; mV : nat -> nat -> nat -> nat -> R;
                  mF : nat -> nat -> nat -> nat -> R }.

Definition no_masks : masks := Build_masks (fun _ _ _ _ => 0) (fun _ _ _ _ => 0) (fun _ _ _ _ => 0).

(* every target weight of norm <= 1 (W_Q, W_K : d1 x dK, W_V : d1 x dV, W_O : dV x d1, W_F l : d1 x d1) *)
Definition target_norms (H d1 dK dV L : nat) (t : target) : Prop :=
  (forall h, (h < H)%nat -> op_bound d1 dK (tQ t h) 1 /\ op_bound d1 dK (tK t h) 1 /\ op_bound d1 dV (tV t h) 1 /\
                            op_bound dV d1 (tO t h) 1) /\
  (forall l, (l < L)%nat -> op_bound d1 d1 (tF t l) 1).

(* every mask of the pruned block in {0, 1} *)
Definition masks_binary (H d1 L : nat) (m : masks) : Prop :=
  (forall h, (h < H)%nat -> binary3 d1 d1 (mQ m h) /\ binary3 d1 d1 (mV m h)) /\
  (forall l, (l < L)%nat -> binary3 d1 d1 (mF m l)).

Definition target_block (H T d1 dK dV L : nat) (t : target) (X a : mat) (i : nat) : vec :=
  block H T d1 dK dV (tQ t) (tK t) (tV t) (tO t) L (fun _ => d1) (tF t) X a i.

Definition pruned_block (H T d1 nM nF L : nat) (s : items) (m : masks) (X a : mat) (i : nat) : vec :=
  block H T d1 (d1 * nM) (d1 * nM) (fun h => src_Q nM d1 (mQ m h) (vQ s h)) (fun h => src_K nM d1 (uQ s h))
    (fun h => src_V nM (uV s h)) (fun h => src_O nM (mV m h) (vV s h))
    (2 * L) (interleave (fun _ => d1) (fun _ => (d1 * nF)%nat))
    (interleave (fun l => first_block nF (uF s l)) (fun l => second_block nF (mF m l) (vF s l))) X a i.

(* Theorem 9's conclusion as stmt_theorem9 gives it (n_K = n_V = d1 nM, d2 = d1): masks in {0, 1} with the pruned
   MHA within err of the target's on every input whose tokens have norm <= alpha *)
Definition theorem9_masks (H d1 dK dV nM : nat) (s : items) (t : target) (alpha err : R) : Prop :=
  exists mQ mV : nat -> nat -> nat -> nat -> R,
    (forall h, (h < H)%nat -> binary3 d1 d1 (mQ h) /\ binary3 d1 d1 (mV h)) /\
    theorem9_conclusion H d1 d1 dK dV (d1 * nM) (d1 * nM) (fun h => src_Q nM d1 (mQ h) (vQ s h))
      (fun h => src_K nM d1 (uQ s h)) (fun h => src_V nM (uV s h)) (fun h => src_O nM (mV h) (vV s h))
      (tQ t) (tK t) (tV t) (tO t) alpha err.

(* Theorem 11's conclusion for one block: masks in {0, 1} with the pruned block within err of the target block on
   every input whose tokens have norm <= c, every length, every attention mask, every token *)
Definition theorem11_masks (H d1 dK dV nM nF L : nat) (s : items) (t : target) (c err : R) : Prop :=
  exists m : masks, masks_binary H d1 L m /\
    forall (T : nat) (X a : mat), tokens_le T d1 X c -> forall i, (i < T)%nat -> is_mask T (a i) ->
      norm d1 (vsub (pruned_block H T d1 nM nF L s m X a i) (target_block H T d1 dK dV L t X a i)) <= err.

(* B1-B4 for one input and one token *)
Theorem block_gap : forall (H T d1 dK dV dK' dV' L : nat) (WQ WK WV WO WQ' WK' WV' WO' W : nat -> mat)
    (n : nat -> nat) (B1 B2 : nat -> mat) (X a : mat) (i : nat) (alpha e_mha c eps_fc : R),
  (1 <= L)%nat -> (i < T)%nat -> is_mask T (a i) ->
  (forall h, (h < H)%nat -> op_bound d1 dV (WV h) 1 /\ op_bound dV d1 (WO h) 1) ->
  (forall l, (l < L)%nat -> op_bound d1 d1 (W l) 1) ->
  (forall l, (l < L)%nat -> lemma2_conclusion d1 (n l) d1 (W l) (B1 l) (B2 l) (eps_fc / (2 * INR L))) ->
  1 <= c -> 0 <= eps_fc -> alpha + e_mha + INR H * alpha <= c ->
  (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) ->
  norm d1 (vsub (mha H T d1 dK' dV' WQ' WK' WV' WO' X a i) (mha H T d1 dK dV WQ WK WV WO X a i)) <= e_mha ->
  norm d1 (vsub (block H T d1 dK' dV' WQ' WK' WV' WO' (2 * L) (interleave (fun _ => d1) n) (interleave B1 B2) X a i)
                (block H T d1 dK dV WQ WK WV WO L (fun _ => d1) W X a i)) <= exp (c * eps_fc / 2) - 1 + 2 * e_mha.
Proof.
  intros H T d1 dK dV dK' dV' L WQ WK WV WO WQ' WK' WV' WO' W n B1 B2 X a i alpha e_mha c eps_fc
    HL Hi Hm HV HF H2 Hc He Hin HX Hgap.
  set (As := mha H T d1 dK' dV' WQ' WK' WV' WO' X a i). set (At := mha H T d1 dK dV WQ WK WV WO X a i).
  set (y' := vadd As (X i)). set (y := vadd At (X i)).
  set (FS := relu_net (2 * L) (interleave (fun _ => d1) n) (interleave B1 B2)).
  set (FT := relu_net L (fun _ => d1) W).
  fold As At in Hgap.
  assert (Hyy : norm d1 (vsub y' y) = norm d1 (vsub As At))
    by (apply norm_ext; intros; unfold y', y, vadd, vsub; ring).
  (* B2: ||y'|| <= ||Attn_S - Attn_T|| + ||Attn_T|| + ||x_i|| <= c *)
  assert (HAt : norm d1 At <= INR H * alpha) by (apply mha_norm; assumption).
  assert (Hy' : norm d1 y' <= c).
  { assert (Hsplit : norm d1 y' <= norm d1 (vsub As At) + norm d1 At + norm d1 (X i)).
    { rewrite (norm_ext d1 y' (vadd (vadd (vsub As At) At) (X i))) by (intros; unfold y', vadd, vsub; ring).
      eapply Rle_trans; [apply norm_triangle|]. apply Rplus_le_compat_r, norm_triangle. }
    pose proof (HX i Hi). lra. }
  (* B3: Theorem 10's argument on the ReLU nets at input norm c *)
  assert (Hfc : norm d1 (vsub (FS y') (FT y')) <= exp (c * eps_fc / 2) - 1)
    by exact (deep_relu_net L (fun _ => d1) n W B1 B2 c eps_fc y' HL Hc He HF H2 Hy').
  (* B4: ||Blk_S - Blk_T|| <= ||F_S(y') - F_T(y')|| + ||F_T(y') - F_T(y)|| + ||y' - y||, F_T 1-Lipschitz *)
  assert (Hlip : norm d1 (vsub (FT y') (FT y)) <= norm d1 (vsub y' y))
    by (pose proof (relu_net_lipschitz L (fun _ => d1) W y' y HL HF) as P; simpl in P; exact P).
  rewrite (norm_ext d1 _ (vadd (vadd (vsub (FS y') (FT y')) (vsub (FT y') (FT y))) (vsub y' y)))
    by (intros; unfold block, FS, FT, y', y, As, At, vadd, vsub; ring).
  eapply Rle_trans; [apply norm_triangle|]. eapply Rle_trans; [apply Rplus_le_compat_r, norm_triangle|].
  lra.
Qed.

Theorem theorem11_of_theorem9_lemma2 : forall (H d1 dK dV nM nF L : nat) (s : items) (t : target)
    (alpha e_mha c eps_fc : R),
  (1 <= L)%nat -> target_norms H d1 dK dV L t ->
  1 <= c -> 0 <= eps_fc -> alpha + e_mha + INR H * alpha <= c ->
  theorem9_masks H d1 dK dV nM s t alpha e_mha ->
  (forall l, (l < L)%nat -> lemma2_masks d1 d1 nF (uF s l) (vF s l) (tF t l) (eps_fc / (2 * INR L))) ->
  theorem11_masks H d1 dK dV nM nF L s t alpha (exp (c * eps_fc / 2) - 1 + 2 * e_mha).
Proof.
  intros H d1 dK dV nM nF L s t alpha e_mha c eps_fc HL [HW HF] Hc He Hin [mQ' [mV' [HbM G9]]] H2.
  destruct (finite_choice_of _ (fun _ _ _ => 0) L _ H2) as [mF' HmF].
  exists (Build_masks mQ' mV' mF'). split; [split; [exact HbM | intros l Hl; exact (proj1 (HmF l Hl))]|].
  intros T X a HX i Hi Hm. unfold pruned_block, target_block. cbn [mQ mV mF].
  apply (block_gap H T d1 dK dV (d1 * nM) (d1 * nM) L (tQ t) (tK t) (tV t) (tO t) _ _ _ _ (tF t)
           (fun _ => (d1 * nF)%nat) (fun l => first_block nF (uF s l)) (fun l => second_block nF (mF' l) (vF s l))
           X a i alpha e_mha c eps_fc HL Hi Hm); try assumption.
  - intros h Hh. destruct (HW h Hh) as [_ [_ [HV HO]]]. exact (conj HV HO).
  - intros l Hl. apply lemma2_masks_pair, (proj2 (HmF l Hl)).
  - exact (G9 T X a HX i Hi Hm).
Qed.

(* --- with probability ------------------------------------------------------------------------------------ *)

(* The block's random items are a function of the sample w of an outer probability P.  If, except with probability
   at most fail_mha, Theorem 9's masks exist for every target MHA (one event for all targets), and, except with
   probability at most fail_l, layer l's Lemma 2 masks exist for every target layer, then except with probability at
   most fail_mha + fail_0 + .. + fail_(L-1) (the union bound over the MHA and the layers: whp_and, whp_all), for every
   target block all its masks exist with the block within exp(c eps_fc / 2) - 1 + 2 e_mha on every input. *)
Theorem theorem11_whp : forall (Omega : Type) (P : outer_prob Omega) (H d1 dK dV nM nF L : nat) (s : Omega -> items)
    (alpha e_mha c eps_fc fail_mha : R) (fail : nat -> R),
  (1 <= L)%nat -> 1 <= c -> 0 <= eps_fc -> alpha + e_mha + INR H * alpha <= c ->
  whp P (fun w => forall t : target, target_norms H d1 dK dV L t -> theorem9_masks H d1 dK dV nM (s w) t alpha e_mha)
    fail_mha ->
  (forall l, (l < L)%nat -> whp P (fun w => forall Wl : mat, op_bound d1 d1 Wl 1 ->
     lemma2_masks d1 d1 nF (uF (s w) l) (vF (s w) l) Wl (eps_fc / (2 * INR L))) (fail l)) ->
  whp P (fun w => forall t : target, target_norms H d1 dK dV L t ->
    theorem11_masks H d1 dK dV nM nF L (s w) t alpha (exp (c * eps_fc / 2) - 1 + 2 * e_mha))
    (fail_mha + sum L fail).
Proof.
  intros Omega P H d1 dK dV nM nF L s alpha e_mha c eps_fc fail_mha fail HL Hc He Hin H9 H2.
  eapply whp_mono; [| apply Rle_refl | apply (whp_and P _ _ _ _ H9 (whp_all P L _ fail H2))].
  intros w [G9 G2] t Ht. cbv beta in G2.
  exact (theorem11_of_theorem9_lemma2 H d1 dK dV nM nF L (s w) t alpha e_mha c eps_fc HL Ht Hc He Hin (G9 t Ht)
           (fun l Hl => G2 l Hl (tF t l) (proj2 Ht l Hl))).
Qed.
