//! The flash attention backward pass: dQ, dK and dV of O = softmax(scale Q K^T) V.
//!
//! Shapes: Q, dO, O and dQ are H x S x D; K, V, dK and dV are HK x T x D, with H = G HK (query head
//! h reads K/V head h / G: grouped-query attention, or multi-query with HK = 1; G = 1 is plain
//! multi-head). Elements are bf16 or f16, accumulation is f32, D is 64 or 128, S and T are any
//! lengths. The forward's row statistics come in as `lse: H x S` (f32, base 2):
//! `lse[h, i] = log2(sum_j exp2(c q_i . k_j))` with c = scale log2(e), so that
//! P = exp2(c S - lse) costs one FMA and one `ex2` per score.
//!
//! With D_i = sum_d dO[i, d] O[i, d] ("delta"), the gradients are
//! dV = P^T dO, dP = dO V^T, dS = P o (dP - D), dK = scale dS^T Q, dQ = scale dS K;
//! with G > 1, dK and dV of a K/V head sum over the G query heads of its group. Three kernels:
//!
//! 1. [`programs::attention_bwd_prep`]: per 64 queries of a head, delta (rowsum(dO o O)) and a copy
//!    of `lse`, both into `H x SP` workspaces whose rows are padded with zeros to SP = a multiple
//!    of 128 (so that TMA can copy their tiles whatever S is: a TMA row is whole 16-byte units).
//! 2. [`programs::attention_bwd_dkdv`]: K/V-stationary, in FlashAttention-3's manner. A program
//!    owns 128 keys of one K/V head (64 per consumer warpgroup) and walks over the 64-query
//!    blocks of every query head of its group that see them. Warpgroup 0 is the producer: it loads
//!    the program's K and V once and streams each block's Q, dO, lse and delta through a ring of
//!    shared-memory stages with TMA. Each consumer recomputes S^T = K Q^T and dP^T = V dO^T (two
//!    m64 wgmmas issued together, Q and dO read K-major through `.t()`), turns S^T into P^T with
//!    lse (one FMA and `ex2`), issues dV += P^T dO with P^T from registers while it computes
//!    dS^T = P^T o (dP^T - delta), then dK += dS^T Q, also from registers. dK and dV stay in
//!    registers to the end and are stored once.
//! 3. [`programs::attention_bwd_dq`]: Q-stationary. A program owns 128 queries of one head (64 per
//!    consumer), loads its Q and dO once and streams K and V blocks of its K/V head; each step
//!    recomputes S and dP, P and dS, and adds dS K into dQ.
//!
//! (dQ could instead be summed in f32 across the dK/dV programs, FlashAttention-3's way, with a
//! TMA reduce-add store or atomic adds: then the dK/dV consumers also store dS^T to shared memory
//! and the third kernel goes away. `dq_pass` in the launch below is the one place to change.)
//!
//! Causal (`CAUSAL` 1, T = S): query i sees keys 0 ..= i. A dK/dV program starts at the first
//! query block that sees its keys and masks the two diagonal blocks; a dQ program stops after the
//! last key block its queries see and masks the blocks that reach past its first query.
//! Ragged S: TMA reads zeros past S, so those queries' dO and delta are 0 and they add nothing to
//! dK and dV; their rows of dQ are not stored. Ragged T: the dQ kernel masks the keys past T in
//! the last block (the dK/dV rows of those keys are not stored).

use tessel::prelude::*;

pub use programs::{attention_bwd_dkdv, attention_bwd_dq, attention_bwd_prep};

#[kernels]
pub mod programs {
    use tessel::prelude::*;

    /// The query head and 64-query block of step `n` of a dK/dV program: the group's heads one
    /// after another, `blocks` query blocks each, from block `first` on.
    fn query_block(n: i32, blocks: i32, first: i32, kv_head: i32, group: i32) -> (i32, i32) {
        (kv_head * group + n / blocks, first + n % blocks)
    }

