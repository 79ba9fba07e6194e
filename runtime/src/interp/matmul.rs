//! `wgmma` and `mma`: matrix products as the tensor cores compute them.
//!
//! Operands are values of their dtype (tf32 operands are f32 data whose low 13 mantissa bits the
//! hardware ignores); products are exact; the products of one instruction's K block (`k_step` of
//! the legality tables) are summed exactly and added to the accumulator with one rounding, to f32
//! (then to f16 for an f16 accumulator), or wrapping to i32 for integer products. The inner loop
//! runs on flat `f64` slices (exact for every product and block sum of these dtypes).

use std::rc::Rc;

use tessel_ir::legality;
use tessel_ir::types::DType;

use super::access::Op;
use super::exec::Warpgroup;
use super::numeric::{error, round, tf32_truncate};
use super::race::What;
use super::value::{AccRef, Array, Value};
use crate::Result;
use tessel_ir::program::Expr;

/// A wgmma in flight: its operands as it read them when issued, and the accumulator window its
/// product lands in at the `wgmma_wait` that covers it.
#[derive(Debug)]
pub(crate) struct PendingWgmma {
    pub acc: AccRef,
    a: Rc<Array>,
    b: Array,
    /// `accumulate`: false replaces the window with the product.
    adds: bool,
    k_step: usize,
    /// Where the wgmma is written, for messages.
    pub site: Option<u32>,
}

impl PendingWgmma {
    /// The product lands in the accumulator.
    fn complete(self) -> Result<()> {
        let mut window = self.acc.load();
        if !self.adds {
            window.data.fill(0.0);
        }
        accumulate(&mut window, &self.a, &self.b, self.k_step)?;
        self.acc.store(&window);
        Ok(())
    }
}

/// `acc[m, n] += sum_k a[m, k] * b[k, n]`, rounding once per K block of `k_step`.
fn accumulate(acc: &mut Array, a: &Array, b: &Array, k_step: usize) -> Result<()> {
    let (m, k, n) = match (a.shape.as_slice(), b.shape.as_slice()) {
        ([m, k], [k2, n]) if k == k2 && acc.shape == [*m, *n] => (*m, *k, *n),
        _ => return Err(error("internal: matrix product of mismatched shapes")),
    };
    let a_vals = operand(a);
    let b_vals = operand(b);
    let k_step = k_step.max(1);
    match acc.dtype {
        DType::F32 => blocks(&mut acc.data, &a_vals, &b_vals, (m, k, n), k_step, |x| x as f32 as f64),
        DType::F16 => {
            blocks(&mut acc.data, &a_vals, &b_vals, (m, k, n), k_step, |x| round(DType::F16, x as f32 as f64))
        }
        DType::I32 => blocks(&mut acc.data, &a_vals, &b_vals, (m, k, n), k_step, |x| DType::I32.wrap(x as i64) as f64),
        other => return Err(error(format!("internal: a {other} accumulator"))),
    }
    Ok(())
}

/// The values the tensor core reads from an operand.
fn operand(x: &Array) -> std::borrow::Cow<'_, [f64]> {
    match x.dtype {
        DType::Tf32 => x.data.iter().map(|&v| tf32_truncate(v)).collect::<Vec<_>>().into(),
        _ => x.data.as_slice().into(),
    }
}

/// The product loop: for each row, each K block's products are summed into `block` (vectorisable
/// over N), then added to the accumulator row with `finish` rounding.
fn blocks(
    acc: &mut [f64],
    a: &[f64],
    b: &[f64],
    (m, k, n): (usize, usize, usize),
    k_step: usize,
    finish: impl Fn(f64) -> f64,
) {
    let mut block = vec![0.0f64; n];
    for i in 0..m {
        let a_row = &a[i * k..(i + 1) * k];
        let acc_row = &mut acc[i * n..(i + 1) * n];
        for k0 in (0..k).step_by(k_step) {
            block.fill(0.0);
            for (kk, &av) in a_row.iter().enumerate().take((k0 + k_step).min(k)).skip(k0) {
                let b_row = &b[kk * n..(kk + 1) * n];
                for (s, &bv) in block.iter_mut().zip(b_row) {
                    *s += av * bv;
                }
            }
            for (c, &s) in acc_row.iter_mut().zip(&block) {
                *c = finish(*c + s);
            }
        }
    }
}

