(* Theorem 9: widths, error and failure probability as the paper prints them *)
Definition n_K_theorem9 (C : R) (H d1 d2 : nat) (alpha eps : R) : R := {w:n_K}.
Definition n_V_theorem9 (C : R) (H d1 d2 : nat) (alpha eps : R) : R := {w:n_V}.
Definition err_theorem9 (H d1 d2 : nat) (alpha eps : R) : R := {bound}.
Definition fail_theorem9 (H d1 d2 : nat) (alpha eps : R) : R := {fail}.

Section theorem9.
Variables (Omega : Type) (P : outer_prob Omega) (lueker_class : nat -> (nat -> Omega -> R) -> Prop) (C : R).
Hypothesis HC : 0 < C.
Hypothesis lueker : lueker_cited P lueker_class C.
Variables (H d1 d2 d_K dV n_K n_V : nat) (alpha eps : R).
(* alpha >= max(sqrt d1, sqrt d2) as the paper assumes (Ha2 is used by the union bound S4) *)
Hypotheses (HH : (1 <= H)%nat) (Hd1 : (1 <= d1)%nat) (Hd2 : (1 <= d2)%nat) (HdK : (1 <= d_K)%nat)
  (Heps0 : 0 < eps) (Heps1 : eps < 1) (Ha1 : {lo:alpha:0} <= alpha) (Ha2 : {lo:alpha:1} <= alpha).
