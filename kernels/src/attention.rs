//! The flash attention forward pass of `kernels/examples/attention.rs` and `bench/examples/bench_attention.rs`.
//!
//! O = softmax(scale Q K^T) V for every query head, without materializing the scores. K and V may
//! have fewer heads than Q (grouped-query attention, GQA; one K/V head is multi-query attention,
//! MQA): with H = G HK, query head h reads K/V head h / G. The work comes in units of 128 queries
//! of one head; one program per SM walks over them (a persistent grid, so that a unit's Q loads
//! while the unit before it finishes). Warpgroup 0 is the producer: it loads each unit's Q and
//! streams 128-key blocks of K and V through a ring of shared-memory stages with TMA. Warpgroups 1
//! and 2 are consumers, 64 queries each, in the manner of FlashAttention-3:
//! - each step issues the scores of this block (S = Q K^T, m64n128 wgmmas with K read K-major
//!   through `.t()`) together with the previous block's P V (P from registers), then runs the
//!   online softmax of S while P V is still on the tensor cores;
//! - the two consumers take turns issuing their wgmmas (`turn` barriers), so that one's softmax
//!   runs while the other's products do (ping-pong);
//! - the softmax is `exp2(fma(s, c, -m))` with c = scale log2(e): one FMA and one `ex2` per score
//!   (a separate multiply by c cost 6-8% on the H200); the row maximum is taken over the unscaled
//!   scores, which is why the scale must be positive.
//!
//! A consumer frees its Q buffer for a later unit's Q as soon as the unit's last S has read it,
//! and stores its 64 x D block of O straight from registers. (With D = 64 there is room for two Q
//! buffers, with D = 128 the three stages of K and V leave room for one. Staging O through the Q
//! buffer for a TMA store, which kept the buffer until the store had read it, measured 2-10%
//! slower without the causal mask on the H200, and about the same with it.)
//!
//! With a causal mask (`CAUSAL` = 1), query i sees keys 0 ..= i (T = S): a unit reads only the key
//! blocks up to its own, and the last of them is masked (a -1e30 added to the scores of later
//! keys, which `exp2` turns into 0).
//!
//! For training (`TRAIN` = 1), the kernel also stores each row's log-sum-exp, base 2:
//! `lse[h, i] = log2(sum_j exp2(c q_i . k_j))`, which is `m + log2(l)` with the consumer's
//! running maximum m (already scaled by c) and sum l: the backward pass recomputes the
//! probabilities as `exp2(c s - lse)`. The inference instances are left without the store, and
//! without the `lse` parameter (`#[when(TRAIN == 1)]`).
//!
//! The family is one generic kernel, [`attention`](struct@attention), in a `#[kernels]` module
//! ([`flash`]) that lists every instance's PTX in [`ALL_PTX`]. Its instances are the dtype `E`
//! (bf16, f16), the head dimension `D` (64, 128), the Q buffers `QBUF` (2 for D = 64, 1 for
//! D = 128), `CAUSAL`, `RAGGED_T` (T ragged: `ragged(S, #[when(RAGGED_T == 1)] T)`, which the
//! launch checks read), `TRAIN` and `PROBE` (a timeline of the kernel's units for profiling,
//! [`attention_probe_bf16`]); the dispatchers below ([`attention_bf16`],
//! [`attention_train_bf16`], ..) pick one.

use tessel::prelude::*;

/// The family: one generic kernel, [`attention`](struct@attention), and `ALL_PTX`, every
/// instance's PTX (for `ptxas` checks and `TESSEL_DUMP_PTX`).
#[kernels]
pub mod flash {
    use tessel::prelude::*;

    /// Unit `n` of this program, as (query head, query block, 128-key blocks), for `heads` heads
    /// of `blocks` query blocks over `keys` keys: the kernel's comment says how units are dealt.
    fn unit<const CAUSAL: usize>(
        n: i32,
        programs: i32,
        heads: i32,
        blocks: i32,
        head_major: i32,
        keys: i32,
    ) -> (i32, i32, i32) {
        if CAUSAL == 1 {
            let seat = if n % 2 == 1 { programs - 1 - program_id(0) } else { program_id(0) };
            let ranked = n * programs + seat;
            let (h, level) =
                if head_major == 1 { (ranked / blocks, ranked % blocks) } else { (ranked % heads, ranked / heads) };
            let i = blocks - 1 - level;
            (h, i, i + 1)
        } else {
            let u = program_id(0) + n * programs;
            (u / blocks, u % blocks, cdiv(keys, 128))
        }
    }

