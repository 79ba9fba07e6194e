//! The interpreter through the API `#[kernel]` generates (`<kernel>::interpret`), without a GPU:
//! GEMM tiles of several shapes, warp specialization with barriers, a cluster multicast, a `Pipeline`
//! across a 2 x 1 cluster (cluster-wide releases), K split across a cluster through a peer's shared
//! memory, a relayout round trip, windows of a register array, register arrays through shared
//! memory and windows of whole swizzled column blocks, running sums handed down a chain of programs
//! through global-memory semaphores, groups of programs that wait on each other, `#[unroll]` loops,
//! and errors (a deadlock, a semaphore nothing signals, one outside its array, bad arguments)
//! returned rather than panics or hangs.
//! The GPU tests (`gpu_gemm.rs`, `gpu_ops.rs`) compare the GPU against the same interpreter.

use crate::common;
use crate::kernels;
use crate::semaphores;

use common::{assert_close, matmul, values, Rng};
use kernels::{
    bit_views, bit_views_case, colsum, column_windows, gemm_bf16, gemm_bf16_rega, if_values, if_values_ref,
    literal_rounding, per_head, pipelined_cluster, ragged_store, ragged_store_ref, regs_windows, regs_windows_ref,
    roundings, roundings_case, scalar_reductions, scalar_reductions_inputs, scalar_reductions_ref, smem_vectors,
    smem_vectors_ref, smem_walks, smem_walks_ref, specialized, split_k_pair, tiles_down_a_column, timed_double,
    tuple_steps, tuple_steps_ref, NarrowInts, BIT_VIEWS, NARROW_OUTPUTS, NARROW_S, RAGGED_WIDTHS,
};
use semaphores::{running_sums, running_sums_ref, stream_k_gemm, stream_workspace, STREAM_SHAPES};
use std::time::{Duration, Instant};
use tessel::prelude::*;

/// `globaltimer()` in the interpreter: nanoseconds since the launch began, so every reading lies
/// between 0 and the launch's length as the host measured it, and a program's second reading is
/// not before its first.
#[test]
fn the_global_timer_counts_from_the_launch() {
    let x = HostTensor::from_fn([3 * 64, 64], |ix| ix[1] as f32).unwrap();
    let mut y = HostTensor::zeros([3 * 64, 64]).unwrap();
    let mut ns = HostTensor::<i64>::from_fn([3, 2, 128], |_| -1).unwrap();
    let before = Instant::now();
    timed_double::interpret(&x, &mut y, &mut ns).unwrap();
    let took = i64::try_from(before.elapsed().as_nanos()).unwrap();
    assert_eq!(y.get(&[2 * 64 + 5, 7]), Some(14.0));
    for p in 0..3 {
        for t in 0..128 {
            let (start, end) = (ns.get(&[p, 0, t]).unwrap(), ns.get(&[p, 1, t]).unwrap());
            assert!(0 <= start && start <= end && end <= took, "program {p} thread {t}: {start} .. {end} of {took} ns");
        }
    }
}

#[test]
fn wide_tiles() {
    let mut rng = Rng::new(101);
    let (m, n, k) = (128, 256, 192);
    let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
    let mut c = HostTensor::new([m, n], vec![f32::NAN; m * n]).unwrap();
    gemm_bf16::interpret(&a, &b, &mut c).unwrap();
    assert_close("gemm_wide", &values(&c), &matmul(&values(&a), &values(&b), m, n, k, true), 1e-5);
}

#[test]
fn registers_a_and_a_bf16_epilogue() {
    let mut rng = Rng::new(102);
    let (m, n, k) = (64, 128, 256);
    let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[n, k], 1.0));
    let mut c = HostTensor::new([m, n], vec![bf16::NAN; m * n]).unwrap();
    gemm_bf16_rega::interpret(&a, &b, &mut c).unwrap();
    // bf16 output: half an ulp of bf16 (2^-9) on top of the f32 accumulation.
    assert_close("gemm_rega", &values(&c), &matmul(&values(&a), &values(&b), m, n, k, false), 1e-2);
}

