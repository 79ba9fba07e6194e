//! The attention backward pass (`kernels/src/attention_backward.rs`): dQ, dK and dV against an f64
//! reference in the interpreter on small shapes (and, with `--ignored` on the GPU machine, on the
//! GPU on long sequences), a finite-difference check of the gradients, and the launch's checks.
//!
//! The GPU tests' reference computes every row's lse and delta (O(H S T D) in f64): run them in a
//! release build, `cargo test --release -p tessel-kernels --test kernels attention_backward:: -- --ignored`.

use crate::attention_grad_ref as reference;
use crate::attention_ref as inputs;
use tessel::prelude::*;
use tessel::{Element, Error, HostTensor};
use tessel_kernels::attention_backward::{self as backward, Backward, CausalOrder, DqPath};

use reference::Problem;

/// Gradients within 1e-2 of the reference, relative to each row's largest value.
const TOLERANCE: f64 = 1e-2;

/// Q, K, V and dO of a problem with `heads` query heads over `kv_heads` K/V heads.
fn tensors<T: Element>(heads: usize, kv_heads: usize, s: usize, t: usize, d: usize) -> [HostTensor<T>; 4] {
    let make = |shape: [usize; 3], seed| HostTensor::new(shape, inputs::randn(shape.iter().product(), seed)).unwrap();
    [make([heads, s, d], 11), make([kv_heads, t, d], 12), make([kv_heads, t, d], 13), make([heads, s, d], 14)]
}

/// Gradient outputs filled with NaN, so that a row the kernels do not write shows.
fn nans<T: Element>(shape: &[usize]) -> HostTensor<T> {
    HostTensor::new(shape.to_vec(), vec![T::from_f64(f64::NAN); shape.iter().product()]).unwrap()
}

/// The ways of computing dQ whose kernels differ at head dimension `d` (the fused variants run
/// [`DqPath::Fused`]'s at D = 64): every case runs each.
fn paths(d: usize) -> &'static [DqPath] {
    if d == 64 {
        &[DqPath::Separate, DqPath::Fused]
    } else {
        &[DqPath::Separate, DqPath::Fused, DqPath::FusedEager, DqPath::FusedRed]
    }
}

/// The choices of [`backward::Plan::persistent`] whose kernels differ for these plans: at D = 64
/// without the mask on a fused path, both (persistent and a program per unit); elsewhere the
/// plan's (it has no effect there).
fn persistence(d: usize, causal: bool, path: DqPath) -> &'static [Option<bool>] {
    if d == 64 && !causal && path != DqPath::Separate {
        &[Some(true), Some(false)]
    } else {
        &[None]
    }
}

/// Runs the backward in the interpreter and returns dQ, dK, dV; `partials` overrides the plan's
/// choice of how dK and dV sum over a group's query heads, `dq` its dQ path (with the causal
/// order [`CausalOrder::Heads`]), `persistent` its choice of persistent programs.
#[allow(clippy::too_many_arguments)]
fn interpreted<T: Backward>(
    x: &[HostTensor<T>; 4],
    o: &HostTensor<T>,
    lse: &HostTensor<f32>,
    scale: f32,
    causal: bool,
    partials: Option<bool>,
    dq_path: DqPath,
    persistent: Option<bool>,
) -> [HostTensor<T>; 3] {
    interpreted_in_order(x, o, lse, scale, causal, partials, dq_path, CausalOrder::Heads, persistent)
}

