//! The attention example's kernels (`kernels/src/attention.rs`): results against an f64
//! reference in the interpreter (and, with `--ignored` on the GPU machine, on the GPU against the
//! reference and the interpreter), and the checks its dispatcher makes beyond the launch's own.

use crate::attention_ref as reference;
use tessel_kernels::attention as kernels;

use kernels::{check, Interpret, TrainInterpret};
use tessel::prelude::*;
use tessel::{Element, Error, HostTensor};

/// Outputs and probabilities are rounded to bf16 (relative step 2^-8) or f16 (2^-11).
fn tolerance<T: Element>() -> f64 {
    if T::DTYPE == "bf16" {
        1e-2
    } else {
        2e-3
    }
}

fn interpreted<T: Element>(interpret: Interpret<T>, heads: usize, s: usize, t: usize, d: usize, causal: bool) {
    let qkv = reference::inputs::<T>(heads, s, t, d).unwrap();
    let mut o = HostTensor::new([heads, s, d], vec![T::from_f64(f64::NAN); heads * s * d]).unwrap();
    let scale = 1.0 / (d as f32).sqrt();
    interpret(&qkv[0], &qkv[1], &qkv[2], &mut o, scale, causal).unwrap();
    let err = reference::max_rel_err(&qkv, &o, scale as f64, 64, causal);
    println!("{heads} x {s} x {t} x {d} (causal: {causal}): max relative error {err:.2e}");
    assert!(err <= tolerance::<T>(), "max relative error {err:.2e}");
}

#[test]
fn bf16_head_dim_64_matches_the_reference() {
    interpreted::<bf16>(kernels::interpret_bf16, 2, 256, 384, 64, false);
}

#[test]
fn bf16_head_dim_128_matches_the_reference() {
    interpreted::<bf16>(kernels::interpret_bf16, 2, 128, 256, 128, false);
}

#[test]
fn f16_matches_the_reference() {
    interpreted::<f16>(kernels::interpret_f16, 1, 256, 128, 64, false);
    interpreted::<f16>(kernels::interpret_f16, 1, 128, 384, 128, false);
}

#[test]
fn a_single_key_block_is_the_last_one_too() {
    // One step: no previous block's P V, and the last block's P V in the same step.
    interpreted::<bf16>(kernels::interpret_bf16, 1, 128, 128, 64, false);
}

#[test]
fn causal_attention_sees_only_earlier_keys() {
    // Three units per head: one, two and three key blocks, the last of each masked on its diagonal.
    interpreted::<bf16>(kernels::interpret_bf16, 2, 384, 384, 128, true);
    interpreted::<f16>(kernels::interpret_f16, 1, 256, 256, 64, true);
}

#[test]
fn sequences_of_any_length() {
    // S and T that 128 does not divide: the last unit's queries past S are not stored, the last
    // key block's keys past T are masked; with the causal mask (T = S), by the diagonal's mask.
    for (heads, s, t, d, causal) in [(2, 200, 333, 64, false), (1, 77, 130, 128, false), (2, 200, 200, 128, true)] {
        let qkv = reference::inputs::<bf16>(heads, s, t, d).unwrap();
        let mut o = HostTensor::new([heads, s, d], vec![bf16::NAN; heads * s * d]).unwrap();
        kernels::interpret_bf16(&qkv[0], &qkv[1], &qkv[2], &mut o, 0.125, causal).unwrap();
        assert!(o.data().iter().all(|x| !x.is_nan()), "{heads} x {s} x {t}: a row was not written");
        let err = reference::max_rel_err(&qkv, &o, 0.125, 4 * heads * s, causal);
        assert!(err <= tolerance::<bf16>(), "{heads} x {s} x {t} x {d} (causal: {causal}): {err:.2e}");
    }
}

#[test]
fn causal_units_past_one_round_are_all_computed() {
    // 133 one-block units over 132 programs: the last takes a second one (the second round of
    // the snake deal runs right to left).
    let (heads, s, d) = (133, 128, 64);
    let qkv = reference::inputs::<bf16>(heads, s, s, d).unwrap();
    let mut o = HostTensor::new([heads, s, d], vec![bf16::NAN; heads * s * d]).unwrap();
    kernels::interpret_bf16(&qkv[0], &qkv[1], &qkv[2], &mut o, 0.125, true).unwrap();
    // Two rows of every head, so that a unit dealt to no program (left NaN) shows.
    let err = reference::max_rel_err(&qkv, &o, 0.125, 2 * heads, true);
    assert!(err <= tolerance::<bf16>(), "max relative error {err:.2e}");
}

