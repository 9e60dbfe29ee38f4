(* The induction over layers (Theorem 10) and over blocks (Theorem 14), once for any stack of maps:
   target maps f_l that are K_l-Lipschitz and carry inputs of norm <= beta_l to norm <= beta_(l+1), source maps g_l
   within delta_l of f_l on inputs of norm <= beta_l + err_l; then after L maps the source is within err_L of the
   target, where err_0 = 0 and err_(l+1) = K_l err_l + delta_l (layers_induction).  A ReLU layer
   u |-> ReLU(W u) with ||W|| <= 1 is 1-Lipschitz and does not increase the norm (relu_layer_lipschitz,
   relu_layer_norm), so for Theorem 10 the recursion is err_(l+1) = err_l + delta_l. *)
From Coq Require Import Reals Lra Lia.
From SlthMath Require Import Objects Sums Triangle.
Open Scope R_scope.

(* the maps F 0, ..., F (l-1) applied in turn *)
Fixpoint iter (F : nat -> vec -> vec) (l : nat) (x : vec) : vec :=
  match l with
  | O => x
  | S l' => F l' (iter F l' x)
  end.

(* err_0 = 0, err_(l+1) = K_l err_l + delta_l *)
Fixpoint err (K delta : nat -> R) (l : nat) : R :=
  match l with
  | O => 0
  | S l' => K l' * err K delta l' + delta l'
  end.

Lemma vsub_split : forall n (a b c : vec), norm n (vsub a c) <= norm n (vsub a b) + norm n (vsub b c).
Proof.
  intros n a b c. rewrite (norm_ext n (vsub a c) (vadd (vsub a b) (vsub b c))) by (intros; unfold vadd, vsub; ring).
  apply norm_triangle.
Qed.

Lemma norm_le_sub : forall n (u x : vec), norm n u <= norm n x + norm n (vsub u x).
Proof.
  intros n u x. rewrite (norm_ext n u (vadd x (vsub u x))) by (intros; unfold vadd, vsub; ring).
  apply norm_triangle.
Qed.

Theorem layers_induction : forall (dims : nat -> nat) (f g : nat -> vec -> vec) (K beta delta : nat -> R) x L,
  (forall l, 0 <= K l) ->
  (forall l u v, norm (dims (S l)) (vsub (f l u) (f l v)) <= K l * norm (dims l) (vsub u v)) ->
  (forall l u, norm (dims l) u <= beta l -> norm (dims (S l)) (f l u) <= beta (S l)) ->
  (forall l u, norm (dims l) u <= beta l + err K delta l -> norm (dims (S l)) (vsub (g l u) (f l u)) <= delta l) ->
  norm (dims O) x <= beta O ->
  norm (dims L) (vsub (iter g L x) (iter f L x)) <= err K delta L.
Proof.
  intros dims f g K beta delta x L HK Hlip Hnorm Happ Hx.
  assert (Hx_l : forall l, norm (dims l) (iter f l x) <= beta l).
  { induction l as [|l IH]; simpl; [exact Hx | apply Hnorm, IH]. }
  induction L as [|L IH]; simpl.
  - rewrite (norm_ext _ _ (fun _ => 0)) by (intros; unfold vsub; ring).
    unfold norm. rewrite (sum_ext _ _ (fun _ => 0)) by (intros; ring). rewrite sum_const, Rmult_0_r, sqrt_0. lra.
  - eapply Rle_trans; [apply (vsub_split _ _ (f L (iter g L x)))|].
    rewrite Rplus_comm. apply Rplus_le_compat.
    + eapply Rle_trans; [apply Hlip | apply Rmult_le_compat_l; [apply HK | exact IH]].
    + apply Happ. eapply Rle_trans; [apply (norm_le_sub _ _ (iter f L x))|].
      apply Rplus_le_compat; [apply Hx_l | exact IH].
Qed.

(* --- a ReLU layer with ||W|| <= 1 ------------------------------------------------------------------------- *)

Lemma relu_lipschitz : forall a b, Rabs (relu a - relu b) <= Rabs (a - b).
Proof.
  intros a b. unfold relu, Rmax.
  destruct (Rle_dec 0 a), (Rle_dec 0 b); apply Rabs_le;
    pose proof (Rle_abs (a - b)); pose proof (Rle_abs (- (a - b))); rewrite Rabs_Ropp in *; lra.
Qed.

Lemma relu_abs_le : forall a, Rabs (relu a) <= Rabs a.
Proof. intros a. pose proof (relu_lipschitz a 0). unfold relu at 2 in H. rewrite Rmax_left in H by lra.
  rewrite !Rminus_0_r in H. exact H. Qed.

(* ||u|| <= ||v|| when |u_j| <= |v_j| for every j *)
Lemma norm_le_entrywise : forall n (u v : vec), (forall j, (j < n)%nat -> Rabs (u j) <= Rabs (v j)) -> norm n u <= norm n v.
Proof.
  intros n u v H. unfold norm. apply sqrt_le_1_alt. apply sum_le. intros j Hj.
  rewrite <- (Rabs_pos_eq (u j * u j)), <- (Rabs_pos_eq (v j * v j)) by apply Rle_0_sqr.
  rewrite !Rabs_mult. apply Rmult_le_compat; auto using Rabs_pos.
Qed.

Lemma matvec_sub_at : forall n W u v i, matvec n W u i - matvec n W v i = matvec n W (vsub u v) i.
Proof. intros. unfold vsub, matvec. rewrite <- sum_minus. apply sum_ext. intros. ring. Qed.

Theorem relu_layer_lipschitz : forall m n W u v, op_bound m n W 1 ->
  norm m (vsub (vrelu (matvec n W u)) (vrelu (matvec n W v))) <= norm n (vsub u v).
Proof.
  intros m n W u v HW. eapply Rle_trans; [| rewrite <- (Rmult_1_l (norm n (vsub u v))); apply HW].
  apply norm_le_entrywise. intros j _. rewrite <- matvec_sub_at. unfold vsub, vrelu. apply relu_lipschitz.
Qed.

Theorem relu_layer_norm : forall m n W u, op_bound m n W 1 -> norm m (vrelu (matvec n W u)) <= norm n u.
Proof.
  intros m n W u HW. eapply Rle_trans; [| rewrite <- (Rmult_1_l (norm n u)); apply HW].
  apply norm_le_entrywise. intros j _. unfold vrelu. apply relu_abs_le.
Qed.

(* Theorem 10's recursion: with K_l = 1, err_L = delta_0 + ... + delta_(L-1) *)
Lemma err_unit : forall delta L, err (fun _ => 1) delta L = sum L delta.
Proof. induction L as [|L IH]; simpl; [reflexivity | rewrite IH; ring]. Qed.

(* Theorem 10's glue from the recursion's (1 + g)^L to exp(L g): for g > -1, (1 + g)^L = exp(L ln(1 + g))
   (Rpower_pow), and exp is increasing (exp_increasing) *)
Lemma pow_as_exp : forall g L, -1 < g -> (1 + g) ^ L = exp (INR L * ln (1 + g)).
Proof. intros g L Hg. rewrite <- Rpower_pow by lra. reflexivity. Qed.

Lemma pow_as_exp_increasing :
  (forall g L, -1 < g -> (1 + g) ^ L = exp (INR L * ln (1 + g))) /\ (forall x y, x < y -> exp x < exp y).
Proof. exact (conj pow_as_exp exp_increasing). Qed.