    /// With `PROBE`, the global timer at `event` of warpgroup `wg`'s unit `n`: into row
    /// `p rows + n` of `probe` for program p, at `[.., 8 wg + event, ..]`, one reading per thread.
    fn stamp(probe: GmemMut<i64, U, 24, 128>, rows: i32, n: i32, wg: i32, event: i32) {
        let row = program_id(0) * rows + n;
        probe.tile([row, 8 * wg + event, 0], [1, 1, 128]).store(splat::<i64>(globaltimer(), [1, 1, 128]));
    }

    /// O = softmax(scale Q K^T) V with Q H x S x D, K and V HK x T x D (query head h reads K/V head
    /// h HK / H, which is h / G for H = G HK), all of element type `E`, with f32 accumulation,
    /// `QBUF` buffers for Q, and:
    /// - `CAUSAL` 1 for the causal mask (T = S then: [`check`](crate::attention::check));
    /// - `RAGGED_T` 1 for any number of keys: T is ragged, and without the causal mask the last
    ///   key block's keys past T are masked (`MASK_T`; with it, the diagonal block's mask hides
    ///   them). With 0 the launch checks that T is whole 128-key blocks. (The key mask, even where
    ///   never taken, cost the kernel 2.5-4.5% on the H200, as ptxas schedules the loop around it:
    ///   so only the T-ragged instances have it.) S is always ragged: the last unit's queries past
    ///   S are TMA's zeros, whose rows of O are not stored;
    /// - `TRAIN` 1 for the training forward, which also stores each row's log-sum-exp into `lse`
    ///   (module doc), a parameter of those instances only;
    /// - `PROBE` 1 for a timeline of the kernel: each warpgroup stores the global timer at the
    ///   events of each of its units into `probe`
    ///   ([`PROBE_EVENTS`](crate::attention::PROBE_EVENTS)), a parameter of those instances only,
    ///   which exist for bf16 at D = 128.
    ///
    /// The instances: (E, D, QBUF, CAUSAL, RAGGED_T, TRAIN, PROBE), with QBUF 2 for D = 64 and 1
    /// for D = 128 (the room the three K/V stages leave). Each has the launch of its own
    /// parameters: `attention::<bf16, 64, 2, 0, 0, 1, 0>::launch(stream, q, k, v, o, lse, scale,
    /// head_major)`, and the inference instances the same without `lse`.
    #[kernel(grid = (132,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168,
             ragged(S, #[when(RAGGED_T == 1)] T), consts(MASK_T = RAGGED_T - CAUSAL),
             instances(
             (bf16, 64, 2, 0, 0, 0, 0), (bf16, 128, 1, 0, 0, 0, 0), (f16, 64, 2, 0, 0, 0, 0), (f16, 128, 1, 0, 0, 0, 0),
             (bf16, 64, 2, 0, 1, 0, 0), (bf16, 128, 1, 0, 1, 0, 0), (f16, 64, 2, 0, 1, 0, 0), (f16, 128, 1, 0, 1, 0, 0),
             (bf16, 64, 2, 1, 1, 0, 0), (bf16, 128, 1, 1, 1, 0, 0), (f16, 64, 2, 1, 1, 0, 0), (f16, 128, 1, 1, 1, 0, 0),
             (bf16, 64, 2, 0, 0, 1, 0), (bf16, 128, 1, 0, 0, 1, 0), (f16, 64, 2, 0, 0, 1, 0), (f16, 128, 1, 0, 0, 1, 0),
             (bf16, 64, 2, 0, 1, 1, 0), (bf16, 128, 1, 0, 1, 1, 0), (f16, 64, 2, 0, 1, 1, 0), (f16, 128, 1, 0, 1, 1, 0),
             (bf16, 64, 2, 1, 1, 1, 0), (bf16, 128, 1, 1, 1, 1, 0), (f16, 64, 2, 1, 1, 1, 0), (f16, 128, 1, 1, 1, 1, 0),
             (bf16, 128, 1, 0, 0, 0, 1), (bf16, 128, 1, 1, 1, 0, 1)
             ))]
    pub fn attention<
        E,
        const D: usize,
        const QBUF: usize,
        const CAUSAL: usize,
        const RAGGED_T: usize,
        const TRAIN: usize,
        const PROBE: usize,
    >(
        q: Gmem<E, H, S, D>,
        k: Gmem<E, HK, T, D>,
        v: Gmem<E, HK, T, D>,
        o: GmemMut<E, H, S, D>,
        #[when(TRAIN == 1)] lse: GmemMut<f32, H, S>,
        #[when(PROBE == 1)] probe: GmemMut<i64, U, 24, 128>,
        scale: f32,
        head_major: i32,
    ) {
        // Units of 128 queries, the queries of a head side by side and the heads in order:
        // program `p` takes every `programs`-th, and units that run together share their
        // head's K and V in the L2 (with GQA, the G query heads of a group are neighbours, so
        // their units run together and share the group's K/V head).
        // Causal units see the keys up to their last query only (S = T), so their work
        // differs: they are dealt like cards in a snake, left to right in even rounds and
        // right to left in odd ones, so that a program that drew a heavier unit draws a lighter
        // one next. The deck is each head's units heaviest first, head after head (`head_major`
        // 1: units that run together share K and V), or all heads' heaviest units first, then
        // their next (0: even for any number of heads); [`causal_order`] chooses.
        const BT: usize = 128; // keys per step
        const STAGES: usize = 3;
        let (blocks, programs, units) = (cdiv(S, 128), num_programs(0), cdiv(S, 128) * H);
        let mine = if CAUSAL == 1 {
            // Whole rounds, then the last round's first `units % programs` seats.
            let rounds = units / programs;
            let seat = if rounds % 2 == 1 { programs - 1 - program_id(0) } else { program_id(0) };
            rounds + if seat < units % programs { 1 } else { 0 }
        } else {
            (units - program_id(0) + programs - 1) / programs
        };
        run_scoped(
            collective_axes = [wg],
            |q_s: Smem<E, QBUF, 2, 1, 64, D, Swizzle128>,
             k_s: Smem<E, STAGES, 1, BT, D, Swizzle128>,
             v_s: Smem<E, STAGES, 1, BT, D, Swizzle128>,
             // Q buffer `b` is full after two copies, free after both consumers are done with
             // it: a ring of one step per unit, which the consumers wait on and release by
             // hand (`q_ring__full`, `q_ring__empty`), early in the unit's last step.
             q_ring: Pipeline<QBUF, 2, 2>,
             // Two copies fill a stage (K and V); both consumers release it.
             ring: Pipeline<STAGES, 2, 2>,
             // Consumer w issues its wgmmas after an arrival on turn[w].
             turn: Barrier<1, 2>| {
                if warpgroup_id() == 0 {
                    set_max_registers(24);
                    for n in 0..mine {
                        let (h, i, steps) = unit::<CAUSAL>(n, programs, H, blocks, head_major, T);
                        // Query head h reads K/V head h / G for H = G HK (in bounds for
                        // any H and HK; the dispatchers check that HK divides H).
                        let kv = h * HK / H;
                        if PROBE == 1 {
                            stamp(probe, U / programs, n, 0, 0);
                        }
                        // The unit's first K and V, then its Q, then the rest: the first stage
                        // frees a step before the Q buffer does (the unit before's last scores
                        // free Q), so the first K and V need not wait behind the Q.
                        pipeline_produce(ring, 1, |_t, s, bar| {
                            copy_gmem_to_smem(k.tile([kv, 0, 0]), k_s.at(s), bar);
                            copy_gmem_to_smem(v.tile([kv, 0, 0]), v_s.at(s), bar);
                        });
                        // The ring's stage is `b`: one step per unit.
                        pipeline_produce(q_ring, 1, |_n, b, bar| {
                            copy_gmem_to_smem(q.tile([h, 2 * i, 0]), q_s.at(b).at(0), bar);
                            copy_gmem_to_smem(q.tile([h, 2 * i + 1, 0]), q_s.at(b).at(1), bar);
                        });
                        if PROBE == 1 {
                            stamp(probe, U / programs, n, 0, 1);
                        }
                        pipeline_produce(ring, steps - 1, |t, s, bar| {
                            copy_gmem_to_smem(k.tile([kv, t + 1, 0]), k_s.at(s), bar);
                            copy_gmem_to_smem(v.tile([kv, t + 1, 0]), v_s.at(s), bar);
                        });
                        if PROBE == 1 {
                            stamp(probe, U / programs, n, 0, 2);
                        }
                    }
                } else {
                    set_max_registers(240);
                    let w = warpgroup_id() - 1;
                    let c = scale * 1.4426950408889634;
                    if w == 1 {
                        barrier_arrive(turn.at(0));
                    }
                    run_scoped(|s_acc: Acc<f32, 64, BT>, o_acc: Acc<f32, 64, D>| {
                        for n in 0..mine {
                            let b = n % QBUF;
                            let (h, i, steps) = unit::<CAUSAL>(n, programs, H, blocks, head_major, T);
                            // Row maxima (scaled by c) and sums of exponentials so far.
                            let mut m_i = splat::<f32>(-1.0e30, [64]).to_layout(Layout::WgmmaRow);
                            let mut l_i = splat::<f32>(0.0, [64]).to_layout(Layout::WgmmaRow);
                            // The previous block's probabilities and stage, for its P V.
                            let mut p_prev = splat::<E>(0.0, [64, BT]).to_layout(Layout::Wgmma);
                            let mut prev = 0;
                            o_acc.store(splat::<f32>(0.0, [64, D]));
                            if PROBE == 1 {
                                stamp(probe, U / programs, n, w + 1, 0);
                            }
                            barrier_wait(q_ring__full.at(b));
                            if PROBE == 1 {
                                stamp(probe, U / programs, n, w + 1, 1);
                            }
                            pipeline_consume(
                                ring,
                                steps,
                                |t, s| {
                                    if PROBE == 1 && t == 0 {
                                        stamp(probe, U / programs, n, w + 1, 2);
                                    }
                                    barrier_wait(turn.at(w));
                                    wgmma(s_acc, q_s.at(b).at(w).at(0), k_s.at(s).at(0).t(), accumulate = false);
                                    // (Each branch passes the turn itself: an arrival between the
                                    // wgmmas and a wait after the branch made ptxas serialize them.)
                                    if t > 0 {
                                        wgmma(o_acc, p_prev, v_s.at(prev).at(0));
                                        barrier_arrive(turn.at(1 - w));
                                        wgmma_wait(1);
                                    } else {
                                        barrier_arrive(turn.at(1 - w));
                                        wgmma_wait(0);
                                        if PROBE == 1 {
                                            stamp(probe, U / programs, n, w + 1, 3);
                                        }
                                    }
                                    if t + 1 == steps {
                                        // The unit's last S has read Q: the next unit's may come.
                                        barrier_arrive(q_ring__empty.at(b));
                                    }
                                    if CAUSAL == 1 && t + 1 == steps {
                                        // The diagonal block: query row r of this consumer
                                        // sees the block's keys 0 ..= 64 w + r.
                                        let rows = iota::<i32>([64, BT], 0) + 64 * w;
                                        let hidden = (iota::<i32>([64, BT], 1) > rows).cast::<f32>();
                                        s_acc.store(fma(hidden, -1.0e30, s_acc.load()));
                                    }
                                    if MASK_T == 1 && t + 1 == steps {
                                        // The last block's keys past T are TMA's zeros: hidden
                                        // the same way. (With the mask, T = S, and the diagonal
                                        // block's mask hides them from every query before S.)
                                        let hidden = (iota::<i32>([64, BT], 1) >= T - t * BT).cast::<f32>();
                                        s_acc.store(fma(hidden, -1.0e30, s_acc.load()));
                                    }
                                    let scores = s_acc.load();
                                    let m_new = max(m_i, scores.max(1) * c);
                                    let alpha = exp2(m_i - m_new);
                                    let p = exp2(fma(scores, c, (-m_new).broadcast([64, BT], Layout::Wgmma)));
                                    l_i = l_i * alpha + p.sum(1);
                                    // The previous P V has finished adding into O: rescale it.
                                    wgmma_wait(0);
                                    o_acc.store(o_acc.load() * alpha.broadcast([64, D], Layout::Wgmma));
                                    p_prev = p.cast::<E>();
                                    // The last block's P V, before its stage is released.
                                    if t + 1 == steps {
                                        wgmma(o_acc, p_prev, v_s.at(s).at(0));
                                        wgmma_wait(0);
                                    }
                                    m_i = m_new;
                                    prev = s;
                                },
                                delay_release = true,
                            );
                            if PROBE == 1 {
                                stamp(probe, U / programs, n, w + 1, 4);
                            }
                            // One reciprocal a row, not a division an element (64 of them a
                            // thread, each a full-precision sequence).
                            let out = o_acc.load() * recip(l_i).broadcast([64, D], Layout::Wgmma);
                            o.tile([h, 2 * i + w, 0], [1, 64, D]).store(out.cast::<E>());
                            if TRAIN == 1 {
                                // log2 of each row's sum of exp2(c s): m_i is scaled by c already.
                                lse.tile([h, 2 * i + w], [1, 64]).store(m_i + log2(l_i));
                            }
                            if PROBE == 1 {
                                stamp(probe, U / programs, n, w + 1, 5);
                            }
                        }
                    });
                }
            },
        );
    }
}

