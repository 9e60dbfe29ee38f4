Section lemma12.
Variables (T d1 : nat) (X' : mat) (alpha : R).
(* what the proof's logit step needs and the printed lemma does not assume: the perturbed tokens are in the ball.
   Differences from the printed statement: ||x'_i|| <= alpha for the perturbed tokens (a hypothesis the printed
   lemma lacks) *)
Hypothesis x'_in_ball : premise_lemma12_x' T d1 X' alpha.
(* ||Attn_T(x_i) - Attn_T(x'_i)|| for target weights of norm <= 1 and tokens ||x_k|| <= alpha moved by <= eps_max *)
Theorem stmt_lemma12 : forall (H dK dV d2 : nat) (WQ WK WV WO : nat -> mat) (X a : mat) (i : nat) (eps_max : R),
  (forall h, (h < H)%nat -> op_bound d1 dK (WQ h) 1 /\ op_bound d1 dK (WK h) 1 /\ op_bound d1 dV (WV h) 1 /\
                            op_bound dV d2 (WO h) 1) ->
  is_mask T (a i) -> (i < T)%nat -> (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) ->
  (forall k, (k < T)%nat -> norm d1 (vsub (X k) (X' k)) <= eps_max) ->
  norm d2 (vsub (mha H T d1 dK dV WQ WK WV WO X a i) (mha H T d1 dK dV WQ WK WV WO X' a i)) <= {bound}.
Proof.
  intros H dK dV d2 WQ WK WV WO X a i eps_max HW Ha Hi HX Hd.
  eapply Rle_trans; [exact (lemma12_mha H T d1 dK dV d2 WQ WK WV WO X X' a i alpha eps_max HW Ha Hi HX x'_in_ball Hd)|].
  replace (4 * eps_max * alpha) with (4 * alpha * eps_max) by ring. right; ring.
Qed.
End lemma12.