/// [`interpreted`] with the fused paths' causal programs in `order`.
#[allow(clippy::too_many_arguments)]
fn interpreted_in_order<T: Backward>(
    x: &[HostTensor<T>; 4],
    o: &HostTensor<T>,
    lse: &HostTensor<f32>,
    scale: f32,
    causal: bool,
    partials: Option<bool>,
    dq_path: DqPath,
    order: CausalOrder,
    persistent: Option<bool>,
) -> [HostTensor<T>; 3] {
    let [q, k, v, d_o] = x;
    let (mut dq, mut dk, mut dv) = (nans(q.shape()), nans(k.shape()), nans(k.shape()));
    let mut plan = backward::plan(q.shape(), k.shape(), lse.shape(), scale, causal).unwrap();
    plan.partials = partials.unwrap_or(plan.partials);
    plan.dq = dq_path;
    plan.order = order;
    plan.persistent = persistent.unwrap_or(plan.persistent);
    T::interpret_planned([q, k, v, o, d_o], lse, [&mut dq, &mut dk, &mut dv], scale, plan).unwrap();
    [dq, dk, dv]
}

fn check<T: Backward>(
    heads: usize,
    kv_heads: usize,
    s: usize,
    t: usize,
    d: usize,
    causal: bool,
    partials: Option<bool>,
) {
    let x = tensors::<T>(heads, kv_heads, s, t, d);
    let scale = 1.0 / (d as f32).sqrt();
    let problem = Problem::new([&x[0], &x[1], &x[2], &x[3]], scale as f64, causal);
    let mut forward = problem.forward();
    let (o, lse) = reference::saved::<T>(&problem, &mut forward).unwrap();
    for &path in paths(d) {
        for &persistent in persistence(d, causal, path) {
            let [dq, dk, dv] = interpreted(&x, &o, &lse, scale, causal, partials, path, persistent);
            let err = reference::max_rel_err(&problem, &forward, [&dq, &dk, &dv], usize::MAX);
            println!(
                "{} H {heads}/{kv_heads} S {s} T {t} D {d} causal {causal} partials {partials:?} {path:?} persistent {persistent:?}: dQ {:.1e} dK {:.1e} dV {:.1e}",
                T::DTYPE,
                err[0],
                err[1],
                err[2]
            );
            assert!(
                err.iter().all(|e| *e <= TOLERANCE),
                "{path:?} {persistent:?}: relative errors (dQ, dK, dV) {err:?}"
            );
        }
    }
}

#[test]
fn bf16_head_dim_64_ragged() {
    // Two key blocks (the second partial), two query blocks of 64, one of dQ's 128.
    check::<bf16>(1, 1, 100, 200, 64, false, None);
}

#[test]
fn bf16_head_dim_128_grouped_causal() {
    // G = 2: each K/V head's dK and dV sum over two query heads, in its programs or through f32
    // partial sums; the diagonal blocks masked.
    check::<bf16>(2, 1, 150, 150, 128, true, Some(false));
    check::<bf16>(2, 1, 150, 150, 128, true, Some(true));
}

#[test]
fn f16_head_dim_64_grouped_by_four_causal() {
    check::<f16>(4, 1, 130, 130, 64, true, None);
}

#[test]
fn f16_head_dim_128_ragged_two_kv_heads() {
    check::<f16>(4, 2, 70, 130, 128, false, Some(false));
    check::<f16>(4, 2, 70, 130, 128, false, Some(true));
}