#[test]
fn both_causal_orders_compute_every_unit() {
    // 144 units of one to four key blocks over 132 programs, dealt head after head or over all
    // heads: every output row written (none left NaN), sampled rows right.
    let (heads, s, d) = (36, 512, 64);
    let qkv = reference::inputs::<bf16>(heads, s, s, d).unwrap();
    for order in [0, 1] {
        let mut o = HostTensor::new([heads, s, d], vec![bf16::NAN; heads * s * d]).unwrap();
        kernels::attention::<bf16, 64, 2, 1, 1, 0, 0>::interpret(&qkv[0], &qkv[1], &qkv[2], &mut o, 0.125, order)
            .unwrap();
        assert!(o.data().iter().all(|x| !x.is_nan()), "order {order}: a unit was not computed");
        let err = reference::max_rel_err(&qkv, &o, 0.125, 2 * heads, true);
        assert!(err <= tolerance::<bf16>(), "order {order}: max relative error {err:.2e}");
    }
}

#[test]
fn causal_units_go_head_after_head_when_that_keeps_the_programs_even() {
    // FlashAttention-3's shapes with D = 128 (heads = 16 x 16384 / S): head after head up to
    // S = 8192; at 16384 that would give one program 1.54x the mean work.
    for (s, want) in [(1024, 1), (2048, 1), (4096, 1), (8192, 1), (16384, 0)] {
        assert_eq!(kernels::causal_order(16 * 16384 / s, s / 128, true), want, "S = {s}");
    }
    assert_eq!(kernels::causal_order(256, 8, false), 0);
}

#[test]
fn the_dispatcher_rejects_what_the_kernels_cannot_take() {
    let err = check(&[2, 256, 96], &[2, 256, 96], 0.1, false).unwrap_err();
    assert!(matches!(&err, Error::InvalidArgument { argument: "q", .. }), "{err}");
    let err = check(&[2, 128, 64], &[2, 0, 64], 0.1, false).unwrap_err();
    assert!(matches!(&err, Error::InvalidArgument { argument: "k", .. }), "{err}");
    for scale in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        let err = check(&[2, 128, 64], &[2, 128, 64], scale, false).unwrap_err();
        assert!(matches!(&err, Error::InvalidArgument { argument: "scale", .. }), "{scale}: {err}");
    }
    let err = check(&[2, 128, 64], &[2, 256, 64], 0.1, true).unwrap_err();
    assert!(matches!(&err, Error::InvalidArgument { argument: "k", .. }), "{err}");
    // K/V heads that do not divide Q's, or none.
    for kv_heads in [0, 4, 5] {
        let err = check(&[6, 128, 64], &[kv_heads, 128, 64], 0.1, false).unwrap_err();
        assert!(matches!(&err, Error::InvalidArgument { argument: "k", .. }), "{kv_heads}: {err}");
    }
    let err = kernels::interpret_bf16(
        &HostTensor::zeros([6, 128, 64]).unwrap(),
        &HostTensor::zeros([4, 128, 64]).unwrap(),
        &HostTensor::zeros([4, 128, 64]).unwrap(),
        &mut HostTensor::zeros([6, 128, 64]).unwrap(),
        0.1,
        false,
    )
    .unwrap_err();
    assert!(err.to_string().contains("do not divide"), "{err}");
    assert_eq!(check(&[6, 128, 64], &[2, 128, 64], 0.1, false), Ok(64));
    assert_eq!(check(&[2, 128, 128], &[2, 256, 128], 0.1, false), Ok(128));
    assert_eq!(check(&[2, 256, 64], &[2, 256, 64], 0.1, true), Ok(64));
}

/// Every reading of unit `unit` of `program`, by warpgroup (each the median of its threads').
fn unit_readings(probe: &HostTensor<i64>, program: usize, unit: usize) -> Vec<Vec<i64>> {
    (0..3)
        .map(|wg| {
            let events = kernels::PROBE_EVENTS[wg].len();
            (0..events).map(|e| kernels::probe_reading(probe, program, unit, wg, e).unwrap()).collect()
        })
        .collect()
}

