//! The flash attention forward pass of `kernels/examples/attention.rs` and `bench/examples/bench_attention.rs`.
//!
//! O = softmax(scale Q K^T) V for every head, without materializing the scores. The work comes in
//! units of 128 queries of one head; one program per SM walks over them (a persistent grid, so
//! that a unit's Q loads while the unit before it finishes). Warpgroup 0 is the producer: it loads
//! each unit's Q and streams 128-key blocks of K and V through a ring of shared-memory stages with
//! TMA. Warpgroups 1 and 2 are consumers, 64 queries each, in the manner of FlashAttention-3:
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
//! With a causal mask (the `CAUSAL` const, 1), query i sees keys 0 ..= i (T = S): a unit reads
//! only the key blocks up to its own, and the last of them is masked (a -1e30 added to the scores
//! of later keys, which `exp2` turns into 0).

use tessel::prelude::*;

/// O = softmax(scale Q K^T) V with Q H x S x D, K and V H x T x D, all of element type `$t`, f32
/// accumulation, `QBUF` buffers for Q, `CAUSAL` 1 for the causal mask (T = S then: [`check`]). S is
/// ragged: the last unit's queries past S are TMA's zeros, whose rows of O are not stored. T is
/// ragged where `ragged = (S, T)` says so, with the last key block's keys past T masked by
/// `MASK_T = 1` (or, with the causal mask, by the diagonal block's); otherwise the launch checks
/// that T is whole 128-key blocks. (The key mask, even where never taken, cost the kernel 2.5-4.5%
/// on the H200, as ptxas schedules the loop around it: so only the `ragged_*` kernels have it.)
macro_rules! attention {
    ($name:ident, $t:ident, D = $d:literal, QBUF = $qbuf:literal, CAUSAL = $causal:literal,
     ragged = ($($dim:ident),*), MASK_T = $mask_t:literal) => {
        #[kernel(grid = (132,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168, ragged($($dim),*),
                 consts(D = $d, QBUF = $qbuf, CAUSAL = $causal, MASK_T = $mask_t))]
        pub fn $name(
            q: Gmem<$t, H, S, D>,
            k: Gmem<$t, H, T, D>,
            v: Gmem<$t, H, T, D>,
            o: GmemMut<$t, H, S, D>,
            scale: f32,
            head_major: i32,
        ) {
            // Units of 128 queries, the queries of a head side by side: program `p` takes every
            // `programs`-th, and units that run together share their head's K and V in the L2.
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
                |q_s: Smem<$t, QBUF, 2, 1, 64, D, Swizzle128>,
                 k_s: Smem<$t, STAGES, 1, BT, D, Swizzle128>,
                 v_s: Smem<$t, STAGES, 1, BT, D, Swizzle128>,
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
                            let (h, i, steps) = if CAUSAL == 1 {
                                let seat = if n % 2 == 1 { programs - 1 - program_id(0) } else { program_id(0) };
                                let ranked = n * programs + seat;
                                let (h, level) = if head_major == 1 {
                                    (ranked / blocks, ranked % blocks)
                                } else {
                                    (ranked % H, ranked / H)
                                };
                                let i = blocks - 1 - level;
                                (h, i, i + 1)
                            } else {
                                let u = program_id(0) + n * programs;
                                (u / blocks, u % blocks, cdiv(T, BT))
                            };
                            // The ring's stage is `b`: one step per unit.
                            pipeline_produce(q_ring, 1, |_n, b, bar| {
                                copy_gmem_to_smem(q.tile([h, 2 * i, 0]), q_s.at(b).at(0), bar);
                                copy_gmem_to_smem(q.tile([h, 2 * i + 1, 0]), q_s.at(b).at(1), bar);
                            });
                            pipeline_produce(ring, steps, |t, s, bar| {
                                copy_gmem_to_smem(k.tile([h, t, 0]), k_s.at(s), bar);
                                copy_gmem_to_smem(v.tile([h, t, 0]), v_s.at(s), bar);
                            });
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
                                let (h, i, steps) = if CAUSAL == 1 {
                                    let seat = if n % 2 == 1 { programs - 1 - program_id(0) } else { program_id(0) };
                                    let ranked = n * programs + seat;
                                    let (h, level) = if head_major == 1 {
                                        (ranked / blocks, ranked % blocks)
                                    } else {
                                        (ranked % H, ranked / H)
                                    };
                                    let i = blocks - 1 - level;
                                    (h, i, i + 1)
                                } else {
                                    let u = program_id(0) + n * programs;
                                    (u / blocks, u % blocks, cdiv(T, BT))
                                };
                                // Row maxima (scaled by c) and sums of exponentials so far.
                                let mut m_i = splat::<f32>(-1.0e30, [64]).to_layout(Layout::WgmmaRow);
                                let mut l_i = splat::<f32>(0.0, [64]).to_layout(Layout::WgmmaRow);
                                // The previous block's probabilities and stage, for its P V.
                                let mut p_prev = splat::<$t>(0.0, [64, BT]).to_layout(Layout::Wgmma);
                                let mut prev = 0;
                                o_acc.store(splat::<f32>(0.0, [64, D]));
                                barrier_wait(q_ring__full.at(b));
                                pipeline_consume(
                                    ring,
                                    steps,
                                    |t, s| {
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
                                        p_prev = p.cast::<$t>();
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
                                let out = o_acc.load() / l_i.broadcast([64, D], Layout::Wgmma);
                                o.tile([h, 2 * i + w, 0], [1, 64, D]).store(out.cast::<$t>());
                            }
                        });
                    }
                },
            );
        }
    };
}