/// The persistent fused kernel (D = 64, no mask) on 3 programs, each taking two or three units:
/// K and V in both buffers, the Q/dO ring running on from unit to unit, and with an odd number of
/// steps a unit that starts on the other dS^T buffer; its prep and cast as `launch` runs them.
#[test]
fn persistent_programs_take_several_units() {
    use backward::{attention_bwd_dq_cast, attention_bwd_fused_persistent, attention_bwd_prep};
    // (H, HK, S, T): 3 query blocks a unit (odd), 6 units; G = 2, 2 blocks of a ragged S, 8 units.
    for (heads, kv_heads, s, t) in [(2, 2, 150, 300), (4, 2, 100, 400)] {
        let x = tensors::<bf16>(heads, kv_heads, s, t, 64);
        let scale = 0.125;
        let problem = Problem::new([&x[0], &x[1], &x[2], &x[3]], scale as f64, false);
        let mut forward = problem.forward();
        let (o, lse) = reference::saved::<bf16>(&problem, &mut forward).unwrap();
        let [q, k, v, d_o] = &x;
        let rows = [heads, s.div_ceil(128) * 128];
        let (mut delta, mut lse_p) = (HostTensor::<f32>::zeros(rows).unwrap(), HostTensor::<f32>::zeros(rows).unwrap());
        let mut sum = nans::<f32>(q.shape());
        let (mut dq, mut dk, mut dv) = (nans(q.shape()), nans(k.shape()), nans(k.shape()));
        attention_bwd_prep::<bf16, 64, 1>::interpret(&o, d_o, &lse, &mut delta, &mut lse_p, &mut sum).unwrap();
        let group = (heads / kv_heads) as i32;
        attention_bwd_fused_persistent::<bf16, bf16, 4, 3>::interpret(
            q, k, v, d_o, &lse_p, &delta, &mut dk, &mut dv, &mut sum, scale, group,
        )
        .unwrap();
        attention_bwd_dq_cast::<bf16, 64>::interpret(&sum, &mut dq, scale).unwrap();
        let err = reference::max_rel_err(&problem, &forward, [&dq, &dk, &dv], usize::MAX);
        println!(
            "persistent, 3 programs, H {heads}/{kv_heads} S {s} T {t}: dQ {:.1e} dK {:.1e} dV {:.1e}",
            err[0], err[1], err[2]
        );
        assert!(err.iter().all(|e| *e <= TOLERANCE), "relative errors (dQ, dK, dV) {err:?}");
    }
}

#[test]
fn persistent_programs_serve_short_units_at_head_dim_64() {
    let plan = |h, hk, s, d, causal| backward::plan(&[h, s, d], &[hk, s, d], &[h, s], 0.1, causal).unwrap();
    if std::env::var_os("TESSEL_ATTN_BWD_DQ").is_none() {
        // A unit of 32 steps, of 64 (G = 2, 2048 queries each), of 128.
        assert!(plan(256, 256, 2048, 64, false).persistent);
        assert!(plan(64, 32, 2048, 64, false).persistent);
        assert!(!plan(64, 64, 8192, 64, false).persistent);
        // With partial sums a unit takes one query head: 32 steps of 2048 queries, whatever G.
        let mqa = plan(32, 1, 2048, 64, false);
        assert!(mqa.partials && mqa.persistent);
    }
    assert!(!plan(256, 256, 2048, 64, true).persistent);
    assert!(!plan(256, 256, 2048, 128, false).persistent);
}

#[test]
fn few_kv_heads_take_partial_sums() {
    let plan = |h, hk, t| backward::plan(&[h, t, 128], &[hk, t, 128], &[h, t], 0.1, false).unwrap().partials;
    // Multi-query, 8 x 8 programs fit one wave; 8 programs of 8 heads each would take eight.
    assert!(plan(8, 1, 1024));
    // 8 K/V heads x 32 key blocks are two waves of 4 heads each: as many as 32 heads' 8 waves.
    assert!(!plan(32, 8, 4096));
    assert!(!plan(16, 16, 1024));
}

#[test]
fn the_dq_path_is_named_as_the_environment_names_it() {
    assert_eq!("fused".parse::<DqPath>().unwrap(), DqPath::Fused);
    assert_eq!("fused-eager".parse::<DqPath>().unwrap(), DqPath::FusedEager);
    assert_eq!("fused-red".parse::<DqPath>().unwrap(), DqPath::FusedRed);
    assert_eq!("separate".parse::<DqPath>().unwrap(), DqPath::Separate);
    let err = "Fused".parse::<DqPath>();
    assert!(matches!(err, Err(Error::InvalidArgument { argument: "TESSEL_ATTN_BWD_DQ", .. })), "{err:?}");
    // Without `TESSEL_ATTN_BWD_DQ` (as these tests run) the plan takes the eager fused path at
    // D = 128 and the fused one at D = 64.
    if std::env::var_os("TESSEL_ATTN_BWD_DQ").is_none() {
        let plan = backward::plan(&[2, 64, 64], &[2, 64, 64], &[2, 64], 0.125, false).unwrap();
        assert_eq!(plan.dq, DqPath::Fused);
        let plan = backward::plan(&[2, 64, 128], &[2, 64, 128], &[2, 64], 0.125, false).unwrap();
        assert_eq!(plan.dq, DqPath::FusedEager);
    }
}