    /// `-1e30` where `hidden` holds, added to scores `s` about to be scaled and exponentiated:
    /// `exp2` turns them into exact zeros.
    fn mask(
        s: Regs<f32, 64, _, Layout::Wgmma>,
        hidden: Regs<bool, 64, _, Layout::Wgmma>,
    ) -> Regs<f32, 64, _, Layout::Wgmma> {
        fma(hidden.cast::<f32>(), -1.0e30, s)
    }

    /// Delta (`rowsum(dO o O)`) and a copy of `lse`, both into rows padded to `SP` (a multiple of
    /// 128) with zeros: one program per 64 queries of a head.
    #[kernel(grid = (SP / 64, H), ragged(S), instances((bf16, 64), (bf16, 128), (f16, 64), (f16, 128)))]
    pub fn attention_bwd_prep<E, const D: usize>(
        o: Gmem<E, H, S, D>,
        d_o: Gmem<E, H, S, D>,
        lse: Gmem<f32, H, S>,
        delta: GmemMut<f32, H, SP>,
        lse_p: GmemMut<f32, H, SP>,
    ) {
        let (i, h) = (program_id(0), program_id(1));
        let out = o.tile([h, i, 0], [1, 64, D]).load(Layout::Wgmma).cast::<f32>();
        let grad = d_o.tile([h, i, 0], [1, 64, D]).load(Layout::Wgmma).cast::<f32>();
        delta.tile([h, i], [1, 64]).store((out * grad).sum(1));
        lse_p.tile([h, i], [1, 64]).store(lse.tile([h, i], [1, 64]).load(Layout::WgmmaRow));
    }

