//! GPU tests of accumulating stores into global memory, each against the interpreter and an f64
//! reference: reducing TMA stores (`cp.reduce.async.bulk.tensor`: `add`, and `max` and `xor` on
//! bf16 and i32) and register atomic adds (`red.global.add`: `f32` pairs as `.v2.f32`, `bf16`
//! pairs packed, single elements) of several programs into one tile, over ragged dimensions (rows
//! of odd length take the element-wise path). Sums of small integers are exact in any order, so
//! they compare bit for bit; sums of random floats depend on the order of the adds, which the GPU
//! does not fix, so they compare with a tolerance. `.gpu/tests/gpu_atomics-test --ignored
//! --nocapture`.

use crate::accumulating;
use crate::common;

use accumulating::*;
use common::{assert_close, values, Rng};
use tessel::prelude::*;

fn device() -> Device {
    Device::new(0).expect("an sm_90 GPU")
}

/// `y0 + x * (1 + 2 + .. + r)`, element-wise.
fn sum_ref(x: &[f64], y0: &[f64], r: usize) -> Vec<f64> {
    let factor = (r * (r + 1) / 2) as f64;
    x.iter().zip(y0).map(|(x, y)| y + factor * x).collect()
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn reducing_tma_stores_add_up_on_the_gpu() {
    let dev = device();
    for m in [128, 100] {
        let mut rng = Rng::new(m as u64);
        let x = rng.ints::<f32>(&[m, 64]);
        let y0 = rng.ints::<f32>(&[m, 64]);
        let want = sum_ref(&values(&x), &values(&y0), 5);
        let dx = DeviceTensor::from_host(&dev, &x).unwrap();
        let mut dy = DeviceTensor::from_host(&dev, &y0).unwrap();
        tma_add_rows::launch(&dev, &dx, &mut dy, 5).unwrap();
        assert_close(&format!("tma_add_rows GPU, M = {m}"), &values(&dy.to_host().unwrap()), &want, 0.0);
        let mut hy = y0.clone();
        tma_add_rows::interpret(&x, &mut hy, 5).unwrap();
        assert_close(&format!("tma_add_rows interpreter, M = {m}"), &values(&hy), &want, 0.0);
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn register_atomic_adds_add_up_on_the_gpu() {
    let dev = device();
    // Even rows (pairs, `.v2.f32`) and ragged odd rows (element by element).
    for (m, n) in [(128, 128), (100, 70)] {
        let mut rng = Rng::new((m * n) as u64);
        let x = rng.ints::<f32>(&[m, n]);
        let y0 = rng.ints::<f32>(&[m, n]);
        let want = sum_ref(&values(&x), &values(&y0), 6);
        let dx = DeviceTensor::from_host(&dev, &x).unwrap();
        let mut dy = DeviceTensor::from_host(&dev, &y0).unwrap();
        atomic_add_f32::launch(&dev, &dx, &mut dy, 6).unwrap();
        assert_close(&format!("atomic_add_f32 GPU, {m} x {n}"), &values(&dy.to_host().unwrap()), &want, 0.0);
        let mut hy = y0.clone();
        atomic_add_f32::interpret(&x, &mut hy, 6).unwrap();
        assert_close(&format!("atomic_add_f32 interpreter, {m} x {n}"), &values(&hy), &want, 0.0);
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn float_sums_of_atomic_adds_match_within_rounding() {
    let dev = device();
    let (m, n, r) = (192, 130, 16);
    let mut rng = Rng::new(77);
    let x = rng.tensor::<f32>(&[m, n], 1.0);
    let y0 = rng.tensor::<f32>(&[m, n], 1.0);
    let want = sum_ref(&values(&x), &values(&y0), r);
    let dx = DeviceTensor::from_host(&dev, &x).unwrap();
    let mut dy = DeviceTensor::from_host(&dev, &y0).unwrap();
    atomic_add_f32::launch(&dev, &dx, &mut dy, r as i32).unwrap();
    let gpu = values(&dy.to_host().unwrap());
    // 16 f32 adds per element, each rounding by at most 2^-24 of a partial sum, in an order each
    // side chooses: a few ulps of the largest sum.
    assert_close("atomic_add_f32 GPU, random floats", &gpu, &want, 4e-6);
    let mut hy = y0.clone();
    atomic_add_f32::interpret(&x, &mut hy, r as i32).unwrap();
    assert_close("atomic_add_f32 interpreter, random floats", &values(&hy), &want, 4e-6);
    assert_close("atomic_add_f32 GPU against the interpreter", &gpu, &values(&hy), 4e-6);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn bf16_atomic_adds_add_up_on_the_gpu() {
    let dev = device();
    let (m, n) = (100, 72);
    let mut rng = Rng::new(5);
    let x = rng.ints::<bf16>(&[m, n]);
    let y0 = rng.ints::<bf16>(&[m, n]);
    // Every partial sum is an integer below 256 in magnitude, exact in bf16.
    let want: Vec<f64> = values(&x).iter().zip(values(&y0)).map(|(x, y)| y + 4.0 * x).collect();
    let dx = DeviceTensor::from_host(&dev, &x).unwrap();
    let mut dy = DeviceTensor::from_host(&dev, &y0).unwrap();
    atomic_add_bf16::launch(&dev, &dx, &mut dy, 4).unwrap();
    assert_close("atomic_add_bf16 GPU", &values(&dy.to_host().unwrap()), &want, 0.0);
    let mut hy = y0.clone();
    atomic_add_bf16::interpret(&x, &mut hy, 4).unwrap();
    assert_close("atomic_add_bf16 interpreter", &values(&hy), &want, 0.0);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn reducing_tma_stores_take_maxima_and_exclusive_ors_on_the_gpu() {
    let dev = device();
    let m = 100;
    let mut rng = Rng::new(9);
    let (x, y0) = (rng.tensor::<bf16>(&[m, 64], 1.0), rng.tensor::<bf16>(&[m, 64], 1.0));
    let (a, b0) = (rng.ints::<i32>(&[m, 64]), rng.ints::<i32>(&[m, 64]));
    for r in [2usize, 3] {
        let max: Vec<f64> = values(&x).iter().zip(values(&y0)).map(|(x, y)| x.max(y)).collect();
        let flip = |a: f64| if r % 2 == 1 { a as i32 } else { 0 };
        let xor: Vec<f64> = values(&a).iter().zip(values(&b0)).map(|(a, b)| ((b as i32) ^ flip(*a)) as f64).collect();
        let (dx, da) = (DeviceTensor::from_host(&dev, &x).unwrap(), DeviceTensor::from_host(&dev, &a).unwrap());
        let (mut dy, mut db) =
            (DeviceTensor::from_host(&dev, &y0).unwrap(), DeviceTensor::from_host(&dev, &b0).unwrap());
        tma_max_xor::launch(&dev, &dx, &mut dy, &da, &mut db, r as i32).unwrap();
        assert_close(&format!("tma_max_xor max GPU, R = {r}"), &values(&dy.to_host().unwrap()), &max, 0.0);
        assert_close(&format!("tma_max_xor xor GPU, R = {r}"), &values(&db.to_host().unwrap()), &xor, 0.0);
        let (mut hy, mut hb) = (y0.clone(), b0.clone());
        tma_max_xor::interpret(&x, &mut hy, &a, &mut hb, r as i32).unwrap();
        assert_close(&format!("tma_max_xor max interpreter, R = {r}"), &values(&hy), &max, 0.0);
        assert_close(&format!("tma_max_xor xor interpreter, R = {r}"), &values(&hb), &xor, 0.0);
    }
}