pub use flash::{attention, ALL_PTX};

/// O = softmax(scale Q K^T) V on the GPU. Q and O are H x S x D, K and V HK x T x D with HK
/// dividing H (query head h attends with K/V head h / (H / HK)); D is 64 or 128, T at least 1,
/// scale positive. With `causal`, query i sees keys 0 ..= i only, and T = S.
pub fn attention_bf16(
    stream: &impl tessel::AsStream,
    q: &DeviceTensor<bf16>,
    k: &DeviceTensor<bf16>,
    v: &DeviceTensor<bf16>,
    o: &mut DeviceTensor<bf16>,
    scale: f32,
    causal: bool,
) -> tessel::Result<()> {
    let (d, keys, order) = plan(q.shape(), k.shape(), scale, causal)?;
    with_instance!(d, keys, attention<bf16, TRAIN = 0>, |Kernel| Kernel::launch(stream, q, k, v, o, scale, order))
}

/// [`attention_bf16`] for f16.
pub fn attention_f16(
    stream: &impl tessel::AsStream,
    q: &DeviceTensor<f16>,
    k: &DeviceTensor<f16>,
    v: &DeviceTensor<f16>,
    o: &mut DeviceTensor<f16>,
    scale: f32,
    causal: bool,
) -> tessel::Result<()> {
    let (d, keys, order) = plan(q.shape(), k.shape(), scale, causal)?;
    with_instance!(d, keys, attention<f16, TRAIN = 0>, |Kernel| Kernel::launch(stream, q, k, v, o, scale, order))
}