#[test]
fn register_array_windows() {
    let (m, n) = (256, 384);
    let x = Rng::new(108).tensor::<bf16>(&[m, n], 1.0);
    let (mut y, mut z) = (HostTensor::<bf16>::zeros([m, n]).unwrap(), HostTensor::<bf16>::zeros([m, n]).unwrap());
    regs_windows::interpret(&x, &mut y, &mut z).unwrap();
    let (want_y, want_z) = regs_windows_ref(&values(&x), m, n);
    assert_close("quadrants swapped", &values(&y), &want_y, 0.0);
    assert_close("8-column blocks reversed", &values(&z), &want_z, 0.0);
}

#[test]
fn shared_memory_walks_and_column_windows() {
    let (m, n) = (256, 192);
    let x = Rng::new(109).tensor::<f32>(&[m, n], 1.0);
    let (mut y, mut z) = (HostTensor::<f32>::zeros([m, n]).unwrap(), HostTensor::<f32>::zeros([m, n]).unwrap());
    let mut h = HostTensor::<bf16>::zeros([m, n]).unwrap();
    smem_walks::interpret(&x, &mut y, &mut z, &mut h).unwrap();
    let [want_y, want_z, want_h] = smem_walks_ref(&x);
    assert_close("smem_walks: y", &values(&y), &want_y, 0.0);
    assert_close("smem_walks: z", &values(&z), &want_z, 0.0);
    assert_close("smem_walks: h", &values(&h), &want_h, 0.0);
    let m = 256;
    let x = HostTensor::from_fn([m, 64], |ix| ((7 * ix[0] + 3 * ix[1]) % 17) as f32 - 8.0).unwrap();
    // Written over NaN, so that an element the kernel does not store shows.
    let nans = || HostTensor::from_fn([m, 64], |_| f32::NAN).unwrap();
    let (mut y, mut z) = (nans(), nans());
    smem_vectors::interpret(&x, &mut y, &mut z).unwrap();
    let [want_y, want_z] = smem_vectors_ref(&x, m);
    assert_close("smem_vectors: y", &values(&y), &want_y, 0.0);
    assert_close("smem_vectors: z", &values(&z), &want_z, 0.0);
    let (m, n) = (128, 256);
    let a = Rng::new(110).tensor::<bf16>(&[m, 128], 1.0);
    let b = Rng::new(111).tensor::<bf16>(&[128, n], 1.0);
    let mut c = HostTensor::<f32>::zeros([m, n]).unwrap();
    column_windows::interpret(&a, &b, &mut c).unwrap();
    assert_close("column_windows", &values(&c), &matmul(&values(&a), &values(&b), m, n, 128, true), 1e-5);
}

#[test]
fn warp_specialized_pipeline() {
    let mut rng = Rng::new(103);
    let (m, n, k) = (256, 128, 512);
    let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
    let mut c = HostTensor::new([m, n], vec![f32::NAN; m * n]).unwrap();
    specialized::interpret(&a, &b, &mut c).unwrap();
    assert_close("specialized", &values(&c), &matmul(&values(&a), &values(&b), m, n, k, true), 1e-5);
}

#[test]
fn pipeline_across_a_cluster() {
    let mut rng = Rng::new(105);
    let (m, n, k) = (256, 256, 1024);
    let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
    let mut c = HostTensor::new([m, n], vec![f32::NAN; m * n]).unwrap();
    pipelined_cluster::interpret(&a, &b, &mut c).unwrap();
    assert_close("pipelined_cluster", &values(&c), &matmul(&values(&a), &values(&b), m, n, k, true), 1e-5);
}

#[test]
fn a_reused_accumulator_restarts_without_zeroing() {
    let mut rng = Rng::new(107);
    let (m, n, k) = (192, 256, 128);
    let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
    let mut c = HostTensor::new([m, n], vec![f32::NAN; m * n]).unwrap();
    tiles_down_a_column::interpret(&a, &b, &mut c).unwrap();
    assert_close("tiles_down_a_column", &values(&c), &matmul(&values(&a), &values(&b), m, n, k, true), 1e-5);
}