    /// dK and dV for 128 keys of one K/V head per program (see the module's documentation).
    /// `STAGES` stages of Q, dO, lse and delta.
    #[kernel(grid = (cdiv(T, 128), HK), warpgroups = 3, warpgroup_axis = wg, max_registers = 168, ragged(S, T),
             instances((bf16, 64, 0, 4), (bf16, 64, 1, 4), (bf16, 128, 0, 3), (bf16, 128, 1, 3),
                       (f16, 64, 0, 4), (f16, 64, 1, 4), (f16, 128, 0, 3), (f16, 128, 1, 3)))]
    pub fn attention_bwd_dkdv<E, const D: usize, const CAUSAL: usize, const STAGES: usize>(
        q: Gmem<E, H, S, D>,
        k: Gmem<E, HK, T, D>,
        v: Gmem<E, HK, T, D>,
        d_o: Gmem<E, H, S, D>,
        lse: Gmem<f32, H, SP>,
        delta: Gmem<f32, H, SP>,
        dk: GmemMut<E, HK, T, D>,
        dv: GmemMut<E, HK, T, D>,
        scale: f32,
    ) {
        const BQ: usize = 64; // queries per step
        let (j, kv_head) = (program_id(0), program_id(1));
        let group = H / HK;
        // Causal: the queries before 128 j see none of these keys.
        let first = if CAUSAL == 1 { 2 * j } else { 0 };
        let blocks = cdiv(S, BQ) - first;
        let steps = group * blocks;
        run_scoped(
            collective_axes = [wg],
            |k_s: Smem<E, 2, 1, 64, D, Swizzle128>,
             v_s: Smem<E, 2, 1, 64, D, Swizzle128>,
             q_s: Smem<E, STAGES, 1, BQ, D, Swizzle128>,
             do_s: Smem<E, STAGES, 1, BQ, D, Swizzle128>,
             lse_s: Smem<f32, STAGES, 1, BQ>,
             delta_s: Smem<f32, STAGES, 1, BQ>,
             kv_loaded: Barrier<4>,
             // Four copies fill a stage (Q, dO, lse, delta); both consumers release it.
             ring: Pipeline<STAGES, 4, 2>| {
                if warpgroup_id() == 0 {
                    set_max_registers(24);
                    copy_gmem_to_smem(k.tile([kv_head, 2 * j, 0]), k_s.at(0), kv_loaded);
                    copy_gmem_to_smem(k.tile([kv_head, 2 * j + 1, 0]), k_s.at(1), kv_loaded);
                    copy_gmem_to_smem(v.tile([kv_head, 2 * j, 0]), v_s.at(0), kv_loaded);
                    copy_gmem_to_smem(v.tile([kv_head, 2 * j + 1, 0]), v_s.at(1), kv_loaded);
                    pipeline_produce(ring, steps, |n, s, bar| {
                        let (h, i) = query_block(n, blocks, first, kv_head, group);
                        copy_gmem_to_smem(q.tile([h, i, 0]), q_s.at(s), bar);
                        copy_gmem_to_smem(d_o.tile([h, i, 0]), do_s.at(s), bar);
                        copy_gmem_to_smem(lse.tile([h, i]), lse_s.at(s), bar);
                        copy_gmem_to_smem(delta.tile([h, i]), delta_s.at(s), bar);
                    });
                } else {
                    set_max_registers(240);
                    let w = warpgroup_id() - 1;
                    let c = scale * 1.4426950408889634;
                    barrier_wait(kv_loaded);
                    run_scoped(
                        |dv_acc: Acc<f32, 64, D>,
                         dk_acc: Acc<f32, 64, D>,
                         s_acc: Acc<f32, 64, BQ>,
                         dp_acc: Acc<f32, 64, BQ>| {
                            pipeline_consume(
                                ring,
                                steps,
                                |n, s| {
                                    // S^T and dP^T: this consumer's 64 keys against the block's queries.
                                    wgmma(s_acc, k_s.at(w).at(0), q_s.at(s).at(0).t(), accumulate = false);
                                    wgmma(dp_acc, v_s.at(w).at(0), do_s.at(s).at(0).t(), accumulate = false);
                                    let i = first + n % blocks;
                                    wgmma_wait(1);
                                    if CAUSAL == 1 && i < first + 2 {
                                        // A diagonal block: key 128 j + 64 w + r is hidden from query 64 i + q < it.
                                        let keys = iota::<i32>([64, BQ], 0) + (128 * j + 64 * w - 64 * i);
                                        s_acc.store(mask(s_acc.load(), iota::<i32>([64, BQ], 1) < keys));
                                    }
                                    let lse_q =
                                        lse_s.at(s).at(0).load(Layout::WgmmaCol).broadcast([64, BQ], Layout::Wgmma);
                                    let p = exp2(fma(s_acc.load(), c, -lse_q));
                                    wgmma(dv_acc, p.cast::<E>(), do_s.at(s).at(0));
                                    // dP^T is done (the groups complete in order); dV += P^T dO runs on.
                                    wgmma_wait(1);
                                    let delta_q =
                                        delta_s.at(s).at(0).load(Layout::WgmmaCol).broadcast([64, BQ], Layout::Wgmma);
                                    let ds = p * (dp_acc.load() - delta_q);
                                    wgmma(dk_acc, ds.cast::<E>(), q_s.at(s).at(0));
                                },
                                delay_release = true,
                            );
                            wgmma_wait(0);
                            dv.tile([kv_head, 2 * j + w, 0], [1, 64, D]).store(dv_acc.load().cast::<E>());
                            dk.tile([kv_head, 2 * j + w, 0], [1, 64, D]).store((dk_acc.load() * scale).cast::<E>());
                        },
                    );
                }
            },
        );
    }

    /// dQ for 128 queries of one head per program (see the module's documentation). `BK` keys per
    /// step, `STAGES` stages of K and V.
    #[kernel(grid = (cdiv(S, 128), H), warpgroups = 3, warpgroup_axis = wg, max_registers = 168, ragged(S, T),
             instances((bf16, 64, 0, 128, 4), (bf16, 64, 1, 128, 4), (bf16, 128, 0, 64, 3), (bf16, 128, 1, 64, 3),
                       (f16, 64, 0, 128, 4), (f16, 64, 1, 128, 4), (f16, 128, 0, 64, 3), (f16, 128, 1, 64, 3)))]
    pub fn attention_bwd_dq<E, const D: usize, const CAUSAL: usize, const BK: usize, const STAGES: usize>(
        q: Gmem<E, H, S, D>,
        k: Gmem<E, HK, T, D>,
        v: Gmem<E, HK, T, D>,
        d_o: Gmem<E, H, S, D>,
        lse: Gmem<f32, H, SP>,
        delta: Gmem<f32, H, SP>,
        dq: GmemMut<E, H, S, D>,
        scale: f32,
    ) {
        let (i, h) = (program_id(0), program_id(1));
        let kv_head = h / (H / HK);
        // Causal: keys past 128 i + 127 are hidden from every query here (T = S).
        let steps = if CAUSAL == 1 { min(cdiv(128 * i + 128, BK), cdiv(T, BK)) } else { cdiv(T, BK) };
        run_scoped(
            collective_axes = [wg],
            |q_s: Smem<E, 2, 1, 64, D, Swizzle128>,
             do_s: Smem<E, 2, 1, 64, D, Swizzle128>,
             k_s: Smem<E, STAGES, 1, BK, D, Swizzle128>,
             v_s: Smem<E, STAGES, 1, BK, D, Swizzle128>,
             q_loaded: Barrier<4>,
             ring: Pipeline<STAGES, 2, 2>| {
                if warpgroup_id() == 0 {
                    set_max_registers(24);
                    copy_gmem_to_smem(q.tile([h, 2 * i, 0]), q_s.at(0), q_loaded);
                    copy_gmem_to_smem(q.tile([h, 2 * i + 1, 0]), q_s.at(1), q_loaded);
                    copy_gmem_to_smem(d_o.tile([h, 2 * i, 0]), do_s.at(0), q_loaded);
                    copy_gmem_to_smem(d_o.tile([h, 2 * i + 1, 0]), do_s.at(1), q_loaded);
                    pipeline_produce(ring, steps, |t, s, bar| {
                        copy_gmem_to_smem(k.tile([kv_head, t, 0]), k_s.at(s), bar);
                        copy_gmem_to_smem(v.tile([kv_head, t, 0]), v_s.at(s), bar);
                    });
                } else {
                    set_max_registers(240);
                    let w = warpgroup_id() - 1;
                    let c = scale * 1.4426950408889634;
                    let lse_q =
                        lse.tile([h, 2 * i + w], [1, 64]).load(Layout::WgmmaRow).broadcast([64, BK], Layout::Wgmma);
                    let delta_q =
                        delta.tile([h, 2 * i + w], [1, 64]).load(Layout::WgmmaRow).broadcast([64, BK], Layout::Wgmma);
                    barrier_wait(q_loaded);
                    run_scoped(|dq_acc: Acc<f32, 64, D>, s_acc: Acc<f32, 64, BK>, dp_acc: Acc<f32, 64, BK>| {
                        pipeline_consume(
                            ring,
                            steps,
                            |t, s| {
                                wgmma(s_acc, q_s.at(w).at(0), k_s.at(s).at(0).t(), accumulate = false);
                                wgmma(dp_acc, do_s.at(w).at(0), v_s.at(s).at(0).t(), accumulate = false);
                                wgmma_wait(1);
                                if CAUSAL == 1 && BK * t + BK > 128 * i + 64 * w {
                                    // Key BK t + col is hidden from query 128 i + 64 w + r < it.
                                    let queries = iota::<i32>([64, BK], 0) + (128 * i + 64 * w - BK * t);
                                    s_acc.store(mask(s_acc.load(), iota::<i32>([64, BK], 1) > queries));
                                }
                                if CAUSAL == 0 && t + 1 == steps {
                                    // The keys past T are TMA's zeros.
                                    s_acc.store(mask(s_acc.load(), iota::<i32>([64, BK], 1) >= T - BK * t));
                                }
                                let p = exp2(fma(s_acc.load(), c, -lse_q));
                                wgmma_wait(0);
                                let ds = p * (dp_acc.load() - delta_q);
                                wgmma(dq_acc, ds.cast::<E>(), k_s.at(s).at(0));
                            },
                            delay_release = true,
                        );
                        wgmma_wait(0);
                        dq.tile([h, 2 * i + w, 0], [1, 64, D]).store((dq_acc.load() * scale).cast::<E>());
                    });
                }
            },
        );
    }
}

