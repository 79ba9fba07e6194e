//! The symmetric memory of the collective GEMMs: what each rank receives from its neighbour, and
//! the counters that say when it has arrived.
//!
//! Allocated once for a group and a shape ([`SymmetricTensor`]: a copy on every GPU, each
//! reachable from the others), and reused: every launch that completes leaves the counters at
//! zero, and the next launch's first stores into a rank's buffer wait until that rank has started
//! it (its previous launch, which reads the buffer, is then over).

use tessel::prelude::*;
use tessel::Error;

use super::plan::{Problem, Tiles};

/// The all-gather GEMM's buffers: `gathered` (M x K, all_gather(A) after a launch) and the
/// counters (READY and one per 64-row half of each 128-row panel).
pub struct AllGatherBuffers {
    gathered: SymmetricTensor<bf16>,
    sems: SymmetricTensor<u32>,
}

impl AllGatherBuffers {
    /// Buffers for all-gather GEMMs of `m` rows in all (every rank's together) and `k` columns of
    /// A, on `group`.
    pub fn new(group: &DeviceGroup, m: usize, k: usize) -> tessel::Result<AllGatherBuffers> {
        let gathered = SymmetricTensor::zeros(group, [m, k])?;
        let sems = SymmetricTensor::zeros(group, [AllGatherBuffers::counters(m)])?;
        Ok(AllGatherBuffers { gathered, sems })
    }

    /// The counters for `m` rows: READY, then one per 64-row half of each 128-row panel.
    pub fn counters(m: usize) -> usize {
        1 + 2 * m.div_ceil(128)
    }

    /// all_gather(A) of the last launch, on every rank.
    pub fn gathered(&self) -> &SymmetricTensor<bf16> {
        &self.gathered
    }

    /// The counters (at zero between launches).
    pub fn sems(&self) -> &SymmetricTensor<u32> {
        &self.sems
    }

    /// The group's, and of `p`'s shape.
    pub(super) fn check(&self, group: &DeviceGroup, p: Problem) -> tessel::Result<()> {
        group.check_symmetric("buffers", &self.gathered)?;
        group.check_symmetric("buffers", &self.sems)?;
        expect("gathered", self.gathered.shape(), &[p.m(), p.k])?;
        expect("sems", self.sems.shape(), &[AllGatherBuffers::counters(p.m())])
    }

    /// `gathered` and the counters, as the kernel takes them.
    pub(super) fn parts(&mut self) -> (&mut SymmetricTensor<bf16>, &mut SymmetricTensor<u32>) {
        (&mut self.gathered, &mut self.sems)
    }

    /// Host buffers for `p`, one per rank, for the interpreter.
    pub(super) fn on_host(p: Problem) -> tessel::Result<HostBuffers> {
        Ok((host(p.world, [p.m(), p.k])?, host(p.world, [AllGatherBuffers::counters(p.m())])?))
    }
}

/// The reduce-scatter GEMM's buffers: `partial` (M x N, the running sums from the next rank) and
/// the counters (READY and one per 64-row half of each tile, for the narrowest tiles).
pub struct ReduceScatterBuffers {
    partial: SymmetricTensor<bf16>,
    sems: SymmetricTensor<u32>,
}

impl ReduceScatterBuffers {
    /// Buffers for reduce-scatter GEMMs of an `m x n` sum (every rank's rows together), on `group`.
    pub fn new(group: &DeviceGroup, m: usize, n: usize) -> tessel::Result<ReduceScatterBuffers> {
        let partial = SymmetricTensor::zeros(group, [m, n])?;
        let sems = SymmetricTensor::zeros(group, [ReduceScatterBuffers::counters(m, n)])?;
        Ok(ReduceScatterBuffers { partial, sems })
    }

    /// The counters for an `m x n` sum: READY, then one per 64 x 128 half-tile (which covers the
    /// 64 x 256 halves of wide tiles too).
    pub fn counters(m: usize, n: usize) -> usize {
        1 + 2 * m.div_ceil(128) * n.div_ceil(Tiles::Narrow.width())
    }

    /// The counters (at zero between launches).
    pub fn sems(&self) -> &SymmetricTensor<u32> {
        &self.sems
    }

    /// The group's, and of `p`'s shape.
    pub(super) fn check(&self, group: &DeviceGroup, p: Problem) -> tessel::Result<()> {
        group.check_symmetric("buffers", &self.partial)?;
        group.check_symmetric("buffers", &self.sems)?;
        expect("partial", self.partial.shape(), &[p.m(), p.n])?;
        expect("sems", self.sems.shape(), &[ReduceScatterBuffers::counters(p.m(), p.n)])
    }

    /// `partial` and the counters, as the kernel takes them.
    pub(super) fn parts(&mut self) -> (&mut SymmetricTensor<bf16>, &mut SymmetricTensor<u32>) {
        (&mut self.partial, &mut self.sems)
    }

    /// Host buffers for `p`, one per rank, for the interpreter.
    pub(super) fn on_host(p: Problem) -> tessel::Result<HostBuffers> {
        Ok((host(p.world, [p.m(), p.n])?, host(p.world, [ReduceScatterBuffers::counters(p.m(), p.n)])?))
    }
}

/// One rank's receiving buffer and counters per rank, on the host, for the interpreter.
pub(super) type HostBuffers = (Vec<HostTensor<bf16>>, Vec<HostTensor<u32>>);

/// A buffer's shape is the problem's.
fn expect(tensor: &'static str, got: &[usize], expected: &[usize]) -> tessel::Result<()> {
    match got == expected {
        true => Ok(()),
        false => Err(Error::ShapeMismatch { tensor, expected: expected.to_vec(), got: got.to_vec() }),
    }
}

/// `world` zeroed host tensors of `shape`.
fn host<T: tessel::Element, const R: usize>(world: usize, shape: [usize; R]) -> tessel::Result<Vec<HostTensor<T>>> {
    (0..world).map(|_| HostTensor::zeros(shape)).collect()
}