#[test]
fn split_k_through_a_peer() {
    let mut rng = Rng::new(106);
    let (m, n, k) = (128, 256, 768);
    let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
    let mut c = HostTensor::new([m, n], vec![f32::NAN; m * n]).unwrap();
    split_k_pair::interpret(&a, &b, &mut c).unwrap();
    assert_close("split_k_pair", &values(&c), &matmul(&values(&a), &values(&b), m, n, k, true), 1e-5);
}

/// Both programs of a cluster multicast the same A tile and each multiplies it by its own B tile.
/// One K step only: reusing a multicast destination needs the cluster's programs in step (see
/// `pipelined_cluster`, whose consumers release each stage in both programs); without it the copy
/// of step k + 1 may land in a peer still multiplying step k, on the GPU and in the interpreter alike.
#[kernel(grid = (M / 64, N / 64), cluster = (1, 2))]
fn multicast_a(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar, multicast = true);
                copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s);
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

#[test]
fn cluster_multicast() {
    let mut rng = Rng::new(104);
    let (m, n, k) = (128, 256, 64);
    let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
    let mut c = HostTensor::new([m, n], vec![f32::NAN; m * n]).unwrap();
    multicast_a::interpret(&a, &b, &mut c).unwrap();
    assert_close("multicast", &values(&c), &matmul(&values(&a), &values(&b), m, n, k, true), 1e-5);
    // Three column blocks are not whole clusters of two.
    let b3 = rng.tensor::<bf16>(&[k, 192], 1.0);
    let mut c3 = HostTensor::<f32>::zeros([m, 192]).unwrap();
    let err = multicast_a::interpret(&a, &b3, &mut c3).unwrap_err();
    assert!(err.to_string().contains("is not a whole number of clusters"), "{err}");
}

#[test]
fn column_sums_and_relayouts() {
    let x = Rng::new(105).tensor::<f32>(&[128, 64], 1.0);
    let mut y = HostTensor::new([128, 64], vec![f32::NAN; 128 * 64]).unwrap();
    colsum::interpret(&x, &mut y).unwrap();
    let xv = x.data();
    let mut want = Vec::new();
    for r in 0..128 {
        let block = r / 64 * 64;
        for c in 0..64 {
            // Left-to-right f32 sums, as the interpreter's reference semantics say.
            let sum = (block + 1..block + 64).fold(xv[block * 64 + c], |s, rr| s + xv[rr * 64 + c]);
            want.push((xv[r * 64 + c] + sum) as f64);
        }
    }
    assert_eq!(values(&y), want);
}

#[test]
fn one_dimensional_arrays_reduce_to_scalars() {
    let (x, f, n) = scalar_reductions_inputs();
    let mut out = HostTensor::new([128, 8], vec![f32::NAN; 128 * 8]).unwrap();
    scalar_reductions::interpret(&x, &f, &n, &mut out).unwrap();
    let mut want = Vec::new();
    for block in x.data().chunks(64 * 64) {
        let found = scalar_reductions_ref(block, f.data(), n.data());
        for _ in 0..64 {
            want.extend(found);
            want.push(0.0);
        }
    }
    assert_eq!(values(&out), want);
}

/// Each warpgroup waits for the other: an error names both, and `interpret` returns it.
#[kernel(grid = (1,), warpgroups = 2, warpgroup_axis = wg)]
fn crossed(y: GmemMut<f32, 64, 64>) {
    run_scoped(collective_axes = [wg], |ping: Barrier, pong: Barrier| {
        if warpgroup_id() == 0 {
            barrier_wait(pong);
            barrier_arrive(ping);
        } else {
            barrier_wait(ping);
            barrier_arrive(pong);
        }
    });
    y.tile([0, 0]).store(splat::<f32>(1.0, [64, 64]));
}