attention!(attention_bf16_d64, bf16, D = 64, QBUF = 2, CAUSAL = 0, ragged = (S), MASK_T = 0);
attention!(attention_bf16_d128, bf16, D = 128, QBUF = 1, CAUSAL = 0, ragged = (S), MASK_T = 0);
attention!(attention_f16_d64, f16, D = 64, QBUF = 2, CAUSAL = 0, ragged = (S), MASK_T = 0);
attention!(attention_f16_d128, f16, D = 128, QBUF = 1, CAUSAL = 0, ragged = (S), MASK_T = 0);
attention!(ragged_bf16_d64, bf16, D = 64, QBUF = 2, CAUSAL = 0, ragged = (S, T), MASK_T = 1);
attention!(ragged_bf16_d128, bf16, D = 128, QBUF = 1, CAUSAL = 0, ragged = (S, T), MASK_T = 1);
attention!(ragged_f16_d64, f16, D = 64, QBUF = 2, CAUSAL = 0, ragged = (S, T), MASK_T = 1);
attention!(ragged_f16_d128, f16, D = 128, QBUF = 1, CAUSAL = 0, ragged = (S, T), MASK_T = 1);
attention!(causal_bf16_d64, bf16, D = 64, QBUF = 2, CAUSAL = 1, ragged = (S, T), MASK_T = 0);
attention!(causal_bf16_d128, bf16, D = 128, QBUF = 1, CAUSAL = 1, ragged = (S, T), MASK_T = 0);
attention!(causal_f16_d64, f16, D = 64, QBUF = 2, CAUSAL = 1, ragged = (S, T), MASK_T = 0);
attention!(causal_f16_d128, f16, D = 128, QBUF = 1, CAUSAL = 1, ragged = (S, T), MASK_T = 0);

/// Checks what the kernels' launches cannot see, then picks the kernel for the head dimension:
/// one function launches it on the GPU, one runs it in the interpreter.
macro_rules! dispatch {
    ($launch:ident, $interpret:ident, $t:ident, [$d64:ident, $d128:ident], ragged: [$r64:ident, $r128:ident],
     causal: [$c64:ident, $c128:ident]) => {
        /// O = softmax(scale Q K^T) V on the GPU. Q and O are H x S x D, K and V H x T x D; D is
        /// 64 or 128, T at least 1, scale positive. With `causal`, query i sees keys 0 ..= i only,
        /// and T = S.
        pub fn $launch(
            stream: &impl tessel::AsStream,
            q: &DeviceTensor<$t>,
            k: &DeviceTensor<$t>,
            v: &DeviceTensor<$t>,
            o: &mut DeviceTensor<$t>,
            scale: f32,
            causal: bool,
        ) -> tessel::Result<()> {
            let (d, order) = plan(q.shape(), k.shape(), scale, causal)?;
            match (d, causal, ragged_keys(k.shape())) {
                (64, false, false) => $d64::launch(stream, q, k, v, o, scale, order),
                (_, false, false) => $d128::launch(stream, q, k, v, o, scale, order),
                (64, false, true) => $r64::launch(stream, q, k, v, o, scale, order),
                (_, false, true) => $r128::launch(stream, q, k, v, o, scale, order),
                (64, true, _) => $c64::launch(stream, q, k, v, o, scale, order),
                (_, true, _) => $c128::launch(stream, q, k, v, o, scale, order),
            }
        }

        /// The same in the interpreter.
        pub fn $interpret(
            q: &HostTensor<$t>,
            k: &HostTensor<$t>,
            v: &HostTensor<$t>,
            o: &mut HostTensor<$t>,
            scale: f32,
            causal: bool,
        ) -> tessel::Result<()> {
            let (d, order) = plan(q.shape(), k.shape(), scale, causal)?;
            match (d, causal, ragged_keys(k.shape())) {
                (64, false, false) => $d64::interpret(q, k, v, o, scale, order),
                (_, false, false) => $d128::interpret(q, k, v, o, scale, order),
                (64, false, true) => $r64::interpret(q, k, v, o, scale, order),
                (_, false, true) => $r128::interpret(q, k, v, o, scale, order),
                (64, true, _) => $c64::interpret(q, k, v, o, scale, order),
                (_, true, _) => $c128::interpret(q, k, v, o, scale, order),
            }
        }
    };
}

