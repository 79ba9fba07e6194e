//! The collective GEMMs' dispatchers: the checks the kernels cannot make, the choice of tiles, and
//! the instance of each world size and tile width.

use tessel::cudarc::driver::sys::CUdevice_attribute;
use tessel::prelude::*;
use tessel::Error;

use super::buffers::{AllGatherBuffers, ReduceScatterBuffers};
use super::ring::{all_gather_matmul, matmul_reduce_scatter};
use crate::waves::SMS;

/// The group sizes the collective GEMMs have instances for.
pub const WORLDS: [usize; 4] = [1, 2, 4, 8];

/// The programs of every GPU instance: one per SM of an H100 SXM or H200, all running at once (a
/// program waits for other ranks' programs, which must therefore be running too).
const PROGRAMS: usize = SMS;

/// The tiles of a collective GEMM's instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tiles {
    /// 128 x 256 tiles.
    Wide,
    /// 128 x 128 tiles.
    Narrow,
}

impl Tiles {
    /// The tile's width (N).
    pub fn width(self) -> usize {
        match self {
            Tiles::Wide => 256,
            Tiles::Narrow => 128,
        }
    }

    /// `wide` or `narrow`, as `TESSEL_COLLECTIVE` names them.
    pub fn named(name: &str) -> Option<Tiles> {
        match name.trim() {
            "wide" => Some(Tiles::Wide),
            "narrow" => Some(Tiles::Narrow),
            _ => None,
        }
    }

    /// The tiles for steps of `rows` x `n` (one rank's block of rows, the output's columns):
    /// `TESSEL_COLLECTIVE=wide|narrow` if set, else [`Tiles::choose`].
    pub fn chosen(rows: usize, n: usize) -> Tiles {
        let named = std::env::var("TESSEL_COLLECTIVE").ok().and_then(|name| Tiles::named(&name));
        named.unwrap_or_else(|| Tiles::choose(rows, n))
    }

    /// Wide tiles where a step has at least one per SM, narrow ones below. A hop of the ring takes
    /// a tile's time: the all-gather's sender streams a panel of A as its consumers multiply it,
    /// and a running sum leaves when its tile is done. While a step fills the SMs, the next
    /// step's data arrives a step ahead; with fewer tiles than SMs, steps share a wave, and the
    /// later ones wait for the earlier ones' hops, which narrow tiles make half as long.
    pub fn choose(rows: usize, n: usize) -> Tiles {
        if rows.div_ceil(128) * n.div_ceil(256) >= SMS {
            Tiles::Wide
        } else {
            Tiles::Narrow
        }
    }
}

/// One collective GEMM's sizes, checked: `world` ranks, each with `rows` of the M = `world * rows`
/// rows (its shard of A in the all-gather, its chunk of C in the reduce-scatter), the output's `n`
/// columns and the contraction's `k`, all per rank.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Problem {
    pub world: usize,
    pub rows: usize,
    pub n: usize,
    pub k: usize,
}

impl Problem {
    /// Checks what the kernels cannot: a world they have instances for, rows per rank a positive
    /// multiple of 128 (so that a 128-row tile never spans two ranks' rows, which arrive at
    /// different steps), and a positive N and K (with none, some of the results would be left
    /// unwritten). N and K are multiples of 8 (TMA's 16-byte rows): the launch checks that.
    pub fn new(world: usize, rows: usize, n: usize, k: usize) -> tessel::Result<Problem> {
        if !WORLDS.contains(&world) {
            let reason = format!("the collective GEMMs run on a group of 1, 2, 4 or 8 GPUs, not {world}");
            return Err(Error::InvalidArgument { argument: "group", reason });
        }
        if rows == 0 || !rows.is_multiple_of(128) {
            let reason = format!(
                "each rank's block of rows (M / W = {rows}) must be a positive multiple of 128: a 128-row tile \
                 never spans two ranks' rows"
            );
            return Err(Error::InvalidArgument { argument: "a", reason });
        }
        if n == 0 || k == 0 {
            let reason = format!("N = {n} and K = {k} must be positive");
            return Err(Error::InvalidArgument { argument: "b", reason });
        }
        Ok(Problem { world, rows, n, k })
    }

