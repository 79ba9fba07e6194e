//! Reducing writes into global memory: `tile.atomic_add(v)` and
//! `copy_smem_to_gmem(src, tile, reduce = Reduce::Op)`. Each element's combination is one atomic
//! read-modify-write of its cell (a compare-exchange loop), rounded to the array's dtype, so adds
//! of programs running on other host threads are never lost; the order in which different
//! programs' adds reach one element is the order the host threads run them, as the GPU's is its
//! own (see the module documentation on floating-point sums).

use std::sync::atomic::{AtomicU64, Ordering};

use super::exec::Warpgroup;
use super::memory::{for_each_index, GlobalBuf, SmemView, TileRef};
use super::numeric::{error, from_bits, round, to_bits, to_int};
use super::race::What;
use super::value::{Array, Value};
use crate::Result;
use tessel_ir::ops::GmemReduce;
use tessel_ir::types::DType;

/// `old op v` for an element of `dtype`, as the PTX instruction computes it (PTX ISA `red` and
/// `cp.reduce.async.bulk.tensor`, "Semantics"), rounded to the dtype.
pub(crate) fn combine(op: GmemReduce, dtype: DType, old: f64, v: f64) -> f64 {
    match op {
        GmemReduce::Add if dtype == DType::F32 => flush(flush(old) + flush(v)) as f32 as f64,
        GmemReduce::Add if dtype == DType::U64 => to_int(dtype, old).wrapping_add(to_int(dtype, v)) as u64 as f64,
        GmemReduce::Add => round(dtype, old + v),
        GmemReduce::Min | GmemReduce::Max => {
            let func = if op == GmemReduce::Min { tessel_ir::ops::MathFn2::Min } else { tessel_ir::ops::MathFn2::Max };
            super::numeric::math2(func, dtype, old, v)
        }
        GmemReduce::Inc => match old >= v {
            true => 0.0,
            false => round(dtype, old + 1.0),
        },
        GmemReduce::Dec => match old == 0.0 || old > v {
            true => v,
            false => old - 1.0,
        },
        GmemReduce::And | GmemReduce::Or | GmemReduce::Xor => {
            let (a, b) = (to_bits(dtype, old), to_bits(dtype, v));
            let bits = match op {
                GmemReduce::And => a & b,
                GmemReduce::Or => a | b,
                _ => a ^ b,
            };
            from_bits(dtype, bits)
        }
    }
}

/// `red.global.add.f32` flushes subnormal inputs and results to zero of the same sign (PTX ISA
/// `red`: "Current implementation of red.add.f32 on global memory flushes subnormal inputs and
/// results to sign-preserving zero").
fn flush(v: f64) -> f64 {
    let f = v as f32;
    if f.is_subnormal() {
        0.0f64.copysign(v)
    } else {
        v
    }
}

/// Combines `v` into cell `i` atomically.
fn rmw(cells: &[AtomicU64], i: usize, op: GmemReduce, dtype: DType, v: f64) {
    let cell = &cells[i];
    let mut old = cell.load(Ordering::Relaxed);
    loop {
        let new = combine(op, dtype, f64::from_bits(old), v).to_bits();
        match cell.compare_exchange_weak(old, new, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return,
            Err(now) => old = now,
        }
    }
}

impl TileRef {
    /// `tile.atomic_add(value)`: adds each element of `value` to the block's, in row-major order;
    /// elements outside the array are dropped, as a store drops them.
    pub(crate) fn add(&self, g: &GlobalBuf, value: &Array) {
        let block = self.shape.clone().unwrap_or_else(|| value.shape.clone());
        let origin = self.origin(&block);
        let mut k = 0;
        for_each_index(&block, |e| {
            if let Some(i) = g.offset(&origin, e) {
                rmw(&g.data, i, GmemReduce::Add, g.dtype, value.data[k]);
            }
            k += 1;
        });
    }

