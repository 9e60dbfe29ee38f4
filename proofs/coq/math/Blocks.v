(* Lemma 7's construction: with n = d1 n' hidden units, the first pruned matrix keeps in hidden rows
   j n' .. j n' + n' - 1 only column j (block diagonal, blocks u_j), the second splits row i into blocks v_ij
   with masks m_ij; then entry (i, j) of their product is the subset sum sum_k m_ijk v_ijk u_jk of its items
   (block_entry).  Indices are 0-based: hidden unit r is unit k = r mod n' of block j = r / n'. *)
From Coq Require Import Reals Lra Lia.
From SlthMath Require Import Objects Sums.
Open Scope R_scope.

(* W~1 (.) M1 : (d1 n') x d1, block diagonal *)
Definition first_block (n' : nat) (u : nat -> nat -> R) : mat :=
  fun r c => if Nat.eqb (r / n')%nat c then u c (r mod n')%nat else 0.

(* W~2 (.) M2 : d2 x (d1 n'), row i made of the blocks m_ij (.) v_ij *)
Definition second_block (n' : nat) (m v : nat -> nat -> nat -> R) : mat :=
  fun i r => m i (r / n')%nat (r mod n')%nat * v i (r / n')%nat (r mod n')%nat.

(* sum over a + b terms: the first a, then the next b *)
Lemma sum_app : forall a b f, sum (a + b) f = sum a f + sum b (fun k => f (a + k)%nat).
Proof.
  intros a b f. induction b as [|b IH]; simpl; [rewrite Nat.add_0_r; ring|].
  rewrite Nat.add_succ_r. simpl. rewrite IH. ring.
Qed.

(* a sum over d n' terms is a sum over d blocks of n' *)
Lemma sum_blocks : forall d n' f, sum (d * n') f = sum d (fun j => sum n' (fun k => f (j * n' + k)%nat)).
Proof.
  induction d as [|d IH]; intros n' f; [reflexivity|].
  rewrite Nat.mul_succ_l, sum_app, IH. reflexivity.
Qed.

Lemma block_div : forall n' j k, (k < n')%nat -> ((j * n' + k) / n' = j)%nat.
Proof. intros n' j k Hk. rewrite Nat.div_add_l by lia. rewrite Nat.div_small by exact Hk. lia. Qed.

Lemma block_mod : forall n' j k, (k < n')%nat -> ((j * n' + k) mod n' = k)%nat.
Proof. intros n' j k Hk. rewrite Nat.add_comm, Nat.mod_add by lia. apply Nat.mod_small. exact Hk. Qed.

(* only the term j = c of a sum over j survives a test j = c *)
Lemma sum_pick : forall n c g, (c < n)%nat -> sum n (fun j => if Nat.eqb j c then g j else 0) = g c.
Proof.
  induction n as [|n IH]; intros c g Hc; [lia|]. simpl.
  destruct (Nat.eq_dec c n) as [->|N].
  - rewrite Nat.eqb_refl. rewrite (sum_ext n _ (fun _ => 0)), sum_const; [ring|].
    intros k Hk. replace (Nat.eqb k n) with false by (symmetry; apply Nat.eqb_neq; lia). reflexivity.
  - replace (Nat.eqb n c) with false by (symmetry; apply Nat.eqb_neq; lia). rewrite IH by lia. ring.
Qed.

(* [(W~2 (.) M2)(W~1 (.) M1)]_ij = sum_k m_ijk v_ijk u_jk *)
Theorem block_entry : forall d1 n' m v u i j, (j < d1)%nat ->
  matmul (d1 * n') (second_block n' m v) (first_block n' u) i j = sum n' (fun k => m i j k * v i j k * u j k).
Proof.
  intros d1 n' m v u i j Hj. unfold matmul. rewrite sum_blocks.
  rewrite (sum_ext d1 _ (fun l => if Nat.eqb l j then sum n' (fun k => m i l k * v i l k * u l k) else 0)).
  - apply (sum_pick d1 j (fun l => sum n' (fun k => m i l k * v i l k * u l k))). exact Hj.
  - intros l Hl. destruct (Nat.eqb l j) eqn:E.
    + apply Nat.eqb_eq in E. subst l. apply sum_ext. intros k Hk. unfold second_block, first_block.
      rewrite block_div, block_mod, Nat.eqb_refl by exact Hk. reflexivity.
    + rewrite (sum_ext n' _ (fun _ => 0)); [rewrite sum_const; ring|].
      intros k Hk. unfold second_block, first_block. rewrite block_div, block_mod by exact Hk. rewrite E. ring.
Qed.

(* with 0/1 masks the entry is a subset sum: the items v_ijk u_jk of the kept k *)
Corollary block_subset_sum : forall d1 n' m v u i j, (j < d1)%nat ->
  (forall k, (k < n')%nat -> m i j k = 0 \/ m i j k = 1) ->
  matmul (d1 * n') (second_block n' m v) (first_block n' u) i j
    = sum n' (fun k => if Req_EM_T (m i j k) 1 then v i j k * u j k else 0).
Proof.
  intros d1 n' m v u i j Hj Hm. rewrite block_entry by exact Hj. apply sum_ext. intros k Hk.
  destruct (Req_EM_T (m i j k) 1) as [E|N]; rewrite ?E; [ring|].
  destruct (Hm k Hk) as [Z|O]; [rewrite Z; ring | contradiction].
Qed.