/// The probe instances compute what the plain ones do, and record each unit's events in order:
/// 2 heads of 384 queries are 6 units, so programs 0 .. 5 run one each and the others none.
#[test]
fn the_probe_records_every_unit_in_order() {
    for causal in [false, true] {
        let (heads, s) = (2, 384);
        let qkv = reference::inputs::<bf16>(heads, s, s, 128).unwrap();
        let mut o = HostTensor::<bf16>::zeros([heads, s, 128]).unwrap();
        let mut plain = HostTensor::<bf16>::zeros([heads, s, 128]).unwrap();
        let shape = kernels::probe_shape(heads, s);
        assert_eq!(shape, [132, 24, 128]);
        let mut probe = HostTensor::<i64>::from_fn(shape, |_| -1).unwrap();
        kernels::interpret_probe_bf16(&qkv[0], &qkv[1], &qkv[2], &mut o, &mut probe, 0.088, causal).unwrap();
        kernels::interpret_bf16(&qkv[0], &qkv[1], &qkv[2], &mut plain, 0.088, causal).unwrap();
        assert!(o.data() == plain.data(), "the probe changed O (causal: {causal})");
        for program in 0..132 {
            for (wg, readings) in unit_readings(&probe, program, 0).iter().enumerate() {
                let at = format!("program {program} warpgroup {wg}: {readings:?}");
                if program < 6 {
                    assert!(readings[0] >= 0 && readings.windows(2).all(|w| w[0] <= w[1]), "{at}");
                } else {
                    assert!(readings.iter().all(|&r| r == -1), "ran no unit: {at}");
                }
            }
        }
        assert_eq!(kernels::probe_reading(&probe, 0, 1, 1, 0), None, "one row per program");
        assert_eq!(kernels::probe_reading(&probe, 0, 0, 0, 3), None, "the producer has three events");
    }
    // Its own checks: D = 128, and as many rows as `probe_shape` says.
    let qkv = reference::inputs::<bf16>(1, 128, 128, 128).unwrap();
    let mut o = HostTensor::<bf16>::zeros([1, 128, 128]).unwrap();
    let mut short = HostTensor::<i64>::zeros([131, 24, 128]).unwrap();
    let err = kernels::interpret_probe_bf16(&qkv[0], &qkv[1], &qkv[2], &mut o, &mut short, 0.1, false).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { argument: "probe", .. }), "{err}");
    let qkv = reference::inputs::<bf16>(1, 128, 128, 64).unwrap();
    let mut o = HostTensor::<bf16>::zeros([1, 128, 64]).unwrap();
    let mut probe = HostTensor::<i64>::zeros([132, 24, 128]).unwrap();
    let err = kernels::interpret_probe_bf16(&qkv[0], &qkv[1], &qkv[2], &mut o, &mut probe, 0.1, false).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { argument: "q", .. }), "{err}");
}

#[test]
fn the_launch_checks_the_rest() {
    let qkv = reference::inputs::<bf16>(1, 128, 192, 64).unwrap();
    let mut o = HostTensor::<bf16>::zeros([1, 128, 64]).unwrap();
    // The kernels without the key mask take whole 128-key blocks (the dispatcher gives such keys
    // to the `ragged_*` kernels).
    let err = kernels::attention::<bf16, 64, 2, 0, 0, 0, 0>::interpret(&qkv[0], &qkv[1], &qkv[2], &mut o, 0.1, 0)
        .unwrap_err();
    assert!(matches!(err, Error::Divisibility { dim: "T", value: 192, .. }), "{err}");
    // The heads of K and V must agree, and those of Q and O.
    let k = HostTensor::<bf16>::zeros([1, 192, 64]).unwrap();
    let v = HostTensor::<bf16>::zeros([2, 192, 64]).unwrap();
    let err = kernels::interpret_bf16(&qkv[0], &k, &v, &mut o, 0.1, false).unwrap_err();
    assert!(matches!(err, Error::DimMismatch { dim: "HK", .. }), "{err}");
    let mut o2 = HostTensor::<bf16>::zeros([2, 128, 64]).unwrap();
    let err = kernels::interpret_bf16(&qkv[0], &qkv[1], &qkv[2], &mut o2, 0.1, false).unwrap_err();
    assert!(matches!(err, Error::DimMismatch { dim: "H", .. }), "{err}");
    // A Q of another rank is the launch's error too, with or without the mask (not a panic).
    let flat = HostTensor::<bf16>::zeros([128]).unwrap();
    for causal in [false, true] {
        let err = kernels::interpret_bf16(&flat, &qkv[1], &qkv[2], &mut o, 0.1, causal).unwrap_err();
        assert!(err.to_string().contains("q"), "{err}");
    }
}

