(* The induction over blocks (Theorem 14) as its proof runs it: a block acts on all T tokens at once (attention
   mixes them), its Lipschitz bound holds only near the target's tokens and need not be linear in the perturbation
   (Lemma 13's H sqrt(d1) (alpha (exp(4 alpha delta) - 1) + 2 delta), at the input norm the block receives), and the
   source block is within eps_b of the target block only on inputs of bounded norm (Theorem 11 at that norm).

   Target blocks F_b and source blocks G_b map T tokens of size d to T tokens.  If F_b carries tokens of norm
   <= beta_b to tokens of norm <= beta_(b+1); moves tokens by at most lip_b when its input, tokens of norm <= beta_b,
   moves by at most delta_b; G_b is within eps_b of F_b on tokens of norm <= beta_b + delta_b; and
   eps_b + lip_b <= delta_(b+1), then after B blocks the source's tokens are within delta_B of the target's
   (blocks_induction).  layers_induction (Induction.v) asks more: a Lipschitz constant K_l valid for every pair of
   inputs, which Lemma 13 does not give. *)
From Coq Require Import Reals Lra Lia.
From SlthMath Require Import Objects Sums Triangle Induction.
Open Scope R_scope.

(* every one of the T tokens of X (of size d) has norm at most c *)
Definition tokens_le (T d : nat) (X : mat) (c : R) : Prop := forall i, (i < T)%nat -> norm d (X i) <= c.

(* the tokens of X' within c of those of X *)
Definition tokens_near (T d : nat) (X' X : mat) (c : R) : Prop :=
  forall i, (i < T)%nat -> norm d (vsub (X' i) (X i)) <= c.

(* the blocks F 0, ..., F (b-1) applied in turn *)
Fixpoint blocks (F : nat -> mat -> mat) (b : nat) (X : mat) : mat :=
  match b with
  | O => X
  | S b' => F b' (blocks F b' X)
  end.

Theorem blocks_induction : forall (T d : nat) (F G : nat -> mat -> mat) (beta delta eps lip : nat -> R) (X : mat) B,
  (forall b Y, tokens_le T d Y (beta b) -> tokens_le T d (F b Y) (beta (S b))) ->
  (forall b Y Y', tokens_le T d Y (beta b) -> tokens_near T d Y' Y (delta b) -> tokens_near T d (F b Y') (F b Y) (lip b)) ->
  (forall b Y', tokens_le T d Y' (beta b + delta b) -> tokens_near T d (G b Y') (F b Y') (eps b)) ->
  (forall b, eps b + lip b <= delta (S b)) ->
  0 <= delta O -> tokens_le T d X (beta O) ->
  tokens_near T d (blocks G B X) (blocks F B X) (delta B).
Proof.
  intros T d F G beta delta eps lip X B Hnorm Hlip Happ Hstep H0 HX.
  assert (HF : forall b, tokens_le T d (blocks F b X) (beta b)).
  { induction b as [|b IH]; simpl; [exact HX | apply Hnorm, IH]. }
  induction B as [|B IH]; simpl.
  - intros i Hi. rewrite (norm_ext _ _ (fun _ => 0)) by (intros; unfold vsub; ring).
    unfold norm. rewrite (sum_ext _ _ (fun _ => 0)) by (intros; ring). rewrite sum_const, Rmult_0_r, sqrt_0. exact H0.
  - intros i Hi. eapply Rle_trans; [apply (vsub_split _ _ (F B (blocks G B X) i))|].
    eapply Rle_trans; [| apply Hstep]. apply Rplus_le_compat.
    + apply Happ; [| exact Hi]. intros k Hk. eapply Rle_trans; [apply (norm_le_sub _ _ (blocks F B X k))|].
      apply Rplus_le_compat; [apply HF, Hk | apply IH, Hk].
    + apply Hlip; [apply HF | exact IH | exact Hi].
Qed.

(* The conclusions Theorem 14 cites per block, for a target block F and a source block G on T tokens of size d.
   Theorem 11 for one block: the target block multiplies the tokens' norm bound by at most K (its proof's
   ||Blk_T(x)|| <= 2 (||Attn_T(x)|| + ||x||) <= 2 (H sqrt(d1) + 1) ||x||, at most K = 4 H sqrt(d1)), and the source
   block is within err of it on every input whose tokens have norm at most c. *)
Definition theorem11_conclusion (T d : nat) (F G : mat -> mat) (K c err : R) : Prop :=
  (forall c' Y, tokens_le T d Y c' -> tokens_le T d (F Y) (K * c')) /\
  (forall Y, tokens_le T d Y c -> tokens_near T d (G Y) (F Y) err).

(* Lemma 13 for one block: an input of tokens of norm at most c moved by at most delta moves the block's output by
   at most lip *)
Definition lemma13_conclusion (T d : nat) (F : mat -> mat) (c delta lip : R) : Prop :=
  forall Y Y', tokens_le T d Y c -> tokens_near T d Y' Y delta -> tokens_near T d (F Y') (F Y) lip.

(* The chain of B blocks as Theorem 14 runs it: block 0 receives the exact input (no Lipschitz bound needed, its
   error is eps 0 <= delta 1), each later block b < B adds its own error eps b to the Lipschitz bound lip b of the
   error delta b it receives; the hypotheses are asked of the blocks used only. *)
Theorem blocks_chain : forall (T d : nat) (F G : nat -> mat -> mat) (beta delta eps lip : nat -> R) (X : mat) B,
  (forall b Y, (b < B)%nat -> tokens_le T d Y (beta b) -> tokens_le T d (F b Y) (beta (S b))) ->
  (forall b Y Y', (1 <= b < B)%nat -> tokens_le T d Y (beta b) -> tokens_near T d Y' Y (delta b) ->
                  tokens_near T d (F b Y') (F b Y) (lip b)) ->
  (forall b Y', (b < B)%nat -> tokens_le T d Y' (beta b + delta b) -> tokens_near T d (G b Y') (F b Y') (eps b)) ->
  (0 < B)%nat -> eps O <= delta 1%nat -> (forall b, (1 <= b < B)%nat -> eps b + lip b <= delta (S b)) ->
  0 <= delta O -> tokens_le T d X (beta O) ->
  tokens_near T d (blocks G B X) (blocks F B X) (delta B).
Proof.
  intros T d F G beta delta eps lip X B Hnorm Hlip Happ HB H0 Hstep Hd0 HX.
  assert (HF : forall b, (b <= B)%nat -> tokens_le T d (blocks F b X) (beta b)).
  { induction b as [|b IH]; simpl; intros Hb; [exact HX | apply Hnorm; [lia | apply IH; lia]]. }
  assert (Hb : forall b, (1 <= b <= B)%nat -> tokens_near T d (blocks G b X) (blocks F b X) (delta b)).
  { induction b as [|b IH]; intros Hb; [lia|]. simpl. destruct b as [|b].
    - simpl. intros i Hi. eapply Rle_trans; [| exact H0]. apply Happ; [lia | | exact Hi].
      intros k Hk. eapply Rle_trans; [apply HX, Hk | lra].
    - intros i Hi. eapply Rle_trans; [apply (vsub_split _ _ (F (S b) (blocks G (S b) X) i))|].
      eapply Rle_trans; [| apply Hstep; lia]. apply Rplus_le_compat.
      + apply Happ; [lia | | exact Hi]. intros k Hk.
        eapply Rle_trans; [apply (norm_le_sub _ _ (blocks F (S b) X k))|].
        apply Rplus_le_compat; [apply HF; [lia | exact Hk] | apply IH; [lia | exact Hk]].
      + apply Hlip; [lia | apply HF; lia | apply IH; lia | exact Hi]. }
  apply Hb; lia.
Qed.