#[test]
fn the_causal_order_is_named_as_the_environment_names_it() {
    assert_eq!(CausalOrder::parse("heads", 7).unwrap(), CausalOrder::Heads);
    assert_eq!(CausalOrder::parse("sections", 7).unwrap(), CausalOrder::Sections(7));
    assert_eq!(CausalOrder::parse("sections:3", 7).unwrap(), CausalOrder::Sections(3));
    for bad in ["sections:0", "sections:", "sections:x", "Sections", "sections3"] {
        let err = CausalOrder::parse(bad, 7);
        assert!(matches!(err, Err(Error::InvalidArgument { argument: "TESSEL_ATTN_BWD_ORDER", .. })), "{bad}: {err:?}");
    }
    // Without `TESSEL_ATTN_BWD_ORDER` the plan deals causal programs in sections of heads that
    // fit the L2: here both heads, whose Q, dO and dQ sums take 66 KB.
    if std::env::var_os("TESSEL_ATTN_BWD_ORDER").is_none() {
        let plan = backward::plan(&[2, 64, 64], &[2, 64, 64], &[2, 64], 0.125, true).unwrap();
        assert_eq!(plan.order, CausalOrder::Sections(2));
    }
}

#[test]
fn sections_fit_the_l2() {
    // (8 D + 8) bytes a query and head: 1032 at D = 128, so 40 MiB hold 19 heads of 2048 queries,
    // and the sections take 16, the most that divide 128 heads.
    assert_eq!(backward::section_heads(2048, 128, 1, 128), 16);
    // 9 of 4096 queries fit, 8 divide 64 heads.
    assert_eq!(backward::section_heads(4096, 128, 1, 64), 8);
    assert_eq!(backward::section_heads(16384, 128, 1, 16), 2);
    // A prime number of heads goes one at a time unless all of them fit.
    assert_eq!(backward::section_heads(2048, 128, 1, 127), 1);
    // A program of 8 query heads (grouped, no partial sums) counts 8 times.
    assert_eq!(backward::section_heads(2048, 128, 8, 16), 2);
    // At least one head, at most all of them.
    assert_eq!(backward::section_heads(1 << 20, 128, 1, 4), 1);
    assert_eq!(backward::section_heads(128, 64, 1, 5), 5);
}

/// The fused paths' causal programs in sections of heads: every program of every head is dealt
/// once, whole sections and a last one of the heads that remain (5 heads in sections of 2 and 3
/// and 1; with partial sums, 4 query heads in sections of 3), against the reference, at both
/// head dimensions.
#[test]
fn causal_sections_deal_every_program_once() {
    let check = |heads, kv_heads, partials, d: usize, sections: &[usize]| {
        let x = tensors::<bf16>(heads, kv_heads, 150, 150, d);
        let scale = 1.0 / (d as f32).sqrt();
        let problem = Problem::new([&x[0], &x[1], &x[2], &x[3]], scale as f64, true);
        let mut forward = problem.forward();
        let (o, lse) = reference::saved::<bf16>(&problem, &mut forward).unwrap();
        for (&n, &path) in sections.iter().zip([DqPath::Fused, DqPath::FusedEager, DqPath::FusedRed].iter().cycle()) {
            let order = CausalOrder::Sections(n);
            let [dq, dk, dv] = interpreted_in_order(&x, &o, &lse, scale, true, Some(partials), path, order, None);
            let err = reference::max_rel_err(&problem, &forward, [&dq, &dk, &dv], usize::MAX);
            println!(
                "H {heads}/{kv_heads} D {d} partials {partials} {path:?} {order:?}: dQ {:.1e} dK {:.1e} dV {:.1e}",
                err[0], err[1], err[2]
            );
            assert!(err.iter().all(|e| *e <= TOLERANCE), "{path:?} {order:?}: relative errors (dQ, dK, dV) {err:?}");
        }
    };
    check(5, 5, false, 128, &[2, 3, 1]);
    check(4, 2, true, 128, &[3]);
    check(5, 5, false, 64, &[2, 1]);
    check(4, 2, true, 64, &[3]);
}

