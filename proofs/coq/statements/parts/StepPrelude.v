
(* The exported scalar steps (proofs/coq/<statement>.v, compiled here as Scalar_<statement>) applied to the
   statements' parameters: [dom] proves a step's hypotheses (integrality, lower bounds, the domain of eps and
   alpha), [sf] an equation between two printed expressions (each sqrt (INR n) abstracted as s with s * s = INR n,
   then field), [via S] closes a <= b through step S: a = S's left side, S, S's right side = b. *)
Lemma one_le_INR : forall n, (1 <= n)%nat -> 1 <= INR n.
Proof. intros n H. apply (le_INR 1) in H. exact H. Qed.

Ltac dom := first [ assumption | match goal with |- is_int (INR ?n) => exists (Z.of_nat n); apply INR_IZR_INZ end
                  | apply one_le_INR; assumption | lra ].
Ltac sqrt_out n :=
  let s := fresh "s" in let E := fresh "E" in let P := fresh "P" in
  assert (P : 0 < sqrt (INR n)) by (apply sqrt_lt_R0, lt_0_INR; lia);
  assert (E : sqrt (INR n) * sqrt (INR n) = INR n) by (apply sqrt_sqrt, pos_INR);
  revert P E; generalize (sqrt (INR n)); intros s P E; rewrite <- E.
Ltac nonzero := first [ apply not_0_INR; lia | apply Rgt_not_eq; assumption | apply Rgt_not_eq; lra | lra | nra ].
Ltac sf := repeat match goal with |- context [sqrt (INR ?n)] => sqrt_out n end; field; repeat split; nonzero.
Ltac same_exp := repeat match goal with
  | |- context [exp ?a] => match goal with
    | |- context [exp ?b] => tryif constr_eq a b then fail else replace a with b by sf end end.
Ltac same_ln := repeat match goal with
  | |- context [ln ?a] => match goal with
    | |- context [ln ?b] => tryif constr_eq a b then fail else replace a with b by sf end end.
Ltac instance S T := pose proof S as T; repeat (specialize (T ltac:(dom))).
Ltac via S := let T := fresh "step" in instance S T;
  eapply Rle_trans; [| eapply Rle_trans; [exact T |]]; [apply Req_le; same_exp; same_ln; sf | apply Req_le; same_ln; sf].