impl Warpgroup<'_> {
    /// `wgmma(acc, a, b)`: reads its operands now and puts its product in flight, to land in the
    /// accumulator at the `wgmma_wait` that covers it; with `accumulate = c` false, the product
    /// replaces the accumulator's values (the scale-d predicate). Its shared-memory operands are
    /// read by the async proxy, at some point before that wait.
    pub(crate) fn wgmma(&mut self, e: &Expr, acc: &Expr, a: &Expr, b: &Expr, adds: Option<&Expr>) -> Result<Value> {
        let adds = match adds {
            Some(c) => self.eval_scalar(c)?.to_i64() != 0,
            None => true,
        };
        let acc = self.eval(acc)?.acc()?;
        self.wgmma_issued += 1;
        let op = self.race.as_ref().map(|r| Op {
            agent: r.wgmma,
            clock: self.wgmma_issued,
            clocks: r.clocks.clone(),
            site: e.site,
            what: What::Wgmma,
        });
        let a = match self.eval(a)? {
            Value::Smem(v) => {
                self.record_smem(self.rank, &v, op.as_ref().map(|o| o.actor(false)).as_ref())?;
                Rc::new(v.read(&self.state().smem))
            }
            other => other.regs()?,
        };
        let b = self.eval(b)?.smem()?;
        self.record_smem(self.rank, &b, op.as_ref().map(|o| o.actor(false)).as_ref())?;
        let b = b.read(&self.state().smem);
        let row = legality::wgmma_row(a.dtype).ok_or_else(|| error(format!("internal: wgmma on {}", a.dtype)))?;
        let k_step = row.k_step as usize;
        self.wgmmas.push_back(PendingWgmma { acc, a, b, adds, k_step, site: e.site });
        self.step();
        Ok(Value::Unit)
    }

    /// `wgmma_wait(n)`: every wgmma but the latest `n` completes, in order.
    pub(crate) fn wgmma_wait(&mut self, n: u32) -> Result<Value> {
        while self.wgmmas.len() > n as usize {
            if let Some(w) = self.wgmmas.pop_front() {
                w.complete()?;
            }
        }
        if let Some(r) = &mut self.race {
            let done = self.wgmma_issued - self.wgmmas.len() as u32;
            r.clocks.vc.raise(r.wgmma, done);
        }
        Ok(Value::Unit)
    }

    /// `mma(acc, a, b)`: a new accumulator array `acc + a @ b`.
    pub(crate) fn mma(&mut self, acc: &Expr, a: &Expr, b: &Expr) -> Result<Value> {
        let acc = self.eval(acc)?.regs()?;
        let a = self.eval(a)?.regs()?;
        let b = self.eval(b)?.regs()?;
        let row = legality::mma_row(a.dtype).ok_or_else(|| error(format!("internal: mma on {}", a.dtype)))?;
        let mut out = Array::clone(&acc);
        accumulate(&mut out, &a, &b, row.shape.2 as usize)?;
        Ok(Value::Regs(Rc::new(out)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_accumulators_round_once_per_k_block() {
        // Row 0: 1 + 2^-24 + 2^-24 in one K block of 16 is exactly 1 + 2^-23 (per-product rounding
        // would give 1). Row 1: 1 + 2^-24 in the first block rounds to 1 (a tie, to even), and the
        // second block's 2^-24 is lost again (an exact sum would give 1 + 2^-23).
        let tiny = 2f64.powi(-24);
        let mut a = Array::filled(DType::Bf16, vec![64, 32], 0.0);
        a.data[..3].copy_from_slice(&[1.0, tiny, tiny]);
        a.data[32..34].copy_from_slice(&[1.0, tiny]);
        a.data[32 + 16] = tiny;
        let b = Array::filled(DType::Bf16, vec![32, 8], 1.0);
        let mut acc = Array::filled(DType::F32, vec![64, 8], 0.0);
        accumulate(&mut acc, &a, &b, 16).unwrap();
        assert_eq!(acc.data[0], 1.0 + 2.0 * tiny);
        assert_eq!(acc.data[8], 1.0);
    }

    #[test]
    fn integer_products_wrap_to_i32() {
        let a = Array::filled(DType::I8, vec![64, 32], 127.0);
        let b = Array::filled(DType::I8, vec![32, 8], -128.0);
        let mut acc = Array::filled(DType::I32, vec![64, 8], i32::MIN as f64);
        accumulate(&mut acc, &a, &b, 32).unwrap();
        assert_eq!(acc.data[0], DType::I32.wrap(i32::MIN as i64 + 32 * 127 * -128) as f64);
    }
}