/// The training forward in the interpreter: O as the inference forward's, and each row's
/// log-sum-exp (base 2) against the f64 reference, every row written.
fn interpreted_train<T: Element>(train: TrainInterpret<T>, shape: [usize; 5], causal: bool) {
    let [heads, kv_heads, s, t, d] = shape;
    let qkv = reference::inputs_gqa::<T>(heads, kv_heads, s, t, d).unwrap();
    let mut o = HostTensor::new([heads, s, d], vec![T::from_f64(f64::NAN); heads * s * d]).unwrap();
    let mut lse = HostTensor::new([heads, s], vec![f32::NAN; heads * s]).unwrap();
    let scale = 1.0 / (d as f32).sqrt();
    train(&qkv[0], &qkv[1], &qkv[2], &mut o, &mut lse, scale, causal).unwrap();
    assert!(lse.data().iter().all(|x| !x.is_nan()), "{shape:?}: a row's lse was not written");
    let err = reference::max_rel_err(&qkv, &o, scale as f64, 64, causal);
    let lse_err = reference::max_lse_err(&qkv, &lse, scale as f64, 4 * heads * s.min(64), causal);
    println!("train {shape:?} (causal: {causal}): O {err:.2e}, lse {lse_err:.2e}");
    assert!(err <= tolerance::<T>(), "{shape:?}: O: max relative error {err:.2e}");
    assert!(lse_err <= LSE_TOLERANCE, "{shape:?}: lse: max error {lse_err:.2e}");
}

/// The row log-sum-exp is an f32 sum of f32 exponentials (none rounded to the inputs' dtype).
const LSE_TOLERANCE: f64 = 1e-4;

#[test]
fn grouped_query_heads_share_their_kv_head() {
    // [H, HK, S, T, D]: G = 2 and 4, and MQA (one K/V head), with whole and ragged key blocks, and
    // with the causal mask; every row written, sampled rows of every head right.
    let cases = [
        ([4, 2, 256, 256, 64], false),
        ([8, 2, 128, 200, 128], false),
        ([4, 1, 200, 333, 64], false),
        ([4, 2, 256, 256, 128], true),
        ([8, 2, 200, 200, 64], true),
        ([3, 1, 130, 130, 64], true),
    ];
    for ([heads, kv_heads, s, t, d], causal) in cases {
        let qkv = reference::inputs_gqa::<bf16>(heads, kv_heads, s, t, d).unwrap();
        let mut o = HostTensor::new([heads, s, d], vec![bf16::NAN; heads * s * d]).unwrap();
        let scale = 1.0 / (d as f32).sqrt();
        kernels::interpret_bf16(&qkv[0], &qkv[1], &qkv[2], &mut o, scale, causal).unwrap();
        assert!(o.data().iter().all(|x| !x.is_nan()), "{heads}/{kv_heads} x {s} x {t}: a row was not written");
        let err = reference::max_rel_err(&qkv, &o, scale as f64, 16 * heads, causal);
        println!("GQA {heads}/{kv_heads} x {s} x {t} x {d} (causal: {causal}): {err:.2e}");
        assert!(err <= tolerance::<bf16>(), "{heads}/{kv_heads} x {s} x {t} x {d} (causal: {causal}): {err:.2e}");
    }
}

#[test]
fn f16_grouped_query_attention_matches_the_reference() {
    interpreted_train::<f16>(kernels::interpret_train_f16, [4, 1, 128, 256, 128], false);
}