    /// M, the rows of all ranks.
    pub fn m(self) -> usize {
        self.world * self.rows
    }

    /// The all-gather GEMM's problem from rank 0's A (`rows x k`) and B (`k x n`).
    fn all_gather(world: usize, a: &[usize], b: &[usize]) -> tessel::Result<Problem> {
        let ([rows, k], [k2, n]) = (matrix("a", a)?, matrix("b", b)?);
        same_k(k, k2, b)?;
        Problem::new(world, rows, n, k)
    }

    /// The reduce-scatter GEMM's problem from rank 0's A (`M x k`) and B (`k x n`).
    fn reduce_scatter(world: usize, a: &[usize], b: &[usize]) -> tessel::Result<Problem> {
        let ([m, k], [k2, n]) = (matrix("a", a)?, matrix("b", b)?);
        same_k(k, k2, b)?;
        if !WORLDS.contains(&world) {
            return Problem::new(world, 0, n, k);
        }
        if !m.is_multiple_of(world) {
            let reason = format!("M = {m} rows do not split into {world} ranks' blocks of rows");
            return Err(Error::InvalidArgument { argument: "a", reason });
        }
        Problem::new(world, m / world, n, k)
    }
}

/// A 2-D shape's dimensions, or the kernel's rank error.
fn matrix(tensor: &'static str, shape: &[usize]) -> tessel::Result<[usize; 2]> {
    match *shape {
        [rows, cols] => Ok([rows, cols]),
        _ => Err(Error::ShapeRank { tensor, expected: 2, shape: shape.to_vec() }),
    }
}

/// A's columns are B's rows.
fn same_k(k: usize, rows_of_b: usize, b: &[usize]) -> tessel::Result<()> {
    match k == rows_of_b {
        true => Ok(()),
        false => Err(Error::ShapeMismatch { tensor: "b", expected: vec![k, b[1]], got: b.to_vec() }),
    }
}

/// `tensor`'s shape is `expected`.
fn expect_shape(tensor: &'static str, got: &[usize], expected: [usize; 2]) -> tessel::Result<()> {
    match got == expected {
        true => Ok(()),
        false => Err(Error::ShapeMismatch { tensor, expected: expected.to_vec(), got: got.to_vec() }),
    }
}

/// A 1-D `tensor` has at least `len` elements (the counters a launch may use).
fn expect_len(tensor: &'static str, got: &[usize], len: usize) -> tessel::Result<()> {
    match got {
        [n] if *n >= len => Ok(()),
        _ => Err(Error::ShapeMismatch { tensor, expected: vec![len], got: got.to_vec() }),
    }
}

/// Host tensors, one per rank: `world` of them, all of rank 0's shape (which is returned).
fn per_rank<'a, T: tessel::Element>(
    argument: &'static str,
    world: usize,
    tensors: &'a [HostTensor<T>],
) -> tessel::Result<&'a [usize]> {
    let Some(first) = tensors.first() else {
        let reason = "no tensors: one per rank, of 1, 2, 4 or 8 ranks".to_string();
        return Err(Error::InvalidArgument { argument, reason });
    };
    if tensors.len() != world {
        return Err(Error::RankCount { argument, expected: world, got: tensors.len() });
    }
    for (rank, t) in tensors.iter().enumerate() {
        if t.shape() != first.shape() {
            let (expected, got) = (first.shape().to_vec(), t.shape().to_vec());
            return Err(Error::RankShape { argument, rank, expected, got });
        }
    }
    Ok(first.shape())
}