/// [`attention_bf16`] in the interpreter.
pub fn interpret_bf16(
    q: &HostTensor<bf16>,
    k: &HostTensor<bf16>,
    v: &HostTensor<bf16>,
    o: &mut HostTensor<bf16>,
    scale: f32,
    causal: bool,
) -> tessel::Result<()> {
    let (d, keys, order) = plan(q.shape(), k.shape(), scale, causal)?;
    with_instance!(d, keys, attention<bf16, TRAIN = 0>, |Kernel| Kernel::interpret(q, k, v, o, scale, order))
}

/// [`attention_f16`] in the interpreter.
pub fn interpret_f16(
    q: &HostTensor<f16>,
    k: &HostTensor<f16>,
    v: &HostTensor<f16>,
    o: &mut HostTensor<f16>,
    scale: f32,
    causal: bool,
) -> tessel::Result<()> {
    let (d, keys, order) = plan(q.shape(), k.shape(), scale, causal)?;
    with_instance!(d, keys, attention<f16, TRAIN = 0>, |Kernel| Kernel::interpret(q, k, v, o, scale, order))
}

/// The training forward on the GPU: [`attention_bf16`], and each row's log-sum-exp, base 2, into
/// `lse` (H x S, f32): `lse[h, i] = log2(sum_j exp2(c q_i . k_j))` with c = scale log2(e), over the
/// keys query i sees.
#[allow(clippy::too_many_arguments)]
pub fn attention_train_bf16(
    stream: &impl tessel::AsStream,
    q: &DeviceTensor<bf16>,
    k: &DeviceTensor<bf16>,
    v: &DeviceTensor<bf16>,
    o: &mut DeviceTensor<bf16>,
    lse: &mut DeviceTensor<f32>,
    scale: f32,
    causal: bool,
) -> tessel::Result<()> {
    let (d, keys, order) = plan(q.shape(), k.shape(), scale, causal)?;
    with_instance!(d, keys, attention<bf16, TRAIN = 1>, |Kernel| Kernel::launch(stream, q, k, v, o, lse, scale, order))
}

