//! Accumulating stores into global memory in the interpreter: reducing TMA stores and register
//! atomic adds of several programs into one tile give the sum (of values whose sums are exact in
//! any order), elements outside a ragged array are dropped, and the race detector lets atomic
//! updates of different programs run concurrently but reports a plain store racing with one.

use crate::accumulating;

use super::support::*;
use accumulating::*;
use tessel::prelude::*;

/// `y0 + x * (1 + 2 + .. + r)`, element-wise.
fn sum_ref(x: &[f64], y0: &[f64], r: usize) -> Vec<f64> {
    let factor = (r * (r + 1) / 2) as f64;
    x.iter().zip(y0).map(|(x, y)| y + factor * x).collect()
}

#[test]
fn reducing_tma_stores_of_several_programs_add_up() {
    for m in [128, 100] {
        let x = randint::<f32>(&[m, 64], 11, -8, 8);
        let y0 = randint::<f32>(&[m, 64], 12, -100, 100);
        let mut y = y0.clone();
        tma_add_rows::interpret(&x, &mut y, 3).unwrap();
        assert_same("tma_add_rows", &values(&y), &sum_ref(&values(&x), &values(&y0), 3));
    }
}

#[test]
fn register_atomic_adds_of_several_programs_add_up() {
    for (m, n) in [(128, 128), (100, 70)] {
        let x = randint::<f32>(&[m, n], 21, -8, 8);
        let y0 = randint::<f32>(&[m, n], 22, -100, 100);
        let mut y = y0.clone();
        atomic_add_f32::interpret(&x, &mut y, 4).unwrap();
        assert_same("atomic_add_f32", &values(&y), &sum_ref(&values(&x), &values(&y0), 4));
    }
}

#[test]
fn bf16_atomic_adds_round_each_sum_to_bf16() {
    let (m, n) = (100, 72);
    let x = randint::<bf16>(&[m, n], 31, -4, 4);
    let y0 = randint::<bf16>(&[m, n], 32, -16, 16);
    let mut y = y0.clone();
    atomic_add_bf16::interpret(&x, &mut y, 3).unwrap();
    // Every partial sum is a small integer, exact in bf16, so the order does not matter.
    let want: Vec<f64> = values(&x).iter().zip(values(&y0)).map(|(x, y)| y + 3.0 * x).collect();
    assert_same("atomic_add_bf16", &values(&y), &want);
}

/// Program `writer` stores its tile of `y` (when it is in the grid); the others add into it.
#[kernel(grid = (R))]
fn add_or_store(x: Gmem<f32, 64, 64>, y: GmemMut<f32, 64, 64>, R: i32, writer: i32) {
    let v = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
    if program_id(0) == writer {
        y.tile([0, 0], [64, 64]).store(v);
    } else {
        y.tile([0, 0], [64, 64]).atomic_add(v);
    }
}

/// Program `reader` loads the tile the others add into with reducing TMA stores.
#[kernel(grid = (R))]
fn reduce_or_load(x: Gmem<f32, 64, 64>, y: GmemMut<f32, 64, 64>, z: GmemMut<f32, 64, 64>, R: i32, reader: i32) {
    run_scoped(|x_s: Smem<f32, 64, 64>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([0, 0]), x_s, bar);
        barrier_wait(bar);
        if program_id(0) == reader {
            z.tile([0, 0], [64, 64]).store(y.tile([0, 0], [64, 64]).load(Layout::Strided));
        } else {
            copy_smem_to_gmem(x_s, y.tile([0, 0]), reduce = Reduce::Add);
            wait_smem_to_gmem(0);
        }
    });
}

/// The interpreter's message of a failed run.
fn race_error(r: Result<()>) -> String {
    match r {
        Err(Error::Interpreter(msg)) => msg,
        other => panic!("expected an interpreter error, got {other:?}"),
    }
}

#[test]
fn a_plain_store_racing_with_atomic_adds_is_reported() {
    let x = randint::<f32>(&[64, 64], 41, -8, 8);
    let mut y = HostTensor::<f32>::zeros([64, 64]).unwrap();
    // No writer: eight programs' concurrent adds are no race.
    add_or_store::interpret(&x, &mut y, 8, -1).unwrap();
    let want: Vec<f64> = values(&x).iter().map(|v| 8.0 * v).collect();
    assert_same("add_or_store", &values(&y), &want);
    let msg = race_error(add_or_store::interpret(&x, &mut y, 8, 3));
    assert!(msg.contains("data race on global memory `y`"), "{msg}");
    assert!(msg.contains("`.atomic_add()`") && msg.contains("`.store()`"), "{msg}");
    assert!(msg.contains("Order the programs with a semaphore"), "{msg}");
}

#[test]
fn a_load_racing_with_reducing_tma_stores_is_reported() {
    let x = randint::<f32>(&[64, 64], 51, -8, 8);
    let (mut y, mut z) = (HostTensor::<f32>::zeros([64, 64]).unwrap(), HostTensor::<f32>::zeros([64, 64]).unwrap());
    reduce_or_load::interpret(&x, &mut y, &mut z, 5, -1).unwrap();
    let want: Vec<f64> = values(&x).iter().map(|v| 5.0 * v).collect();
    assert_same("reduce_or_load", &values(&y), &want);
    let msg = race_error(reduce_or_load::interpret(&x, &mut y, &mut z, 5, 0));
    assert!(msg.contains("data race on global memory `y`"), "{msg}");
    assert!(msg.contains("`copy_smem_to_gmem(.., reduce = ..)`") && msg.contains("`.load()`"), "{msg}");
}

/// What `tma_max_xor` leaves: `max(y0, x)` and `b0 ^ a` once per program (`r` programs).
fn max_xor_ref(x: &[f64], y0: &[f64], a: &[f64], b0: &[f64], r: usize) -> (Vec<f64>, Vec<f64>) {
    let max = x.iter().zip(y0).map(|(x, y)| x.max(*y)).collect();
    let xor = a.iter().zip(b0).map(|(a, b)| ((*b as i32) ^ if r % 2 == 1 { *a as i32 } else { 0 }) as f64).collect();
    (max, xor)
}

#[test]
fn reducing_tma_stores_take_maxima_and_exclusive_ors() {
    let m = 100;
    let (x, y0) = (randn::<bf16>(&[m, 64], 61, 1.0), randn::<bf16>(&[m, 64], 62, 1.0));
    let (a, b0) = (randint::<i32>(&[m, 64], 63, -1000, 1000), randint::<i32>(&[m, 64], 64, -1000, 1000));
    for r in [2, 3] {
        let (mut y, mut b) = (y0.clone(), b0.clone());
        tma_max_xor::interpret(&x, &mut y, &a, &mut b, r).unwrap();
        let (want_y, want_b) = max_xor_ref(&values(&x), &values(&y0), &values(&a), &values(&b0), r as usize);
        assert_same("tma_max_xor max", &values(&y), &want_y);
        assert_same("tma_max_xor xor", &values(&b), &want_b);
    }
}