/// Every GPU of `group` has an SM for each program of the instances: otherwise some programs would
/// wait for others that cannot start until they finish.
fn check_sms(group: &DeviceGroup) -> tessel::Result<()> {
    for device in group.devices() {
        let sms = device.context().attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
        if usize::try_from(sms).is_ok_and(|sms| sms < PROGRAMS) {
            let reason = format!(
                "the collective GEMMs run {PROGRAMS} programs per GPU, all at once, but {} (device {}) has {sms} SMs",
                device.name(),
                device.ordinal()
            );
            return Err(Error::InvalidArgument { argument: "group", reason });
        }
    }
    Ok(())
}

/// C = all_gather(A) @ B on every GPU of `group` (rank `r`'s tensors on `group.device(r)`): `a[r]`
/// holds rank r's M / W rows of A (`M / W x K`, M / W a multiple of 128), `b[r]` its `K x N`
/// columns of the weight, `c[r]` receives its `M x N` product; `buffers.gathered()` ends with
/// all_gather(A) on every rank. The tiles are [`Tiles::chosen`]'s. Asynchronous, as launches are.
pub fn all_gather_matmul_bf16(
    group: &DeviceGroup,
    a: &[DeviceTensor<bf16>],
    b: &[DeviceTensor<bf16>],
    c: &mut [DeviceTensor<bf16>],
    buffers: &mut AllGatherBuffers,
) -> tessel::Result<()> {
    let p = Problem::all_gather(group.len(), group.check_per_rank("a", a)?, group.check_per_rank("b", b)?)?;
    all_gather_matmul_bf16_with(Tiles::chosen(p.rows, p.n), group, a, b, c, buffers)
}

/// [`all_gather_matmul_bf16`] with the tiles given.
pub fn all_gather_matmul_bf16_with(
    tiles: Tiles,
    group: &DeviceGroup,
    a: &[DeviceTensor<bf16>],
    b: &[DeviceTensor<bf16>],
    c: &mut [DeviceTensor<bf16>],
    buffers: &mut AllGatherBuffers,
) -> tessel::Result<()> {
    let p = Problem::all_gather(group.len(), group.check_per_rank("a", a)?, group.check_per_rank("b", b)?)?;
    expect_shape("c", group.check_per_rank("c", c)?, [p.m(), p.n])?;
    buffers.check(group, p)?;
    check_sms(group)?;
    let (gathered, sems) = buffers.parts();
    with_instance!(all_gather_matmul, p.world, tiles, |K| K::launch(group, a, b, gathered, c, sems))
}

/// [`all_gather_matmul_bf16`] in the interpreter, with the tiles the GPU would take: one tensor
/// per rank in each slice; returns each rank's `gathered` (all_gather(A)).
pub fn interpret_all_gather_matmul_bf16(
    a: &[HostTensor<bf16>],
    b: &[HostTensor<bf16>],
    c: &mut [HostTensor<bf16>],
) -> tessel::Result<Vec<HostTensor<bf16>>> {
    let p = Problem::all_gather(a.len(), per_rank("a", a.len(), a)?, per_rank("b", a.len(), b)?)?;
    let (mut gathered, mut sems) = AllGatherBuffers::on_host(p)?;
    interpret_all_gather_matmul_bf16_with(Tiles::chosen(p.rows, p.n), a, b, &mut gathered, c, &mut sems)?;
    Ok(gathered)
}

/// [`interpret_all_gather_matmul_bf16`] with the tiles and the buffers given (`gathered`: `M x K`,
/// `sems`: [`AllGatherBuffers::counters`] counters at zero, per rank).
pub fn interpret_all_gather_matmul_bf16_with(
    tiles: Tiles,
    a: &[HostTensor<bf16>],
    b: &[HostTensor<bf16>],
    gathered: &mut [HostTensor<bf16>],
    c: &mut [HostTensor<bf16>],
    sems: &mut [HostTensor<u32>],
) -> tessel::Result<()> {
    let world = a.len();
    let p = Problem::all_gather(world, per_rank("a", world, a)?, per_rank("b", world, b)?)?;
    expect_shape("c", per_rank("c", world, c)?, [p.m(), p.n])?;
    expect_shape("gathered", per_rank("gathered", world, gathered)?, [p.m(), p.k])?;
    expect_len("sems", per_rank("sems", world, sems)?, AllGatherBuffers::counters(p.m()))?;
    with_instance!(all_gather_matmul, p.world, tiles, |K| K::interpret(a, b, gathered, c, sems))
}

