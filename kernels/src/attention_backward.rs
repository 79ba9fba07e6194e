//! The flash attention backward pass: dQ, dK and dV of O = softmax(scale Q K^T) V.
//!
//! Shapes: Q, dO, O and dQ are H x S x D; K, V, dK and dV are HK x T x D, with H = G HK (query head
//! h reads K/V head h / G: grouped-query attention, or multi-query with HK = 1; G = 1 is plain
//! multi-head). Elements are bf16 or f16, accumulation is f32, D is 64 or 128, S and T are any
//! lengths. The forward's row statistics come in as `lse: H x S` (f32, base 2):
//! `lse[h, i] = log2(sum_j exp2(c q_i . k_j))` with c = scale log2(e), so that
//! P = exp2(c S - lse) costs one FMA and one `ex2` per score.
//!
//! With delta_i = sum_d dO[i, d] O[i, d], the gradients are dV = P^T dO, dP = dO V^T,
//! dS = P o (dP - delta), dK = scale dS^T Q and dQ = scale dS K; with G > 1, dK and dV of a K/V
//! head sum over the G query heads of its group. [`launch`] (and [`interpret`]) runs, in order:
//!
//! 1. [`attention_bwd_prep`]: per 64 queries of a head, delta and a copy of `lse`, both into
//!    `H x SP` workspaces whose rows are padded with zeros to SP, a multiple of 128 (so that TMA
//!    can copy their tiles whatever S is: a TMA row is whole 16-byte units); on the fused paths
//!    it also zeroes the f32 dQ workspace (below), its stores running under its loads. It moves
//!    its tiles with TMA, as does [`attention_bwd_dq_cast`]: 4-byte loads and stores a thread
//!    kept the two passes at 2.6 and 3.5 TB/s.
//! 2. [`attention_bwd_dkdv`]: K/V-stationary, in FlashAttention-3's manner. A program owns 128
//!    keys of one K/V head (64 per consumer warpgroup) and walks over the 64-query blocks that see
//!    them, of every query head of its group. Warpgroup 0 is the producer: it loads the program's
//!    K and V once and streams each block's Q, dO, lse and delta through a ring of shared-memory
//!    stages with TMA. Each consumer step reads the block's lse (before the products, whose
//!    operand reads its loads would otherwise wait behind), issues S^T = K Q^T and dP^T = V dO^T
//!    together (m64 wgmmas, Q and dO read K-major through `.t()`), turns S^T into P^T with lse
//!    (one FMA and an `ex2` per score), issues dV += P^T dO with P^T from registers while it computes
//!    dS^T = P^T o (dP^T - delta), then dK += dS^T Q, also from registers, which runs on into the
//!    next step (one wgmma group in flight across steps). dK and dV stay in registers to the end
//!    and are stored once.
//! 3. With few K/V heads ([`Plan::partials`]: multi-query attention, say) the dK/dV programs take
//!    one query head each, G times as many programs, into f32 partial sums per query head, and
//!    [`attention_bwd_sum`] adds up each group's.
//! 4. [`attention_bwd_dq`]: Q-stationary. A program owns 128 queries of one head (64 per
//!    consumer), loads its Q and dO once and streams the K and V blocks of its K/V head; each step
//!    recomputes S and dP, P and dS, and adds dS K into dQ.
//!
//! That is [`DqPath::Separate`] (`TESSEL_ATTN_BWD_DQ=separate`, or [`Plan::dq`]): 7 matrix
//! products, S and dP computed twice. [`DqPath::Fused`], the default at D = 64, does the 5 of
//! FlashAttention-3's backward: [`attention_bwd_fused`] replaces steps 2 and 4 (and serves step 3
//! alike), and [`attention_bwd_dq_cast`] follows it. Each step of a fused consumer, after dS^T is
//! in registers, also stores it (cast, by `stmatrix`) into a shared buffer double-buffered by step
//! parity, and issues dQ = dS K as a wgmma of shared-memory operands: dS as an MN-major A (the
//! stored dS^T through `.t()`), K as an MN-major B. It issues dK += dS^T Q after that product and
//! waits only for it (`wgmma_wait(1)`: dK runs on into the next step, as before), stores the f32
//! result into a 128-byte-swizzled shared buffer and adds it into an f32 H x S x D workspace with
//! a reducing TMA store (`copy_smem_to_gmem(.., reduce = Reduce::Add)`, `cp.reduce.async.bulk.tensor`),
//! into which the programs of every key block add concurrently; [`attention_bwd_prep`] zeroes
//! the workspace first, and [`attention_bwd_dq_cast`] scales and casts it into dQ at the end
//! (the kernel boundary orders its plain loads after every reduction).
//!
//! - Both consumers' dS^T halves make the block's dS (64 queries x 128 keys), so the consumers
//!   meet at an mbarrier (`ds_ready`, two arrivals) once both are stored, and dQ takes two wgmmas
//!   (one per half, K = 64 keys each). The double buffer makes one meeting per step enough: a
//!   consumer writes a dS^T buffer again two steps later, after the other has met it once more,
//!   which it does only after its wait for the product that read the buffer.
//! - At D = 128 the registers decide who computes what, as in FlashAttention-3: a consumer's dK
//!   and dV already hold 128 f32 per thread and S^T and dP^T 64, so a 64 x 128 f32 dQ product
//!   does not fit beside them. Each consumer computes half of dQ's columns (64 x 64, 32
//!   registers). Its B is its 64 columns of the program's 128 keys, which a swizzled buffer cannot
//!   give as a window (its minor dimension does not slice): the producer loads K a second time in
//!   64-column tiles (`kq_s`, 32 KB).
//! - At D = 64 the consumers take turns: in step n, consumer n % 2 computes all 64 columns of the
//!   block's dQ and adds them into the workspace, and the other goes on to its dK product: one
//!   reduction of the block's rows per step, as at D = 128. Each consumer adding its own keys'
//!   whole dQ (no meeting, twice the reduced bytes) ran 4-8 % slower without the mask and up to
//!   20 % with it (H200, bf16); splitting the columns (N = 32 a consumer, K's second copy and
//!   dS^T 64-byte swizzled) ran 0-3 % slower than taking turns.
//!
//! At D = 64 without the mask, units of at most [`PERSISTENT_STEPS`] steps (S up to 4096 for
//! G = 1) go to [`attention_bwd_fused_persistent`] ([`Plan::persistent`]): the same steps on a
//! persistent grid, one program per SM taking every 132nd unit. K and V have two buffers, so the
//! producer loads the next unit's under this unit's last steps, and the ring of Q and dO runs on
//! from unit to unit: a unit starts on loaded data and its dK/dV stores overlap the next unit's
//! loads, where a program per unit first waits for its K, V and first stage, and leaves its SM
//! idle from its last store until the next program has loaded. That was worth 1-3 % at S = 2048
//! (32 steps a unit) on the H200; on units of 128 steps and more the program per unit was as fast
//! or up to 1 % ahead, so it keeps those. (At D = 128 the second K/V buffer, 96 KB with K's second
//! copy, does not fit.)
//!
//! Two variants of the fused path at D = 128 (at D = 64 they run [`DqPath::Fused`]'s kernel):
//! [`DqPath::FusedEager`], the default at D = 128, releases each stage when its step's products are done, as
//! FlashAttention-3 does, where the delayed release (one wgmma group in flight across steps)
//! frees a stage only at the end of the next step, which with 2 stages leaves the producer to load
//! each step's Q and dO only once the step that reads them has begun; [`DqPath::FusedRed`] adds
//! each step's dQ from registers (`atomic_add`, `red.global.add.v2.f32`) in place of the shared
//! buffer, its stores and the reducing TMA store, and spends the 32 KB on a third stage. The
//! causal programs of the fused paths are dealt in sections of heads that fit the L2
//! ([`CausalOrder::Sections`], the default; `TESSEL_ATTN_BWD_ORDER=heads` deals every head's
//! first block first), as FlashAttention-3 deals them.
//!
//! The defaults are the H200's choice (docs/performance.md, "Attention backward", bf16 and f16,
//! 2048 to 16384 queries): at D = 128 the eager fused path with sections was 0-9 % ahead of the
//! separate path on every case measured but 2048 queries without the mask (even), and ahead on
//! the grouped-query cases; at D = 64 the fused path with sections was 4-16 % ahead of the
//! separate one (bf16).
//!
//! Causal (`CAUSAL` 1, T = S): query i sees keys 0 ..= i. A dK/dV program starts at the first
//! query block that sees its keys and masks the two diagonal blocks; a dQ program stops after the
//! last key block its queries see and masks the blocks that reach past its first query; both
//! kernels start every head's heaviest programs first (the fused kernel's may go in sections of
//! heads, [`CausalOrder`]). Ragged S: TMA reads zeros past S, so
//! those queries' dO and delta are 0 and they add nothing to dK and dV; their rows of dQ are not
//! stored (the fused kernel's reducing stores drop them). Ragged T: the dQ kernel masks the keys
//! past T in the last block (the dK/dV rows of those keys are not stored); the fused kernel needs
//! no mask for dQ, since those keys' rows of K are TMA's zeros.
//!
//! Shared memory: dK/dV 100,424 bytes at D = 64 (4 stages), 165,432 at D = 128 (3 stages); dQ
//! 163,912 at D = 64 (4 stages of 128 keys) and 163,896 at D = 128 (3 stages of 64 keys); the
//! fused dK/dV/dQ kernel 165,968 at D = 64 (4 stages; 198,760 persistent, with K and V's second
//! buffer) and 230,456 at D = 128 (2 stages: K's second copy, the two dS^T buffers of 16 KB and
//! the 32 KB f32 dQ buffer leave room for no third), 230,984 with [`DqPath::FusedRed`] (3 stages, no dQ buffer; its dS^T buffers go before
//! the stages' lse and delta, so that no padding aligns them); prep 32 KB of O and dO tiles at
//! D = 128 (16 KB at 64) and on the fused paths a 16 KB buffer of zeros, the cast 48 KB at D = 128
//! (24 KB at 64), each with one barrier; the partial sums' kernel none.