#[test]
fn the_training_forward_stores_the_row_log_sum_exp() {
    interpreted_train::<bf16>(kernels::interpret_train_bf16, [2, 2, 256, 384, 64], false);
    interpreted_train::<bf16>(kernels::interpret_train_bf16, [2, 2, 128, 256, 128], false);
}

#[test]
fn the_training_forward_takes_any_length_gqa_and_the_mask() {
    // Ragged keys and queries (the lse of rows past S is not stored: the array ends at S), GQA,
    // the causal mask.
    interpreted_train::<bf16>(kernels::interpret_train_bf16, [4, 2, 200, 333, 64], false);
    interpreted_train::<bf16>(kernels::interpret_train_bf16, [4, 1, 384, 384, 128], true);
    interpreted_train::<f16>(kernels::interpret_train_f16, [2, 2, 200, 200, 64], true);
}

#[test]
fn the_training_forward_checks_its_lse() {
    let qkv = reference::inputs::<bf16>(2, 128, 128, 64).unwrap();
    let mut o = HostTensor::<bf16>::zeros([2, 128, 64]).unwrap();
    let mut lse = HostTensor::<f32>::zeros([2, 256]).unwrap();
    let err = kernels::interpret_train_bf16(&qkv[0], &qkv[1], &qkv[2], &mut o, &mut lse, 0.1, false).unwrap_err();
    assert!(matches!(err, Error::DimMismatch { dim: "S", .. }), "{err}");
    let mut lse = HostTensor::<f32>::zeros([2, 128]).unwrap();
    let err = kernels::interpret_train_bf16(&qkv[0], &qkv[1], &qkv[2], &mut o, &mut lse, -1.0, false).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { argument: "scale", .. }), "{err}");
}

mod gpu {
    use super::*;

    use kernels::{Launch, TrainLaunch};

    /// GPU against the f64 reference and against the interpreter (whose rounding differs in
    /// `ex2.approx` and the order of sums only).
    fn on_gpu<T: Element>(launch: Launch<T>, interpret: Interpret<T>, shape: [usize; 5], causal: bool) {
        let [heads, kv_heads, s, t, d] = shape;
        let dev = Device::new(0).expect("an sm_90 GPU");
        let qkv = reference::inputs_gqa::<T>(heads, kv_heads, s, t, d).unwrap();
        let [q, k, v] = qkv.each_ref().map(|x| DeviceTensor::from_host(&dev, x).unwrap());
        let mut o = DeviceTensor::<T>::zeros(&dev, [heads, s, d]).unwrap();
        o.poison(T::from_f64(f64::NAN)).unwrap();
        let scale = 1.0 / (d as f32).sqrt();
        launch(&dev, &q, &k, &v, &mut o, scale, causal).unwrap();
        let gpu = o.to_host().unwrap();
        let err = reference::max_rel_err(&qkv, &gpu, scale as f64, 256, causal);
        println!("GPU {heads}/{kv_heads} x {s} x {t} x {d} (causal: {causal}): max relative error {err:.2e}");
        assert!(err <= tolerance::<T>(), "GPU: max relative error {err:.2e}");
        let mut host = HostTensor::<T>::zeros([heads, s, d]).unwrap();
        interpret(&qkv[0], &qkv[1], &qkv[2], &mut host, scale, causal).unwrap();
        let worst =
            gpu.data().iter().zip(host.data()).map(|(g, h)| (g.to_f64() - h.to_f64()).abs()).fold(0.0, f64::max);
        let top = host.data().iter().map(|h| h.to_f64().abs()).fold(0.0, f64::max);
        println!("GPU vs interpreter: max difference {:.2e} of {top:.2e}", worst);
        assert!(worst <= tolerance::<T>() * top, "GPU vs interpreter: {worst:.2e}");
    }