dispatch!(attention_bf16, interpret_bf16, bf16, [attention_bf16_d64, attention_bf16_d128],
          ragged: [ragged_bf16_d64, ragged_bf16_d128], causal: [causal_bf16_d64, causal_bf16_d128]);
dispatch!(attention_f16, interpret_f16, f16, [attention_f16_d64, attention_f16_d128],
          ragged: [ragged_f16_d64, ragged_f16_d128], causal: [causal_f16_d64, causal_f16_d128]);

/// Whether the keys end in a partial 128-key block, which the `ragged_*` kernels mask (a K of
/// another rank is the launch's error: either kernel reports it).
fn ragged_keys(k: &[usize]) -> bool {
    k.get(1).is_some_and(|t| t % 128 != 0)
}

/// The head dimension, after the checks the kernels' own launches do not make: there is at least
/// one key (with none, every row would be 0 / 0), the scale is positive (the row maximum is taken
/// before scaling), and causal attention has as many keys as queries. Ranks and the other shapes
/// are the launch's checks.
pub fn check(q: &[usize], k: &[usize], scale: f32, causal: bool) -> tessel::Result<usize> {
    let (Some(&s), Some(&d), Some(&t)) = (q.get(1), q.get(2), k.get(1)) else {
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

/// The head dimension ([`check`]) and the order of the causal units ([`causal_order`]) for a
/// launch. (A shape of another rank is the launch's error to report: no order to compute then.)
fn plan(q: &[usize], k: &[usize], scale: f32, causal: bool) -> tessel::Result<(usize, i32)> {
    let d = check(q, k, scale, causal)?;
    let (heads, s) = (q.first().copied().unwrap_or(0), q.get(1).copied().unwrap_or(0));
    Ok((d, causal_order(heads, s.div_ceil(128), causal)))
}

/// The order of the causal kernels' units (their `head_major` argument) for `heads` heads of
/// `blocks` units: 1, head after head, when that leaves the busiest of the 132 programs at most
/// 5% more work than the order over all heads (0) does. Head after head, the units that run at
/// once share their heads' K and V in the L2: on the H200 that measured 1.18-1.25x at S = 1024
/// and 2048 with D = 128 (16 x 16384 x 128, where it would leave one program 1.54x the mean work,
/// takes the order over all heads). 0 without the mask (the kernels do not read it then).
pub fn causal_order(heads: usize, blocks: usize, causal: bool) -> i32 {
    let busiest = |head_major: bool| {
        let (programs, units) = (132, heads * blocks);
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

/// Every instantiation's name and PTX (for `ptxas` checks and `TESSEL_DUMP_PTX`).
pub const ALL_PTX: &[(&str, &str)] = &[
    ("attention_bf16_d64", attention_bf16_d64::PTX),
    ("attention_bf16_d128", attention_bf16_d128::PTX),
    ("attention_f16_d64", attention_f16_d64::PTX),
    ("attention_f16_d128", attention_f16_d128::PTX),
    ("ragged_bf16_d64", ragged_bf16_d64::PTX),
    ("ragged_bf16_d128", ragged_bf16_d128::PTX),
    ("ragged_f16_d64", ragged_f16_d64::PTX),
    ("ragged_f16_d128", ragged_f16_d128::PTX),
    ("causal_bf16_d64", causal_bf16_d64::PTX),
    ("causal_bf16_d128", causal_bf16_d128::PTX),
    ("causal_f16_d64", causal_f16_d64::PTX),
    ("causal_f16_d128", causal_f16_d128::PTX),
];