use tessel::prelude::*;

// `ALL_PTX`: every instance's name and PTX (for the `ptxas` check and `TESSEL_DUMP_PTX`), which
// `#[kernels]` lists for its module.
pub use programs::{
    attention_bwd_dkdv, attention_bwd_dq, attention_bwd_dq_cast, attention_bwd_fused, attention_bwd_fused_persistent,
    attention_bwd_prep, attention_bwd_sum, ALL_PTX,
};

#[kernels]
pub mod programs {
    use tessel::prelude::*;

    /// The query head and query block of step `n` of a dK/dV program whose query heads start at
    /// `head`: the heads one after another, `blocks` query blocks each, from block `first` on.
    fn query_block(n: i32, blocks: i32, first: i32, head: i32) -> (i32, i32) {
        (head + n / blocks, first + n % blocks)
    }

    /// Program `p`'s block and head, of `blocks` blocks of `heads` heads: with the causal mask
    /// (`causal` 1) the block is counted from the heaviest, and every head's heaviest block comes
    /// first, then their next, and so on (the longest work first, so that the last programs to
    /// start are the shortest); without it, a head's blocks come side by side (running together,
    /// they share the head's tensors in the L2).
    fn unit(p: i32, blocks: i32, heads: i32, causal: i32) -> (i32, i32) {
        if causal == 1 {
            (p / heads, p % heads)
        } else {
            (p % blocks, p / blocks)
        }
    }