/// What a backward launch needs to know beyond the tensors: found by [`plan`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The head dimension, 64 or 128.
    pub head_dim: usize,
    /// Whether query i sees keys 0 ..= i only.
    pub causal: bool,
    /// The number of query heads, H.
    pub heads: usize,
    /// The workspaces' row length: S rounded up to a multiple of 128.
    pub padded: usize,
}

/// Checks the shapes and arguments of a backward pass, with Q `q`, K `k` and `lse` of those
/// shapes (the kernels' launches check the rest: every tensor against these), and says which
/// kernels run: Q H x S x D and K HK x T x D with D 64 or 128, H a multiple of HK, S and T at
/// least 1 (T = S when causal), `lse` H x S, the scale positive and finite.
pub fn plan(q: &[usize], k: &[usize], lse: &[usize], scale: f32, causal: bool) -> tessel::Result<Plan> {
    let rank = |tensor, shape: &[usize], expected| {
        if shape.len() == expected {
            Ok(())
        } else {
            Err(tessel::Error::ShapeRank { tensor, expected, shape: shape.to_vec() })
        }
    };
    rank("q", q, 3)?;
    rank("k", k, 3)?;
    rank("lse", lse, 2)?;
    let invalid = |argument, reason: String| Err(tessel::Error::InvalidArgument { argument, reason });
    let ([h, s, d], [hk, t, dk]) = ([q[0], q[1], q[2]], [k[0], k[1], k[2]]);
    if d != 64 && d != 128 {
        return invalid("q", format!("the head dimension is {d}; the kernels take 64 or 128"));
    }
    if dk != d {
        return Err(tessel::Error::ShapeMismatch { tensor: "k", expected: vec![hk, t, d], got: k.to_vec() });
    }
    if lse != [h, s] {
        return Err(tessel::Error::ShapeMismatch { tensor: "lse", expected: vec![h, s], got: lse.to_vec() });
    }
    if hk == 0 || h % hk != 0 {
        return invalid("k", format!("{h} query heads do not split into groups over {hk} K/V heads"));
    }
    if s == 0 || t == 0 {
        return invalid("q", format!("there are {s} queries and {t} keys; the backward needs at least one of each"));
    }
    if causal && t != s {
        return invalid("k", format!("causal attention takes as many keys as queries; T = {t}, S = {s}"));
    }
    if !(scale > 0.0 && scale.is_finite()) {
        return invalid("scale", format!("the scale is {scale}; it must be positive and finite"));
    }
    Ok(Plan { head_dim: d, causal, heads: h, padded: s.div_ceil(128) * 128 })
}