/// Rank r's rows `r M / W ..` of the sum over the ranks of A @ B, on every GPU of `group`: `a[r]`
/// is rank r's `M x K` (its share of the contraction; M / W a multiple of 128), `b[r]` its `K x N`,
/// `out[r]` receives its `M / W x N` rows of the sum. The tiles are [`Tiles::chosen`]'s.
/// Asynchronous, as launches are.
pub fn matmul_reduce_scatter_bf16(
    group: &DeviceGroup,
    a: &[DeviceTensor<bf16>],
    b: &[DeviceTensor<bf16>],
    out: &mut [DeviceTensor<bf16>],
    buffers: &mut ReduceScatterBuffers,
) -> tessel::Result<()> {
    let p = Problem::reduce_scatter(group.len(), group.check_per_rank("a", a)?, group.check_per_rank("b", b)?)?;
    matmul_reduce_scatter_bf16_with(Tiles::chosen(p.rows, p.n), group, a, b, out, buffers)
}

/// [`matmul_reduce_scatter_bf16`] with the tiles given.
pub fn matmul_reduce_scatter_bf16_with(
    tiles: Tiles,
    group: &DeviceGroup,
    a: &[DeviceTensor<bf16>],
    b: &[DeviceTensor<bf16>],
    out: &mut [DeviceTensor<bf16>],
    buffers: &mut ReduceScatterBuffers,
) -> tessel::Result<()> {
    let p = Problem::reduce_scatter(group.len(), group.check_per_rank("a", a)?, group.check_per_rank("b", b)?)?;
    expect_shape("out", group.check_per_rank("out", out)?, [p.rows, p.n])?;
    buffers.check(group, p)?;
    check_sms(group)?;
    let (partial, sems) = buffers.parts();
    with_instance!(matmul_reduce_scatter, p.world, tiles, |K| K::launch(group, a, b, partial, out, sems))
}

/// [`matmul_reduce_scatter_bf16`] in the interpreter, with the tiles the GPU would take.
pub fn interpret_matmul_reduce_scatter_bf16(
    a: &[HostTensor<bf16>],
    b: &[HostTensor<bf16>],
    out: &mut [HostTensor<bf16>],
) -> tessel::Result<()> {
    let p = Problem::reduce_scatter(a.len(), per_rank("a", a.len(), a)?, per_rank("b", a.len(), b)?)?;
    let (mut partial, mut sems) = ReduceScatterBuffers::on_host(p)?;
    interpret_matmul_reduce_scatter_bf16_with(Tiles::chosen(p.rows, p.n), a, b, &mut partial, out, &mut sems)
}

/// [`interpret_matmul_reduce_scatter_bf16`] with the tiles and the buffers given (`partial`:
/// `M x N`, `sems`: [`ReduceScatterBuffers::counters`] counters at zero, per rank).
pub fn interpret_matmul_reduce_scatter_bf16_with(
    tiles: Tiles,
    a: &[HostTensor<bf16>],
    b: &[HostTensor<bf16>],
    partial: &mut [HostTensor<bf16>],
    out: &mut [HostTensor<bf16>],
    sems: &mut [HostTensor<u32>],
) -> tessel::Result<()> {
    let world = a.len();
    let p = Problem::reduce_scatter(world, per_rank("a", world, a)?, per_rank("b", world, b)?)?;
    expect_shape("out", per_rank("out", world, out)?, [p.rows, p.n])?;
    expect_shape("partial", per_rank("partial", world, partial)?, [p.m(), p.n])?;
    expect_len("sems", per_rank("sems", world, sems)?, ReduceScatterBuffers::counters(p.m(), p.n))?;
    with_instance!(matmul_reduce_scatter, p.world, tiles, |K| K::interpret(a, b, partial, out, sems))
}