#[test]
fn a_deadlock_is_an_error_not_a_hang() {
    let mut y = HostTensor::new([64, 64], vec![f32::NAN; 64 * 64]).unwrap();
    let err = crossed::interpret(&mut y).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::Interpreter(_)), "{msg}");
    assert!(msg.contains("warpgroup 0 waits on barrier `pong` for phase 0"), "{msg}");
    assert!(msg.contains("warpgroup 1 waits on barrier `ping` for phase 0"), "{msg}");
    assert!(y.data().iter().all(|v| v.is_nan()), "nothing is written back after an error");
}

#[test]
fn bad_arguments_are_errors() {
    let a = HostTensor::<bf16>::zeros([64, 100]).unwrap();
    let b = HostTensor::<bf16>::zeros([100, 128]).unwrap();
    let mut c = HostTensor::<f32>::zeros([64, 128]).unwrap();
    let err = gemm_bf16::interpret(&a, &b, &mut c).unwrap_err();
    assert!(matches!(err, Error::Divisibility { dim: "K", value: 100, divisor: 64, .. }), "{err}");
}

#[test]
fn semaphores_hand_running_sums_down_a_chain() {
    let (rows, cols) = (6 * 64, 1024);
    let x = Rng::new(108).tensor::<f32>(&[rows, cols], 1.0);
    let want = running_sums_ref(&values(&x), rows, cols);
    // One zeroed array of semaphores serves launch after launch: the signals and waits balance.
    let mut sems = HostTensor::<u32>::zeros([rows / 64]).unwrap();
    for launch in 0..2 {
        let mut sums = HostTensor::new([rows, 128], vec![f32::NAN; rows * 128]).unwrap();
        running_sums::interpret(&x, &mut sums, &mut sems).unwrap();
        assert_close(&format!("running_sums, launch {launch}"), &values(&sums), &want, 1e-5);
        assert!(sems.data().iter().all(|&s| s == 0), "launch {launch} left the semaphores at {:?}", sems.data());
    }
}

/// Groups of 8 programs that all wait for each other (as a split-K kernel's programs of a tile
/// do): each stores its 64 x 64 tile of `x`, signals the other 7, waits for them, and stores the
/// sum of its group's tiles.
#[kernel(grid = (cdiv(P, 64),), consts(W = 8))]
fn groups_sum(x: Gmem<f32, P, 64>, vals: GmemMut<f32, P, 64>, sums: GmemMut<f32, P, 64>, sems: GmemMut<u32, S>) {
    let p = program_id(0);
    let (group, me) = (p / W, p % W);
    vals.tile([p, 0], [64, 64]).store(x.tile([p, 0], [64, 64]).load(Layout::Wgmma));
    for other in 0..W {
        if other != me {
            semaphore_signal(sems, W * group + other);
        }
    }
    semaphore_wait(sems, W * group + me, W - 1);
    let mut total = vals.tile([W * group, 0], [64, 64]).load(Layout::Wgmma);
    for other in 1..W {
        total = total + vals.tile([W * group + other, 0], [64, 64]).load(Layout::Wgmma);
    }
    sums.tile([p, 0], [64, 64]).store(total);
}

#[test]
fn programs_that_wait_on_each_other_run_together() {
    // 160 programs in groups of 8: more than the 132 the interpreter runs at once, so the last
    // groups start as the first ones finish.
    let programs = 160;
    let rows = 64 * programs;
    let x = Rng::new(109).tensor::<f32>(&[rows, 64], 1.0);
    let mut vals = HostTensor::new([rows, 64], vec![f32::NAN; rows * 64]).unwrap();
    let mut sums = HostTensor::new([rows, 64], vec![f32::NAN; rows * 64]).unwrap();
    let mut sems = HostTensor::<u32>::zeros([programs]).unwrap();
    groups_sum::interpret(&x, &mut vals, &mut sums, &mut sems).unwrap();
    let (x, tile) = (values(&x), 64 * 64);
    let want: Vec<f64> = (0..rows * 64)
        .map(|i| {
            let (group, within) = (i / tile / 8, i % tile);
            (0..8).map(|o| x[(8 * group + o) * tile + within]).sum()
        })
        .collect();
    assert_close("groups_sum", &values(&sums), &want, 1e-6);
    assert!(sems.data().iter().all(|&s| s == 0), "semaphores left at {:?}", sems.data());
}