/// The element types of the backward pass, `bf16` and `f16`: each picks its kernels' instances.
pub trait Backward: tessel::Element + sealed::Sealed {
    /// The three passes on the GPU, for [`launch`].
    #[doc(hidden)]
    fn launch_passes(
        stream: &impl tessel::AsStream,
        inputs: [&DeviceTensor<Self>; 5],
        lse: &DeviceTensor<f32>,
        grads: [&mut DeviceTensor<Self>; 3],
        scale: f32,
        plan: Plan,
    ) -> tessel::Result<()>;

    /// The three passes in the interpreter, for [`interpret`].
    #[doc(hidden)]
    fn interpret_passes(
        inputs: [&HostTensor<Self>; 5],
        lse: &HostTensor<f32>,
        grads: [&mut HostTensor<Self>; 3],
        scale: f32,
        plan: Plan,
    ) -> tessel::Result<()>;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for tessel::bf16 {}
    impl Sealed for tessel::f16 {}
}

/// dQ, dK and dV of O = softmax(scale Q K^T) V on the GPU, asynchronously on `stream`: Q, O, dO
/// and dQ are H x S x D, K, V, dK and dV HK x T x D, `lse` the forward's H x S base-2 row
/// log-sum-exps (see the module's documentation). Checks as [`plan`] says, then the kernels'
/// launches check every tensor. Allocates its two H x S workspaces (delta, lse) on the stream.
#[allow(clippy::too_many_arguments)]
pub fn launch<E: Backward>(
    stream: &impl tessel::AsStream,
    q: &DeviceTensor<E>,
    k: &DeviceTensor<E>,
    v: &DeviceTensor<E>,
    o: &DeviceTensor<E>,
    d_o: &DeviceTensor<E>,
    lse: &DeviceTensor<f32>,
    dq: &mut DeviceTensor<E>,
    dk: &mut DeviceTensor<E>,
    dv: &mut DeviceTensor<E>,
    scale: f32,
    causal: bool,
) -> tessel::Result<()> {
    let plan = plan(q.shape(), k.shape(), lse.shape(), scale, causal)?;
    E::launch_passes(stream, [q, k, v, o, d_o], lse, [dq, dk, dv], scale, plan)
}