/// [`attention_train_bf16`] for f16.
#[allow(clippy::too_many_arguments)]
pub fn attention_train_f16(
    stream: &impl tessel::AsStream,
    q: &DeviceTensor<f16>,
    k: &DeviceTensor<f16>,
    v: &DeviceTensor<f16>,
    o: &mut DeviceTensor<f16>,
    lse: &mut DeviceTensor<f32>,
    scale: f32,
    causal: bool,
) -> tessel::Result<()> {
    let (d, keys, order) = plan(q.shape(), k.shape(), scale, causal)?;
    with_instance!(d, keys, attention<f16, TRAIN = 1>, |Kernel| Kernel::launch(stream, q, k, v, o, lse, scale, order))
}

/// [`attention_train_bf16`] in the interpreter.
pub fn interpret_train_bf16(
    q: &HostTensor<bf16>,
    k: &HostTensor<bf16>,
    v: &HostTensor<bf16>,
    o: &mut HostTensor<bf16>,
    lse: &mut HostTensor<f32>,
    scale: f32,
    causal: bool,
) -> tessel::Result<()> {
    let (d, keys, order) = plan(q.shape(), k.shape(), scale, causal)?;
    with_instance!(d, keys, attention<bf16, TRAIN = 1>, |Kernel| Kernel::interpret(q, k, v, o, lse, scale, order))
}

