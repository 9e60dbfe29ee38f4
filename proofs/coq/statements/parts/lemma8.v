Section lemma8.
(* ||sigma(z;a) X - sigma(z+e;a) X|| for ||e||_max <= eps_max and rows of X of norm at most alpha *)
Theorem stmt_lemma8 : forall (T d1 : nat) (a z e : vec) (X : mat) (alpha eps_max : R),
  is_mask T a -> norm_max T e <= eps_max -> (forall k, (k < T)%nat -> norm d1 (X k) <= alpha) ->
  norm d1 (vsub (vecmat T (softmax T a z) X) (vecmat T (softmax T a (vadd z e)) X)) <= {bound}.
Proof.
  intros T d1 a z e X alpha eps_max Ha He HX.
  eapply Rle_trans; [apply (lemma8 T d1 a z e X alpha eps_max Ha He HX) | right; ring].
Qed.
End lemma8.
