//! Global and shared memory: the buffers, views of them, and the copies between them and registers.
//!
//! Both memories hold one `f64` per element, as bits in an `AtomicU64`, so that the programs (and
//! warpgroups) running on different host threads may read and write them without locks; the
//! barriers order what needs ordering, as on the GPU. Stores round to the memory's dtype.
//!
//! A program's shared memory is one buffer addressed like the GPU's: an allocation starts at its
//! `typeck` byte offset. It is kept as one slot per 4 bits (the smallest element, `i4`), so element
//! `e` of an allocation at byte `offset` with `bits` bits lives in slot `2 * offset + e * bits / 4`.
//! Swizzles and `Tiled` transforms only permute bytes inside a buffer; they do not change which
//! element a logical index names, so the interpreter stores buffers plain (row-major, stored order).

use std::sync::atomic::{AtomicU64, Ordering};

use tessel_ir::memory::{Alloc, AllocKind};
use tessel_ir::types::DType;

use super::numeric::{error, round};
use super::value::Array;
use crate::Result;

/// Shared-memory slots per byte.
const SLOTS_PER_BYTE: usize = 2;

/// Reads one `f64` slot.
pub(crate) fn load(cells: &[AtomicU64], i: usize) -> f64 {
    f64::from_bits(cells[i].load(Ordering::Relaxed))
}

/// Writes one `f64` slot.
pub(crate) fn store(cells: &[AtomicU64], i: usize, v: f64) {
    cells[i].store(v.to_bits(), Ordering::Relaxed);
}

/// `n` slots holding `v`.
pub(crate) fn cells(n: usize, v: f64) -> Vec<AtomicU64> {
    (0..n).map(|_| AtomicU64::new(v.to_bits())).collect()
}

/// Calls `f` with every multi-index of `shape`, in row-major order.
pub(crate) fn for_each_index(shape: &[usize], mut f: impl FnMut(&[usize])) {
    if shape.contains(&0) {
        return;
    }
    let mut index = vec![0usize; shape.len()];
    loop {
        f(&index);
        let mut axis = shape.len();
        loop {
            if axis == 0 {
                return;
            }
            axis -= 1;
            index[axis] += 1;
            if index[axis] < shape[axis] {
                break;
            }
            index[axis] = 0;
        }
    }
}

/// A tensor argument, for the whole launch.
#[derive(Debug)]
pub(crate) struct GlobalBuf {
    pub dtype: DType,
    pub shape: Vec<usize>,
    pub data: Vec<AtomicU64>,
}

impl GlobalBuf {
    /// The linear index of `index` (block origin + offset), or `None` outside the array.
    pub(crate) fn offset(&self, origin: &[i64], within: &[usize]) -> Option<usize> {
        let mut at = 0usize;
        for ((&o, &w), &d) in origin.iter().zip(within).zip(&self.shape) {
            let i = o.checked_add(w as i64)?;
            if i < 0 || i as usize >= d {
                return None;
            }
            at = at * d + i as usize;
        }
        Some(at)
    }
}

/// `g.tile([i, j])`: the block at block index `index`, its shape given or taken from the other
/// side of the copy.
#[derive(Clone, Debug)]
pub(crate) struct TileRef {
    pub param: usize,
    pub index: Vec<i64>,
    pub shape: Option<Vec<usize>>,
}

impl TileRef {
    /// The element origin of the block: block index times block shape.
    pub(crate) fn origin(&self, block: &[usize]) -> Vec<i64> {
        self.index.iter().zip(block).map(|(&i, &b)| i.saturating_mul(b as i64)).collect()
    }

    /// A register load of the block (`.load(layout)`). Like the PTX (which bounds-checks every
    /// global register access against the array's dimensions), elements outside the array read as 0.
    pub(crate) fn load(&self, g: &GlobalBuf, block: &[usize]) -> Result<Array> {
        let origin = self.origin(block);
        let mut data = Vec::with_capacity(block.iter().product());
        for_each_index(block, |e| data.push(g.offset(&origin, e).map_or(0.0, |i| load(&g.data, i))));
        let dims: Vec<i64> = block.iter().map(|&d| d as i64).collect();
        let shape = tessel_ir::ty::tile_registers(&dims).iter().map(|&d| d as usize).collect();
        Ok(Array { dtype: g.dtype, shape, data })
    }