    /// Program `p`'s block and head of `blocks` causal blocks of `heads` heads, heaviest block first
    /// as in [`unit`]'s causal order, but within sections of `section` heads (the last section
    /// takes the heads that remain): the programs running together then read the Q, dO and dQ
    /// sums of a few heads, which stay in the L2, where [`unit`]'s order over every head reads
    /// each head's from memory again at each level of blocks (see [`CausalOrder`]).
    fn sectioned(p: i32, blocks: i32, heads: i32, section: i32) -> (i32, i32) {
        let n = p / (section * blocks);
        let size = min(section, heads - n * section);
        let r = p - n * section * blocks;
        (r / size, n * section + r % size)
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
    /// 128) with zeros: one program per 64 queries of a head. With `ZERO` 1 (the fused paths) it
    /// also zeroes those queries' rows of the f32 dQ sums, which the dK/dV programs add into: the
    /// stores run under the loads, where a separate fill of the workspace would be a pass of its own.
    /// O and dO come in by TMA and the zeros go out by TMA from one 64 x 64 buffer.
    #[kernel(grid = (SP / 64, H), ragged(S),
             instances((bf16, 64, 0), (bf16, 128, 0), (f16, 64, 0), (f16, 128, 0),
                       (bf16, 64, 1), (bf16, 128, 1), (f16, 64, 1), (f16, 128, 1)))]
    pub fn attention_bwd_prep<E, const D: usize, const ZERO: usize>(
        o: Gmem<E, H, S, D>,
        d_o: Gmem<E, H, S, D>,
        lse: Gmem<f32, H, S>,
        delta: GmemMut<f32, H, SP>,
        lse_p: GmemMut<f32, H, SP>,
        #[when(ZERO == 1)] dq_sum: GmemMut<f32, H, S, D>,
    ) {
        let (i, h) = (program_id(0), program_id(1));
        run_scoped(
            |o_s: Smem<E, 1, 64, D, Swizzle128>,
             do_s: Smem<E, 1, 64, D, Swizzle128>,
             #[when(ZERO == 1)] zero_s: Smem<f32, 1, 64, 64, Swizzle128>,
             loaded: Barrier<2>| {
                copy_gmem_to_smem(o.tile([h, i, 0]), o_s, loaded);
                copy_gmem_to_smem(d_o.tile([h, i, 0]), do_s, loaded);
                if ZERO == 1 {
                    zero_s.at(0).store(splat(0.0f32, [64, 64]).to_layout(Layout::Wgmma));
                    commit_smem();
                    #[unroll]
                    for col in 0..D / 64 {
                        copy_smem_to_gmem(zero_s, dq_sum.tile([h, i, col]));
                    }
                }
                lse_p.tile([h, i], [1, 64]).store(lse.tile([h, i], [1, 64]).load(Layout::WgmmaRow));
                barrier_wait(loaded);
                let out = o_s.at(0).load(Layout::Wgmma).cast::<f32>();
                let grad = do_s.at(0).load(Layout::Wgmma).cast::<f32>();
                delta.tile([h, i], [1, 64]).store((out * grad).sum(1));
                if ZERO == 1 {
                    wait_smem_to_gmem(0);
                }
            },
        );
    }

    /// dK and dV for 128 keys of one K/V head per program, summed over `heads` query heads of its
    /// group (see the module's documentation): over the whole group (`heads` = H / HK, HO = HK,
    /// `P` the element type), or over one query head (`heads` = 1, HO = H, `P` f32: partial sums
    /// that [`attention_bwd_sum`] adds up). `STAGES` stages of `BQ` queries' Q, dO, lse and delta
    /// (`BQ` divides 128, so that the causal mask's diagonal is whole blocks; 128 queries at D = 64
    /// left ptxas too few registers for the four accumulators: C7512, wgmmas serialized).
    #[kernel(grid = (cdiv(T, 128) * HO), warpgroups = 3, warpgroup_axis = wg, max_registers = 168, ragged(S, T),
             instances((bf16, bf16, 64, 0, 64, 4), (bf16, bf16, 64, 1, 64, 4), (bf16, bf16, 128, 0, 64, 3), (bf16, bf16, 128, 1, 64, 3),
                       (f16, f16, 64, 0, 64, 4), (f16, f16, 64, 1, 64, 4), (f16, f16, 128, 0, 64, 3), (f16, f16, 128, 1, 64, 3),
                       (bf16, f32, 64, 0, 64, 4), (bf16, f32, 64, 1, 64, 4), (bf16, f32, 128, 0, 64, 3), (bf16, f32, 128, 1, 64, 3),
                       (f16, f32, 64, 0, 64, 4), (f16, f32, 64, 1, 64, 4), (f16, f32, 128, 0, 64, 3), (f16, f32, 128, 1, 64, 3)))]
    pub fn attention_bwd_dkdv<E, P, const D: usize, const CAUSAL: usize, const BQ: usize, const STAGES: usize>(
        q: Gmem<E, H, S, D>,
        k: Gmem<E, HK, T, D>,
        v: Gmem<E, HK, T, D>,
        d_o: Gmem<E, H, S, D>,
        lse: Gmem<f32, H, SP>,
        delta: Gmem<f32, H, SP>,
        dk: GmemMut<P, HO, T, D>,
        dv: GmemMut<P, HO, T, D>,
        scale: f32,
        heads: i32,
    ) {
        // Causal: key block 0 is the heaviest (every query sees it).
        let (j, out) = unit(program_id(0), cdiv(T, 128), HO, CAUSAL);
        let (head, kv_head) = (out * heads, out * heads / (H / HK));
        // Causal: the queries before 128 j see none of these keys.
        let first = if CAUSAL == 1 { 128 * j / BQ } else { 0 };
        let blocks = cdiv(S, BQ) - first;
        let steps = heads * blocks;
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
                        let (h, i) = query_block(n, blocks, first, head);
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
                                    // The block's lse, read before the products: its loads would queue
                                    // behind their operand reads.
                                    let lse_q = lse_s.at(s).at(0).load(Layout::WgmmaCol);
                                    // S^T and dP^T: this consumer's 64 keys against the block's queries.
                                    wgmma(s_acc, k_s.at(w).at(0), q_s.at(s).at(0).t(), accumulate = false);
                                    wgmma(dp_acc, v_s.at(w).at(0), do_s.at(s).at(0).t(), accumulate = false);
                                    let i = first + n % blocks;
                                    wgmma_wait(1);
                                    if CAUSAL == 1 && i < first + 128 / BQ {
                                        // A diagonal block: key 128 j + 64 w + r is hidden from query BQ i + q < it.
                                        let keys = iota::<i32>([64, BQ], 0) + (128 * j + 64 * w - BQ * i);
                                        s_acc.store(mask(s_acc.load(), iota::<i32>([64, BQ], 1) < keys));
                                    }
                                    let p = exp2(fma(s_acc.load(), c, -lse_q.broadcast([64, BQ], Layout::Wgmma)));
                                    wgmma(dv_acc, p.cast::<E>(), do_s.at(s).at(0));
                                    // delta, read while dP^T finishes.
                                    let delta_q = delta_s.at(s).at(0).load(Layout::WgmmaCol);
                                    // dP^T is done (the groups complete in order); dV += P^T dO runs on.
                                    wgmma_wait(1);
                                    let ds = p * (dp_acc.load() - delta_q.broadcast([64, BQ], Layout::Wgmma));
                                    wgmma(dk_acc, ds.cast::<E>(), q_s.at(s).at(0));
                                },
                                delay_release = true,
                            );
                            wgmma_wait(0);
                            dv.tile([out, 2 * j + w, 0], [1, 64, D]).store(dv_acc.load().cast::<P>());
                            dk.tile([out, 2 * j + w, 0], [1, 64, D]).store((dk_acc.load() * scale).cast::<P>());
                        },
                    );
                }
            },
        );
    }

    /// [`attention_bwd_dkdv`] with dQ fused in (the module's documentation says how): each step
    /// also adds the block's dQ = dS K, unscaled, into `dq_sum`, an f32 H x S x D workspace that
    /// [`attention_bwd_prep`] zeroes and [`attention_bwd_dq_cast`] scales and casts, from both
    /// consumers' dS^T (`ds_ready`): at D = 128 each consumer takes 64 of dQ's columns, with K's
    /// second copy (`kq_s`); at D = 64 the consumers take all of them in turns. `STAGES` is what
    /// the shared memory leaves (see the module's documentation).
    ///
    /// The variants, at D = 128 ([`DqPath`](super::DqPath) and [`CausalOrder`](super::CausalOrder)
    /// pick them): `EAGER` 1 releases each stage as soon as its step's products are done
    /// (FlashAttention-3's ring) instead of a step later, so that with 2 stages the producer loads
    /// a step ahead instead of none; `RED` 1 adds dQ into `dq_sum` from registers
    /// (`red.global.add.v2.f32`) instead of through a shared buffer and a reducing TMA store,
    /// which frees 32 KB for a third stage; `SECTIONS` 1 deals the causal programs in sections of
    /// `section` heads (at D = 64 too).
    #[kernel(grid = (cdiv(T, 128) * HO), warpgroups = 3, warpgroup_axis = wg, max_registers = 168, ragged(S, T),
             instances((bf16, bf16, 64, 0, 64, 4, 0, 0, 0), (bf16, bf16, 64, 1, 64, 4, 0, 0, 0), (bf16, bf16, 64, 1, 64, 4, 0, 0, 1),
                       (bf16, bf16, 128, 0, 64, 2, 0, 0, 0), (bf16, bf16, 128, 1, 64, 2, 0, 0, 0), (bf16, bf16, 128, 1, 64, 2, 0, 0, 1),
                       (bf16, bf16, 128, 0, 64, 2, 1, 0, 0), (bf16, bf16, 128, 1, 64, 2, 1, 0, 0), (bf16, bf16, 128, 1, 64, 2, 1, 0, 1),
                       (bf16, bf16, 128, 0, 64, 3, 0, 1, 0), (bf16, bf16, 128, 1, 64, 3, 0, 1, 0), (bf16, bf16, 128, 1, 64, 3, 0, 1, 1),
                       (f16, f16, 64, 0, 64, 4, 0, 0, 0), (f16, f16, 64, 1, 64, 4, 0, 0, 0), (f16, f16, 64, 1, 64, 4, 0, 0, 1),
                       (f16, f16, 128, 0, 64, 2, 0, 0, 0), (f16, f16, 128, 1, 64, 2, 0, 0, 0), (f16, f16, 128, 1, 64, 2, 0, 0, 1),
                       (f16, f16, 128, 0, 64, 2, 1, 0, 0), (f16, f16, 128, 1, 64, 2, 1, 0, 0), (f16, f16, 128, 1, 64, 2, 1, 0, 1),
                       (f16, f16, 128, 0, 64, 3, 0, 1, 0), (f16, f16, 128, 1, 64, 3, 0, 1, 0), (f16, f16, 128, 1, 64, 3, 0, 1, 1),
                       (bf16, f32, 64, 0, 64, 4, 0, 0, 0), (bf16, f32, 64, 1, 64, 4, 0, 0, 0), (bf16, f32, 64, 1, 64, 4, 0, 0, 1),
                       (bf16, f32, 128, 0, 64, 2, 0, 0, 0), (bf16, f32, 128, 1, 64, 2, 0, 0, 0), (bf16, f32, 128, 1, 64, 2, 0, 0, 1),
                       (bf16, f32, 128, 0, 64, 2, 1, 0, 0), (bf16, f32, 128, 1, 64, 2, 1, 0, 0), (bf16, f32, 128, 1, 64, 2, 1, 0, 1),
                       (bf16, f32, 128, 0, 64, 3, 0, 1, 0), (bf16, f32, 128, 1, 64, 3, 0, 1, 0), (bf16, f32, 128, 1, 64, 3, 0, 1, 1),
                       (f16, f32, 64, 0, 64, 4, 0, 0, 0), (f16, f32, 64, 1, 64, 4, 0, 0, 0), (f16, f32, 64, 1, 64, 4, 0, 0, 1),
                       (f16, f32, 128, 0, 64, 2, 0, 0, 0), (f16, f32, 128, 1, 64, 2, 0, 0, 0), (f16, f32, 128, 1, 64, 2, 0, 0, 1),
                       (f16, f32, 128, 0, 64, 2, 1, 0, 0), (f16, f32, 128, 1, 64, 2, 1, 0, 0), (f16, f32, 128, 1, 64, 2, 1, 0, 1),
                       (f16, f32, 128, 0, 64, 3, 0, 1, 0), (f16, f32, 128, 1, 64, 3, 0, 1, 0), (f16, f32, 128, 1, 64, 3, 0, 1, 1)))]
    pub fn attention_bwd_fused<
        E,
        P,
        const D: usize,
        const CAUSAL: usize,
        const BQ: usize,
        const STAGES: usize,
        const EAGER: usize,
        const RED: usize,
        const SECTIONS: usize,
    >(
        q: Gmem<E, H, S, D>,
        k: Gmem<E, HK, T, D>,
        v: Gmem<E, HK, T, D>,
        d_o: Gmem<E, H, S, D>,
        lse: Gmem<f32, H, SP>,
        delta: Gmem<f32, H, SP>,
        dk: GmemMut<P, HO, T, D>,
        dv: GmemMut<P, HO, T, D>,
        dq_sum: GmemMut<f32, H, S, D>,
        scale: f32,
        heads: i32,
        #[when(SECTIONS == 1)] section: i32,
    ) {
        let (j, out) = if SECTIONS == 1 {
            sectioned(program_id(0), cdiv(T, 128), HO, section)
        } else {
            unit(program_id(0), cdiv(T, 128), HO, CAUSAL)
        };
        let (head, kv_head) = (out * heads, out * heads / (H / HK));
        let first = if CAUSAL == 1 { 128 * j / BQ } else { 0 };
        let blocks = cdiv(S, BQ) - first;
        let steps = heads * blocks;
        run_scoped(
            collective_axes = [wg],
            |k_s: Smem<E, 2, 1, 64, D, Swizzle128>,
             v_s: Smem<E, 2, 1, 64, D, Swizzle128>,
             #[when(D == 128)] kq_s: Smem<E, 2, 1, 128, 64, Swizzle128>,
             q_s: Smem<E, STAGES, 1, BQ, D, Swizzle128>,
             do_s: Smem<E, STAGES, 1, BQ, D, Swizzle128>,
             // By step parity, then consumer: each consumer's dS^T, 64 keys x BQ queries (before
             // `lse_s` where the shared memory is full, so that no padding aligns it).
             #[when(RED == 1)] ds_s: Smem<E, 2, 2, 64, BQ, Swizzle128>,
             lse_s: Smem<f32, STAGES, 1, BQ>,
             delta_s: Smem<f32, STAGES, 1, BQ>,
             #[when(RED == 0)] ds_s: Smem<E, 2, 2, 64, BQ, Swizzle128>,
             // By consumer: its 64 x 64 share of the block's dQ, on its way to `dq_sum`.
             #[when(RED == 0)] dq_s: Smem<f32, 2, 1, BQ, 64, Swizzle128>,
             kv_loaded: Barrier<4>,
             #[when(D == 128)] kq_loaded: Barrier<2>,
             // Both consumers' dS^T of the step are in `ds_s`.
             ds_ready: Barrier<2>,
             ring: Pipeline<STAGES, 4, 2>| {
                if warpgroup_id() == 0 {
                    set_max_registers(24);
                    copy_gmem_to_smem(k.tile([kv_head, 2 * j, 0]), k_s.at(0), kv_loaded);
                    copy_gmem_to_smem(k.tile([kv_head, 2 * j + 1, 0]), k_s.at(1), kv_loaded);
                    copy_gmem_to_smem(v.tile([kv_head, 2 * j, 0]), v_s.at(0), kv_loaded);
                    copy_gmem_to_smem(v.tile([kv_head, 2 * j + 1, 0]), v_s.at(1), kv_loaded);
                    if D == 128 {
                        copy_gmem_to_smem(k.tile([kv_head, j, 0]), kq_s.at(0), kq_loaded);
                        copy_gmem_to_smem(k.tile([kv_head, j, 1]), kq_s.at(1), kq_loaded);
                    }
                    pipeline_produce(ring, steps, |n, s, bar| {
                        let (h, i) = query_block(n, blocks, first, head);
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
                    if D == 128 {
                        barrier_wait(kq_loaded);
                    }
                    run_scoped(
                        |dv_acc: Acc<f32, 64, D>,
                         dk_acc: Acc<f32, 64, D>,
                         s_acc: Acc<f32, 64, BQ>,
                         dp_acc: Acc<f32, 64, BQ>,
                         dq_acc: Acc<f32, BQ, 64>| {
                            pipeline_consume(
                                ring,
                                steps,
                                |n, s| {
                                    // S^T, dP^T, P^T, dV and dS^T as in `attention_bwd_dkdv`; lse read
                                    // before the products, whose operand reads its loads would queue behind.
                                    let lse_q = lse_s.at(s).at(0).load(Layout::WgmmaCol);
                                    wgmma(s_acc, k_s.at(w).at(0), q_s.at(s).at(0).t(), accumulate = false);
                                    wgmma(dp_acc, v_s.at(w).at(0), do_s.at(s).at(0).t(), accumulate = false);
                                    let (h, i) = query_block(n, blocks, first, head);
                                    wgmma_wait(1);
                                    if CAUSAL == 1 && i < first + 128 / BQ {
                                        // A diagonal block: key 128 j + 64 w + r is hidden from query BQ i + q < it.
                                        let keys = iota::<i32>([64, BQ], 0) + (128 * j + 64 * w - BQ * i);
                                        s_acc.store(mask(s_acc.load(), iota::<i32>([64, BQ], 1) < keys));
                                    }
                                    let p = exp2(fma(s_acc.load(), c, -lse_q.broadcast([64, BQ], Layout::Wgmma)));
                                    wgmma(dv_acc, p.cast::<E>(), do_s.at(s).at(0));
                                    // delta, read while dP^T finishes.
                                    let delta_q = delta_s.at(s).at(0).load(Layout::WgmmaCol);
                                    wgmma_wait(1);
                                    let ds =
                                        (p * (dp_acc.load() - delta_q.broadcast([64, BQ], Layout::Wgmma))).cast::<E>();
                                    // dS^T to shared memory, for the dQ product's A (read MN-major).
                                    let b = n % 2;
                                    ds_s.at(b).at(w).store(ds);
                                    commit_smem();
                                    barrier_arrive(ds_ready);
                                    barrier_wait(ds_ready);
                                    if D == 128 {
                                        // dQ[:, 64 w ..][+64] = dS K[:, 64 w ..][+64] over both consumers' keys.
                                        let kq = kq_s.at(w).at(0);
                                        wgmma(dq_acc, ds_s.at(b).at(0).t(), kq.slice([0..64, ..]), accumulate = false);
                                        wgmma(dq_acc, ds_s.at(b).at(1).t(), kq.slice([64..128, ..]));
                                    } else if b == w {
                                        // dQ = dS K, all 64 columns over both consumers' keys, by the
                                        // consumers in turn.
                                        wgmma(dq_acc, ds_s.at(b).at(0).t(), k_s.at(0).at(0), accumulate = false);
                                        wgmma(dq_acc, ds_s.at(b).at(1).t(), k_s.at(1).at(0));
                                    }
                                    wgmma(dk_acc, ds, q_s.at(s).at(0));
                                    // The dQ product is done (the groups complete in order); dK runs on.
                                    wgmma_wait(1);
                                    if RED == 1 {
                                        if D == 128 || b == w {
                                            let col = if D == 128 { w } else { 0 };
                                            dq_sum.tile([h, i, col], [1, BQ, 64]).atomic_add(dq_acc.load());
                                        }
                                    } else if D == 128 || b == w {
                                        wait_smem_to_gmem(0);
                                        dq_s.at(w).at(0).store(dq_acc.load());
                                        commit_smem();
                                        let col = if D == 128 { w } else { 0 };
                                        copy_smem_to_gmem(dq_s.at(w), dq_sum.tile([h, i, col]), reduce = Reduce::Add);
                                    }
                                },
                                delay_release = EAGER == 0,
                            );
                            wgmma_wait(0);
                            dv.tile([out, 2 * j + w, 0], [1, 64, D]).store(dv_acc.load().cast::<P>());
                            dk.tile([out, 2 * j + w, 0], [1, 64, D]).store((dk_acc.load() * scale).cast::<P>());
                            if RED == 0 {
                                // The last dQ store reads `dq_s` under the stores from registers.
                                wait_smem_to_gmem(0);
                            }
                        },
                    );
                }
            },
        );
    }

    /// [`attention_bwd_fused`] at D = 64 without the mask, on a persistent grid: each of `PROGRAMS`
    /// programs (one per SM) takes every `PROGRAMS`-th unit of 128 keys of a K/V head (or of a query
    /// head, with partial sums), a head's units side by side as without the mask in
    /// [`attention_bwd_fused`]. K and V have two buffers, a ring of one step per unit (`kv_ring`),
    /// so the next unit's come in under this unit's steps, and the Q/dO ring runs on from unit to
    /// unit: a unit starts on loaded data, where a program of its own first waited for its K, V
    /// and first stage, and its dK/dV stores overlap the next unit's loads.
    /// The consumers' steps are [`attention_bwd_fused`]'s at D = 64; dS^T's buffers alternate over
    /// the program's steps, not the unit's, so a unit of an odd number of steps leaves the next one
    /// the other buffer (the one meeting per step covers a buffer written again two steps on).
    #[kernel(grid = (PROGRAMS,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168, ragged(S, T),
             instances((bf16, bf16, 4, 132), (f16, f16, 4, 132), (bf16, f32, 4, 132), (f16, f32, 4, 132),
                       // On a few programs, for the tests: each takes several units.
                       (bf16, bf16, 4, 3)))]
    pub fn attention_bwd_fused_persistent<E, P, const STAGES: usize, const PROGRAMS: usize>(
        q: Gmem<E, H, S, 64>,
        k: Gmem<E, HK, T, 64>,
        v: Gmem<E, HK, T, 64>,
        d_o: Gmem<E, H, S, 64>,
        lse: Gmem<f32, H, SP>,
        delta: Gmem<f32, H, SP>,
        dk: GmemMut<P, HO, T, 64>,
        dv: GmemMut<P, HO, T, 64>,
        dq_sum: GmemMut<f32, H, S, 64>,
        scale: f32,
        heads: i32,
    ) {
        const BQ: usize = 64;
        let (key_blocks, programs) = (cdiv(T, 128), num_programs(0));
        let mine = (key_blocks * HO - program_id(0) + programs - 1) / programs;
        let blocks = cdiv(S, BQ);
        let steps = heads * blocks;
        run_scoped(
            collective_axes = [wg],
            |k_s: Smem<E, 2, 2, 1, 64, 64, Swizzle128>,
             v_s: Smem<E, 2, 2, 1, 64, 64, Swizzle128>,
             q_s: Smem<E, STAGES, 1, BQ, 64, Swizzle128>,
             do_s: Smem<E, STAGES, 1, BQ, 64, Swizzle128>,
             lse_s: Smem<f32, STAGES, 1, BQ>,
             delta_s: Smem<f32, STAGES, 1, BQ>,
             ds_s: Smem<E, 2, 2, 64, BQ, Swizzle128>,
             dq_s: Smem<f32, 2, 1, BQ, 64, Swizzle128>,
             // Unit u's K and V are in buffer u % 2: four copies fill it, both consumers free it.
             kv_ring: Pipeline<2, 4, 2>,
             ds_ready: Barrier<2>,
             ring: Pipeline<STAGES, 4, 2>| {
                if warpgroup_id() == 0 {
                    set_max_registers(24);
                    for u in 0..mine {
                        let (j, out) = unit(program_id(0) + u * programs, key_blocks, HO, 0);
                        let (head, kv_head) = (out * heads, out * heads / (H / HK));
                        pipeline_produce(kv_ring, 1, |_u, b, bar| {
                            copy_gmem_to_smem(k.tile([kv_head, 2 * j, 0]), k_s.at(b).at(0), bar);
                            copy_gmem_to_smem(k.tile([kv_head, 2 * j + 1, 0]), k_s.at(b).at(1), bar);
                            copy_gmem_to_smem(v.tile([kv_head, 2 * j, 0]), v_s.at(b).at(0), bar);
                            copy_gmem_to_smem(v.tile([kv_head, 2 * j + 1, 0]), v_s.at(b).at(1), bar);
                        });
                        pipeline_produce(ring, steps, |n, s, bar| {
                            let (h, i) = query_block(n, blocks, 0, head);
                            copy_gmem_to_smem(q.tile([h, i, 0]), q_s.at(s), bar);
                            copy_gmem_to_smem(d_o.tile([h, i, 0]), do_s.at(s), bar);
                            copy_gmem_to_smem(lse.tile([h, i]), lse_s.at(s), bar);
                            copy_gmem_to_smem(delta.tile([h, i]), delta_s.at(s), bar);
                        });
                    }
                } else {
                    set_max_registers(240);
                    let w = warpgroup_id() - 1;
                    let c = scale * 1.4426950408889634;
                    run_scoped(
                        |dv_acc: Acc<f32, 64, 64>,
                         dk_acc: Acc<f32, 64, 64>,
                         s_acc: Acc<f32, 64, BQ>,
                         dp_acc: Acc<f32, 64, BQ>,
                         dq_acc: Acc<f32, BQ, 64>| {
                            for u in 0..mine {
                                let (j, out) = unit(program_id(0) + u * programs, key_blocks, HO, 0);
                                let head = out * heads;
                                let kv = u % 2;
                                barrier_wait(kv_ring__full.at(kv));
                                pipeline_consume(
                                    ring,
                                    steps,
                                    |n, s| {
                                        let lse_q = lse_s.at(s).at(0).load(Layout::WgmmaCol);
                                        wgmma(s_acc, k_s.at(kv).at(w).at(0), q_s.at(s).at(0).t(), accumulate = false);
                                        wgmma(dp_acc, v_s.at(kv).at(w).at(0), do_s.at(s).at(0).t(), accumulate = false);
                                        let (h, i) = query_block(n, blocks, 0, head);
                                        wgmma_wait(1);
                                        let p = exp2(fma(s_acc.load(), c, -lse_q.broadcast([64, BQ], Layout::Wgmma)));
                                        // The unit's first products start dV and dK afresh.
                                        wgmma(dv_acc, p.cast::<E>(), do_s.at(s).at(0), accumulate = n > 0);
                                        let delta_q = delta_s.at(s).at(0).load(Layout::WgmmaCol);
                                        wgmma_wait(1);
                                        let ds = (p * (dp_acc.load() - delta_q.broadcast([64, BQ], Layout::Wgmma)))
                                            .cast::<E>();
                                        let b = (u * steps + n) % 2;
                                        ds_s.at(b).at(w).store(ds);
                                        commit_smem();
                                        barrier_arrive(ds_ready);
                                        barrier_wait(ds_ready);
                                        if b == w {
                                            wgmma(
                                                dq_acc,
                                                ds_s.at(b).at(0).t(),
                                                k_s.at(kv).at(0).at(0),
                                                accumulate = false,
                                            );
                                            wgmma(dq_acc, ds_s.at(b).at(1).t(), k_s.at(kv).at(1).at(0));
                                        }
                                        wgmma(dk_acc, ds, q_s.at(s).at(0), accumulate = n > 0);
                                        // The dQ product is done (the groups complete in order); dK runs on.
                                        wgmma_wait(1);
                                        if n + 1 == steps {
                                            // The unit's last products that read K and V are done.
                                            barrier_arrive(kv_ring__empty.at(kv));
                                        }
                                        if b == w {
                                            wait_smem_to_gmem(0);
                                            dq_s.at(w).at(0).store(dq_acc.load());
                                            commit_smem();
                                            copy_smem_to_gmem(dq_s.at(w), dq_sum.tile([h, i, 0]), reduce = Reduce::Add);
                                        }
                                    },
                                    delay_release = true,
                                );
                                wgmma_wait(0);
                                dv.tile([out, 2 * j + w, 0], [1, 64, 64]).store(dv_acc.load().cast::<P>());
                                dk.tile([out, 2 * j + w, 0], [1, 64, 64]).store((dk_acc.load() * scale).cast::<P>());
                            }
                            wait_smem_to_gmem(0);
                        },
                    );
                }
            },
        );
    }

    /// dQ from the fused kernel's f32 sums: `scale` times `dq_sum`, cast, one program per 64
    /// queries of a head; the sums come in and dQ goes out by TMA, through shared memory.
    #[kernel(grid = (cdiv(S, 64), H), ragged(S), instances((bf16, 64), (bf16, 128), (f16, 64), (f16, 128)))]
    pub fn attention_bwd_dq_cast<E, const D: usize>(dq_sum: Gmem<f32, H, S, D>, dq: GmemMut<E, H, S, D>, scale: f32) {
        let (i, h) = (program_id(0), program_id(1));
        run_scoped(
            |sum_s: Smem<f32, 1, 64, D, Swizzle128>, dq_s: Smem<E, 1, 64, D, Swizzle128>, loaded: Barrier<1>| {
                copy_gmem_to_smem(dq_sum.tile([h, i, 0]), sum_s, loaded);
                barrier_wait(loaded);
                dq_s.at(0).store((sum_s.at(0).load(Layout::Wgmma) * scale).cast::<E>());
                commit_smem();
                copy_smem_to_gmem(dq_s, dq.tile([h, i, 0]));
                wait_smem_to_gmem(0);
            },
        );
    }

    /// dK and dV of each K/V head: the sums of the f32 partial sums of its group's query heads,
    /// one program per 64 keys of a K/V head and gradient (`program_id(2)`: 0 for dK, 1 for dV).
    #[kernel(grid = (cdiv(T, 64), HK, 2), ragged(T), instances((bf16, 64), (bf16, 128), (f16, 64), (f16, 128)))]
    pub fn attention_bwd_sum<E, const D: usize>(
        dk_p: Gmem<f32, H, T, D>,
        dv_p: Gmem<f32, H, T, D>,
        dk: GmemMut<E, HK, T, D>,
        dv: GmemMut<E, HK, T, D>,
    ) {
        let (j, kv_head) = (program_id(0), program_id(1));
        let group = H / HK;
        let mut sum = splat::<f32>(0.0, [64, D]).to_layout(Layout::Wgmma);
        for g in 0..group {
            let h = kv_head * group + g;
            let part = if program_id(2) == 0 {
                dk_p.tile([h, j, 0], [1, 64, D]).load(Layout::Wgmma)
            } else {
                dv_p.tile([h, j, 0], [1, 64, D]).load(Layout::Wgmma)
            };
            sum = sum + part;
        }
        if program_id(2) == 0 {
            dk.tile([kv_head, j, 0], [1, 64, D]).store(sum.cast::<E>());
        } else {
            dv.tile([kv_head, j, 0], [1, 64, D]).store(sum.cast::<E>());
        }
    }

    /// dQ for 128 queries of one head per program (see the module's documentation). `BK` keys per
    /// step, `STAGES` stages of K and V (`BK` = 128 at D = 128 left ptxas too few registers for
    /// the three accumulators: C7512, wgmmas serialized).
    #[kernel(grid = (cdiv(S, 128) * H), warpgroups = 3, warpgroup_axis = wg, max_registers = 168, ragged(S, T),
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
        // Causal: the last query block is the heaviest (it sees every key).
        let (level, h) = unit(program_id(0), cdiv(S, 128), H, CAUSAL);
        let i = if CAUSAL == 1 { cdiv(S, 128) - 1 - level } else { level };
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
                    // This consumer's queries' lse and delta, two registers each, broadcast in each step.
                    let lse_q = lse.tile([h, 2 * i + w], [1, 64]).load(Layout::WgmmaRow);
                    let delta_q = delta.tile([h, 2 * i + w], [1, 64]).load(Layout::WgmmaRow);
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
                                let p = exp2(fma(s_acc.load(), c, -lse_q.broadcast([64, BK], Layout::Wgmma)));
                                wgmma_wait(0);
                                let ds = p * (dp_acc.load() - delta_q.broadcast([64, BK], Layout::Wgmma));
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