/// The same in the interpreter.
#[allow(clippy::too_many_arguments)]
pub fn interpret<E: Backward>(
    q: &HostTensor<E>,
    k: &HostTensor<E>,
    v: &HostTensor<E>,
    o: &HostTensor<E>,
    d_o: &HostTensor<E>,
    lse: &HostTensor<f32>,
    dq: &mut HostTensor<E>,
    dk: &mut HostTensor<E>,
    dv: &mut HostTensor<E>,
    scale: f32,
    causal: bool,
) -> tessel::Result<()> {
    let plan = plan(q.shape(), k.shape(), lse.shape(), scale, causal)?;
    E::interpret_passes([q, k, v, o, d_o], lse, [dq, dk, dv], scale, plan)
}

/// [`Backward`] for one element type: its instances, picked by head dimension and mask, called
/// through `launch` on the GPU or `interpret` (the `@passes` arm, given the call's leading
/// arguments: the stream, or none).
macro_rules! backward {
    ($t:ident) => {
        impl Backward for $t {
            fn launch_passes(
                stream: &impl tessel::AsStream,
                inputs: [&DeviceTensor<$t>; 5],
                lse: &DeviceTensor<f32>,
                grads: [&mut DeviceTensor<$t>; 3],
                scale: f32,
                plan: Plan,
            ) -> tessel::Result<()> {
                let mut delta = DeviceTensor::<f32>::zeros(stream, [plan.heads, plan.padded])?;
                let mut lse_p = DeviceTensor::<f32>::zeros(stream, [plan.heads, plan.padded])?;
                backward!(@passes $t, launch, [stream], inputs, lse, grads, delta, lse_p, scale, plan)
            }

            fn interpret_passes(
                inputs: [&HostTensor<$t>; 5],
                lse: &HostTensor<f32>,
                grads: [&mut HostTensor<$t>; 3],
                scale: f32,
                plan: Plan,
            ) -> tessel::Result<()> {
                let mut delta = HostTensor::<f32>::zeros([plan.heads, plan.padded])?;
                let mut lse_p = HostTensor::<f32>::zeros([plan.heads, plan.padded])?;
                backward!(@passes $t, interpret, [], inputs, lse, grads, delta, lse_p, scale, plan)
            }
        }
    };
    (@passes $t:ident, $call:ident, [$($stream:ident)?], $inputs:ident, $lse:ident, $grads:ident,
     $delta:ident, $lse_p:ident, $scale:ident, $plan:ident) => {{
        let [q, k, v, o, d_o] = $inputs;
        let [dq, dk, dv] = $grads;
        let (delta, lse_p) = (&mut $delta, &mut $lse_p);
        if $plan.head_dim == 64 {
            attention_bwd_prep::<$t, 64>::$call($($stream,)? o, d_o, $lse, delta, lse_p)?;
        } else {
            attention_bwd_prep::<$t, 128>::$call($($stream,)? o, d_o, $lse, delta, lse_p)?;
        }
        let (delta, lse_p) = (&*delta, &*lse_p);
        // The dQ pass is a kernel of its own: with dQ summed across the dK/dV programs, it goes.
        match ($plan.head_dim, $plan.causal) {
            (64, false) => {
                attention_bwd_dkdv::<$t, 64, 0, 4>::$call($($stream,)? q, k, v, d_o, lse_p, delta, dk, dv, $scale)?;
                attention_bwd_dq::<$t, 64, 0, 128, 4>::$call($($stream,)? q, k, v, d_o, lse_p, delta, dq, $scale)
            }
            (64, true) => {
                attention_bwd_dkdv::<$t, 64, 1, 4>::$call($($stream,)? q, k, v, d_o, lse_p, delta, dk, dv, $scale)?;
                attention_bwd_dq::<$t, 64, 1, 128, 4>::$call($($stream,)? q, k, v, d_o, lse_p, delta, dq, $scale)
            }
            (_, false) => {
                attention_bwd_dkdv::<$t, 128, 0, 3>::$call($($stream,)? q, k, v, d_o, lse_p, delta, dk, dv, $scale)?;
                attention_bwd_dq::<$t, 128, 0, 64, 3>::$call($($stream,)? q, k, v, d_o, lse_p, delta, dq, $scale)
            }
            (_, true) => {
                attention_bwd_dkdv::<$t, 128, 1, 3>::$call($($stream,)? q, k, v, d_o, lse_p, delta, dk, dv, $scale)?;
                attention_bwd_dq::<$t, 128, 1, 64, 3>::$call($($stream,)? q, k, v, d_o, lse_p, delta, dq, $scale)
            }
        }
    }};
}

