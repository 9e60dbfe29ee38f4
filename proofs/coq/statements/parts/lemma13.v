Section lemma13.
Variables (T d1 : nat) (X' : mat) (alpha : R).
Hypothesis x'_in_ball : premise_lemma12_x' T d1 X' alpha.
(* ||Blk_T(x_i) - Blk_T(x'_i)|| for the block of an MHA (d2 = d1) and a ReLU net of L >= 1 layers of width d1, every
   target weight of norm <= 1: the bound of the proof's last line (the printed statement has half of it).
   Differences from the printed statement: twice the printed bound (the proof's last line); ||x'_i|| <= alpha for
   the perturbed tokens (Lemma 12's hypothesis, which the printed lemma lacks) *)
Theorem stmt_lemma13 : forall (H dK dV : nat) (WQ WK WV WO : nat -> mat) (L : nat) (W : nat -> mat) (X a : mat)
    (i : nat) (eps_max : R),
  (1 <= H)%nat -> (1 <= d1)%nat -> (1 <= L)%nat ->
  (forall h, (h < H)%nat -> op_bound d1 dK (WQ h) 1 /\ op_bound d1 dK (WK h) 1 /\ op_bound d1 dV (WV h) 1 /\
                            op_bound dV d1 (WO h) 1) ->
  (forall l, (l < L)%nat -> op_bound d1 d1 (W l) 1) ->
  is_mask T (a i) -> (i < T)%nat -> (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) ->
  (forall k, (k < T)%nat -> norm d1 (vsub (X k) (X' k)) <= eps_max) ->
  norm d1 (vsub (block H T d1 dK dV WQ WK WV WO L (fun _ => d1) W X a i)
                (block H T d1 dK dV WQ WK WV WO L (fun _ => d1) W X' a i)) <= {bound}.
Proof.
  intros H dK dV WQ WK WV WO L W X a i eps_max HH Hd1 HL HW HF Ha Hi HX Hd.
  eapply Rle_trans;
    [exact (lemma13_block H T d1 dK dV WQ WK WV WO L W X X' a i alpha eps_max HH Hd1 HL HW HF Ha Hi HX x'_in_ball Hd)|].
  replace (4 * eps_max * alpha) with (4 * alpha * eps_max) by ring. right; ring.
Qed.
End lemma13.
