(* Probability for the statements "with probability at least 1 - eps": an outer probability, the union bound, and
   a model showing the defining properties satisfiable.

   A probability here is a record of its defining properties, not a construction: a function Pr from events (any
   predicate on the sample space Omega) to R that is nonnegative, monotone, finitely subadditive, 0 on the empty
   event and 1 on the sure event.  These are the axioms of an OUTER probability (finitely subadditive): every
   probability measure extends to one (its outer measure, Pr E = inf of P(A) over measurable A containing E), so
   an event never has to be proved measurable.  A statement "G holds with probability at least 1 - eps" is read
   as "the outer probability of the failure of G is at most eps" (whp): for a measurable G this is P(G) >= 1 - eps,
   and in general it says that G fails only inside a measurable set of probability at most eps, the reading of the
   paper's "with probability at least 1 - eps" that needs no measurability of the event "masks exist".

   No axiom is added: the model at the end (the Dirac probability at a point) shows that the record can be
   built with Coq's classical reals alone, so no theorem over an outer probability holds because its
   probability is contradictory. *)
From Coq Require Import Reals Lra Lia Classical_Prop.
From SlthMath Require Import Objects Sums.
Open Scope R_scope.

Record outer_prob (Omega : Type) := {
  Pr :> (Omega -> Prop) -> R;
  Pr_nonneg : forall E, 0 <= Pr E;
  Pr_mono : forall E F : Omega -> Prop, (forall w, E w -> F w) -> Pr E <= Pr F;
  Pr_subadd : forall E F : Omega -> Prop, Pr (fun w => E w \/ F w) <= Pr E + Pr F;
  Pr_empty : Pr (fun _ => False) = 0;
  Pr_full : Pr (fun _ => True) = 1 }.

Arguments Pr {Omega} _ _.
Arguments Pr_nonneg {Omega} _ _.
Arguments Pr_mono {Omega} _ _ _ _.
Arguments Pr_subadd {Omega} _ _ _.
Arguments Pr_empty {Omega} _.
Arguments Pr_full {Omega} _.

(* G holds with probability at least 1 - eps: the outer probability of its failure is at most eps (for a
   measurable G, P(G) >= 1 - eps) *)
Definition whp {Omega} (P : outer_prob Omega) (G : Omega -> Prop) (eps : R) : Prop :=
  Pr P (fun w => ~ G w) <= eps.

Section facts.
Variable Omega : Type.
Variable P : outer_prob Omega.

Lemma Pr_le_1 : forall E, Pr P E <= 1.
Proof. intros E. rewrite <- (Pr_full P). apply Pr_mono. auto. Qed.

