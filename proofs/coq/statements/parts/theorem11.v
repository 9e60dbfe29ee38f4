From SlthMath Require Import Theorem11.
(* Theorem 11's widths, error and failure probability as the paper prints them *)
Definition n_MHA_theorem11 (C : R) (H d1 : nat) (alpha eps : R) : R := {w:n_MHA}.
Definition n_FC_theorem11 (C : R) (H d1 L : nat) (alpha eps : R) : R := {w:n_FC}.
Definition err_theorem11 (eps : R) : R := {bound}.
Definition fail_theorem11 (eps : R) : R := {fail}.

Section theorem11.
Lemma div_lt_1 : forall a c, 0 <= a < 1 -> 1 <= c -> a / c < 1.
Proof.
  intros a c [Ha0 Ha1] Hc. unfold Rdiv. apply Rle_lt_trans with a; [| exact Ha1].
  rewrite <- (Rmult_1_r a) at 2. apply Rmult_le_compat_l; [exact Ha0|].
  rewrite <- Rinv_1. apply Rinv_le_contravar; lra.
Qed.
(* B3a with T10a: Lemma 2 at Theorem 10's layer budget for the FC net (input norm fc_in, eps_10 = 2 split eps / fc_in)
   needs at most the printed n_FC *)
Lemma theorem11_fc_width : forall C (H d1 L : nat) alpha eps, 0 < C -> (1 <= H)%nat -> (1 <= d1)%nat -> (1 <= L)%nat ->
  0 < eps -> eps < 1 -> sqrt (INR d1) <= alpha -> 0 < 2 * {c:split} * eps / {c:fc_in} < 1 ->
  n_lemma2 C d1 d1 (budget_theorem10 L (2 * {c:split} * eps / {c:fc_in})) <= n_FC_theorem11 C H d1 L alpha eps.
Proof.
  intros C H d1 L alpha eps HC HH Hd1 HL He0 He1 Ha [H10a H10b].
  assert (0 < sqrt (INR d1)) by (apply sqrt_lt_R0, lt_0_INR; lia). assert (0 < alpha) by lra.
  eapply Rle_trans.
  - exact (theorem10_layer_width C d1 d1 L _ HC Hd1 Hd1 HL H10a H10b).
  - unfold n_theorem10, n_FC_theorem11.
    let S := fresh in instance {step:B3a} S; eapply Rle_trans; [| eapply Rle_trans; [exact S|]]; apply Req_le;
      [f_equal; f_equal; sf | reflexivity].
Qed.
(* B1a, B1b: Theorem 9 at the MHA's share of eps needs at most the printed n_MHA for n_K and for n_V *)
Lemma theorem11_mha_widths : forall C (H d1 : nat) alpha eps, 0 < C -> (1 <= H)%nat -> (1 <= d1)%nat -> 0 < eps ->
  eps < 1 -> sqrt (INR d1) <= alpha ->
  n_K_theorem9 C H d1 d1 alpha ({c:mha_share} * {c:split} * eps) <= n_MHA_theorem11 C H d1 alpha eps /\
  n_V_theorem9 C H d1 d1 alpha ({c:mha_share} * {c:split} * eps) <= n_MHA_theorem11 C H d1 alpha eps.
Proof.
  intros C H d1 alpha eps HC HH Hd1 He0 He1 Ha. unfold n_K_theorem9, n_V_theorem9, n_MHA_theorem11.
  assert (0 < sqrt (INR d1)) by (apply sqrt_lt_R0, lt_0_INR; lia). assert (0 < alpha) by lra.
  split.
  - let S := fresh in instance {step:B1a} S; eapply Rle_trans; [| eapply Rle_trans; [exact S|]]; apply Req_le;
      [f_equal; f_equal; sf | reflexivity].
  - let S := fresh in instance {step:B1b} S; eapply Rle_trans; [| eapply Rle_trans; [exact S|]]; apply Req_le;
      [f_equal; f_equal; sf | reflexivity].
Qed.
Variables (Omega : Type) (P : outer_prob Omega) (lueker_class : nat -> (nat -> Omega -> R) -> Prop) (C : R).
Hypothesis HC : 0 < C.
Hypothesis lueker : lueker_cited P lueker_class C.
(* H heads, tokens of size d1 (d2 = d1), target heads with d_K, d_V, a target ReLU net of L layers of width d1; the
   source MHA has n_K = n_V = n_MHA units, the source ReLU net 2L layers with n_FC hidden units each *)
Variables (H d1 dK dV L n_MHA n_FC : nat) (alpha eps : R).
Hypotheses (HH : (1 <= H)%nat) (Hd1 : (1 <= d1)%nat) (HdK : (1 <= dK)%nat) (HL : (1 <= L)%nat)
  (Heps0 : 0 < eps) (Heps1 : eps < 1) (Ha : sqrt (INR d1) <= alpha).
(* the printed widths *)
Hypotheses (HnM : n_MHA_theorem11 C H d1 alpha eps <= INR n_MHA) (HnF : n_FC_theorem11 C H d1 L alpha eps <= INR n_FC).
(* not in the printed statement: d1 divides n_MHA and n_FC *)
Hypotheses (HdivM : (n_MHA mod d1 = 0)%nat) (HdivF : (n_FC mod d1 = 0)%nat).
(* the block's random items (Theorem11.v's record items: those of Theorem 9's construction for the MHA, of Lemma 2's
   for each layer of the ReLU net), functions of the sample w *)
Variable s : Omega -> items.
(* the modelling hypotheses of Theorem 9 and Lemma 2 *)
Hypothesis itemsQ : forall h, (h < H)%nat -> forall i j, (i < d1)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (n_MHA / d1) (fun k w => vQ (s w) h i j k * uQ (s w) h j k).
Hypothesis itemsV : forall h, (h < H)%nat -> forall i j, (i < d1)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (n_MHA / d1) (fun k w => vV (s w) h i j k * uV (s w) h j k).
Hypothesis itemsF_pos : forall l, (l < L)%nat -> forall i j, (i < d1)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (n_FC / d1) (fun k w => vF (s w) l i j k * relu (uF (s w) l j k)).
Hypothesis itemsF_neg : forall l, (l < L)%nat -> forall i j, (i < d1)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (n_FC / d1) (fun k w => vF (s w) l i j k * relu (- uF (s w) l j k)).
(* Theorem 11: with probability at least 1 - eps, for every target block with all weights of norm <= 1, masks in
   {0, 1} put the pruned block (pruned_block, Theorem11.v) within the printed error of the target block
   (target_block) on every input whose tokens have norm at most alpha, every length, every attention mask and every
   token (theorem11_masks).  Differences from the printed statement: d1 divides n_MHA and n_FC; one event for all
   targets; the masks M_K, M_O are Lemma 7's fixed block masks *)
Theorem stmt_theorem11 : whp P (fun w => forall t : target, target_norms H d1 dK dV L t ->
  theorem11_masks H d1 dK dV (n_MHA / d1) (n_FC / d1) L (s w) t alpha (err_theorem11 eps)) (fail_theorem11 eps).
Proof.
  assert (Hs1 : 1 <= sqrt (INR d1)) by (rewrite <- sqrt_1; apply sqrt_le_1_alt, one_le_INR, Hd1).
  assert (Halpha : 0 < alpha) by lra.
  assert (HHr : 1 <= INR H) by (apply one_le_INR; exact HH).
  assert (HLr : 1 <= INR L) by (apply one_le_INR; exact HL).
  set (e9 := {c:mha_share} * {c:split} * eps). set (e10 := 2 * {c:split} * eps / {c:fc_in}).
  assert (He9 : 0 < e9 < 1) by (unfold e9; split; lra).
  assert (Hin : 1 <= {c:fc_in}) by (via {step:B3-alpha}).
  assert (He10 : 0 < e10 < 1) by (unfold e10; split; [apply Rdiv_lt_0_compat; lra | apply div_lt_1; [lra | exact Hin]]).
  destruct (theorem11_mha_widths C H d1 alpha eps HC HH Hd1 Heps0 Heps1 Ha) as [HwK HwV].
  (* B1: Theorem 9 at e9, on its event *)
  assert (H9 : whp P (fun w => forall t : target, target_norms H d1 dK dV L t ->
      theorem9_masks H d1 dK dV (n_MHA / d1) (s w) t alpha e9) e9).
  { eapply whp_mono; [| | exact (stmt_theorem9 Omega P lueker_class C HC lueker H d1 d1 dK dV n_MHA n_MHA alpha e9
        HH Hd1 Hd1 HdK (proj1 He9) (proj2 He9) Ha Ha (Rle_trans _ _ _ HwK HnM) (Rle_trans _ _ _ HwV HnM) HdivM HdivM
        (fun h i j k w => vQ (s w) h i j k) (fun h i j k w => vV (s w) h i j k) (fun h j k w => uQ (s w) h j k)
        (fun h j k w => uV (s w) h j k) itemsQ itemsV)].
    - intros w G t [HW _]. destruct (G (tQ t) (tK t) (tV t) (tO t) HW) as [mQ' [mV' [HbQ [HbV G9]]]].
      exists mQ', mV'. split; [intros h Hh; split; intros i j k Hi Hj; auto|].
      intros T X a HX i Hi Hm. exact (G9 T X a HX i Hi Hm).
    - apply Req_le. reflexivity. }
  (* B3: Lemma 2 at Theorem 10's layer budget for e10, every layer, on its event *)
  pose proof (theorem11_fc_width C H d1 L alpha eps HC HH Hd1 HL Heps0 Heps1 Ha He10) as HwF.
  assert (Hb : 0 < budget_theorem10 L e10 < 1)
    by (unfold budget_theorem10; split; [apply Rdiv_lt_0_compat; lra | apply div_lt_1; lra]).
  assert (H2 : forall l, (l < L)%nat -> whp P (fun w => forall Wl : mat, op_bound d1 d1 Wl 1 ->
      lemma2_masks d1 d1 (n_FC / d1) (uF (s w) l) (vF (s w) l) Wl (e10 / (2 * INR L))) (budget_theorem10 L e10)).
  { intros l Hl. eapply whp_mono; [| | exact (stmt_lemma2 Omega P lueker_class C HC lueker d1 d1 n_FC
        (budget_theorem10 L e10) (fun i j k w => vF (s w) l i j k) (fun j k w => uF (s w) l j k) Hd1 Hd1
        (proj1 Hb) (proj2 Hb) (Rle_trans _ _ _ HwF HnF) HdivF (itemsF_pos l Hl) (itemsF_neg l Hl))].
    - intros w G Wl HW. destruct (G Wl HW) as [m [Hm Hx]]. exists m. split; [exact Hm|].
      intros x Hx1. eapply Rle_trans; [exact (Hx x Hx1)|]. unfold err_lemma2, budget_theorem10. right. field. lra.
    - unfold fail_lemma2. right. reflexivity. }
  (* B2: the FC net's input norm; B4: the error; B5: the union bound (Theorem11.v: theorem11_whp) *)
  assert (HB2 : alpha + e9 + INR H * alpha <= {c:fc_in}).
  { assert (HB2a : INR H * alpha <= alpha * INR H * sqrt (INR d1)) by (via {step:B2a}).
    apply Rle_trans with (alpha + e9 + alpha * INR H * sqrt (INR d1)); [lra|]. unfold e9. via {step:B2b}. }
  eapply whp_mono; [| | exact (theorem11_whp Omega P H d1 dK dV (n_MHA / d1) (n_FC / d1) L s alpha e9 {c:fc_in} e10
                                 e9 (fun _ => budget_theorem10 L e10) HL Hin (Rlt_le _ _ (proj1 He10)) HB2 H9 H2)].
  - intros w G t Ht. destruct (G t Ht) as [m [Hm G11]]. exists m. split; [exact Hm|].
    intros T X a HX i Hi Ha'. eapply Rle_trans; [exact (G11 T X a HX i Hi Ha')|]. unfold err_theorem11, e9, e10.
    via {step:B4}.
  - rewrite sum_const. unfold fail_theorem11, budget_theorem10.
    apply Rle_trans with (e9 + e10); [assert (INR L * (e10 / (2 * INR L)) = e10 / 2) by (field; lra); lra|]. unfold e9, e10. via {step:B5}.
Qed.
End theorem11.