/// The SMs of the GPUs the kernels are tuned for (H100 and H200 SXM), for [`plan`]'s choice.
const SMS: usize = 132;

/// What a backward launch needs to know beyond the tensors: found by [`plan`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The head dimension, 64 or 128.
    pub head_dim: usize,
    /// Whether query i sees keys 0 ..= i only.
    pub causal: bool,
    /// The number of query heads, H.
    pub heads: usize,
    /// The number of query heads per K/V head, G = H / HK.
    pub group: usize,
    /// The workspaces' row length: S rounded up to a multiple of 128.
    pub padded: usize,
    /// Whether each dK/dV program takes the keys of one query head, into f32 partial sums (H x T x
    /// D each) that a fourth kernel adds up per K/V head, instead of every query head of the K/V
    /// head's group: G times the programs, for few K/V heads (multi-query attention).
    pub partials: bool,
    /// How dQ is computed: summed in f32 by the dK/dV programs ([`DqPath::Fused`] and its
    /// variants; the default is [`DqPath::FusedEager`] at D = 128 and [`DqPath::Fused`] at D = 64)
    /// or by a Q-stationary kernel of its own ([`DqPath::Separate`]).
    /// `TESSEL_ATTN_BWD_DQ` (`fused`, `fused-eager`, `fused-red` or `separate`) overrides the
    /// default in [`plan`].
    pub dq: DqPath,
    /// The order of the fused paths' causal dK/dV programs ([`CausalOrder::Sections`] of
    /// [`section_heads`], the default; `TESSEL_ATTN_BWD_ORDER`, `heads`, `sections` or
    /// `sections:N`, overrides it in [`plan`]).
    /// The separate path's kernels always take [`CausalOrder::Heads`].
    pub order: CausalOrder,
    /// Whether the fused paths' dK/dV programs at D = 64 without the mask run on a persistent grid
    /// ([`attention_bwd_fused_persistent`]: a program per SM, taking unit after unit, the next
    /// unit's K and V loading under this one's steps) rather than one program per unit
    /// ([`attention_bwd_fused`]). [`plan`] chooses it for units of at most [`PERSISTENT_STEPS`]
    /// steps; elsewhere (D = 128, the mask, the separate path) it has no effect.
    pub persistent: bool,
}