/// The kernels' gradients against central differences of the f64 loss sum(dO o O), at a few
/// elements of Q, K and V of a tiny problem.
#[test]
fn gradients_match_finite_differences() {
    for causal in [false, true] {
        let x = tensors::<f16>(2, 1, 9, 9, 64);
        let scale = 0.125;
        let problem = Problem::new([&x[0], &x[1], &x[2], &x[3]], scale as f64, causal);
        let mut forward = problem.forward();
        let (o, lse) = reference::saved::<f16>(&problem, &mut forward).unwrap();
        for &path in paths(64) {
            let [dq, dk, dv] = interpreted(&x, &o, &lse, scale, causal, None, path, None);
            let err = reference::finite_difference_err(&problem, [&dq, &dk, &dv], &[3, 273, 575, 1151]);
            println!("causal {causal} {path:?}: largest difference from the finite differences {err:.1e}");
            assert!(err <= TOLERANCE, "causal {causal} {path:?}: relative difference {err:.1e}");
        }
    }
}

/// Causal query 0 sees key 0 only, so its dQ is 0 exactly: its one dS is P (dP - delta), and
/// delta = dO . O = dO . V_0 = dP. The kernels compute dP and delta apart in f32 (on the GPU, dP on
/// the tensor cores and delta in the preparation's sum), so that row holds their rounding noise,
/// of dP's size, which the comparison measures against a thousandth of the size of the row's
/// terms (scale P (|dP| + |delta|) |K_0|): a dP - delta of 2^-17 |dP| (64 f32 ulps) passes, one
/// of 2^-8 |dP| (delta 0.4% off) does not. dO's row 0 is V_0, so that dP (|V_0|^2, about 128) is
/// large against the other rows of dQ, as on the GPU (|dP| 38 where those rows were at most 0.34).
#[test]
fn causal_query_zero_is_measured_against_its_terms() {
    let (s, d) = (128, 128);
    let mut x = tensors::<f16>(1, 1, s, s, d);
    let mut d_o = x[3].data().to_vec();
    d_o[..d].copy_from_slice(&x[2].data()[..d]);
    x[3] = HostTensor::new(vec![1, s, d], d_o).unwrap();
    let scale = 1.0 / (d as f32).sqrt();
    let problem = Problem::new([&x[0], &x[1], &x[2], &x[3]], scale as f64, true);
    let mut forward = problem.forward();
    let (o, lse) = reference::saved::<f16>(&problem, &mut forward).unwrap();
    let [dq, dk, dv] = interpreted(&x, &o, &lse, scale, true, None, DqPath::Separate, None);
    let first = |t: &HostTensor<f16>| t.data()[..d].iter().map(|e| e.to_f64()).collect::<Vec<f64>>();
    let (k0, v0, do0) = (first(&x[1]), first(&x[2]), first(&x[3]));
    let dp: f64 = do0.iter().zip(&v0).map(|(a, b)| a * b).sum();
    // The kernels' dQ with row 0 as a dP - delta of `off` leaves it: scale off K_0.
    let error_with = |off: f64| {
        let mut data = dq.data().to_vec();
        for (e, k) in data.iter_mut().zip(&k0) {
            *e = f16::from_f64(scale as f64 * off * k);
        }
        let dq = HostTensor::new(dq.shape().to_vec(), data).unwrap();
        reference::max_rel_err(&problem, &forward, [&dq, &dk, &dv], usize::MAX)[0]
    };
    let (noise, wrong) = (error_with(dp * 2f64.powi(-17)), error_with(dp * 2f64.powi(-8)));
    println!("dP = {dp:.3}: dQ's error with 2^-17 dP of noise in row 0 {noise:.1e}, with 2^-8 dP {wrong:.1e}");
    assert!(noise <= TOLERANCE, "rounding noise in a row that is 0 exactly measured {noise:.1e}");
    assert!(wrong > TOLERANCE, "an error of 2^-8 dP in row 0 measured {wrong:.1e}");
}