/// [`attention_train_f16`] in the interpreter.
pub fn interpret_train_f16(
    q: &HostTensor<f16>,
    k: &HostTensor<f16>,
    v: &HostTensor<f16>,
    o: &mut HostTensor<f16>,
    lse: &mut HostTensor<f32>,
    scale: f32,
    causal: bool,
) -> tessel::Result<()> {
    let (d, keys, order) = plan(q.shape(), k.shape(), scale, causal)?;
    with_instance!(d, keys, attention<f16, TRAIN = 1>, |Kernel| Kernel::interpret(q, k, v, o, lse, scale, order))
}

/// The events of [`attention_probe_bf16`]'s timeline, by warpgroup: `PROBE_EVENTS[w][e]` names
/// event `e` of warpgroup `w` (0 the producer, 1 and 2 the consumers), whose readings are
/// `probe[p rows + n, 8 w + e, ..]` for unit `n` of program `p` ([`probe_shape`],
/// [`probe_reading`]).
pub const PROBE_EVENTS: [&[&str]; 3] = [PRODUCER_EVENTS, CONSUMER_EVENTS, CONSUMER_EVENTS];
const PRODUCER_EVENTS: &[&str] = &["unit start", "Q issued", "K and V issued"];
const CONSUMER_EVENTS: &[&str] =
    &["unit start", "Q arrived", "first K and V arrived", "first scores done", "last P V done", "O stored"];

/// The programs of the forward's persistent grid (`grid = (132,)`).
const PROGRAMS: usize = 132;

/// The shape of [`attention_probe_bf16`]'s `probe` for `heads` heads of `s` queries: for each of
/// the 132 programs as many rows as the most units a program runs, 8 events per warpgroup, and
/// one reading per thread of a warpgroup.
pub fn probe_shape(heads: usize, s: usize) -> [usize; 3] {
    [PROGRAMS * (heads * s.div_ceil(128)).div_ceil(PROGRAMS), 24, 128]
}

/// Event `event` of warpgroup `wg` in unit `unit` of program `program`, from a `probe` that
/// [`attention_probe_bf16`] wrote: the median of the warpgroup's 128 readings (nanoseconds).
/// `None` where the probe has no such row or event.
pub fn probe_reading(probe: &HostTensor<i64>, program: usize, unit: usize, wg: usize, event: usize) -> Option<i64> {
    let per_program = probe.shape().first()? / PROGRAMS;
    if unit >= per_program || event >= PROBE_EVENTS.get(wg)?.len() {
        return None;
    }
    let row = program * per_program + unit;
    let mut copies = (0..128).map(|t| probe.get(&[row, 8 * wg + event, t])).collect::<Option<Vec<i64>>>()?;
    copies.sort_unstable();
    Some(copies[64])
}