/// The longest unit (in steps of 64 queries: the group's query heads times S / 64) for which
/// [`plan`] takes [`Plan::persistent`] programs. On the H200 (D = 64 without the mask, bf16 and
/// f16, back to back) the persistent grid was 1-3 % ahead on units of 32 steps (S = 2048), -0.3 to
/// +0.5 % at 64, up to 0.4 % behind at 128 and 0.7-0.8 % behind at 256.
pub const PERSISTENT_STEPS: usize = 64;

/// The ways of computing dQ (see the module's documentation). The fused variants differ from
/// [`DqPath::Fused`] at D = 128 only (at D = 64 they run its kernels). The default is
/// [`DqPath::FusedEager`] at D = 128 and [`DqPath::Fused`] at D = 64, the fastest of each on the
/// H200.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DqPath {
    /// [`attention_bwd_fused`] adds each block's dQ into an f32 workspace with reducing TMA
    /// stores, and [`attention_bwd_dq_cast`] casts it: the backward's 5 matrix products.
    Fused,
    /// [`DqPath::Fused`] with each stage of the ring released as soon as its step's products are
    /// done, as FlashAttention-3's is, rather than a step later: with the 2 stages that fit at
    /// D = 128 the producer then loads a step ahead, where the delayed release leaves it to load
    /// each stage only once the step that needs it has begun.
    FusedEager,
    /// [`DqPath::Fused`] adding each step's dQ into the workspace from registers
    /// (`red.global.add.v2.f32`, 16 a thread) instead of through a shared buffer and a reducing
    /// TMA store (16 paired shared stores a thread, two warpgroup barriers and a wait): the
    /// 32 KB freed give the ring a third stage at D = 128.
    FusedRed,
    /// [`attention_bwd_dq`] recomputes S and dP per query block: 7 matrix products, no
    /// workspace.
    Separate,
}

