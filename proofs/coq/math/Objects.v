(* The paper's objects over Coq's real numbers (standard library only).

   Sizes are explicit: a vector of size n is a function nat -> R read at 0 .. n-1, a matrix of size m x n a
   function nat -> nat -> R read at (i, j) with i < m, j < n.  Tokens are row vectors: X k is token k, a row
   of X, and X k j its j-th entry.  Nothing here is assumed: every object is a definition. *)
From Coq Require Import Reals Lra.
Open Scope R_scope.

(* --- finite sums ------------------------------------------------------------------------------------------ *)

(* sum n f = f 0 + ... + f (n-1) *)
Fixpoint sum (n : nat) (f : nat -> R) : R :=
  match n with
  | O => 0
  | S m => sum m f + f m
  end.

(* --- vectors and matrices --------------------------------------------------------------------------------- *)

Definition vec := nat -> R.
Definition mat := nat -> nat -> R.

Definition vadd (u v : vec) : vec := fun i => u i + v i.
Definition vsub (u v : vec) : vec := fun i => u i - v i.
Definition vscale (c : R) (v : vec) : vec := fun i => c * v i.

(* inner product of two vectors of size n *)
Definition dot (n : nat) (u v : vec) : R := sum n (fun k => u k * v k).

(* W x for W of size m x n (column vector x of size n); the output has size m *)
Definition matvec (n : nat) (W : mat) (x : vec) : vec := fun i => sum n (fun j => W i j * x j).

(* x^T W for a row vector x of size m and W of size m x n; the output has size n *)
Definition vecmat (m : nat) (x : vec) (W : mat) : vec := fun j => sum m (fun k => x k * W k j).

(* A B for A of size m x n, B of size n x p *)
Definition matmul (n : nat) (A B : mat) : mat := fun i j => sum n (fun k => A i k * B k j).

Definition transpose (A : mat) : mat := fun i j => A j i.
Definition mscale (c : R) (A : mat) : mat := fun i j => c * A i j.

(* the unit basis vector e_k *)
Definition basis (k : nat) : vec := fun i => if Nat.eqb i k then 1 else 0.

(* --- norms ------------------------------------------------------------------------------------------------ *)

(* Euclidean norm ||v|| of a vector of size n *)
Definition norm (n : nat) (v : vec) : R := sqrt (sum n (fun i => v i * v i)).

(* max-entry norm ||v||_max of a vector of size n (0 for n = 0) *)
Fixpoint norm_max (n : nat) (v : vec) : R :=
  match n with
  | O => 0
  | S m => Rmax (norm_max m v) (Rabs (v m))
  end.

(* max-entry norm ||A||_max of a matrix of size m x n *)
Definition mat_max (m n : nat) (A : mat) : R := norm_max m (fun i => norm_max n (A i)).

(* an operator-norm bound: ||W x|| <= c ||x|| for every x (W of size m x n), i.e. ||W|| <= c *)
Definition op_bound (m n : nat) (W : mat) (c : R) : Prop :=
  forall x : vec, norm m (matvec n W x) <= c * norm n x.

(* --- masked softmax --------------------------------------------------------------------------------------- *)

(* a mask a in {0,1}^T with ||a||_1 >= 1 *)
Definition is_mask (T : nat) (a : vec) : Prop :=
  (forall k, (k < T)%nat -> a k = 0 \/ a k = 1) /\ exists k, (k < T)%nat /\ a k = 1.

(* sigma(z; a)_j = a_j exp(z_j) / sum_k a_k exp(z_k) *)
Definition softmax (T : nat) (a z : vec) : vec :=
  fun j => a j * exp (z j) / sum T (fun k => a k * exp (z k)).

(* --- attention -------------------------------------------------------------------------------------------- *)

(* X : T x d1 (rows are the tokens), a : T x T (row i is the mask a_i of token i).
   Head with W_Q, W_K : d1 x dK, W_V : d1 x dV, W_O : dV x d2:
   head(x_i) = sigma(x_i^T W_Q (X W_K)^T / sqrt dK ; a_i) X W_V W_O, a row of size d2. *)
Definition logits (d1 dK : nat) (WQ WK : mat) (X : mat) (i : nat) : vec :=
  fun k => dot dK (vecmat d1 (X i) WQ) (vecmat d1 (X k) WK) / sqrt (INR dK).

Definition head (T d1 dK dV : nat) (WQ WK WV WO : mat) (X a : mat) (i : nat) : vec :=
  vecmat T (softmax T (a i) (logits d1 dK WQ WK X i)) (matmul dV (matmul d1 X WV) WO).

(* MHA of H heads, head h with weights WQ h, WK h, WV h, WO h *)
Definition mha (H T d1 dK dV : nat) (WQ WK WV WO : nat -> mat) (X a : mat) (i : nat) : vec :=
  fun c => sum H (fun h => head T d1 dK dV (WQ h) (WK h) (WV h) (WO h) X a i c).

(* the merged matrices of eq. 10-11: W_QK = W_Q W_K^T / sqrt dK (d1 x d1), W_VO = W_V W_O (d1 x d2) *)
Definition WQK (dK : nat) (WQ WK : mat) : mat := mscale (/ sqrt (INR dK)) (matmul dK WQ (transpose WK)).
Definition WVO (dV : nat) (WV WO : mat) : mat := matmul dV WV WO.

(* the merged head: sigma(x_i^T W_QK X^T ; a_i) X W_VO *)
Definition head_merged (T d1 : nat) (Wqk Wvo : mat) (X a : mat) (i : nat) : vec :=
  vecmat T (softmax T (a i) (fun k => dot d1 (vecmat d1 (X i) Wqk) (X k))) (matmul d1 X Wvo).

(* --- ReLU networks and the block -------------------------------------------------------------------------- *)

Definition relu (x : R) : R := Rmax 0 x.
Definition vrelu (v : vec) : vec := fun i => relu (v i).

(* A bias-free ReLU net of L >= 1 layers: layer l (l = 0 .. L-1) is W l of size dims (S l) x dims l;
   hidden 0 = x, hidden (l+1) = ReLU(W l (hidden l)), and the net is W (L-1) (hidden (L-1)): no ReLU after the
   last layer. *)
Fixpoint hidden (dims : nat -> nat) (W : nat -> mat) (l : nat) (x : vec) : vec :=
  match l with
  | O => x
  | S l' => vrelu (matvec (dims l') (W l') (hidden dims W l' x))
  end.

Definition relu_net (L : nat) (dims : nat -> nat) (W : nat -> mat) (x : vec) : vec :=
  matvec (dims (pred L)) (W (pred L)) (hidden dims W (pred L) x).

(* Blk(x_i) = F(Attn(x_i)^T + x_i) + Attn(x_i)^T + x_i, with d2 = d1 and F a ReLU net from R^d1 to R^d1 *)
Definition block (H T d1 dK dV : nat) (WQ WK WV WO : nat -> mat) (L : nat) (dims : nat -> nat)
    (W : nat -> mat) (X a : mat) (i : nat) : vec :=
  let y := vadd (mha H T d1 dK dV WQ WK WV WO X a i) (X i) in
  vadd (relu_net L dims W y) y.