    /// The probe kernels on the GPU: O as the plain kernels' (bit for bit), and every unit's events
    /// in order, 160 units over 132 programs (some take two).
    #[test]
    #[ignore = "needs an NVIDIA GPU"]
    fn the_probe_matches_the_plain_kernel() {
        let dev = Device::new(0).expect("an sm_90 GPU");
        for causal in [false, true] {
            let (heads, s) = (40, 512);
            let qkv = reference::inputs::<bf16>(heads, s, s, 128).unwrap();
            let [q, k, v] = qkv.each_ref().map(|x| DeviceTensor::from_host(&dev, x).unwrap());
            let mut o = DeviceTensor::<bf16>::zeros(&dev, [heads, s, 128]).unwrap();
            let mut plain = DeviceTensor::<bf16>::zeros(&dev, [heads, s, 128]).unwrap();
            let shape = kernels::probe_shape(heads, s);
            let mut probe = DeviceTensor::<i64>::zeros(&dev, shape).unwrap();
            probe.poison(-1).unwrap();
            kernels::attention_probe_bf16(&dev, &q, &k, &v, &mut o, &mut probe, 0.088, causal).unwrap();
            kernels::attention_bf16(&dev, &q, &k, &v, &mut plain, 0.088, causal).unwrap();
            assert!(o.to_host().unwrap().data() == plain.to_host().unwrap().data(), "causal: {causal}");
            let probe = probe.to_host().unwrap();
            let mut ran = 0;
            for program in 0..132 {
                for unit in 0..shape[0] / 132 {
                    let readings = unit_readings(&probe, program, unit);
                    if readings[0][0] == -1 {
                        continue;
                    }
                    ran += 1;
                    for (wg, r) in readings.iter().enumerate() {
                        let at = format!("program {program} unit {unit} warpgroup {wg}: {r:?}");
                        assert!(r[0] > 0 && r.windows(2).all(|w| w[0] <= w[1]), "{at}");
                    }
                }
            }
            assert_eq!(ran, heads * s / 128, "causal: {causal}");
        }
    }

    #[test]
    #[ignore = "needs an NVIDIA GPU"]
    fn programs_that_take_several_units_match() {
        // 40 heads x 4 units = 160 units over 132 programs: some programs take two, which
        // exercises the Q buffers' reuse and the rings continuing across units.
        on_gpu::<bf16>(kernels::attention_bf16, kernels::interpret_bf16, [40, 40, 512, 384, 64], false);
        on_gpu::<bf16>(kernels::attention_bf16, kernels::interpret_bf16, [40, 40, 512, 256, 128], false);
    }

    #[test]
    #[ignore = "needs an NVIDIA GPU"]
    fn f16_and_a_single_key_block_match() {
        on_gpu::<f16>(kernels::attention_f16, kernels::interpret_f16, [3, 3, 256, 1024, 128], false);
        on_gpu::<f16>(kernels::attention_f16, kernels::interpret_f16, [3, 3, 384, 128, 64], false);
    }

    #[test]
    #[ignore = "needs an NVIDIA GPU"]
    fn causal_attention_matches() {
        // 40 heads x 4 units, the heaviest first: programs take units of 1 to 4 key blocks, dealt
        // over all heads; 60 heads x 4 units are dealt head after head (`causal_order`).
        assert_eq!((kernels::causal_order(40, 4, true), kernels::causal_order(60, 4, true)), (0, 1));
        on_gpu::<bf16>(kernels::attention_bf16, kernels::interpret_bf16, [40, 40, 512, 512, 128], true);
        on_gpu::<f16>(kernels::attention_f16, kernels::interpret_f16, [40, 40, 512, 512, 64], true);
        on_gpu::<bf16>(kernels::attention_bf16, kernels::interpret_bf16, [60, 60, 512, 512, 128], true);
    }

    #[test]
    #[ignore = "needs an NVIDIA GPU"]
    fn sequences_of_any_length_match() {
        // S and T that 128 does not divide, with programs taking several units, and causal.
        on_gpu::<bf16>(kernels::attention_bf16, kernels::interpret_bf16, [40, 40, 500, 1000, 128], false);
        on_gpu::<f16>(kernels::attention_f16, kernels::interpret_f16, [40, 40, 300, 77, 64], false);
        on_gpu::<bf16>(kernels::attention_bf16, kernels::interpret_bf16, [40, 40, 500, 500, 64], true);
    }