#[test]
fn stream_k_shares_the_last_waves_and_leaves_the_semaphores_at_zero() {
    for (m, n, k) in STREAM_SHAPES {
        let mut rng = Rng::new((m * 17 + n * 5 + k) as u64);
        let (a, b) = (rng.tensor::<bf16>(&[m, k], 1.0), rng.tensor::<bf16>(&[k, n], 1.0));
        let mut c = HostTensor::new([m, n], vec![bf16::NAN; m * n]).unwrap();
        let (mut partial, mut sems) = stream_workspace();
        stream_k_gemm::interpret(&a, &b, &mut c, &mut partial, &mut sems).unwrap();
        // bf16 output: half an ulp of bf16 on top of the f32 accumulation.
        let want = matmul(&values(&a), &values(&b), m, n, k, true);
        assert_close(&format!("stream-K {m}x{n}x{k}"), &values(&c), &want, 1e-2);
        assert!(sems.data().iter().all(|&s| s == 0), "{m}x{n}x{k}: semaphores left at {:?}", sems.data());
    }
}

/// Every element inside is written (the outputs start as NaN) with its own value: a store past the
/// end of a row would land in the next row's elements.
#[test]
fn ragged_stores_write_each_element_in_place() {
    let rows = 128;
    let x = Rng::new(107).tensor::<f32>(&[rows, 64], 1.0);
    for n in RAGGED_WIDTHS {
        let mut y = HostTensor::new([rows, n], vec![f32::NAN; rows * n]).unwrap();
        let mut h = HostTensor::new([rows, n], vec![bf16::NAN; rows * n]).unwrap();
        ragged_store::interpret(&x, &mut y, &mut h).unwrap();
        let want = ragged_store_ref(&values(&x), rows, n);
        assert_close(&format!("ragged_store y, N = {n}"), &values(&y), &want, 0.0);
        // bf16: half an ulp, at most 2^-8 of a value (8 significant bits).
        assert_close(&format!("ragged_store h, N = {n}"), &values(&h), &want, 1.0 / 256.0);
    }
}

/// A wait that nothing will signal.
#[kernel(grid = (1,))]
fn waits_alone(sems: GmemMut<u32, 2>) {
    semaphore_wait(sems, 1);
}

#[test]
fn a_semaphore_nothing_signals_is_an_error_not_a_hang() {
    let mut sems = HostTensor::<u32>::zeros([2]).unwrap();
    let err = waits_alone::interpret(&mut sems).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::Interpreter(_)), "{msg}");
    assert!(msg.contains("semaphore 1 of `sems`, which holds 0 of the 1 it waits for"), "{msg}");
    assert!(msg.contains("no program signalled it"), "{msg}");
}

/// Program 0 signals past the end of the semaphores while program 1 waits for a signal from it.
#[kernel(grid = (2,))]
fn signals_outside(sems: GmemMut<u32, S>) {
    if program_id(0) == 0 {
        semaphore_signal(sems, S);
    } else {
        semaphore_wait(sems, 0);
    }
}

#[test]
fn a_failing_program_stops_the_programs_waiting_for_it() {
    let mut sems = HostTensor::<u32>::zeros([2]).unwrap();
    let start = Instant::now();
    let err = signals_outside::interpret(&mut sems).unwrap_err();
    let msg = err.to_string();
    // Program 0's error, reported without waiting out the semaphore's time limit.
    assert!(msg.contains("program (0, 0, 0)"), "{msg}");
    assert!(msg.contains("`semaphore_signal(sems, 2)`: index 2 is outside the 2 semaphores of `sems`"), "{msg}");
    assert!(start.elapsed() < Duration::from_secs(5), "took {:?}", start.elapsed());
}