    /// A reducing TMA store of `view`: each element combined into the block's with `op`; elements
    /// outside the array are dropped (the tensor map clips).
    pub(crate) fn reduce_from_smem(&self, g: &GlobalBuf, view: &SmemView, smem: &[AtomicU64], op: GmemReduce) {
        let origin = self.origin(&view.shape);
        for_each_index(&view.shape, |e| {
            if let Some(i) = g.offset(&origin, e) {
                let v = round(g.dtype, super::memory::load(smem, view.stored_slot(e)));
                rmw(&g.data, i, op, g.dtype, v);
            }
        });
    }
}

impl Warpgroup<'_> {
    /// `dst.atomic_add(value)`: for the race detector, an atomic access of each element, which
    /// races with a load or store that nothing orders but not with other atomic adds.
    pub(crate) fn atomic_add(&mut self, dst: Value, value: &Array, site: Option<u32>) -> Result<()> {
        let Value::Tile(t) = dst else { return Err(error("internal: an atomic add into something other than a tile")) };
        let block = t.shape.clone().unwrap_or_else(|| value.shape.clone());
        self.record_global(&t.boxed(&block), self.me(What::AtomicAdd, site, false).as_ref())?;
        t.add(self.global(t.param)?, value);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_operation_combines_as_the_isa_says() {
        use GmemReduce as R;
        assert_eq!(combine(R::Add, DType::F32, 1.5, 2.25), 3.75);
        assert_eq!(combine(R::Add, DType::I32, i32::MAX as f64, 1.0), i32::MIN as f64);
        assert_eq!(combine(R::Add, DType::U64, u64::MAX as f64, 1.0), 0.0);
        // bf16 rounds the sum: 256 + 1 is not a bf16, and ties go to even.
        assert_eq!(combine(R::Add, DType::Bf16, 256.0, 1.0), 256.0);
        assert_eq!(combine(R::Min, DType::Bf16, 3.0, -2.0), -2.0);
        assert_eq!(combine(R::Max, DType::I32, -3.0, -7.0), -3.0);
        assert_eq!(combine(R::Max, DType::F16, f64::NAN, 1.0), 1.0);
        // inc wraps to 0 at the bound, dec to the bound at 0 or above it.
        assert_eq!((combine(R::Inc, DType::U32, 4.0, 5.0), combine(R::Inc, DType::U32, 5.0, 5.0)), (5.0, 0.0));
        assert_eq!((combine(R::Dec, DType::U32, 0.0, 5.0), combine(R::Dec, DType::U32, 9.0, 5.0)), (5.0, 5.0));
        assert_eq!(combine(R::Dec, DType::U32, 3.0, 5.0), 2.0);
        assert_eq!(combine(R::And, DType::U32, 12.0, 10.0), 8.0);
        assert_eq!(combine(R::Or, DType::I32, -16.0, 3.0), -13.0);
        assert_eq!(combine(R::Xor, DType::U64, 6.0, 3.0), 5.0);
    }

    #[test]
    fn f32_adds_flush_subnormals_as_red_global_does() {
        let tiny = f32::MIN_POSITIVE as f64 / 4.0;
        assert_eq!(combine(GmemReduce::Add, DType::F32, 0.0, tiny), 0.0);
        assert_eq!(combine(GmemReduce::Add, DType::F32, 1.0, -tiny), 1.0);
        // Two normal numbers whose sum is subnormal: a zero of the sum's sign.
        let m = f32::MIN_POSITIVE as f64;
        let r = combine(GmemReduce::Add, DType::F32, m, -1.5 * m);
        assert!(r == 0.0 && r.is_sign_negative());
    }

    #[test]
    fn concurrent_adds_are_never_lost() {
        let cells = super::super::memory::cells(1, 0.0);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| (0..1000).for_each(|_| rmw(&cells, 0, GmemReduce::Add, DType::F32, 1.0)));
            }
        });
        assert_eq!(super::super::memory::load(&cells, 0), 4000.0);
    }
}