impl DqPath {
    /// The path `TESSEL_ATTN_BWD_DQ` names, or without it the default for head dimension `d`.
    fn from_env(d: usize) -> tessel::Result<DqPath> {
        env("TESSEL_ATTN_BWD_DQ")?.map_or(Ok(DqPath::default_for(d)), |v| v.parse())
    }

    /// The default path at head dimension `d`: [`DqPath::FusedEager`] at 128, [`DqPath::Fused`]
    /// at 64.
    pub fn default_for(d: usize) -> DqPath {
        match d {
            128 => DqPath::FusedEager,
            _ => DqPath::Fused,
        }
    }
}

/// `fused`, `fused-eager`, `fused-red` or `separate`, as `TESSEL_ATTN_BWD_DQ` takes them;
/// anything else is an error.
impl std::str::FromStr for DqPath {
    type Err = tessel::Error;

    fn from_str(s: &str) -> tessel::Result<DqPath> {
        match s {
            "fused" => Ok(DqPath::Fused),
            "fused-eager" => Ok(DqPath::FusedEager),
            "fused-red" => Ok(DqPath::FusedRed),
            "separate" => Ok(DqPath::Separate),
            _ => Err(tessel::Error::InvalidArgument {
                argument: "TESSEL_ATTN_BWD_DQ",
                reason: format!("{s:?} is not a dQ path; it takes `fused`, `fused-eager`, `fused-red` or `separate`"),
            }),
        }
    }
}

/// The order in which the fused paths' causal programs (one per 128 keys of a K/V head, or of a
/// query head with [`Plan::partials`]) are dealt to the GPU: heaviest first in both, since key
/// block 0 sees every query and the last block the fewest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CausalOrder {
    /// Each head's first key block, then each head's second, and so on, over every head. With
    /// more heads than a wave of programs (128 heads of 2048 queries at D = 128, say), the
    /// programs running together belong to different heads and none reads another's Q, dO or dQ
    /// sums: each level of blocks reads them all again, from memory.
    Heads,
    /// The same within sections of this many heads, one section after another: the programs
    /// running together then share a few heads' Q, dO and dQ sums in the L2, as
    /// FlashAttention-3's backward deals them. [`plan`] sizes a section to fit 40 MiB of the
    /// H100's and H200's 50 MB L2 with those tensors ([`section_heads`]); any size from 1 is
    /// correct (more than the heads is one section, [`CausalOrder::Heads`]).
    Sections(usize),
}

impl CausalOrder {
    /// The order a value of `TESSEL_ATTN_BWD_ORDER` names: `heads`, `sections` (of `auto` heads)
    /// or `sections:N` (of N heads, N > 0); anything else is an error.
    pub fn parse(name: &str, auto: usize) -> tessel::Result<CausalOrder> {
        let count = name.strip_prefix("sections:").map(|n| n.parse::<usize>().ok().filter(|&n| n > 0));
        match (name, count) {
            ("heads", _) => Ok(CausalOrder::Heads),
            ("sections", _) => Ok(CausalOrder::Sections(auto)),
            (_, Some(Some(n))) => Ok(CausalOrder::Sections(n)),
            _ => Err(tessel::Error::InvalidArgument {
                argument: "TESSEL_ATTN_BWD_ORDER",
                reason: format!("{name:?} is not an order; it takes `heads`, `sections` or `sections:N` (N > 0)"),
            }),
        }
    }

    /// The order `TESSEL_ATTN_BWD_ORDER` names, or [`CausalOrder::Sections`] of `auto` heads
    /// without it.
    fn from_env(auto: usize) -> tessel::Result<CausalOrder> {
        env("TESSEL_ATTN_BWD_ORDER")?.map_or(Ok(CausalOrder::Sections(auto)), |v| CausalOrder::parse(&v, auto))
    }
}

/// The value of an environment variable, `None` where it is not set.
fn env(name: &'static str) -> tessel::Result<Option<String>> {
    match std::env::var(name) {
        Err(std::env::VarError::NotPresent) => Ok(None),
        Ok(v) => Ok(Some(v)),
        Err(e) => Err(tessel::Error::InvalidArgument { argument: name, reason: e.to_string() }),
    }
}

/// The L2 bytes a section of [`CausalOrder::Sections`] is sized to: FlashAttention-3's 40 MiB of
/// the 50 MB of the H100's and H200's L2.
const SECTION_BYTES: usize = 40 << 20;