(* the printed widths n_K (query/key) and n_V (value/output) *)
Hypotheses (HnK : n_K_theorem9 C H d1 d2 alpha eps <= INR n_K) (HnV : n_V_theorem9 C H d1 d2 alpha eps <= INR n_V).
(* not in the printed statement: d1 divides n_K and n_V (each of Lemma 7's d1 blocks has n_K / d1, n_V / d1 units) *)
Hypotheses (HdivK : (n_K mod d1 = 0)%nat) (HdivV : (n_V mod d1 = 0)%nat).
(* the rescaled random items of head h: query/key v_Q h i j k and u_Q h j k, value/output v_V h i j k and
   u_V h j k (Lemma 7's construction on each head's merged matrices) *)
Variables (vQ vV : nat -> nat -> nat -> nat -> Omega -> R) (uQ uV : nat -> nat -> nat -> Omega -> R).
(* the modelling hypothesis: each entry's items, products of uniform weights, are in Lueker's class *)
Hypothesis itemsQ : forall h, (h < H)%nat -> forall i j, (i < d1)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (n_K / d1) (fun k w => vQ h i j k w * uQ h j k w).
Hypothesis itemsV : forall h, (h < H)%nat -> forall i j, (i < d2)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (n_V / d1) (fun k w => vV h i j k w * uV h j k w).
(* Theorem 9 (Theorem 3 of the main text): with probability at least 1 - eps, for all target heads with ||W_Q||,
   ||W_K||, ||W_V||, ||W_O|| <= 1, masks m_Q, m_V in {0, 1} put the pruned MHA within the printed error of the
   target MHA on every input X with rows of norm at most alpha, every mask and every token.  Differences from the
   printed statement: d1 divides n_K and n_V; one event for all targets; the masks M_K and M_O are the fixed block
   masks of Lemma 7's construction (src_K, src_O) *)
Theorem stmt_theorem9 : whp P (fun w => forall WQ WK WV WO : nat -> mat,
  (forall h, (h < H)%nat -> op_bound d1 d_K (WQ h) 1 /\ op_bound d1 d_K (WK h) 1 /\ op_bound d1 dV (WV h) 1 /\
     op_bound dV d2 (WO h) 1) ->
  exists mQ mV : nat -> nat -> nat -> nat -> R,
    (forall h i j k, (h < H)%nat -> (i < d1)%nat -> (j < d1)%nat -> mQ h i j k = 0 \/ mQ h i j k = 1) /\
    (forall h i j k, (h < H)%nat -> (i < d2)%nat -> (j < d1)%nat -> mV h i j k = 0 \/ mV h i j k = 1) /\
    forall (T : nat) (X a : mat), (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) ->
    forall i, (i < T)%nat -> is_mask T (a i) ->
      norm d2 (vsub (mha H T d1 (d1 * (n_K / d1)) (d1 * (n_V / d1))
                      (fun h => src_Q (n_K / d1) d1 (mQ h) (fun i j k => vQ h i j k w))
                      (fun h => src_K (n_K / d1) d1 (fun j k => uQ h j k w)) (fun h => src_V (n_V / d1) (fun j k => uV h j k w))
                      (fun h => src_O (n_V / d1) (mV h) (fun i j k => vV h i j k w)) X a i)
                    (mha H T d1 d_K dV WQ WK WV WO X a i)) <= err_theorem9 H d1 d2 alpha eps)
  (fail_theorem9 H d1 d2 alpha eps).
Proof.
  assert (Halpha : 0 < alpha) by (eapply Rlt_le_trans; [| exact Ha1]; apply sqrt_lt_R0, lt_0_INR; lia).
  assert (HH' : 1 <= INR H) by (apply one_le_INR; exact HH).
  assert (Hd1' : 1 <= INR d1) by (apply one_le_INR; exact Hd1).
  assert (Hd2' : 1 <= INR d2) by (apply one_le_INR; exact Hd2).
  (* S2a-eps, S2d-eps: Lemma 7's budgets eps_QK, eps_VO lie in (0, 1] *)
  assert (HQK : 0 < {c:eps_QK} <= 1).
  { split; [| let S := fresh in instance {step:S2a-eps} S; eapply Rle_trans; [| exact S]; right; sf].
    repeat (apply Rmult_lt_0_compat || apply Rdiv_lt_0_compat || apply Rinv_0_lt_compat || apply pow_lt
            || apply sqrt_lt_R0); lra. }
  assert (HVO : 0 < {c:eps_VO} <= 1).
  { split; [| let S := fresh in instance {step:S2d-eps} S; eapply Rle_trans; [| exact S]; right; sf].
    repeat (apply Rmult_lt_0_compat || apply Rdiv_lt_0_compat || apply Rinv_0_lt_compat || apply pow_lt
            || apply sqrt_lt_R0); lra. }
  (* S2a, S2d: the printed widths are Lemma 7's at eps_QK (d2 := d1) and at eps_VO *)
  assert (HwK : n_lemma7 C d1 d1 {c:eps_QK} <= INR n_K)
    by (eapply Rle_trans; [| exact HnK]; unfold n_lemma7, n_K_theorem9; via {step:S2a}).
  assert (HwV : n_lemma7 C d1 d2 {c:eps_VO} <= INR n_V)
    by (eapply Rle_trans; [| exact HnV]; unfold n_lemma7, n_V_theorem9; via {step:S2d}).
  (* Lemma 7 for each head, on W_QK and on W_VO^T *)
  pose proof (whp_all_const P H _ _ (fun h Hh => stmt_lemma7 Omega P lueker_class C HC lueker d1 d1 n_K {c:eps_QK}
    (vQ h) (uQ h) Hd1 Hd1 (proj1 HQK) (proj2 HQK) HwK HdivK (itemsQ h Hh))) as EQ.
  pose proof (whp_all_const P H _ _ (fun h Hh => stmt_lemma7 Omega P lueker_class C HC lueker d1 d2 n_V {c:eps_VO}
    (vV h) (uV h) Hd1 Hd2 (proj1 HVO) (proj2 HVO) HwV HdivV (itemsV h Hh))) as EV.
  (* S4: the union bound over the 2H applications of Lemma 7 *)
  eapply whp_mono; [| | exact (whp_and P _ _ _ _ EQ EV)].
  2: { unfold fail_lemma7, fail_theorem9. via {step:S4}. }
  intros w [LQ LV] WQ WK WV WO HW. unfold lemma7_event, err_lemma7 in LQ, LV.
  set (n' := (n_K / d1)%nat) in *. set (n'' := (n_V / d1)%nat) in *.
  assert (S1 : / sqrt (INR d_K) <= 1) by (let S := fresh in instance {step:S1} S; exact S).
  (* S2a, S2d: Lemma 7 on each head's W_QK and W_VO^T, on the event *)
  pose proof (fun h (Hh : (h < H)%nat) => LQ h Hh (WQK d_K (WQ h) (WK h)) (fun r c Hr Hc => entry_le_op d1 d1 _ 1 r c
    (WQK_op d1 d_K (WQ h) (WK h) HdK S1 (proj1 (HW h Hh)) (proj1 (proj2 (HW h Hh)))) Hr Hc)) as L7Q.
  pose proof (fun h (Hh : (h < H)%nat) => LV h Hh (transpose (WVO dV (WV h) (WO h))) (fun r c Hr Hc => entry_le_op d2 d1 _ 1 r c
    (WVO_op d1 dV d2 (WV h) (WO h) (proj1 (proj2 (proj2 (HW h Hh)))) (proj2 (proj2 (proj2 (HW h Hh))))) Hr Hc)) as L7V.
  destruct (finite_choice_of _ (fun _ _ _ => 0) H _ L7Q) as [mQ HmQ].
  destruct (finite_choice_of _ (fun _ _ _ => 0) H _ L7V) as [mV HmV].
  cbv beta in HmQ, HmV.
  exists mQ, mV. split; [intros h i j k Hh Hi Hj; apply (proj1 (HmQ h Hh)); assumption|].
  split; [intros h i j k Hh Hi Hj; apply (proj1 (HmV h Hh)); assumption|].
  intros T X a HX i Hi Ha. unfold err_theorem9.
  (* S3c: the heads' errors add up; S1-S3b per head (head_gap) *)
  eapply Rle_trans; [eapply mha_gap; intros h Hh; cbv beta; rewrite norm_heads_merged; eapply head_gap|].
  - exact Hd1.
  - exact Hd2.
  - exact Hi.
  - exact Ha.
  - exact HX.
  - apply WVO_op; apply HW; exact Hh.
  - intros r c Hr Hc. rewrite src_QK. apply (proj2 (HmQ h Hh)); assumption.
  - intros r c Hr Hc. rewrite src_VO. apply (proj2 (HmV h Hh)); assumption.
  - apply Rle_refl.
  - (* S2b-S2c (the logit error, Lemma 8 and exp(x) - 1 <= 2x), S3b, and S3c's sum over the heads *)
    apply Rle_trans with (INR H * ({c:S3a} + {c:S3b})).
    + apply Rmult_le_compat_l; [apply pos_INR|]. apply Rplus_le_compat; [via {step:S2c-i} | via {step:S3b}].
    + via {step:S3c}.
Qed.
End theorem9.