#[test]
fn the_launch_checks_what_the_kernels_cannot() {
    let plan = |q: &[usize], k: &[usize], lse: &[usize], causal| backward::plan(q, k, lse, 0.125, causal);
    assert!(matches!(
        plan(&[4, 64, 96], &[4, 64, 96], &[4, 64], false),
        Err(Error::InvalidArgument { argument: "q", .. })
    ));
    assert!(matches!(
        plan(&[4, 64, 64], &[3, 64, 64], &[4, 64], false),
        Err(Error::InvalidArgument { argument: "k", .. })
    ));
    assert!(matches!(
        plan(&[4, 64, 64], &[2, 65, 64], &[4, 64], true),
        Err(Error::InvalidArgument { argument: "k", .. })
    ));
    assert!(matches!(
        plan(&[4, 64, 64], &[2, 64, 64], &[4, 63], false),
        Err(Error::ShapeMismatch { tensor: "lse", .. })
    ));
    assert!(matches!(plan(&[4, 64], &[2, 64, 64], &[4, 64], false), Err(Error::ShapeRank { tensor: "q", .. })));
    assert!(matches!(
        backward::plan(&[4, 64, 64], &[2, 64, 64], &[4, 64], -1.0, false),
        Err(Error::InvalidArgument { argument: "scale", .. })
    ));
    let ok = plan(&[4, 200, 128], &[2, 200, 128], &[4, 200], true).unwrap();
    assert_eq!((ok.head_dim, ok.heads, ok.padded), (128, 4, 256));
    // A dV of the wrong shape is the kernels' launch's error, not a panic.
    let x = tensors::<bf16>(2, 1, 64, 64, 64);
    let (o, lse) = (nans(x[0].shape()), HostTensor::<f32>::zeros([2, 64]).unwrap());
    let (mut dq, mut dk, mut dv) = (nans(x[0].shape()), nans(x[1].shape()), nans(&[1, 32, 64]));
    let err = backward::interpret(&x[0], &x[1], &x[2], &o, &x[3], &lse, &mut dq, &mut dk, &mut dv, 0.125, false);
    assert!(err.is_err(), "{err:?}");
    // A plan of other shapes is refused; one that differs only in `partials` is the caller's choice.
    let mut dv = nans(x[1].shape());
    let mut plan = backward::plan(x[0].shape(), x[1].shape(), lse.shape(), 0.125, false).unwrap();
    plan.padded = 64;
    let err = bf16::interpret_planned([&x[0], &x[1], &x[2], &o, &x[3]], &lse, [&mut dq, &mut dk, &mut dv], 0.125, plan);
    assert!(matches!(err, Err(Error::InvalidArgument { argument: "plan", .. })), "{err:?}");
}

/// The GPU against the f64 reference on long sequences (rows sampled: the reference is O(S T D)
/// per pass).
fn on_the_gpu<T: Backward>(heads: usize, kv_heads: usize, s: usize, d: usize, causal: bool, partials: Option<bool>) {
    on_the_gpu_in_order::<T>(heads, kv_heads, s, d, causal, partials, paths(d), CausalOrder::Heads);
}