/// The heads of a section of [`CausalOrder::Sections`] for S queries of head dimension D, with
/// `per_program` query heads to a dK/dV program, out of `heads` (the programs' heads): the most
/// that divide `heads` and fit 40 MiB of the L2 with their Q and dO (16-bit), f32 dQ sums, lse and
/// delta, (8 D + 8) bytes a query; at least 1.
///
/// Sections that divide the heads, so that no short section ends the deal: on the H200 (bf16,
/// D = 128, causal, 64 heads of 4096 queries) 9 heads a section, the most that fit, ran at 392
/// TFLOP/s and 8 at 420, alternating, twice each.
pub fn section_heads(s: usize, d: usize, per_program: usize, heads: usize) -> usize {
    let heads = heads.max(1);
    let fit = (SECTION_BYTES / ((8 * d + 8) * per_program * s.max(1))).clamp(1, heads);
    (1..=fit).rev().find(|&n| heads.is_multiple_of(n)).unwrap_or(1)
}

/// Checks the shapes and arguments of a backward pass, with Q `q`, K `k` and `lse` of those
/// shapes (the kernels' launches check the rest: every tensor against these), and says which
/// kernels run: Q H x S x D and K HK x T x D with D 64 or 128, H a multiple of HK, S and T at
/// least 1 (T = S when causal), `lse` H x S, the scale positive and finite.
///
/// dK and dV go through f32 partial sums per query head ([`Plan::partials`]) when that takes
/// fewer waves of programs over the GPU's SMs, counting a program of G query heads as G waves'
/// worth: ceil(H n / 132) < G ceil(HK n / 132) for n blocks of 128 keys. dQ takes
/// [`DqPath::default_for`] D unless `TESSEL_ATTN_BWD_DQ` says otherwise, and the fused paths'
/// causal programs go in [`CausalOrder::Sections`] of [`section_heads`] (for these shapes and this
/// choice of partial sums) unless `TESSEL_ATTN_BWD_ORDER` says otherwise; an unknown value of
/// either is an error. At D = 64 without the mask, on a fused path, units of at most
/// [`PERSISTENT_STEPS`] steps of 64 queries (G query heads a unit, or one with partial sums) take
/// [`Plan::persistent`] programs.
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
    if h == 0 {
        return invalid("q", "there are no query heads".to_string());
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
    let (group, blocks) = (h / hk, t.div_ceil(128));
    let partials = (h * blocks).div_ceil(SMS) < group * (hk * blocks).div_ceil(SMS);
    let dq = DqPath::from_env(d)?;
    let (per_program, programs_heads) = if partials { (1, h) } else { (group, hk) };
    let order = CausalOrder::from_env(section_heads(s, d, per_program, programs_heads))?;
    let persistent = persistent_allowed(d, causal, dq) && per_program * s.div_ceil(64) <= PERSISTENT_STEPS;
    Ok(Plan { head_dim: d, causal, heads: h, group, padded: s.div_ceil(128) * 128, partials, dq, order, persistent })
}

/// Whether [`attention_bwd_fused_persistent`] serves these plans: D = 64, no mask, a fused path.
fn persistent_allowed(d: usize, causal: bool, dq: DqPath) -> bool {
    d == 64 && !causal && dq != DqPath::Separate
}

/// Checks that `given` is [`plan`]'s for these shapes and arguments but for [`Plan::partials`],
/// [`Plan::dq`], [`Plan::order`] and [`Plan::persistent`], which the caller may choose.
fn check_plan(given: Plan, q: &[usize], k: &[usize], lse: &[usize], scale: f32) -> tessel::Result<()> {
    let want = Plan {
        partials: given.partials,
        dq: given.dq,
        order: given.order,
        persistent: given.persistent,
        ..plan(q, k, lse, scale, given.causal)?
    };
    if given == want {
        return Ok(());
    }
    let reason = format!(
        "{given:?} is not the plan of these tensors; `plan(..)` gives {want:?} (but for `partials`, `dq`, `order` and `persistent`)"
    );
    Err(tessel::Error::InvalidArgument { argument: "plan", reason })
}

/// The element types of the backward pass, `bf16` and `f16`: each picks its kernels' instances.
pub trait Backward: tessel::Element + sealed::Sealed {
    /// [`launch`] with a plan of the caller's: [`plan`]'s for these tensors, with
    /// [`Plan::partials`] or [`Plan::dq`] chosen, say (any other difference from `plan(..)`'s is
    /// an error).
    #[allow(clippy::too_many_arguments)]
    fn launch_planned(
        stream: &impl tessel::AsStream,
        inputs: [&DeviceTensor<Self>; 5],
        lse: &DeviceTensor<f32>,
        grads: [&mut DeviceTensor<Self>; 3],
        scale: f32,
        plan: Plan,
    ) -> tessel::Result<()>;

