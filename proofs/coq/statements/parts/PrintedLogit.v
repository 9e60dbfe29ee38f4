From Coq Require Import Reals Lra.
From SlthMath Require Import Objects Sums Triangle Lemma12.
Open Scope R_scope.

(* Lemma 12's logit step as printed (only ||x_i||, ||x_k|| <= alpha), with the paper's argument:
   |x_i W x_k - x'_i W x'_k| <= ||x_i - x'_i|| ||x_k|| + ||x'_i|| ||x_k - x'_k|| <= eps alpha + alpha eps *)
Theorem lemma12_logit_as_printed : lemma12_logit_printed.
Proof.
  intros d W xi xk xi' xk' alpha eps HW Hi Hk Hdi Hdk. rewrite bilin_split.
  eapply Rle_trans; [apply Rabs_triang|].
  pose proof (bilin_le d (vsub xi xi') W xk HW). pose proof (bilin_le d xi' W (vsub xk xk') HW).
  pose proof (norm_nonneg d (vsub xi xi')). pose proof (norm_nonneg d xk).
  pose proof (norm_nonneg d xi'). pose proof (norm_nonneg d (vsub xk xk')).
  assert (norm d (vsub xi xi') * norm d xk <= eps * alpha) by (apply Rmult_le_compat; lra).
  assert (norm d xi' * norm d (vsub xk xk') <= alpha * eps) by (apply Rmult_le_compat; lra).
  lra.
Qed.