backward!(bf16);
backward!(f16);

/// Every instance's name and PTX (for `ptxas` checks and `TESSEL_DUMP_PTX`).
pub const ALL_PTX: &[(&str, &str)] = &[
    ("attention_bwd_prep_bf16_d64", attention_bwd_prep::<bf16, 64>::PTX),
    ("attention_bwd_prep_bf16_d128", attention_bwd_prep::<bf16, 128>::PTX),
    ("attention_bwd_prep_f16_d64", attention_bwd_prep::<f16, 64>::PTX),
    ("attention_bwd_prep_f16_d128", attention_bwd_prep::<f16, 128>::PTX),
    ("attention_bwd_dkdv_bf16_d64", attention_bwd_dkdv::<bf16, 64, 0, 4>::PTX),
    ("attention_bwd_dkdv_bf16_d64_causal", attention_bwd_dkdv::<bf16, 64, 1, 4>::PTX),
    ("attention_bwd_dkdv_bf16_d128", attention_bwd_dkdv::<bf16, 128, 0, 3>::PTX),
    ("attention_bwd_dkdv_bf16_d128_causal", attention_bwd_dkdv::<bf16, 128, 1, 3>::PTX),
    ("attention_bwd_dkdv_f16_d64", attention_bwd_dkdv::<f16, 64, 0, 4>::PTX),
    ("attention_bwd_dkdv_f16_d64_causal", attention_bwd_dkdv::<f16, 64, 1, 4>::PTX),
    ("attention_bwd_dkdv_f16_d128", attention_bwd_dkdv::<f16, 128, 0, 3>::PTX),
    ("attention_bwd_dkdv_f16_d128_causal", attention_bwd_dkdv::<f16, 128, 1, 3>::PTX),
    ("attention_bwd_dq_bf16_d64", attention_bwd_dq::<bf16, 64, 0, 128, 4>::PTX),
    ("attention_bwd_dq_bf16_d64_causal", attention_bwd_dq::<bf16, 64, 1, 128, 4>::PTX),
    ("attention_bwd_dq_bf16_d128", attention_bwd_dq::<bf16, 128, 0, 64, 3>::PTX),
    ("attention_bwd_dq_bf16_d128_causal", attention_bwd_dq::<bf16, 128, 1, 64, 3>::PTX),
    ("attention_bwd_dq_f16_d64", attention_bwd_dq::<f16, 64, 0, 128, 4>::PTX),
    ("attention_bwd_dq_f16_d64_causal", attention_bwd_dq::<f16, 64, 1, 128, 4>::PTX),
    ("attention_bwd_dq_f16_d128", attention_bwd_dq::<f16, 128, 0, 64, 3>::PTX),
    ("attention_bwd_dq_f16_d128_causal", attention_bwd_dq::<f16, 128, 1, 64, 3>::PTX),
];
