(* The premises of the proofs (bounds/premises.py), each a formal Coq proposition premise_*.  A premise
   with a Coq proof has a lemma premise_*_holds beside it; the others are only stated: a statement's theorem
   takes them as Section hypotheses (Statements.v), so that its closed type names the premises it still rests on.
   A proposition defined here is stated, not asserted; what each theorem rests on is what Print Assumptions
   reports for it (slth proofs --axioms --coq), and an axiom-declaring form in this file fails the build. *)
From Coq Require Import Reals Lra Lia.
From SlthMath Require Import Objects Sums Softmax Matrix Triangle Blocks Induction Attention Uniform Transformer.
Open Scope R_scope.

(* --- proved --------------------------------------------------------------------------------------------- *)

(* softmax perturbation identity: sigma(z+e; a)_j = sigma(z; a)_j exp(e_j) / Z, exp(-eps) <= Z <= exp(eps),
   and eq. (9): |1 - exp(e_j)/Z| <= exp(2 eps) - 1 *)
Definition premise_softmax_identity : Prop :=
  (forall T a z e j, is_mask T a ->
     softmax T a (vadd z e) j = softmax T a z j * exp (e j) / Zshift T (softmax T a z) e) /\
  (forall T a z e eps, is_mask T a -> (forall k, (k < T)%nat -> Rabs (e k) <= eps) ->
     exp (- eps) <= Zshift T (softmax T a z) e <= exp eps) /\
  (forall Z ej eps, exp (- eps) <= Z <= exp eps -> Rabs ej <= eps -> Rabs (1 - exp ej / Z) <= exp (2 * eps) - 1).

Lemma premise_softmax_identity_holds : premise_softmax_identity.
Proof. exact (conj softmax_shift (conj Z_bounds ratio_bound)). Qed.

(* Hoelder step: |sum_k q_k X_kj| <= max_k |X_kj| sum_k |q_k| *)
Definition premise_hoelder : Prop :=
  forall T (q : vec) (X : mat) j alpha, (forall k, (k < T)%nat -> Rabs (X k j) <= alpha) ->
    Rabs (sum T (fun k => q k * X k j)) <= alpha * sum T (fun k => Rabs (q k)).

Lemma premise_hoelder_holds : premise_hoelder.
Proof. exact hoelder. Qed.

(* |W_ij| <= ||W||: every entry of a matrix is bounded by an operator-norm bound of it *)
Definition premise_entry_bound : Prop :=
  forall m n W c i j, op_bound m n W c -> (i < m)%nat -> (j < n)%nat -> Rabs (W i j) <= c.

Lemma premise_entry_bound_holds : premise_entry_bound.
Proof. exact entry_le_op. Qed.

(* the induction over a stack of maps: source within err_L of target after L maps *)
Definition stack_induction : Prop :=
  forall (dims : nat -> nat) (f g : nat -> vec -> vec) (K beta delta : nat -> R) x L,
  (forall l, 0 <= K l) ->
  (forall l u v, norm (dims (S l)) (vsub (f l u) (f l v)) <= K l * norm (dims l) (vsub u v)) ->
  (forall l u, norm (dims l) u <= beta l -> norm (dims (S l)) (f l u) <= beta (S l)) ->
  (forall l u, norm (dims l) u <= beta l + err K delta l -> norm (dims (S l)) (vsub (g l u) (f l u)) <= delta l) ->
  norm (dims O) x <= beta O ->
  norm (dims L) (vsub (iter g L x) (iter f L x)) <= err K delta L.

(* induction over layers (Theorem 10): the stack is the L ReLU layers *)
Definition premise_induction_layers : Prop := stack_induction.

Lemma premise_induction_layers_holds : premise_induction_layers.
Proof. exact layers_induction. Qed.

(* induction over blocks (Theorem 14): the B blocks act on all T tokens at once; a block's Lipschitz bound lip_b
   holds near the target's tokens (norm <= beta_b, perturbation <= delta_b) and need not be linear in delta_b, the
   source block is within eps_b of the target block on tokens of norm <= beta_b + delta_b, and
   eps_b + lip_b <= delta_(b+1) *)