/// A cluster's program 1 sends a tile into program 0's `recv`, which shares its shared memory
/// with program 0's previous scope, where program 0 is still busy rewriting `scratch`: the copy
/// must wait until program 0 has entered `recv`'s scope, as the cluster barrier at that entry
/// makes it wait on the GPU, or program 0's late writes to `scratch` clobber what it received.
#[kernel(grid = (2,), cluster = (2,))]
fn late_receiver(x: Gmem<f32, 64, 32>, y: GmemMut<f32, 64, 32>) {
    let rank = cluster_rank();
    run_scoped(|scratch: Smem<f32, 64, 32>| {
        if rank == 0 {
            for _ in 0..64 {
                scratch.store(x.tile([0, 0], [64, 32]).load(Layout::Strided) * 0.0);
            }
        }
    });
    run_scoped(|recv: Smem<f32, 64, 32>, got: Barrier| {
        if rank == 1 {
            recv.store(x.tile([0, 0], [64, 32]).load(Layout::Strided));
            commit_smem();
            copy_smem_to_peer(recv, recv, got, 0);
        } else {
            barrier_wait(got);
            y.tile([0, 0]).store(recv.load(Layout::Strided));
        }
    });
}

#[test]
fn a_copy_to_a_peer_lands_once_the_peer_has_entered_the_scope() {
    let x = Rng::new(111).tensor::<f32>(&[64, 32], 1.0);
    for _ in 0..4 {
        let mut y = HostTensor::new([64, 32], vec![f32::NAN; 64 * 32]).unwrap();
        late_receiver::interpret(&x, &mut y).unwrap();
        let wrong = values(&y).iter().zip(values(&x)).filter(|(a, b)| a != &b).count();
        assert_eq!(wrong, 0, "{wrong} of the {} values received differ from those sent", 64 * 32);
    }
}

/// Each of S / 2 + 1 programs adds 2 to the three semaphores from its own on, with one signal of
/// a range.
#[kernel(grid = (S / 2 + 1,))]
fn signals_ahead(sems: GmemMut<u32, S>) {
    let p = program_id(0);
    semaphore_signal(sems, p..p + 3, 2);
}

#[test]
fn a_signal_of_a_range_adds_to_each_semaphore() {
    // 4 programs over 6 semaphores: semaphore i hears from the programs i - 2 ..= i.
    let mut sems = HostTensor::<u32>::zeros([6]).unwrap();
    signals_ahead::interpret(&mut sems).unwrap();
    assert_eq!(sems.data(), &[2, 4, 6, 6, 4, 2]);
    // 3 programs over 4 semaphores: program 2's range runs past the end, an error naming the
    // first index outside (a failed launch leaves the tensors as they were).
    let mut sems = HostTensor::<u32>::zeros([4]).unwrap();
    let msg = signals_ahead::interpret(&mut sems).unwrap_err().to_string();
    assert!(msg.contains("program (2, 0, 0)"), "{msg}");
    assert!(msg.contains("`semaphore_signal(sems, 4)`: index 4 is outside the 4 semaphores of `sems`"), "{msg}");
    assert_eq!(sems.data(), &[0, 0, 0, 0]);
}

/// Integers narrower than 32 bits wrap at their width, as Rust's wrapping arithmetic and `as`
/// (the reference `gpu_ops.rs` holds the GPU to as well).
#[test]
fn narrow_integers_wrap() {
    let x = NarrowInts::generate();
    for s in NARROW_S {
        let (got, want) = (x.interpret(s), x.reference(s));
        for ((what, got), want) in NARROW_OUTPUTS.iter().zip(&got).zip(&want) {
            assert_close(&format!("narrow_ints {what}, s = {s}"), got, want, 0.0);
        }
    }
}