    /// The training forward on the GPU: O and lse against the f64 reference, and lse against the
    /// interpreter's (whose `exp2` and `log2` are exact where the GPU's `.approx` are not).
    fn train_on_gpu<T: Element>(launch: TrainLaunch<T>, interpret: TrainInterpret<T>, shape: [usize; 5], causal: bool) {
        let [heads, kv_heads, s, t, d] = shape;
        let dev = Device::new(0).expect("an sm_90 GPU");
        let qkv = reference::inputs_gqa::<T>(heads, kv_heads, s, t, d).unwrap();
        let [q, k, v] = qkv.each_ref().map(|x| DeviceTensor::from_host(&dev, x).unwrap());
        let mut o = DeviceTensor::<T>::zeros(&dev, [heads, s, d]).unwrap();
        o.poison(T::from_f64(f64::NAN)).unwrap();
        let mut lse = DeviceTensor::<f32>::zeros(&dev, [heads, s]).unwrap();
        lse.poison(f32::NAN).unwrap();
        let scale = 1.0 / (d as f32).sqrt();
        launch(&dev, &q, &k, &v, &mut o, &mut lse, scale, causal).unwrap();
        let (o, lse) = (o.to_host().unwrap(), lse.to_host().unwrap());
        assert!(lse.data().iter().all(|x| !x.is_nan()), "GPU {shape:?}: a row's lse was not written");
        let err = reference::max_rel_err(&qkv, &o, scale as f64, 256, causal);
        let lse_err = reference::max_lse_err(&qkv, &lse, scale as f64, 1024, causal);
        println!("GPU train {shape:?} (causal: {causal}): O {err:.2e}, lse {lse_err:.2e}");
        assert!(err <= tolerance::<T>(), "GPU {shape:?}: O: max relative error {err:.2e}");
        assert!(lse_err <= LSE_TOLERANCE, "GPU {shape:?}: lse: max error {lse_err:.2e}");
        let mut host_o = HostTensor::<T>::zeros([heads, s, d]).unwrap();
        let mut host_lse = HostTensor::<f32>::zeros([heads, s]).unwrap();
        interpret(&qkv[0], &qkv[1], &qkv[2], &mut host_o, &mut host_lse, scale, causal).unwrap();
        let worst =
            lse.data().iter().zip(host_lse.data()).map(|(g, h)| (g - h).abs() / h.abs().max(1.0)).fold(0.0, f32::max);
        println!("GPU vs interpreter: lse max difference {worst:.2e}");
        assert!(f64::from(worst) <= LSE_TOLERANCE, "GPU vs interpreter: lse {worst:.2e}");
    }

    #[test]
    #[ignore = "needs an NVIDIA GPU"]
    fn grouped_query_attention_matches() {
        // G = 4 and 8 over 12 and 8 K/V heads (GQA), and one K/V head (MQA), with whole and
        // ragged key blocks and the causal mask, programs taking several units.
        on_gpu::<bf16>(kernels::attention_bf16, kernels::interpret_bf16, [48, 12, 512, 768, 128], false);
        on_gpu::<bf16>(kernels::attention_bf16, kernels::interpret_bf16, [64, 8, 512, 1000, 64], false);
        on_gpu::<f16>(kernels::attention_f16, kernels::interpret_f16, [40, 1, 384, 384, 128], false);
        on_gpu::<bf16>(kernels::attention_bf16, kernels::interpret_bf16, [64, 16, 512, 512, 128], true);
        on_gpu::<f16>(kernels::attention_f16, kernels::interpret_f16, [48, 12, 500, 500, 64], true);
    }

    #[test]
    #[ignore = "needs an NVIDIA GPU"]
    fn the_training_forward_matches() {
        train_on_gpu::<bf16>(
            kernels::attention_train_bf16,
            kernels::interpret_train_bf16,
            [40, 40, 512, 1024, 128],
            false,
        );
        train_on_gpu::<f16>(kernels::attention_train_f16, kernels::interpret_train_f16, [40, 40, 512, 384, 64], false);
        train_on_gpu::<bf16>(
            kernels::attention_train_bf16,
            kernels::interpret_train_bf16,
            [64, 16, 500, 1000, 64],
            false,
        );
        train_on_gpu::<bf16>(
            kernels::attention_train_bf16,
            kernels::interpret_train_bf16,
            [40, 40, 512, 512, 128],
            true,
        );
        train_on_gpu::<f16>(kernels::attention_train_f16, kernels::interpret_train_f16, [64, 8, 500, 500, 128], true);
    }
}