    /// A register store of `value` into the block; elements outside the array are dropped, as in PTX.
    pub(crate) fn store(&self, g: &GlobalBuf, value: &Array) -> Result<()> {
        let block = self.shape.clone().unwrap_or_else(|| value.shape.clone());
        let origin = self.origin(&block);
        let mut k = 0;
        for_each_index(&block, |e| {
            if let Some(i) = g.offset(&origin, e) {
                store(&g.data, i, round(g.dtype, value.data[k]));
            }
            k += 1;
        });
        Ok(())
    }

    /// The box of the block's elements, for a block of `block` elements.
    pub(crate) fn boxed(&self, block: &[usize]) -> GlobalBox {
        GlobalBox { param: self.param, origin: self.origin(block), shape: block.to_vec() }
    }

    /// A TMA store of `view`: elements outside the array are dropped (the tensor map clips).
    pub(crate) fn copy_from_smem(&self, g: &GlobalBuf, view: &SmemView, smem: &[AtomicU64]) {
        let origin = self.origin(&view.shape);
        for_each_index(&view.shape, |e| {
            if let Some(i) = g.offset(&origin, e) {
                store(&g.data, i, round(g.dtype, load(smem, view.stored_slot(e))));
            }
        });
    }
}

/// A box of a global array: `shape` elements from element `origin` (which a tile's index and
/// block shape give), some perhaps outside the array.
#[derive(Clone, Debug)]
pub(crate) struct GlobalBox {
    pub param: usize,
    pub origin: Vec<i64>,
    pub shape: Vec<usize>,
}

impl GlobalBox {
    /// What a TMA load of the box reads, in row-major order: elements outside the array read as
    /// zero (the tensor map's zero fill).
    pub(crate) fn read(&self, g: &GlobalBuf) -> Vec<f64> {
        let mut values = Vec::with_capacity(self.shape.iter().product());
        for_each_index(&self.shape, |e| values.push(g.offset(&self.origin, e).map_or(0.0, |i| load(&g.data, i))));
        values
    }

    /// The box's elements inside the array, as indices into its buffer (the race detector's
    /// shadow cells).
    pub(crate) fn cells(&self, g: &GlobalBuf) -> Vec<usize> {
        let mut cells = Vec::with_capacity(self.shape.iter().product());
        for_each_index(&self.shape, |e| cells.extend(g.offset(&self.origin, e)));
        cells
    }

    /// Elements `start..start + len` of dimension `dim`.
    pub(crate) fn rows(&self, dim: usize, start: usize, len: usize) -> GlobalBox {
        let mut b = self.clone();
        b.origin[dim] = b.origin[dim].saturating_add(start as i64);
        b.shape[dim] = len;
        b
    }
}

/// A view of a shared-memory buffer: its element slots in stored order, and whether the view
/// swaps the last two dimensions.
#[derive(Clone, Debug)]
pub(crate) struct SmemView {
    /// Index into `Program::allocs`, for messages.
    pub alloc: usize,
    pub dtype: DType,
    /// The slot of element `[0, 0, ..]`.
    pub base: usize,
    /// The shape in stored order (the last dimension is contiguous in the buffer).
    pub shape: Vec<usize>,
    /// Slots between neighbours along each stored dimension.
    pub strides: Vec<usize>,
    pub transposed: bool,
}

impl SmemView {
    /// The whole buffer of a shared-memory allocation.
    pub(crate) fn of_alloc(index: usize, alloc: &Alloc) -> Result<SmemView> {
        let AllocKind::Smem { dtype, stored, transposed, .. } = &alloc.kind else {
            return Err(error(format!("internal: allocation `{}` is not a shared buffer", alloc.name)));
        };
        let shape: Vec<usize> = stored.iter().map(|&d| d as usize).collect();
        let elem = (dtype.bits() / 4) as usize;
        let mut strides = vec![elem; shape.len()];
        for d in (0..shape.len().saturating_sub(1)).rev() {
            strides[d] = strides[d + 1] * shape[d + 1];
        }
        let base = alloc.offset as usize * SLOTS_PER_BYTE;
        Ok(SmemView { alloc: index, dtype: *dtype, base, shape, strides, transposed: *transposed })
    }