    /// [`interpret`] with a plan of the caller's, as [`Backward::launch_planned`].
    fn interpret_planned(
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
/// launches check every tensor. Allocates its workspaces on the stream: two H x S' f32 arrays
/// (S' = S rounded up to 128), with [`Plan::partials`] two H x T x D f32 arrays, and with
/// [`DqPath::Fused`] one H x S x D f32 array.
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
    E::launch_planned(stream, [q, k, v, o, d_o], lse, [dq, dk, dv], scale, plan)
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
    E::interpret_planned([q, k, v, o, d_o], lse, [dq, dk, dv], scale, plan)
}

/// The `section` argument of the fused kernels' sectioned instances: [`CausalOrder::Sections`]'s
/// heads, at most the programs' heads (K/V heads, or query heads with partial sums); 0 (unused)
/// for [`CausalOrder::Heads`].
fn section_arg(plan: &Plan) -> i32 {
    let heads = if plan.partials { plan.heads } else { plan.heads / plan.group };
    match plan.order {
        CausalOrder::Heads => 0,
        CausalOrder::Sections(n) => n.clamp(1, heads) as i32,
    }
}

/// A new f32 device tensor of `shape` for a workspace that [`attention_bwd_prep`] writes whole
/// before any kernel reads it (delta, the padded lse, the dQ sums): no fill of its own.
fn written_first(stream: &impl tessel::AsStream, shape: impl Into<Vec<usize>>) -> tessel::Result<DeviceTensor<f32>> {
    let shape = shape.into();
    let len = shape.iter().product::<usize>();
    if len == 0 {
        return DeviceTensor::zeros(stream, shape);
    }
    // SAFETY: the elements are plain f32, and the backward's first kernel stores every one of
    // them before a later kernel on the same stream loads it.
    let slice = unsafe { stream.as_stream().alloc::<f32>(len)? };
    DeviceTensor::from_slice(slice, shape)
}

/// [`Backward`] for one element type: its instances, picked by head dimension and mask, called
/// through `launch` on the GPU (with the stream) or `interpret` (`$call` and `[$stream]`, passed
/// on to the `@passes` arm, which runs the kernels in order, and to `@dkdv`, `@fused` and `@dq`,
/// which pick an instance by the plan's head dimension and mask (`@fused` also by its dQ path and
/// causal order, passing `$section` to the sectioned instances); `P` is the dK/dV kernel's output
/// type; `$dq_sum` is the fused paths' f32 dQ workspace, `None` on the separate path).
macro_rules! backward {
    ($t:ident) => {
        impl Backward for $t {
            fn launch_planned(
                stream: &impl tessel::AsStream,
                inputs: [&DeviceTensor<$t>; 5],
                lse: &DeviceTensor<f32>,
                grads: [&mut DeviceTensor<$t>; 3],
                scale: f32,
                plan: Plan,
            ) -> tessel::Result<()> {
                check_plan(plan, inputs[0].shape(), inputs[1].shape(), lse.shape(), scale)?;
                let rows = [plan.heads, plan.padded];
                let mut stats = [written_first(stream, rows)?, written_first(stream, rows)?];
                let mut partials = if plan.partials {
                    let shape = [plan.heads, inputs[1].shape()[1], plan.head_dim];
                    Some([DeviceTensor::<f32>::zeros(stream, shape)?, DeviceTensor::<f32>::zeros(stream, shape)?])
                } else {
                    None
                };
                // The fused paths' f32 dQ sums, which `attention_bwd_prep` zeroes before the dK/dV
                // programs add into them.
                let mut dq_sum = match plan.dq {
                    DqPath::Separate => None,
                    DqPath::Fused | DqPath::FusedEager | DqPath::FusedRed => {
                        Some(written_first(stream, inputs[0].shape())?)
                    }
                };
                backward!(@passes $t, launch, [stream], inputs, lse, grads, stats, partials, dq_sum, scale, plan)
            }

            fn interpret_planned(
                inputs: [&HostTensor<$t>; 5],
                lse: &HostTensor<f32>,
                grads: [&mut HostTensor<$t>; 3],
                scale: f32,
                plan: Plan,
            ) -> tessel::Result<()> {
                check_plan(plan, inputs[0].shape(), inputs[1].shape(), lse.shape(), scale)?;
                let rows = [plan.heads, plan.padded];
                let mut stats = [HostTensor::<f32>::zeros(rows)?, HostTensor::<f32>::zeros(rows)?];
                let mut partials = if plan.partials {
                    let shape = [plan.heads, inputs[1].shape()[1], plan.head_dim];
                    Some([HostTensor::<f32>::zeros(shape)?, HostTensor::<f32>::zeros(shape)?])
                } else {
                    None
                };
                // The fused paths' f32 dQ sums, zeroed: the dK/dV programs add into them.
                let mut dq_sum = match plan.dq {
                    DqPath::Separate => None,
                    DqPath::Fused | DqPath::FusedEager | DqPath::FusedRed => {
                        Some(HostTensor::<f32>::zeros(inputs[0].shape())?)
                    }
                };
                backward!(@passes $t, interpret, [], inputs, lse, grads, stats, partials, dq_sum, scale, plan)
            }
        }
    };
    (@passes $t:ident, $call:ident, [$($stream:ident)?], $inputs:ident, $lse:ident, $grads:ident,
     $stats:ident, $partials:ident, $dq_sum:ident, $scale:ident, $plan:ident) => {{
        let [q, k, v, o, d_o] = $inputs;
        let [dq, dk, dv] = $grads;
        let [delta, lse_p] = &mut $stats;
        match (&mut $dq_sum, $plan.head_dim) {
            (None, 64) => attention_bwd_prep::<$t, 64, 0>::$call($($stream,)? o, d_o, $lse, delta, lse_p)?,
            (None, _) => attention_bwd_prep::<$t, 128, 0>::$call($($stream,)? o, d_o, $lse, delta, lse_p)?,
            (Some(sum), 64) => attention_bwd_prep::<$t, 64, 1>::$call($($stream,)? o, d_o, $lse, delta, lse_p, sum)?,
            (Some(sum), _) => attention_bwd_prep::<$t, 128, 1>::$call($($stream,)? o, d_o, $lse, delta, lse_p, sum)?,
        }
        let (delta, lse_p) = (&*delta, &*lse_p);
        let section = section_arg(&$plan);
        match (&mut $partials, &mut $dq_sum) {
            (None, None) => {
                let heads = $plan.group as i32;
                backward!(@dkdv $t, $t, $call, [$($stream)?], $plan, (q, k, v, d_o, lse_p, delta, dk, dv, $scale, heads));
            }
            (None, Some(sum)) => {
                let heads = $plan.group as i32;
                backward!(@fused $t, $t, $call, [$($stream)?], $plan, section, (q, k, v, d_o, lse_p, delta, dk, dv, sum, $scale, heads));
            }
            (Some([dk_p, dv_p]), sum) => {
                if let Some(sum) = sum {
                    backward!(@fused $t, f32, $call, [$($stream)?], $plan, section, (q, k, v, d_o, lse_p, delta, dk_p, dv_p, sum, $scale, 1));
                } else {
                    backward!(@dkdv $t, f32, $call, [$($stream)?], $plan, (q, k, v, d_o, lse_p, delta, dk_p, dv_p, $scale, 1));
                }
                if $plan.head_dim == 64 {
                    attention_bwd_sum::<$t, 64>::$call($($stream,)? &*dk_p, &*dv_p, dk, dv)?;
                } else {
                    attention_bwd_sum::<$t, 128>::$call($($stream,)? &*dk_p, &*dv_p, dk, dv)?;
                }
            }
        }
        match &$dq_sum {
            None => backward!(@dq $t, $call, [$($stream)?], $plan, (q, k, v, d_o, lse_p, delta, dq, $scale)),
            Some(sum) if $plan.head_dim == 64 => attention_bwd_dq_cast::<$t, 64>::$call($($stream,)? sum, dq, $scale)?,
            Some(sum) => attention_bwd_dq_cast::<$t, 128>::$call($($stream,)? sum, dq, $scale)?,
        }
        Ok(())
    }};
    (@dkdv $t:ident, $p:ident, $call:ident, [$($stream:ident)?], $plan:ident, ($($arg:expr),*)) => {
        match ($plan.head_dim, $plan.causal) {
            (64, false) => attention_bwd_dkdv::<$t, $p, 64, 0, 64, 4>::$call($($stream,)? $($arg),*)?,
            (64, true) => attention_bwd_dkdv::<$t, $p, 64, 1, 64, 4>::$call($($stream,)? $($arg),*)?,
            (_, false) => attention_bwd_dkdv::<$t, $p, 128, 0, 64, 3>::$call($($stream,)? $($arg),*)?,
            (_, true) => attention_bwd_dkdv::<$t, $p, 128, 1, 64, 3>::$call($($stream,)? $($arg),*)?,
        }
    };
    (@fused $t:ident, $p:ident, $call:ident, [$($stream:ident)?], $plan:ident, $section:ident, ($($arg:expr),*)) => {
        match ($plan.head_dim, $plan.causal, $plan.dq, $plan.order, $plan.persistent) {
            (64, false, .., true) => attention_bwd_fused_persistent::<$t, $p, 4, 132>::$call($($stream,)? $($arg),*)?,
            (64, false, ..) => attention_bwd_fused::<$t, $p, 64, 0, 64, 4, 0, 0, 0>::$call($($stream,)? $($arg),*)?,
            (64, true, _, CausalOrder::Heads, _) => {
                attention_bwd_fused::<$t, $p, 64, 1, 64, 4, 0, 0, 0>::$call($($stream,)? $($arg),*)?
            }
            (64, true, _, CausalOrder::Sections(_), _) => {
                attention_bwd_fused::<$t, $p, 64, 1, 64, 4, 0, 0, 1>::$call($($stream,)? $($arg),*, $section)?
            }
            (_, false, DqPath::FusedEager, _, _) => {
                attention_bwd_fused::<$t, $p, 128, 0, 64, 2, 1, 0, 0>::$call($($stream,)? $($arg),*)?
            }
            (_, true, DqPath::FusedEager, CausalOrder::Heads, _) => {
                attention_bwd_fused::<$t, $p, 128, 1, 64, 2, 1, 0, 0>::$call($($stream,)? $($arg),*)?
            }
            (_, true, DqPath::FusedEager, CausalOrder::Sections(_), _) => {
                attention_bwd_fused::<$t, $p, 128, 1, 64, 2, 1, 0, 1>::$call($($stream,)? $($arg),*, $section)?
            }
            (_, false, DqPath::FusedRed, _, _) => {
                attention_bwd_fused::<$t, $p, 128, 0, 64, 3, 0, 1, 0>::$call($($stream,)? $($arg),*)?
            }
            (_, true, DqPath::FusedRed, CausalOrder::Heads, _) => {
                attention_bwd_fused::<$t, $p, 128, 1, 64, 3, 0, 1, 0>::$call($($stream,)? $($arg),*)?
            }
            (_, true, DqPath::FusedRed, CausalOrder::Sections(_), _) => {
                attention_bwd_fused::<$t, $p, 128, 1, 64, 3, 0, 1, 1>::$call($($stream,)? $($arg),*, $section)?
            }
            (_, false, ..) => attention_bwd_fused::<$t, $p, 128, 0, 64, 2, 0, 0, 0>::$call($($stream,)? $($arg),*)?,
            (_, true, _, CausalOrder::Heads, _) => {
                attention_bwd_fused::<$t, $p, 128, 1, 64, 2, 0, 0, 0>::$call($($stream,)? $($arg),*)?
            }
            (_, true, _, CausalOrder::Sections(_), _) => {
                attention_bwd_fused::<$t, $p, 128, 1, 64, 2, 0, 0, 1>::$call($($stream,)? $($arg),*, $section)?
            }
        }
    };
    (@dq $t:ident, $call:ident, [$($stream:ident)?], $plan:ident, ($($arg:expr),*)) => {
        match ($plan.head_dim, $plan.causal) {
            (64, false) => attention_bwd_dq::<$t, 64, 0, 128, 4>::$call($($stream,)? $($arg),*)?,
            (64, true) => attention_bwd_dq::<$t, 64, 1, 128, 4>::$call($($stream,)? $($arg),*)?,
            (_, false) => attention_bwd_dq::<$t, 128, 0, 64, 3>::$call($($stream,)? $($arg),*)?,
            (_, true) => attention_bwd_dq::<$t, 128, 1, 64, 3>::$call($($stream,)? $($arg),*)?,
        }
    };
}

backward!(bf16);
backward!(f16);