Definition premise_induction_blocks : Prop :=
  forall (T d : nat) (F G : nat -> mat -> mat) (beta delta eps lip : nat -> R) (X : mat) B,
  (forall b Y, tokens_le T d Y (beta b) -> tokens_le T d (F b Y) (beta (S b))) ->
  (forall b Y Y', tokens_le T d Y (beta b) -> tokens_near T d Y' Y (delta b) -> tokens_near T d (F b Y') (F b Y) (lip b)) ->
  (forall b Y', tokens_le T d Y' (beta b + delta b) -> tokens_near T d (G b Y') (F b Y') (eps b)) ->
  (forall b, eps b + lip b <= delta (S b)) ->
  0 <= delta O -> tokens_le T d X (beta O) ->
  tokens_near T d (blocks G B X) (blocks F B X) (delta B).

Lemma premise_induction_blocks_holds : premise_induction_blocks.
Proof. exact blocks_induction. Qed.

(* merged attention targets: a head acts through W_QK = W_Q W_K^T / sqrt dK and W_VO = W_V W_O only, for any
   four matrices (the targets, or the pruned sources M_Q W~_Q, M_K W~_K, M_V W~_V, M_O W~_O): the head equals the
   merged head of the two products *)
Definition premise_merged_targets : Prop :=
  forall T d1 dK dV WQ WK WV WO (X a : mat) i c,
    head T d1 dK dV WQ WK WV WO X a i c = head_merged T d1 (WQK dK WQ WK) (WVO dV WV WO) X a i c.

Lemma premise_merged_targets_holds : premise_merged_targets.
Proof. exact head_merged_eq. Qed.

(* (1 + g)^L = exp(L ln(1 + g)) for g > -1, and exp increasing *)
Definition premise_power_as_exp : Prop :=
  (forall g L, -1 < g -> (1 + g) ^ L = exp (INR L * ln (1 + g))) /\ (forall x y, x < y -> exp x < exp y).

Lemma premise_power_as_exp_holds : premise_power_as_exp.
Proof. exact pow_as_exp_increasing. Qed.

(* uniformity over inputs: when the source map g differs from the target map f by a matrix D of entry errors on
   features phi x of the input with ||phi x|| <= ||x|| (phi x = x for one matrix, (ReLU(x); ReLU(-x)) for Lemma 2's
   pair), and one event E of the random weights bounds every entry of D, then on E the error is bounded for every
   input of the ball at once (the event first, the input after: no input enters E) *)
Definition premise_uniform_inputs : Prop :=
  forall (E : Prop) (m n N : nat) (f g phi : vec -> vec) (D : mat) (eta beta : R),
    (forall x i, (i < m)%nat -> g x i - f x i = matvec N D (phi x) i) ->
    (forall x, norm N (phi x) <= norm n x) ->
    (E -> forall i j, (i < m)%nat -> (j < N)%nat -> Rabs (D i j) <= eta) ->
    E -> forall x, norm n x <= beta -> norm m (vsub (g x) (f x)) <= sqrt (INR m) * sqrt (INR N) * eta * beta.

Lemma premise_uniform_inputs_holds : premise_uniform_inputs.
Proof. exact uniform_in_inputs. Qed.

(* --- stated, not proved ----------------------------------------------------------------------------------- *)

(* Lueker's item distribution: the N random items X_0 .. X_(N-1) (functions of the sample) are in the class Lueker's
   corollary is cited for: independent, each with a law that has a uniform component (a density bounded below on
   an interval around 0).  The class is a parameter of the cited corollary (Events.v: lueker_corollary); this is
   the modelling hypothesis that the construction's items belong to it *)
Definition premise_lueker_items {Omega : Type} (lueker_class : nat -> (nat -> Omega -> R) -> Prop) (N : nat)
  (X : nat -> Omega -> R) : Prop := lueker_class N X.

(* Lueker's corollary, as the event it gives: every subset-sum problem p < P of the construction (items
   item p 0 .. item p (N-1)) is solved within its budget, for every target z in [-1, 1] at once *)
Definition premise_lueker_event (P N : nat) (item : nat -> nat -> R) (budget : R) : Prop :=
  forall p, (p < P)%nat -> forall z, -1 <= z <= 1 ->
    exists m : nat -> R, (forall k, m k = 0 \/ m k = 1) /\
      Rabs (sum N (fun k => m k * item p k) - z) <= budget.

(* n = d1 n' when d1 does not divide n: the width requirement req is met by each block of n' = floor(n / d1) units *)
Definition premise_width_per_block (n d1 : nat) (req : R) : Prop :=
  req <= INR (n / d1).

(* Lemma 12's ||x'_i|| <= alpha: the perturbed tokens are in the ball too *)
Definition premise_lemma12_x' (T d : nat) (X' : mat) (alpha : R) : Prop :=
  forall k, (k < T)%nat -> norm d (X' k) <= alpha.

(* target weights of norm <= 1 *)
Definition premise_target_norms (m n : nat) (W : mat) : Prop := op_bound m n W 1.

(* Theorem 14's error and probability schedule: the budgets eps_b, errors delta_b and input norms beta_b used
   are the expressions the proof defines (eps_e, delta_e, beta_e) for b < B *)
Definition premise_schedule (B : nat) (eps_b delta_b beta_b eps_e delta_e beta_e : nat -> R) : Prop :=
  forall b, (b < B)%nat -> eps_b b = eps_e b /\ delta_b b = delta_e b /\ beta_b b = beta_e b.

(* rescaled sources in U[-1, 1]: the source entries' law is uniform on [-1, 1] (density 1/2 there, 0 outside), and
   the rescaled target sqrt(dK) W (m x n) has its entries in [-1, 1] *)
Definition premise_rescaled_sources (density : R -> R) (m n dK : nat) (W : mat) : Prop :=
  (forall x, -1 <= x <= 1 -> density x = 1 / 2) /\ (forall x, x < -1 \/ 1 < x -> density x = 0) /\
  (forall i j, (i < m)%nat -> (j < n)%nat -> Rabs (sqrt (INR dK) * W i j) <= 1).