    /// Slots a program needs for `smem_bytes` of shared memory.
    pub(crate) fn slots_for(smem_bytes: u64) -> usize {
        smem_bytes as usize * SLOTS_PER_BYTE
    }

    /// The shape as the kernel sees it.
    pub(crate) fn logical_shape(&self) -> Vec<usize> {
        let mut s = self.shape.clone();
        self.swap_last(&mut s);
        s
    }

    fn swap_last<T>(&self, v: &mut [T]) {
        let n = v.len();
        if self.transposed && n >= 2 {
            v.swap(n - 1, n - 2);
        }
    }

    /// The slot of a stored-order index.
    pub(crate) fn stored_slot(&self, stored: &[usize]) -> usize {
        self.base + stored.iter().zip(&self.strides).map(|(i, s)| i * s).sum::<usize>()
    }

    /// The slot of a logical index.
    fn slot(&self, logical: &[usize]) -> usize {
        let n = logical.len();
        let mut at = self.base;
        for (d, &i) in logical.iter().enumerate() {
            let stored = if self.transposed && n >= 2 && d >= n - 2 { 2 * n - 3 - d } else { d };
            at += i * self.strides[stored];
        }
        at
    }

    /// `.at(i)`: slab `i` of the first stored dimension.
    pub(crate) fn at(&self, i: i64, name: &str) -> Result<SmemView> {
        if i < 0 || i as usize >= self.shape[0] {
            return Err(error(format!("`{name}.at({i})` is outside its {} slabs", self.shape[0])));
        }
        let mut v = self.clone();
        v.base += i as usize * v.strides[0];
        v.shape.remove(0);
        v.strides.remove(0);
        Ok(v)
    }

    /// `.slice([..])` with static starts and lengths in logical order.
    pub(crate) fn slice(&self, starts: &[usize], lens: &[usize]) -> SmemView {
        let (mut starts, mut lens) = (starts.to_vec(), lens.to_vec());
        self.swap_last(&mut starts);
        self.swap_last(&mut lens);
        let mut v = self.clone();
        v.base = self.stored_slot(&starts);
        v.shape = lens;
        v
    }

    /// Elements `start..start + len` of stored dimension `dim`.
    pub(crate) fn rows(&self, dim: usize, start: usize, len: usize) -> SmemView {
        let mut v = self.clone();
        v.base += start * v.strides[dim];
        v.shape[dim] = len;
        v
    }

    /// `.t()`: swap the last two dimensions of the view.
    pub(crate) fn transpose(&self, swap: bool) -> SmemView {
        SmemView { transposed: self.transposed ^ swap, ..self.clone() }
    }

    /// Writes `values` (one per element, in stored order) into the view: a TMA load landing.
    pub(crate) fn write_stored(&self, smem: &[AtomicU64], values: &[f64]) {
        for (slot, &v) in Slots::new(&self.shape, &self.strides, self.base).zip(values) {
            store(smem, slot, v);
        }
    }

    /// The race detector's shadow cells (bytes) of the view's elements, in stored order.
    pub(crate) fn cells(&self) -> impl Iterator<Item = usize> + '_ {
        Slots::new(&self.shape, &self.strides, self.base).map(|slot| slot / SLOTS_PER_BYTE)
    }

    /// The view's values in logical order.
    pub(crate) fn read(&self, smem: &[AtomicU64]) -> Array {
        let shape = self.logical_shape();
        let mut data = Vec::with_capacity(shape.iter().product());
        if let [rows, cols] = shape[..] {
            for r in 0..rows {
                for c in 0..cols {
                    data.push(load(smem, self.slot(&[r, c])));
                }
            }
        } else {
            for_each_index(&shape, |i| data.push(load(smem, self.slot(i))));
        }
        Array { dtype: self.dtype, shape, data }
    }

    /// Stores `value` (of the view's logical shape) into the view, rounding to its dtype.
    pub(crate) fn write(&self, smem: &[AtomicU64], value: &Array) {
        let mut k = 0;
        for_each_index(&self.logical_shape(), |i| {
            store(smem, self.slot(i), round(self.dtype, value.data[k]));
            k += 1;
        });
    }
}