/// Tuple assignment computes every value first, as Rust does (so a swap swaps).
#[test]
fn tuple_assignment_evaluates_before_it_assigns() {
    let x = Rng::new(12).tensor::<f32>(&[4 * 128], 1.0);
    for n in [0, 1, 6, 7] {
        let mut y = HostTensor::<f32>::zeros([4 * 128]).unwrap();
        tuple_steps::interpret(&x, &mut y, n).unwrap();
        assert_close(&format!("tuple_steps, n = {n}"), &values(&y), &tuple_steps_ref(x.data(), n), 0.0);
    }
}

/// `if` as a value takes the branch its condition picks, in every program.
#[test]
fn if_values_take_the_branch_their_condition_picks() {
    let x = Rng::new(13).tensor::<f32>(&[6 * 128], 1.0);
    let mut y = HostTensor::<f32>::zeros([6 * 128]).unwrap();
    if_values::interpret(&x, &mut y, 7).unwrap();
    assert_close("if_values", &values(&y), &if_values_ref(x.data(), 7), 0.0);
}

/// Float literals round once to the dtype they take, from their written value.
#[test]
fn float_literals_round_once_to_bf16() {
    let x = HostTensor::new([64, 64], vec![bf16::ONE; 64 * 64]).unwrap();
    let (mut y, mut z) = (HostTensor::<bf16>::zeros([64, 64]).unwrap(), HostTensor::<bf16>::zeros([64, 64]).unwrap());
    literal_rounding::interpret(&x, &mut y, &mut z).unwrap();
    assert_close("x * literal", &values(&y), &[1.0078125; 64 * 64], 0.0);
    assert_close("splat of a literal", &values(&z), &[1.0078125; 64 * 64], 0.0);
}

/// 1 x 64 x 64 tiles of 3-D arrays move through registers as 64 x 64 arrays.
#[test]
fn tiles_with_leading_unit_extents_move_through_registers() {
    let (heads, rows) = (3, 192);
    let x = Rng::new(14).tensor::<f32>(&[heads, rows, 64], 1.0);
    let (mut y, mut z) =
        (HostTensor::<f32>::zeros([heads, rows, 64]).unwrap(), HostTensor::zeros([heads, rows, 64]).unwrap());
    per_head::interpret(&x, &mut y, &mut z).unwrap();
    let twice: Vec<f64> = values(&x).iter().map(|v| 2.0 * v).collect();
    let plus: Vec<f64> = x.data().iter().map(|&v| (v + 1.0) as f64).collect();
    assert_close("per_head y", &values(&y), &twice, 0.0);
    assert_close("per_head z", &values(&z), &plus, 0.0);
}

/// `bitcast` reads the bits of one dtype as another's, as the host's `to_bits` / `from_bits` do.
#[test]
fn bitcasts_keep_the_bits() {
    let (x, scale, want) = bit_views_case();
    fn z<T: tessel::Element>() -> HostTensor<T> {
        HostTensor::zeros([64, 64]).unwrap()
    }
    let (mut bits, mut next, mut half_bits, mut half_back) = (z::<u32>(), z::<f32>(), z::<i16>(), z::<bf16>());
    let (mut byte_bits, mut byte_back, mut param_bits) = (z::<u8>(), z::<f32>(), z::<i32>());
    bit_views::interpret(
        &x,
        &mut bits,
        &mut next,
        &mut half_bits,
        &mut half_back,
        &mut byte_bits,
        &mut byte_back,
        &mut param_bits,
        scale,
    )
    .unwrap();
    let got = [
        values(&bits),
        values(&next),
        values(&half_bits),
        values(&half_back),
        values(&byte_bits),
        values(&byte_back),
        values(&param_bits),
    ];
    for ((name, got), want) in BIT_VIEWS.iter().zip(&got).zip(&want) {
        assert_close(name, got, want, 0.0);
    }
}

