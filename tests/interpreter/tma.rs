//! TMA copies in the interpreter: staged buffers (`.at`), transposed views, TMA stores, zero fill
//! and clipping outside the array, register accesses outside it (zero / dropped, like the PTX's
//! bounds checks), uninitialised shared memory.

use super::support::*;
use tessel::prelude::*;

#[kernel(grid = (R / 128))]
fn staged(x: Gmem<f32, R, 64>, y: GmemMut<f32, H, 64>) {
    let i = program_id(0);
    run_scoped(|buf: Smem<f32, 2, 64, 64>, out: Smem<f32, 64, 64>, bars: Barrier<1, 2>| {
        copy_gmem_to_smem(x.tile([2 * i, 0]), buf.at(0), bars.at(0));
        copy_gmem_to_smem(x.tile([2 * i + 1, 0]), buf.at(1), bars.at(1));
        barrier_wait(bars.at(1));
        barrier_wait(bars.at(0));
        let s = buf.at(0).load(Layout::Strided) + buf.at(1).t().load(Layout::Strided);
        out.store(s);
        commit_smem();
        copy_smem_to_gmem(out, y.tile([i, 0]));
        wait_smem_to_gmem(0);
    });
}

#[test]
fn staged_copies_transposed_views_and_tma_stores() {
    let (r, h) = (256, 128);
    let x = randn::<f32>(&[r, 64], 51, 1.0);
    let mut y = poisoned::<f32>(&[h, 64], f64::NAN);
    staged::interpret(&x, &mut y).unwrap();
    let xv = values(&x);
    let at = |row: usize, col: usize| xv[row * 64 + col];
    let mut want = Vec::new();
    for i in 0..h / 64 {
        for rr in 0..64 {
            for c in 0..64 {
                let v = at(128 * i + rr, c) + at(128 * i + 64 + c, rr);
                want.push(v as f32 as f64);
            }
        }
    }
    assert_same("y", &values(&y), &want);
}

#[kernel(grid = (R / 64))]
fn shift(x: Gmem<f32, R, 32>, y: GmemMut<f32, R, 32>) {
    let i = program_id(0);
    run_scoped(|buf: Smem<f32, 64, 32>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i + 1, 0]), buf, bar);
        barrier_wait(bar);
        copy_smem_to_gmem(buf, y.tile([i, 0]));
        copy_smem_to_gmem(buf, y.tile([i + 5, 0]));
    });
}

#[test]
fn tma_loads_zero_fill_and_stores_clip_outside_the_array() {
    let x = randn::<f32>(&[192, 32], 52, 1.0);
    let mut y = poisoned::<f32>(&[192, 32], f64::NAN);
    shift::interpret(&x, &mut y).unwrap();
    let mut want: Vec<f64> = values(&x)[64 * 32..].to_vec();
    want.extend(std::iter::repeat_n(0.0, 64 * 32));
    assert_same("y", &values(&y), &want);
}

#[kernel(grid = (R / 64))]
fn oob(x: Gmem<f32, R, 32>, y: GmemMut<f32, R, 32>) {
    let i = program_id(0);
    y.tile([i, 0], [64, 32]).store(x.tile([i + 1, 0], [64, 32]).load(Layout::Strided));
}

#[test]
fn register_loads_outside_the_array_read_zero_like_the_gpu() {
    let x = randn::<f32>(&[192, 32], 53, 1.0);
    let mut y = poisoned::<f32>(&[192, 32], f64::NAN);
    oob::interpret(&x, &mut y).unwrap();
    let mut want: Vec<f64> = values(&x)[64 * 32..].to_vec();
    want.extend(std::iter::repeat_n(0.0, 64 * 32));
    assert_same("y", &values(&y), &want);
}

#[kernel(grid = (1))]
fn uninit(y: GmemMut<f32, 64, 32>) {
    run_scoped(|buf: Smem<f32, 64, 32>| {
        y.tile([0, 0]).store(buf.load(Layout::Strided));
    });
}

#[test]
fn uninitialised_shared_memory_reads_as_nan() {
    let mut y = poisoned::<f32>(&[64, 32], 1.0);
    uninit::interpret(&mut y).unwrap();
    assert!(values(&y).iter().all(|v| v.is_nan()));
}