/// The element of `alloc` (a shared buffer; stored order) at shadow cell `cell`, for messages.
pub(crate) fn alloc_element(alloc: &Alloc, cell: usize) -> Vec<usize> {
    let AllocKind::Smem { dtype, stored, .. } = &alloc.kind else { return Vec::new() };
    let slots = (dtype.bits() / 4).max(1) as usize;
    let mut flat = (cell * SLOTS_PER_BYTE).saturating_sub(alloc.offset as usize * SLOTS_PER_BYTE) / slots;
    let mut index = vec![0; stored.len()];
    for (i, &d) in index.iter_mut().zip(stored).rev() {
        let d = d.max(1) as usize;
        *i = flat % d;
        flat /= d;
    }
    index
}

/// The slots of a strided view's elements, in stored (row-major) order.
struct Slots<'a> {
    shape: &'a [usize],
    strides: &'a [usize],
    index: Vec<usize>,
    at: usize,
    left: usize,
}

impl<'a> Slots<'a> {
    fn new(shape: &'a [usize], strides: &'a [usize], base: usize) -> Slots<'a> {
        Slots { shape, strides, index: vec![0; shape.len()], at: base, left: shape.iter().product() }
    }
}

impl Iterator for Slots<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let here = self.at;
        for axis in (0..self.shape.len()).rev() {
            self.index[axis] += 1;
            self.at += self.strides[axis];
            if self.index[axis] < self.shape[axis] {
                break;
            }
            self.at -= self.strides[axis] * self.shape[axis];
            self.index[axis] = 0;
        }
        Some(here)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(stored: Vec<i64>, transposed: bool) -> SmemView {
        let alloc = Alloc {
            name: "x".into(),
            kind: AllocKind::Smem { dtype: DType::F32, stored, swizzle: tessel_ir::types::Swizzle::None, transposed },
            offset: 128,
            bytes: 0,
        };
        SmemView::of_alloc(0, &alloc).unwrap()
    }

    #[test]
    fn transposed_views_swap_the_last_two_dimensions() {
        let v = buffer(vec![2, 3], false);
        let smem = cells(SmemView::slots_for(128 + 24), 0.0);
        let a = Array { dtype: DType::F32, shape: vec![2, 3], data: vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0] };
        v.write(&smem, &a);
        let t = v.transpose(true).read(&smem);
        assert_eq!(t.shape, vec![3, 2]);
        assert_eq!(t.data, vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
        let s = v.transpose(true).slice(&[1, 0], &[2, 2]).read(&smem);
        assert_eq!(s.data, vec![1.0, 4.0, 2.0, 5.0]);
    }

    #[test]
    fn slots_walk_a_view_in_stored_order() {
        let v = buffer(vec![4, 6], false).slice(&[1, 2], &[2, 3]);
        let mut want = Vec::new();
        for_each_index(&v.shape, |e| want.push(v.stored_slot(e)));
        assert_eq!(Slots::new(&v.shape, &v.strides, v.base).collect::<Vec<_>>(), want);
    }

    #[test]
    fn slabs_step_over_the_first_dimension() {
        let v = buffer(vec![3, 2, 2], false);
        let smem = cells(SmemView::slots_for(128 + 48), 0.0);
        let a = Array { dtype: DType::F32, shape: vec![3, 2, 2], data: (0..12).map(f64::from).collect() };
        v.write(&smem, &a);
        assert_eq!(v.at(2, "x").unwrap().read(&smem).data, vec![8.0, 9.0, 10.0, 11.0]);
        assert!(v.at(3, "x").is_err());
    }
}
