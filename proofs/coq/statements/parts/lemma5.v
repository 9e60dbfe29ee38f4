Section lemma5.
(* the same difference when moreover eps_max <= 1/2 *)
Theorem stmt_lemma5 : forall (T d1 : nat) (a z e : vec) (X : mat) (alpha eps_max : R),
  is_mask T a -> norm_max T e <= eps_max -> eps_max <= {hi:eps_max:0} -> (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) ->
  norm d1 (vsub (vecmat T (softmax T a z) X) (vecmat T (softmax T a (vadd z e)) X)) <= {bound}.
Proof.
  intros T d1 a z e X alpha eps_max Ha He Hh HX.
  eapply Rle_trans; [apply (lemma5 T d1 a z e X alpha eps_max Ha He Hh HX) | right; ring].
Qed.
End lemma5.