/// `floor`, `ceil`, `round` (ties to even) and `trunc`, exactly as Rust's.
#[test]
fn roundings_are_exact() {
    let (x, want_y, want_h) = roundings_case();
    let (mut y, mut h) = (HostTensor::<f32>::zeros([256, 64]).unwrap(), HostTensor::<bf16>::zeros([64, 64]).unwrap());
    roundings::interpret(&x, &mut y, &mut h).unwrap();
    assert_close("floor, ceil, round, trunc", &values(&y), &want_y, 0.0);
    assert_close("round of bf16", &values(&h), &want_h, 0.0);
}

/// `#[unroll]`: each copy of the body sees its own counter, in slices, `.at(q)`, tile indices and
/// arithmetic, nested too; a copy's `let` does not leak into the next.
#[kernel(grid = (1,))]
fn unrolled(x: Gmem<f32, 64, 256>, y: GmemMut<f32, 64, 256>) {
    run_scoped(|acc: Acc<f32, 64, 256>, s: Smem<f32, 4, 64, 64>| {
        acc.store(x.tile([0, 0], [64, 256]).load(Layout::Wgmma));
        #[unroll]
        for q in 0..4 {
            let scaled = acc.slice([.., 64 * q..64 * q + 64]).load() * (q + 1) as f32;
            s.at(q).store(scaled);
        }
        #[unroll]
        for r in 0..2 {
            #[unroll]
            for c in 0..2 {
                let scaled = s.at(2 * r + c).load(Layout::Wgmma) + (10 * r + c) as f32;
                y.tile([0, 2 * r + c], [64, 64]).store(scaled);
            }
        }
    });
}

#[test]
fn unrolled_loops_give_each_copy_its_counter() {
    let x = Rng::new(109).tensor::<f32>(&[64, 256], 1.0);
    let mut y = HostTensor::new([64, 256], vec![f32::NAN; 64 * 256]).unwrap();
    unrolled::interpret(&x, &mut y).unwrap();
    let want: Vec<f64> = values(&x)
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let q = (i % 256 / 64) as f64;
            let (r, c) = ((q / 2.0).floor(), q % 2.0);
            v * (q + 1.0) + 10.0 * r + c
        })
        .collect();
    assert_close("unrolled", &values(&y), &want, 1e-6);
}

// An expression a `macro_rules!` substitutes (`$e:expr`) keeps its grouping in the interpreter as
// in the PTX: `$e * 2.0` with `$e` = `x + 1.0` is (x + 1) * 2, not x + 2.
macro_rules! doubled {
    ($name:ident, |$x:ident| $e:expr) => {
        #[kernel(grid = (1,))]
        fn $name(src: Gmem<f32, 64, 64>, dst: GmemMut<f32, 64, 64>) {
            let $x = src.tile([0, 0], [64, 64]).load(Layout::Strided);
            dst.tile([0, 0], [64, 64]).store($e * 2.0);
        }
    };
}

doubled!(doubled_sum, |x| x + 1.0);

#[test]
fn macro_substituted_expressions_keep_their_grouping() {
    let x = HostTensor::from_fn([64, 64], |ix| (ix[0] * 64 + ix[1]) as f32 / 64.0).unwrap();
    let mut y = HostTensor::<f32>::zeros([64, 64]).unwrap();
    doubled_sum::interpret(&x, &mut y).unwrap();
    let want: Vec<f64> = values(&x).iter().map(|v| (v + 1.0) * 2.0).collect();
    assert_close("($e) * 2", &values(&y), &want, 0.0);
    // Other undelimited groups print as they were: `kernels::gemm_tf32` comes from a macro that
    // passes its doc comment as `$doc:meta` (in parentheses it would not parse).
    let (a, b) = (HostTensor::<f32>::zeros([64, 32]).unwrap(), HostTensor::<f32>::zeros([64, 32]).unwrap());
    let mut c = HostTensor::<f32>::zeros([64, 64]).unwrap();
    kernels::gemm_tf32::interpret(&a, &b, &mut c).unwrap();
}
