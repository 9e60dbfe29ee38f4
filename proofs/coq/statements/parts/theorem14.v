From SlthMath Require Import Theorem14.
(* Theorem 14's widths (block 1, blocks b >= 2), error and failure probability as the paper prints them (with the
   repaired kappa), and the proof's schedule: the input norm beta_b of block b, the error delta_b it receives, the
   budgets eps_1 (block 1) and eps_b (blocks b >= 2) *)
Definition n_MHA_first_theorem14 (C : R) (d1 H B : nat) (alpha eps : R) : R := {w:n_MHA#0}.
Definition n_MHA_theorem14 (C : R) (d1 H B b : nat) (alpha eps : R) : R := {w:n_MHA#1}.
Definition n_FC_first_theorem14 (C : R) (d1 H B L : nat) (alpha eps : R) : R := {w:n_FC#0}.
Definition n_FC_theorem14 (C : R) (d1 H B b L : nat) (alpha eps : R) : R := {w:n_FC#1}.
Definition err_theorem14 (eps : R) : R := {bound}.
Definition fail_theorem14 (eps : R) : R := {fail}.
Definition beta_theorem14 (d1 H b : nat) (alpha : R) : R := {t:beta}.
Definition delta_theorem14 (d1 H B b : nat) (alpha eps : R) : R := {t:delta}.
Definition eps_first_theorem14 (d1 H B : nat) (alpha eps : R) : R := {t:eps_b#0}.
Definition eps_block_theorem14 (d1 H B b : nat) (alpha eps : R) : R := {t:eps_b#1}.

Lemma Rpower_ge_1 : forall x y, 1 <= x -> 0 <= y -> 1 <= Rpower x y.
Proof.
  intros x y Hx Hy. unfold Rpower. rewrite <- exp_0. apply exp_mono.
  apply Rmult_le_pos; [exact Hy | apply slth_ln_nonneg; lra].
Qed.

Lemma Rpower_le_1 : forall x y, 1 <= x -> y <= 0 -> Rpower x y <= 1.
Proof.
  intros x y Hx Hy. unfold Rpower. rewrite <- exp_0. apply exp_mono.
  assert (0 <= ln x) by (apply slth_ln_nonneg; lra). nra.
Qed.

Section theorem14.
(* T14w: Theorem 11's widths at block b's input norm and budget are the printed closed forms: the logarithms of
   both sides agree once every power is expanded (ln_eq; the numerals as multiples of ln 2 and ln 3: ln_num) *)
Ltac ln_num :=
  let two k n := replace (ln n) with (INR k * ln 2) by (rewrite <- ln_pow by lra; f_equal; simpl; ring) in
  let three k n := replace (ln n) with (INR k * ln 2 + ln 3)
                     by (rewrite <- ln_pow, <- ln_mult by (try apply pow_lt; lra); f_equal; simpl; ring) in
  try two 2%nat constr:(4); try two 3%nat constr:(8); try two 4%nat constr:(16); try two 5%nat constr:(32);
  try two 6%nat constr:(64); try two 7%nat constr:(128); try two 8%nat constr:(256);
  try two 9%nat constr:(512); try two 10%nat constr:(1024); try three 1%nat constr:(6);
  try three 2%nat constr:(12); try three 3%nat constr:(24); try three 4%nat constr:(48);
  try three 5%nat constr:(96); try three 6%nat constr:(192); try three 7%nat constr:(384).
Ltac ln_eq := apply ln_inv; [slth_ppos | slth_ppos | unfold Rpower; slth_lnx; ln_num; simpl INR; field].
Ltac width_step S := eapply Rle_trans; [| eapply Rle_trans; [exact S|]]; apply Req_le; [f_equal; f_equal; ln_eq | reflexivity].

Lemma theorem14_widths : forall C (d1 H B b L : nat) alpha eps, 0 < C -> (1 <= H)%nat -> (1 <= d1)%nat ->
  (1 <= L)%nat -> (2 <= b)%nat -> (b <= B)%nat -> 0 < eps -> eps < 1 -> sqrt (INR d1) <= alpha ->
  n_MHA_theorem11 C H d1 ({c:perturbed_norm} * beta_theorem14 d1 H b alpha) (eps_block_theorem14 d1 H B b alpha eps)
    <= n_MHA_theorem14 C d1 H B b alpha eps /\
  n_FC_theorem11 C H d1 L ({c:perturbed_norm} * beta_theorem14 d1 H b alpha) (eps_block_theorem14 d1 H B b alpha eps)
    <= n_FC_theorem14 C d1 H B b L alpha eps.
Proof.
  intros C d1 H B b L alpha eps HC HH Hd1 HL Hb HbB He0 He1 Ha.
  assert (2 <= INR b) by (apply (le_INR 2); exact Hb). assert (INR b <= INR B) by (apply le_INR; exact HbB).
  assert (1 <= INR H) by (apply one_le_INR; exact HH). assert (1 <= INR d1) by (apply one_le_INR; exact Hd1).
  assert (1 <= INR L) by (apply one_le_INR; exact HL).
  assert (1 <= sqrt (INR d1)) by (rewrite <- sqrt_1; apply sqrt_le_1_alt; lra). assert (0 < alpha) by lra.
  unfold n_MHA_theorem11, n_MHA_theorem14, n_FC_theorem11, n_FC_theorem14, beta_theorem14, eps_block_theorem14.
  split; [let S := fresh in instance {step:T14w-n_MHA} S; width_step S
         | let S := fresh in instance {step:T14w-n_FC} S; width_step S].
Qed.

Lemma theorem14_widths_first : forall C (d1 H B L : nat) alpha eps, 0 < C -> (1 <= H)%nat -> (1 <= d1)%nat ->
  (1 <= L)%nat -> (2 <= B)%nat -> 0 < eps -> eps < 1 -> sqrt (INR d1) <= alpha ->
  n_MHA_theorem11 C H d1 alpha (eps_first_theorem14 d1 H B alpha eps) <= n_MHA_first_theorem14 C d1 H B alpha eps /\
  n_FC_theorem11 C H d1 L alpha (eps_first_theorem14 d1 H B alpha eps) <= n_FC_first_theorem14 C d1 H B L alpha eps.
Proof.
  intros C d1 H B L alpha eps HC HH Hd1 HL HB He0 He1 Ha.
  assert (2 <= INR B) by (apply (le_INR 2); exact HB).
  assert (1 <= INR H) by (apply one_le_INR; exact HH). assert (1 <= INR d1) by (apply one_le_INR; exact Hd1).
  assert (1 <= INR L) by (apply one_le_INR; exact HL).
  assert (1 <= sqrt (INR d1)) by (rewrite <- sqrt_1; apply sqrt_le_1_alt; lra). assert (0 < alpha) by lra.
  unfold n_MHA_theorem11, n_MHA_first_theorem14, n_FC_theorem11, n_FC_first_theorem14, eps_first_theorem14.
  split; [let S := fresh in instance {step:T14w-n_MHA-1} S; width_step S
         | let S := fresh in instance {step:T14w-n_FC-1} S; width_step S].
Qed.

(* the union bound's geometric sum: sum_(k < n) 32^((k + 1) - n) <= 32/31 *)
Lemma geometric_32 : forall n, sum n (fun k => Rpower 32 (INR k + 1 - INR n)) <= 32 / 31.
Proof.
  induction n as [|n IH]; [simpl; lra|]. rewrite S_INR. change (sum (S n) ?f) with (sum n f + f n). cbv beta.
  rewrite (sum_ext n _ (fun k => Rpower 32 (INR k + 1 - INR n) * / 32)).
  - rewrite sum_scal_r. replace (INR n + 1 - (INR n + 1)) with 0 by ring. rewrite Rpower_O by lra. lra.
  - intros k _. replace (INR k + 1 - (INR n + 1)) with ((INR k + 1 - INR n) + - (1)) by ring.
    rewrite Rpower_plus, Rpower_Ropp, Rpower_1 by lra. reflexivity.
Qed.

Lemma sum_first : forall n f, sum (S n) f = f O + sum n (fun k => f (S k)).
Proof.
  induction n as [|n IH]; intros f; [simpl; ring|]. change (sum (S (S n)) f) with (sum (S n) f + f (S n)).
  rewrite IH. change (sum (S n) (fun k => f (S k))) with (sum n (fun k => f (S k)) + f (S n)). ring.
Qed.

Variables (Omega : Type) (P : outer_prob Omega) (lueker_class : nat -> (nat -> Omega -> R) -> Prop) (C : R).
Hypothesis HC : 0 < C.
Hypothesis lueker : lueker_cited P lueker_class C.
(* B >= 2 blocks, each with H heads on tokens of size d1, target heads with d_K, d_V and a target ReLU net of L
   layers of width d1; block k (k = 0 .. B-1, the paper's block k + 1) has n_MHA = nM k and n_FC = nF k *)
Variables (d1 H B L dK dV : nat) (alpha eps : R) (nM nF : nat -> nat).
Hypotheses (HH : (1 <= H)%nat) (Hd1 : (1 <= d1)%nat) (HdK : (1 <= dK)%nat) (HB : (2 <= B)%nat) (HL : (1 <= L)%nat)
  (Heps0 : 0 < eps) (Heps1 : eps < 1) (Ha : sqrt (INR d1) <= alpha).
(* the printed widths of block 1 and of the blocks b >= 2 *)
Hypotheses (HnM0 : n_MHA_first_theorem14 C d1 H B alpha eps <= INR (nM O))
  (HnF0 : n_FC_first_theorem14 C d1 H B L alpha eps <= INR (nF O)).
Hypotheses (HnM : forall k, (1 <= k < B)%nat -> n_MHA_theorem14 C d1 H B (S k) alpha eps <= INR (nM k))
  (HnF : forall k, (1 <= k < B)%nat -> n_FC_theorem14 C d1 H B (S k) L alpha eps <= INR (nF k)).
(* not in the printed statement: d1 divides every width *)
Hypotheses (HdivM : forall k, (k < B)%nat -> (nM k mod d1 = 0)%nat) (HdivF : forall k, (k < B)%nat -> (nF k mod d1 = 0)%nat).
(* block k's random items (Theorem11.v's record items), functions of the sample w *)
Variable s : Omega -> nat -> items.
(* the modelling hypotheses of Theorem 11 for every block *)
Hypothesis itemsQ : forall b, (b < B)%nat -> forall h, (h < H)%nat -> forall i j, (i < d1)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (nM b / d1) (fun k w => vQ (s w b) h i j k * uQ (s w b) h j k).
Hypothesis itemsV : forall b, (b < B)%nat -> forall h, (h < H)%nat -> forall i j, (i < d1)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (nM b / d1) (fun k w => vV (s w b) h i j k * uV (s w b) h j k).
Hypothesis itemsF_pos : forall b, (b < B)%nat -> forall l, (l < L)%nat -> forall i j, (i < d1)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (nF b / d1) (fun k w => vF (s w b) l i j k * relu (uF (s w b) l j k)).
Hypothesis itemsF_neg : forall b, (b < B)%nat -> forall l, (l < L)%nat -> forall i j, (i < d1)%nat -> (j < d1)%nat ->
  premise_lueker_items lueker_class (nF b / d1) (fun k w => vF (s w b) l i j k * relu (- uF (s w b) l j k)).
(* Theorem 14 (Theorem 6 of the main text): with probability at least 1 - eps, for every target transformer of B
   blocks with all weights of norm <= 1, masks in {0, 1} put the pruned transformer (tf_pruned, Theorem14.v) within
   the printed error of the target (tf_target) on every input whose tokens have norm at most alpha, every length,
   every attention mask, every token.  Differences from the printed statement: kappa = 65 (the printed 16 does not
   close the proof's block step with Lemma 13 in the form its proof gives, factor 2); d1 divides every width; one
   event for all targets *)
Theorem stmt_theorem14 : whp P (fun w => forall t : nat -> target,
  (forall k, (k < B)%nat -> target_norms H d1 dK dV L (t k)) ->
  exists m : nat -> masks, (forall k, (k < B)%nat -> masks_binary H d1 L (m k)) /\
  forall (T : nat) (a : mat), (forall i, (i < T)%nat -> is_mask T (a i)) ->
  forall X : mat, tokens_le T d1 X alpha ->
    tokens_near T d1 (blocks (tf_pruned H T d1 L (fun k => nM k / d1)%nat (fun k => nF k / d1)%nat (s w) m a) B X)
                     (blocks (tf_target H T d1 dK dV L t a) B X) (err_theorem14 eps))
  (fail_theorem14 eps).
Proof.
  assert (HK : 0 < {c:growth}) by (assert (1 <= INR H) by (apply one_le_INR; exact HH);
    assert (0 < sqrt (INR d1)) by (apply sqrt_lt_R0, lt_0_INR; lia); nra).
  assert (Hs1 : 1 <= sqrt (INR d1)) by (rewrite <- sqrt_1; apply sqrt_le_1_alt, one_le_INR, Hd1).
  assert (Hal : 1 <= alpha) by lra.
  assert (HHr : 1 <= INR H) by (apply one_le_INR; exact HH).
  assert (HBr : 2 <= INR B) by (apply (le_INR 2); exact HB).
  assert (Hd1r : 1 <= INR d1) by (apply one_le_INR; exact Hd1).
  (* the schedule, block k = the paper's block k + 1 *)
  set (beta' := fun k => beta_theorem14 d1 H (S k) alpha).
  set (delta' := fun k => delta_theorem14 d1 H B (S k) alpha eps).
  set (eps' := fun k => match k with O => eps_first_theorem14 d1 H B alpha eps
                                   | S _ => eps_block_theorem14 d1 H B (S k) alpha eps end).
  set (c' := fun k => match k with O => alpha | S _ => {c:perturbed_norm} * beta_theorem14 d1 H (S k) alpha end).
  assert (Hbeta_ge : forall b, (1 <= b)%nat -> alpha <= beta_theorem14 d1 H b alpha).
  { intros b Hb. unfold beta_theorem14. assert (1 <= INR b) by (apply one_le_INR; exact Hb).
    pose proof (Rpower_ge_1 {c:growth} (- 1 + INR b) ltac:(nra) ltac:(lra)). nra. }
  assert (Hbeta0 : beta' O = alpha)
    by (unfold beta', beta_theorem14; simpl INR; replace (- 1 + 1) with 0 by ring; rewrite Rpower_O by exact HK; ring).
  assert (Hgrow : forall k, beta' (S k) = {c:growth} * beta' k).
  { intros k. unfold beta', beta_theorem14. rewrite (S_INR (S k)). replace (- 1 + (INR (S k) + 1)) with ((- 1 + INR (S k)) + 1) by ring.
    rewrite Rpower_plus, Rpower_1 by exact HK. ring. }
  (* block k's budget lies in (0, 1) and its input norm is >= sqrt d1 *)
  assert (Heps' : forall k, (k < B)%nat -> 0 < eps' k < 1).
  { intros [|k] Hk; cbv beta iota delta [eps' c']; unfold eps_first_theorem14, eps_block_theorem14.
    - split; [slth_ppos|]. let S := fresh in instance {step:U1} S. lra.
    - assert (2 <= INR (S (S k))) by (apply (le_INR 2); lia). assert (INR (S (S k)) <= INR B) by (apply le_INR; lia).
      split; [slth_ppos|]. set (b := S (S k)) in *. let S := fresh in instance {step:U2b} S.
      pose proof (Rpower_le_1 32 (INR b + - 1 * INR B) ltac:(lra) ltac:(lra)). nra. }
  assert (Hc' : forall k, sqrt (INR d1) <= c' k).
  { intros [|k]; cbv beta iota delta [eps' c']; [exact Ha|]. pose proof (Hbeta_ge (S (S k)) ltac:(lia)). lra. }
  (* T14w: each block's widths are Theorem 11's at its input norm and budget *)
  assert (Hw : forall k, (k < B)%nat -> n_MHA_theorem11 C H d1 (c' k) (eps' k) <= INR (nM k) /\
                                        n_FC_theorem11 C H d1 L (c' k) (eps' k) <= INR (nF k)).
  { intros [|k] Hk; cbv beta iota delta [eps' c'].
    - destruct (theorem14_widths_first C d1 H B L alpha eps HC HH Hd1 HL HB Heps0 Heps1 Ha) as [W1 W2].
      split; [exact (Rle_trans _ _ _ W1 HnM0) | exact (Rle_trans _ _ _ W2 HnF0)].
    - destruct (theorem14_widths C d1 H B (S (S k)) L alpha eps HC HH Hd1 HL ltac:(lia) ltac:(lia) Heps0 Heps1 Ha)
        as [W1 W2].
      split; [exact (Rle_trans _ _ _ W1 (HnM (S k) ltac:(lia))) | exact (Rle_trans _ _ _ W2 (HnF (S k) ltac:(lia)))]. }
  (* Theorem 11 at every block, on its event *)
  assert (H11 : forall k, (k < B)%nat -> whp P (fun w => forall tb : target, target_norms H d1 dK dV L tb ->
      theorem11_masks H d1 dK dV (nM k / d1) (nF k / d1) L (s w k) tb (c' k) (eps' k)) (eps' k)).
  { intros k Hk. eapply whp_mono; [| | exact (stmt_theorem11 Omega P lueker_class C HC lueker H d1 dK dV L (nM k) (nF k)
        (c' k) (eps' k) HH Hd1 HdK HL (proj1 (Heps' k Hk)) (proj2 (Heps' k Hk)) (Hc' k) (proj1 (Hw k Hk))
        (proj2 (Hw k Hk)) (HdivM k Hk) (HdivF k Hk) (fun w => s w k) (itemsQ k Hk) (itemsV k Hk) (itemsF_pos k Hk)
        (itemsF_neg k Hk))].
    - intros w G tb Ht. exact (G tb Ht).
    - unfold fail_theorem11. right. reflexivity. }
  (* the chain (Theorem14.v: theorem14_whp) with T14a-T14d *)
  eapply whp_mono; [| | apply (theorem14_whp Omega P H d1 dK dV L B (fun k => nM k / d1)%nat (fun k => nF k / d1)%nat
                                 s beta' delta' eps' c' eps' HH Hd1 HL ltac:(lia))].
  - (* T14e: the error after block B is delta_(B+1) <= eps *)
    intros w G t Ht. destruct (G t Ht) as [m [Hm G14]]. exists m. split; [exact Hm|].
    intros T a Ham X HX i Hi. eapply Rle_trans; [apply (G14 T a Ham X); [rewrite Hbeta0; exact HX | exact Hi]|].
    unfold delta', delta_theorem14, err_theorem14. instance {step:T14e} ST14e.
    eapply Rle_trans; [| exact ST14e]. right. rewrite S_INR.
    repeat match goal with |- context [Rpower ?x ?a] => match goal with |- context [Rpower x ?c] =>
      tryif constr_eq a c then fail else replace a with c by ring end end.
    repeat match goal with |- context [Rpower ?x ?e] => tryif constr_eq e 0 then fail else replace e with 0 by ring end.
    rewrite !Rpower_O by (repeat apply Rmult_lt_0_compat; first [lra | apply pow_lt; lra | apply sqrt_lt_R0; lra]).
    ring.
  - (* the union bound over the blocks: U1, U2b, the geometric sum, U4, U5 *)
    unfold fail_theorem14. assert (HBs : B = S (pred B)) by lia. rewrite HBs at 1. rewrite sum_first.
    instance {step:U4} SU4. instance {step:U5} SU5.
    apply Rle_trans with ({c:union} * eps); [| nra].
    apply Rle_trans with ({c:first_share} * eps + {c:later_share} * eps); [apply Rplus_le_compat | nra].
    + cbv beta iota delta [eps']. instance {step:U1} SU1. eapply Rle_trans; [exact SU1 | right; field].
    + apply Rle_trans with (sum (pred B) (fun k => eps / 2 * Rpower 32 (INR k + 1 - INR (pred B)))).
      * apply sum_le. intros k Hk. cbv beta iota delta [eps'].
        assert (2 <= INR (S (S k))) by (apply (le_INR 2); lia). assert (INR (S (S k)) <= INR B) by (apply le_INR; lia).
        set (b := S (S k)) in *. instance {step:U2b} SU2b. eapply Rle_trans; [exact SU2b|]. right.
        replace (INR k + 1 - INR (pred B)) with (INR b + - 1 * INR B); [field|].
        unfold b. rewrite !S_INR.
        assert (HP : INR B = INR (pred B) + 1) by (rewrite <- S_INR, <- HBs; reflexivity). rewrite HP. ring.
      * rewrite sum_scal_l. pose proof (geometric_32 (pred B)). nra.
  - (* T14a: the target block's norm *)
    intros k Hk. rewrite Hgrow. let S := fresh in instance {step:T14a} S.
    assert (0 <= beta' k) by (pose proof (Hbeta_ge (S k) ltac:(lia)); unfold beta'; lra).
    assert (INR H <= INR H * sqrt (INR d1)) by nra. nra.
  - (* block 1 receives the exact input *)
    rewrite Hbeta0. cbv beta iota delta [eps' c']. lra.
  - (* T14c: the perturbed tokens' norm *)
    intros [|k] Hk; [lia|]. cbv beta iota delta [eps' c']. unfold beta', delta'.
    assert (2 <= INR (S (S k))) by (apply (le_INR 2); lia). assert (INR (S (S k)) <= INR B) by (apply le_INR; lia).
    set (b := S (S k)) in *. instance {step:T14c} ST14c.
    eapply Rle_trans; [| eapply Rle_trans; [exact ST14c|]]; right; unfold beta_theorem14, delta_theorem14; ring.
  - (* T14b: block 1's budget eps_1 <= delta_2 *)
    cbv beta iota delta [eps' c']. unfold delta', eps_first_theorem14, delta_theorem14.
    let S := fresh in instance {step:T14b} S; eapply Rle_trans; [exact S | right].
    rewrite !S_INR; change (INR 0) with 0.
    repeat match goal with |- context [Rpower ?x ?a] => match goal with |- context [Rpower x ?c] =>
      tryif constr_eq a c then fail else replace a with c by ring end end. ring.
  - (* T14d: block b >= 2 adds eps_b and Lemma 13's bound (lemma13_block's factor 2) <= delta_(b+1) *)
    intros [|k] Hk; [lia|]. cbv beta iota delta [eps' c']. unfold beta', delta'.
    assert (2 <= INR (S (S k))) by (apply (le_INR 2); lia). assert (INR (S (S k)) <= INR B) by (apply le_INR; lia).
    set (b := S (S k)) in *.
    instance {step:T14d-i} Si. instance {step:T14d-ii} Sii.
    eapply Rle_trans; [apply Rplus_le_compat_l; eapply Rle_trans; [| exact Si] |].
    + (* Lemma 13's bound as lemma13_block proves it is the bound the step T14d-i starts from *)
      right. unfold lemma13_bound, beta_theorem14, delta_theorem14. same_exp. ring.
    + eapply Rle_trans; [| eapply Rle_trans; [exact Sii | right]].
      * right. unfold eps_block_theorem14. ring.
      * unfold delta_theorem14. rewrite (S_INR b).
        repeat match goal with |- context [Rpower ?x ?a] => match goal with |- context [Rpower x ?c] =>
          tryif constr_eq a c then fail else replace a with c by ring end end. ring.
  - exact H11.
Qed.
End theorem14.