(* the finite union bound (Boole's inequality): P(E_0 or .. or E_(n-1)) <= P(E_0) + .. + P(E_(n-1)) *)
Theorem union_bound : forall (n : nat) (E : nat -> Omega -> Prop),
  Pr P (fun w => exists k, (k < n)%nat /\ E k w) <= sum n (fun k => Pr P (E k)).
Proof.
  induction n as [|n IH]; intros E; simpl.
  - rewrite <- (Pr_empty P). apply Pr_mono. intros w [k [Hk _]]. lia.
  - eapply Rle_trans; [| apply Rplus_le_compat_r, (IH E)].
    eapply Rle_trans; [| apply Pr_subadd]. apply Pr_mono.
    intros w [k [Hk Ek]]. destruct (Nat.eq_dec k n) as [->|N]; [right; exact Ek | left; exists k; split; [lia | exact Ek]].
Qed.

(* an implied event: if G implies G' and G fails with probability at most eps <= eps', so does G' with eps' *)
Theorem whp_mono : forall (G G' : Omega -> Prop) (eps eps' : R),
  (forall w, G w -> G' w) -> eps <= eps' -> whp P G eps -> whp P G' eps'.
Proof.
  unfold whp. intros G G' eps eps' H He HG. eapply Rle_trans; [| eapply Rle_trans; [exact HG | exact He]].
  apply Pr_mono. intros w N Gw. exact (N (H w Gw)).
Qed.

(* every event holds with probability at least 1 - 1 *)
Lemma whp_one : forall (G : Omega -> Prop) (eps : R), 1 <= eps -> whp P G eps.
Proof. intros G eps H. unfold whp. pose proof (Pr_le_1 (fun w => ~ G w)). lra. Qed.

(* two events: the failure budgets add *)
Theorem whp_and : forall (G1 G2 : Omega -> Prop) (e1 e2 : R),
  whp P G1 e1 -> whp P G2 e2 -> whp P (fun w => G1 w /\ G2 w) (e1 + e2).
Proof.
  unfold whp. intros G1 G2 e1 e2 H1 H2. eapply Rle_trans; [| apply Rplus_le_compat; [exact H1 | exact H2]].
  eapply Rle_trans; [| apply Pr_subadd]. apply Pr_mono. intros w N.
  destruct (classic (G1 w)) as [g1|g1]; [right; intro g2; exact (N (conj g1 g2)) | left; exact g1].
Qed.

(* finitely many events: G_k with failure at most e_k for k < n all hold with failure at most the sum of the e_k *)
Theorem whp_all : forall (n : nat) (G : nat -> Omega -> Prop) (e : nat -> R),
  (forall k, (k < n)%nat -> whp P (G k) (e k)) -> whp P (fun w => forall k, (k < n)%nat -> G k w) (sum n e).
Proof.
  intros n G e H. unfold whp.
  eapply Rle_trans; [| apply sum_le; intros k Hk; exact (H k Hk)].
  eapply Rle_trans; [| apply union_bound]. apply Pr_mono. intros w N.
  apply NNPP. intro M. apply N. intros k Hk. apply NNPP. intro Gk. exact (M (ex_intro _ k (conj Hk Gk))).
Qed.

(* n events of the same budget e: failure at most n e *)
Corollary whp_all_const : forall (n : nat) (G : nat -> Omega -> Prop) (e : R),
  (forall k, (k < n)%nat -> whp P (G k) e) -> whp P (fun w => forall k, (k < n)%nat -> G k w) (INR n * e).
Proof. intros n G e H. rewrite <- sum_const. apply whp_all. exact H. Qed.

End facts.

Arguments union_bound {Omega} P n E.
Arguments whp_mono {Omega} P G G' eps eps'.
Arguments whp_one {Omega} P G eps.
Arguments whp_and {Omega} P G1 G2 e1 e2.
Arguments whp_all {Omega} P n G e.
Arguments whp_all_const {Omega} P n G e.

(* --- a model: the Dirac probability at a point w0 --------------------------------------------------------- *)

(* Pr E = 1 when E holds at w0, 0 when not (the decision is Coq's classical reals' sig_not_dec with classic) *)
Definition dirac_Pr {Omega} (w0 : Omega) (E : Omega -> Prop) : R :=
  if ClassicalDedekindReals.sig_not_dec (E w0) then 1 else 0.

Lemma dirac_Pr_true : forall {Omega} (w0 : Omega) (E : Omega -> Prop), E w0 -> dirac_Pr w0 E = 1.
Proof.
  intros Omega w0 E H. unfold dirac_Pr. destruct (ClassicalDedekindReals.sig_not_dec (E w0)) as [_|N];
    [reflexivity | contradiction].
Qed.

Lemma dirac_Pr_false : forall {Omega} (w0 : Omega) (E : Omega -> Prop), ~ E w0 -> dirac_Pr w0 E = 0.
Proof.
  intros Omega w0 E H. unfold dirac_Pr. destruct (ClassicalDedekindReals.sig_not_dec (E w0)) as [N|_];
    [contradiction | reflexivity].
Qed.

Lemma dirac_Pr_cases : forall {Omega} (w0 : Omega) (E : Omega -> Prop), (E w0 /\ dirac_Pr w0 E = 1) \/ (~ E w0 /\ dirac_Pr w0 E = 0).
Proof.
  intros Omega w0 E. destruct (classic (E w0)) as [H|H];
    [left; split; [exact H | apply dirac_Pr_true, H] | right; split; [exact H | apply dirac_Pr_false, H]].
Qed.

Definition dirac {Omega} (w0 : Omega) : outer_prob Omega.
Proof.
  refine {| Pr := dirac_Pr w0 |}.
  - intros E. destruct (dirac_Pr_cases w0 E) as [[_ ->]|[_ ->]]; lra.
  - intros E F H. destruct (dirac_Pr_cases w0 E) as [[e ->]|[_ ->]].
    + rewrite (dirac_Pr_true w0 F (H w0 e)). lra.
    + destruct (dirac_Pr_cases w0 F) as [[_ ->]|[_ ->]]; lra.
  - intros E F. destruct (dirac_Pr_cases w0 (fun w => E w \/ F w)) as [[[e|f] ->]|[_ ->]].
    + rewrite (dirac_Pr_true w0 E e). destruct (dirac_Pr_cases w0 F) as [[_ ->]|[_ ->]]; lra.
    + rewrite (dirac_Pr_true w0 F f). destruct (dirac_Pr_cases w0 E) as [[_ ->]|[_ ->]]; lra.
    + destruct (dirac_Pr_cases w0 E) as [[_ ->]|[_ ->]]; destruct (dirac_Pr_cases w0 F) as [[_ ->]|[_ ->]]; lra.
  - apply dirac_Pr_false. auto.
  - apply dirac_Pr_true. exact I.
Defined.

(* under the Dirac probability at w0, an event that holds at w0 holds with probability 1 *)
Lemma dirac_whp : forall {Omega} (w0 : Omega) (G : Omega -> Prop) eps, 0 <= eps -> G w0 -> whp (dirac w0) G eps.
Proof.
  intros Omega w0 G eps He HG. unfold whp. simpl. rewrite dirac_Pr_false by (intro N; exact (N HG)). exact He.
Qed.

(* the record is satisfiable: an outer probability exists on every inhabited type *)
Theorem outer_prob_exists : forall Omega, Omega -> exists P : outer_prob Omega, Pr P (fun _ => True) = 1.
Proof. intros Omega w0. exists (dirac w0). apply Pr_full. Qed.