/// [`on_the_gpu`] on the dQ paths `dq_paths`, the fused paths' causal programs in `order`.
#[allow(clippy::too_many_arguments)]
fn on_the_gpu_in_order<T: Backward>(
    heads: usize,
    kv_heads: usize,
    s: usize,
    d: usize,
    causal: bool,
    partials: Option<bool>,
    dq_paths: &[DqPath],
    order: CausalOrder,
) {
    let device = Device::new(0).unwrap();
    let x = tensors::<T>(heads, kv_heads, s, s, d);
    let scale = 1.0 / (d as f32).sqrt();
    let problem = Problem::new([&x[0], &x[1], &x[2], &x[3]], scale as f64, causal);
    let mut forward = problem.forward();
    let (o, lse) = reference::saved::<T>(&problem, &mut forward).unwrap();
    let up = |t: &HostTensor<T>| DeviceTensor::from_host(&device, t).unwrap();
    let (q, k, v, d_o, o) = (up(&x[0]), up(&x[1]), up(&x[2]), up(&x[3]), up(&o));
    let lse = DeviceTensor::from_host(&device, &lse).unwrap();
    let ways = dq_paths.iter().flat_map(|&path| persistence(d, causal, path).iter().map(move |&p| (path, p)));
    for (path, persistent) in ways {
        let (mut dq, mut dk, mut dv) = (up(&nans(x[0].shape())), up(&nans(x[1].shape())), up(&nans(x[1].shape())));
        let mut plan = backward::plan(q.shape(), k.shape(), lse.shape(), scale, causal).unwrap();
        plan.partials = partials.unwrap_or(plan.partials);
        plan.dq = path;
        plan.order = order;
        plan.persistent = persistent.unwrap_or(plan.persistent);
        T::launch_planned(&device, [&q, &k, &v, &o, &d_o], &lse, [&mut dq, &mut dk, &mut dv], scale, plan).unwrap();
        let grads = [dq.to_host().unwrap(), dk.to_host().unwrap(), dv.to_host().unwrap()];
        let err = reference::max_rel_err(&problem, &forward, [&grads[0], &grads[1], &grads[2]], 96);
        println!(
            "GPU {} H {heads}/{kv_heads} S {s} D {d} causal {causal} {path:?} {order:?} persistent {persistent:?}: dQ {:.1e} dK {:.1e} dV {:.1e}",
            T::DTYPE,
            err[0],
            err[1],
            err[2]
        );
        assert!(err.iter().all(|e| *e <= TOLERANCE), "{path:?} {persistent:?}: relative errors (dQ, dK, dV) {err:?}");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_bf16_matches_the_reference() {
    on_the_gpu::<bf16>(2, 2, 1024, 64, false, None);
    on_the_gpu::<bf16>(2, 1, 2048, 128, true, Some(false));
    on_the_gpu::<bf16>(2, 1, 2048, 128, true, Some(true));
    on_the_gpu::<bf16>(4, 1, 1000, 128, false, None);
    on_the_gpu::<bf16>(4, 2, 1500, 64, true, Some(false));
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_causal_sections_match_the_reference() {
    // 5 heads in sections of 2 (2, 2, 1); with partial sums, 6 query heads in sections of 4 (4, 2).
    let fused = [DqPath::Fused, DqPath::FusedEager, DqPath::FusedRed];
    on_the_gpu_in_order::<bf16>(5, 5, 1024, 128, true, None, &fused, CausalOrder::Sections(2));
    on_the_gpu_in_order::<f16>(6, 2, 1024, 128, true, Some(true), &fused, CausalOrder::Sections(4));
    on_the_gpu_in_order::<bf16>(5, 5, 1024, 64, true, None, &fused[..1], CausalOrder::Sections(2));
    on_the_gpu_in_order::<f16>(6, 2, 1024, 64, true, Some(true), &fused[..1], CausalOrder::Sections(4));
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_persistent_programs_take_several_units() {
    // D = 64 without the mask runs on 132 programs: 192 units of 31 steps (odd), then 144 units
    // of f32 partial sums (G = 2).
    on_the_gpu::<bf16>(12, 12, 1984, 64, false, None);
    on_the_gpu::<f16>(8, 4, 2304, 64, false, Some(true));
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_f16_matches_the_reference() {
    on_the_gpu::<f16>(2, 2, 2048, 128, false, None);
    on_the_gpu::<f16>(4, 2, 1024, 64, true, Some(false));
    on_the_gpu::<f16>(4, 2, 1024, 64, true, Some(true));
    on_the_gpu::<f16>(1, 1, 4096, 64, true, None);
    on_the_gpu::<f16>(2, 1, 3000, 128, false, Some(false));
}

/// The largest difference between two gradients' rows, relative to each row's largest value of
/// `want` (or to a thousandth of its largest, as the reference's comparison).
fn rows_apart<T: Element>(got: &HostTensor<T>, want: &HostTensor<T>) -> f64 {
    let d = want.shape()[2];
    let rows: Vec<(usize, Vec<f64>)> =
        want.data().chunks(d).enumerate().map(|(r, row)| (r, row.iter().map(|x| x.to_f64()).collect())).collect();
    let floor = 1e-3 * rows.iter().flat_map(|(_, w)| w).fold(0.0f64, |m, x| m.max(x.abs()));
    rows.iter().map(|(r, w)| reference::row_err(got, *r, w, floor)).fold(0.0, f64::max)
}

/// The GPU against the interpreter on every variant (dtype, head dimension, mask, both ways of
/// summing a group's dK and dV, both dQ paths), on a ragged problem small enough to interpret.
fn gpu_against_the_interpreter<T: Backward>() {
    let device = Device::new(0).unwrap();
    let variants = [64, 128]
        .into_iter()
        .flat_map(|d| [false, true].into_iter().flat_map(move |c| [false, true].into_iter().map(move |p| (d, c, p))))
        .flat_map(|(d, c, p)| paths(d).iter().map(move |&path| (d, c, p, path)))
        .flat_map(|(d, c, p, path)| persistence(d, c, path).iter().map(move |&pe| (d, c, p, path, pe)));
    for (d, causal, partials, path, persistent) in variants {
        let x = tensors::<T>(4, 2, 200, 200, d);
        let scale = 1.0 / (d as f32).sqrt();
        let problem = Problem::new([&x[0], &x[1], &x[2], &x[3]], scale as f64, causal);
        let (o, lse) = reference::saved::<T>(&problem, &mut problem.forward()).unwrap();
        let want = interpreted(&x, &o, &lse, scale, causal, Some(partials), path, persistent);
        let up = |t: &HostTensor<T>| DeviceTensor::from_host(&device, t).unwrap();
        let (q, k, v, d_o, o) = (up(&x[0]), up(&x[1]), up(&x[2]), up(&x[3]), up(&o));
        let lse = DeviceTensor::from_host(&device, &lse).unwrap();
        let (mut dq, mut dk, mut dv) = (up(&nans(x[0].shape())), up(&nans(x[1].shape())), up(&nans(x[1].shape())));
        let mut plan = backward::plan(q.shape(), k.shape(), lse.shape(), scale, causal).unwrap();
        plan.partials = partials;
        plan.dq = path;
        plan.persistent = persistent.unwrap_or(plan.persistent);
        T::launch_planned(&device, [&q, &k, &v, &o, &d_o], &lse, [&mut dq, &mut dk, &mut dv], scale, plan).unwrap();
        let got = [dq.to_host().unwrap(), dk.to_host().unwrap(), dv.to_host().unwrap()];
        let apart = [0, 1, 2].map(|n| rows_apart(&got[n], &want[n]));
        println!(
            "GPU vs interpreter {} D {d} causal {causal} partials {partials} {path:?} persistent {persistent:?}: dQ {:.1e} dK {:.1e} dV {:.1e}",
            T::DTYPE,
            apart[0],
            apart[1],
            apart[2]
        );
        assert!(
            apart.iter().all(|e| *e <= TOLERANCE),
            "D {d} causal {causal} partials {partials} {path:?} {persistent:?}: {apart:?}"
        );
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gpu_matches_the_interpreter() {
    gpu_against_the_interpreter::<bf16>();
    gpu_against_the_interpreter::<f16>();
}