/// [`attention_bf16`] at D = 128, with whole 128-key blocks or the causal mask, recording a
/// timeline: every warpgroup stores the global timer ([`globaltimer`](tessel::lang::globaltimer),
/// nanoseconds) at each event of [`PROBE_EVENTS`] of each of its units into `probe`, an i64
/// tensor of [`probe_shape`] (one reading per thread; rows of units a program does not run are
/// left as they were; [`probe_reading`] reads it). The readings cost the kernel some time of their own.
#[allow(clippy::too_many_arguments)]
pub fn attention_probe_bf16(
    stream: &impl tessel::AsStream,
    q: &DeviceTensor<bf16>,
    k: &DeviceTensor<bf16>,
    v: &DeviceTensor<bf16>,
    o: &mut DeviceTensor<bf16>,
    probe: &mut DeviceTensor<i64>,
    scale: f32,
    causal: bool,
) -> tessel::Result<()> {
    let (d, keys, order) = plan(q.shape(), k.shape(), scale, causal)?;
    check_probe(q.shape(), probe.shape(), d, keys)?;
    match keys {
        Keys::Causal => attention::<bf16, 128, 1, 1, 1, 0, 1>::launch(stream, q, k, v, o, probe, scale, order),
        _ => attention::<bf16, 128, 1, 0, 0, 0, 1>::launch(stream, q, k, v, o, probe, scale, order),
    }
}

/// [`attention_probe_bf16`] in the interpreter (its readings: nanoseconds since the launch began).
pub fn interpret_probe_bf16(
    q: &HostTensor<bf16>,
    k: &HostTensor<bf16>,
    v: &HostTensor<bf16>,
    o: &mut HostTensor<bf16>,
    probe: &mut HostTensor<i64>,
    scale: f32,
    causal: bool,
) -> tessel::Result<()> {
    let (d, keys, order) = plan(q.shape(), k.shape(), scale, causal)?;
    check_probe(q.shape(), probe.shape(), d, keys)?;
    match keys {
        Keys::Causal => attention::<bf16, 128, 1, 1, 1, 0, 1>::interpret(q, k, v, o, probe, scale, order),
        _ => attention::<bf16, 128, 1, 0, 0, 0, 1>::interpret(q, k, v, o, probe, scale, order),
    }
}

/// The probe instances' own checks: D = 128, keys in whole blocks (or the causal mask), and a
/// `probe` of [`probe_shape`]'s rows (its other dimensions are the launch's check).
fn check_probe(q: &[usize], probe: &[usize], d: usize, keys: Keys) -> tessel::Result<()> {
    let invalid = |argument, reason: String| Err(tessel::Error::InvalidArgument { argument, reason });
    if d != 128 || keys == Keys::Ragged {
        return invalid("q", "the probe kernels take D = 128 and keys in whole 128-key blocks".to_string());
    }
    let (heads, s) = (q.first().copied().unwrap_or(0), q.get(1).copied().unwrap_or(0));
    let rows = probe_shape(heads, s)[0];
    match probe.first() {
        Some(&r) if r != rows => invalid("probe", format!("it has {r} rows; {heads} heads of {s} queries need {rows}")),
        _ => Ok(()), // the right rows, or a rank error, which the launch reports
    }
}

/// Which instances take the keys: whole 128-key blocks (`RAGGED_T` = 0), any number of them
/// (`RAGGED_T` = 1 without the causal mask), or the causal mask (`CAUSAL` = 1, `RAGGED_T` = 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keys {
    Whole,
    Ragged,
    Causal,
}

/// The head dimension, after the checks the kernels' own launches do not make: there is at least
/// one key (with none, every row would be 0 / 0), K and V have at least one head and their heads
/// divide Q's (each K/V head serves a group of H / HK query heads), the scale is positive (the row
/// maximum is taken before scaling), and causal attention has as many keys as queries. Ranks and
/// the other shapes are the launch's checks.
pub fn check(q: &[usize], k: &[usize], scale: f32, causal: bool) -> tessel::Result<usize> {
    let (Some(&h), Some(&s), Some(&d), Some(&hk), Some(&t)) = (q.first(), q.get(1), q.get(2), k.first(), k.get(1))
    else {
        return Ok(64); // a rank error, which the launch reports
    };
    if d != 64 && d != 128 {
        let reason = format!("the head dimension is {d}; the kernels take 64 or 128");
        return Err(tessel::Error::InvalidArgument { argument: "q", reason });
    }
    if t == 0 {
        let reason = "there are no keys (T = 0), so no softmax to take".to_string();
        return Err(tessel::Error::InvalidArgument { argument: "k", reason });
    }
    if hk == 0 || h % hk != 0 {
        let reason = format!(
            "K and V have {hk} heads, which do not divide Q's {h}: each K/V head serves a group of \
             H / HK query heads (H = {h})"
        );
        return Err(tessel::Error::InvalidArgument { argument: "k", reason });
    }
    if causal && t != s {
        let reason = format!("causal attention takes as many keys as queries; T = {t}, S = {s}");
        return Err(tessel::Error::InvalidArgument { argument: "k", reason });
    }
    if !(scale > 0.0 && scale.is_finite()) {
        let reason = format!("the scale is {scale}; it must be positive and finite");
        return Err(tessel::Error::InvalidArgument { argument: "scale", reason });
    }
    Ok(d)
}

/// The head dimension ([`check`]), the kernel for the keys (the T-ragged kernels mask a partial
/// last 128-key block; a K of another rank is the launch's error, which either kernel reports) and
/// the order of the causal units ([`causal_order`]) for a launch.
fn plan(q: &[usize], k: &[usize], scale: f32, causal: bool) -> tessel::Result<(usize, Keys, i32)> {
    let d = check(q, k, scale, causal)?;
    let keys = match causal {
        true => Keys::Causal,
        false if k.get(1).is_some_and(|t| t % 128 != 0) => Keys::Ragged,
        false => Keys::Whole,
    };
    let (heads, s) = (q.first().copied().unwrap_or(0), q.get(1).copied().unwrap_or(0));
    Ok((d, keys, causal_order(heads, s.div_ceil(128), causal)))
}

/// The order of the causal kernels' units (their `head_major` argument) for `heads` heads of
/// `blocks` units: 1, head after head, when that leaves the busiest of the 132 programs at most
/// 5% more work than the order over all heads (0) does. Head after head, the units that run at
/// once share their heads' K and V in the L2: on the H200 that measured 1.18-1.25x at S = 1024
/// and 2048 with D = 128 (16 x 16384 x 128, where it would leave one program 1.54x the mean work,
/// takes the order over all heads). 0 without the mask (the kernels do not read it then).
pub fn causal_order(heads: usize, blocks: usize, causal: bool) -> i32 {
    let busiest = |head_major: bool| {
        let (programs, units) = (PROGRAMS, heads * blocks);
        let mut work = vec![0; programs];
        for ranked in 0..units {
            let (round, at) = (ranked / programs, ranked % programs);
            let program = if round % 2 == 0 { at } else { programs - 1 - at };
            let level = if head_major { ranked % blocks } else { ranked / heads };
            work[program] += blocks - level;
        }
        work.into_iter().max().unwrap_or(0)
    };
    i32::from(causal && heads > 0 && busiest(true) * 100 <= busiest(false) * 105)
}

/// The dispatchers' signatures, with a [`Device`] as the stream: [`attention_bf16`] and
/// [`attention_f16`] on the GPU.
pub type Launch<T> = fn(
    &Device,
    &DeviceTensor<T>,
    &DeviceTensor<T>,
    &DeviceTensor<T>,
    &mut DeviceTensor<T>,
    f32,
    bool,
) -> tessel::Result<()>;
/// [`interpret_bf16`] and [`interpret_f16`].
pub type Interpret<T> =
    fn(&HostTensor<T>, &HostTensor<T>, &HostTensor<T>, &mut HostTensor<T>, f32, bool) -> tessel::Result<()>;
/// [`attention_train_bf16`] and [`attention_train_f16`].
pub type TrainLaunch<T> = fn(
    &Device,
    &DeviceTensor<T>,
    &DeviceTensor<T>,
    &DeviceTensor<T>,
    &mut DeviceTensor<T>,
    &mut DeviceTensor<f32>,
    f32,
    bool,
) -> tessel::Result<()>;
/// [`interpret_train_bf16`] and [`interpret_train_f16`].
pub type TrainInterpret<T> = fn(
    &HostTensor<T>,
    &HostTensor<T>,
    &HostTensor<T>,
    &mut HostTensor<T>,
    &mut HostTensor<f32>,
    f32,
    bool,
) -> tessel::Result<()>;
