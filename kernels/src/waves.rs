//! Choosing a GEMM's tile size by the waves it makes on the GPU's 132 SMs, the skinny kernel for
//! a decoding-sized M ([`skinny`]), and the split of K for a few tiles over a long K
//! ([`split_ways`]).
//!
//! A persistent GEMM takes as long as its busiest program: `ceil(tiles / 132)` tiles, each taking
//! a time that grows with the tile's area, less than in proportion for small tiles. Wide tiles
//! (128 x 256) are the most efficient; a shape whose wide tiles leave the last wave part-empty
//! may finish sooner in smaller tiles that fill it. The relative times below were measured on
//! the H200: a 128 x 128 tile takes 0.52 of a wide one at 4096^3, where every kernel has work for
//! all SMs, and 0.53-0.55 at 1536 x 4096 x 4096, 2304 x 2048 x 4096 and 2560 x 4096 x 4096 (its
//! epilogue overlapped with the next tile's first wgmmas, but its operands read from shared
//! memory for half the work): 0.54 here; a 128 x 64 tile 0.36 (4096^3, bf16 and fp8); a 128 x 192
//! tile 0.78-0.82 (1536 x 4096 x 4096, 2304 x 2048 x 4096, 1152 x 2048 x 4096, 1536 x 2112 x 8192):
//! 0.79. Measured with `BENCH_VARIANTS` (`bench/results/waves/`, `bench/results/ragged/`), the
//! model picks the fastest kernel on each of those shapes, in bf16, f16, fp8, int8 and the linear
//! layer: 128 x 192 tiles at 1152 x 2048 x 4096 (1.26x wide ones), 1536 x 4096 x 4096 and 2304 x
//! 2048 x 4096 (2-4% ahead of 128 x 128 ones), 128 x 128 at 2560 x 4096 x 4096 (1.12x wide ones,
//! 1.1x 128 x 192 ones) and 1024 x 2048 x 8192 (1.36x 128 x 64 ones); 2048^3 and 4096^3 wide.
//! (Before the 128 x 192 tiles, with 0.52 for 128 x 128 ones, it picked those at 1536 x 4096 x
//! 4096.)

/// The SMs of an H100 / H200, one persistent program on each.
pub const SMS: usize = 132;

/// The tile sizes of the persistent GEMMs (all 128 rows high), which every dispatcher has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tiles {
    /// 128 x 256 tiles.
    Wide,
    /// 128 x 192 tiles (four stages): where wide tiles leave SMs idle and these do not make
    /// another wave.
    Mid,
    /// 128 x 128 tiles taking turns in the accumulator, so that each tile's epilogue runs under
    /// the next one's first wgmmas: where wide tiles leave the last wave part-empty, or waste
    /// much of a last, partial column of tiles.
    Overlapped,
    /// 128 x 64 tiles with eight stages, for skinny shapes.
    Narrow,
}

impl Tiles {
    /// Widest first.
    pub const ALL: [Tiles; 4] = [Tiles::Wide, Tiles::Mid, Tiles::Overlapped, Tiles::Narrow];

    /// The tile's width (N).
    pub fn width(self) -> usize {
        match self {
            Tiles::Wide => 256,
            Tiles::Mid => 192,
            Tiles::Overlapped => 128,
            Tiles::Narrow => 64,
        }
    }

    /// A tile's time, in wide tiles' (measured: see the module documentation).
    pub fn time(self) -> f64 {
        match self {
            Tiles::Wide => 1.0,
            Tiles::Mid => 0.79,
            Tiles::Overlapped => 0.54,
            Tiles::Narrow => 0.36,
        }
    }

    /// The tile size an environment variable or `BENCH_VARIANTS` names: `wide`, `mid`,
    /// `overlapped` or `narrow`.
    pub fn named(name: &str) -> Option<Tiles> {
        Tiles::ALL.into_iter().find(|t| format!("{t:?}").to_lowercase() == name.trim())
    }
}

/// The tile size whose busiest program finishes first for an M x N output (the wider on a tie).
/// The last row and column of tiles may overhang the output: they take a whole tile's time.
pub fn fastest(m: usize, n: usize) -> Tiles {
    let time = |t: &Tiles| (m.div_ceil(128) * n.div_ceil(t.width())).div_ceil(SMS) as f64 * t.time();
    Tiles::ALL.into_iter().min_by(|x, y| time(x).total_cmp(&time(y))).unwrap_or(Tiles::Wide)
}

/// How many rows of A a skinny program multiplies (the wgmma's N): the fewest that cover M.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rows {
    /// 16 rows: M <= 16.
    R16,
    /// 32 rows: M <= 32.
    R32,
    /// 64 rows: M <= 64.
    R64,
}

/// How a skinny kernel spreads the work of a row of tiles over programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spread {
    /// One 64-column slab of B per program, all of K.
    One,
    /// Two slabs per program (a consumer warpgroup each), all of K: where one per program would
    /// make more programs than SMs.
    Two,
    /// One slab per program, K split between the two programs of a 2 x 1 cluster: where one per
    /// program would leave SMs idle.
    SplitK2,
    /// One slab per program, K split between the four programs of a 4 x 1 cluster.
    SplitK4,
}

/// The skinny kernel a name chooses: `skinny`, its rows, then `x2`, `k2`, `k4` or nothing
/// (`skinny16`, `skinny64x2`, `skinny32k4`).
pub fn skinny_named(name: &str) -> Option<(Rows, Spread)> {
    let name = name.trim().strip_prefix("skinny")?;
    let digits = name.find(|c: char| !c.is_ascii_digit()).unwrap_or(name.len());
    let rows = match &name[..digits] {
        "16" => Rows::R16,
        "32" => Rows::R32,
        "64" => Rows::R64,
        _ => return None,
    };
    let spread = match &name[digits..] {
        "" => Spread::One,
        "x2" => Spread::Two,
        "k2" => Spread::SplitK2,
        "k4" => Spread::SplitK4,
        _ => return None,
    };
    Some((rows, spread))
}

/// The skinny kernel for M <= 64 rows of `elem_bytes`-byte operands: the fewest rows that cover
/// M (16 rows at M = 1 leave stages for 10% more of B in flight than 32); a program per
/// 64-column slab of B, two slabs per program where that would make more programs than SMs, and
/// K split across 2 or 4 programs while the programs would number 64 at most (if each share
/// keeps two 128-wide steps), or, for 8-bit operands and a K of 64 steps or more, across 2
/// programs while they fit the SMs. Measured on the H200 (`bench/results/skinny/`): at 64 slabs
/// (N = 4096), one slab per program is as fast as two programs sharing K in bf16 (1% either way
/// at K = 8192 and 14336, 8% faster at K = 4096), while 8-bit programs sharing K are 6% faster
/// at K = 8192 and 9-14% at 14336; at 32 slabs (N = 2048), split K is 1.4x faster.
pub fn skinny(m: usize, n: usize, k: usize, elem_bytes: usize) -> (Rows, Spread) {
    let rows = match m {
        0..=16 => Rows::R16,
        17..=32 => Rows::R32,
        _ => Rows::R64,
    };
    let (slabs, steps) = (n.div_ceil(64), k.div_ceil(128));
    let long_k = elem_bytes == 1 && steps >= 64;
    let spread = if slabs > SMS {
        Spread::Two
    } else if 4 * slabs <= 64 && steps >= 8 {
        Spread::SplitK4
    } else if (2 * slabs <= 64 && steps >= 4) || (2 * slabs <= SMS && long_k) {
        Spread::SplitK2
    } else {
        Spread::One
    };
    (rows, spread)
}

/// Axis `axis` of a shape; 0 where a tensor of the wrong rank lacks it, which the kernel's launch
/// then reports (`Error::ShapeRank`), whatever kernel the dispatcher picked from it.
pub fn dim(shape: &[usize], axis: usize) -> usize {
    shape.get(axis).copied().unwrap_or(0)
}

/// The most programs per tile a split-K kernel takes: four times the most [`split_ways`] picks.
pub const MAX_SPLIT_WAYS: usize = 32;

/// `ways`, the programs per tile of a split-K kernel, as the kernel takes it: 2 to
/// [`MAX_SPLIT_WAYS`].
pub fn split_ways_arg(ways: usize) -> tessel::Result<i32> {
    match i32::try_from(ways) {
        Ok(arg) if (2..=MAX_SPLIT_WAYS).contains(&ways) => Ok(arg),
        _ => Err(tessel::Error::InvalidArgument {
            argument: "variant",
            reason: format!("Split({ways}): K splits into 2 to {MAX_SPLIT_WAYS} programs per tile"),
        }),
    }
}

/// The most programs per tile [`split_ways`] chooses.
const MAX_CHOSEN_WAYS: usize = 8;

/// What a split-K program streams into its SM, bytes per microsecond (100 GB/s: how its time grew
/// with its share of K on the H200).
const SPLIT_SM_BYTES_PER_US: f64 = 100e3;

/// What each program of the launch adds to the exchange of the sums, microseconds: all of them
/// store their sums and copy in their slices at once, 128 KiB each through L2. Measured on the
/// H200: beyond the shares, a split's time grew by about 0.05 us per program whatever the tiles
/// (8, 16 or 32) and ways.
const SPLIT_PROGRAM_US: f64 = 0.05;

/// How many programs share each 128 x 128 tile's K (`elem_bytes` the operands' size), where M is
/// above 64 rows (the skinny kernels' below), a row of K holds 8 KiB or more and three programs
/// per tile fit in the SMs (with 45 to 66 tiles the 128 x 64 ones are faster): the count, 2 to 8,
/// whose programs finish first by a model of their time: a program's share of A and B streamed
/// at its SM's rate, plus the exchange of the sums, which grows with the programs of the launch.
/// Every program keeps two steps of K (128 bytes of a row each), and the programs fit in the SMs
/// at once (the exchange needs them all running).
///
/// HBM does not bound the model: where B's stream from it was the longer (N = 4096, K >= 8192),
/// more programs were faster all the same (4 ways 1.05-1.15x 3 ways at 80-128 x 4096 x 14336).
/// Measured on the H200 (`bench/results/semaphores/ways-*.txt`), 2 to 16 ways on 14 shapes of
/// 80-256 rows, N = 1024-4096, K = 4096-14336, in bf16, fp8, int8 and the linear layer: the
/// model's choice was the fastest on 46 of 56, within 5.6% of it on the others (0.5% on
/// average; measured with an exchange that also signalled each program's own semaphore, not yet
/// with this one). Against the 128 x 64 tiles, the splits won by 10-45% with 16 tiles or fewer
/// or a long K, and lost with shorter rows of K (the tiles 13% faster at 128 x 4096 x 4096
/// 8-bit, 15-30% at 128 x 4096 x 1024-2048 bf16) and with 64 tiles (128 x 8192 x 8192: the
/// tiles 7% faster in bf16, 8-14% in 8-bit, 5% in the linear layer).
pub fn split_ways(m: usize, n: usize, k: usize, elem_bytes: usize) -> Option<usize> {
    let tiles = m.div_ceil(128) * n.div_ceil(128);
    if m <= 64 || k * elem_bytes < 8 << 10 || 3 * tiles > SMS {
        return None;
    }
    let steps = k * elem_bytes / 128;
    let time = |ways: usize| {
        let share = (256 * k * elem_bytes) as f64 / ways as f64 / SPLIT_SM_BYTES_PER_US;
        share + (ways * tiles) as f64 * SPLIT_PROGRAM_US
    };
    (2..=MAX_CHOSEN_WAYS)
        .filter(|&ways| ways * tiles <= SMS && steps >= 2 * ways)
        .min_by(|&x, &y| time(x).total_cmp(&time(y)))
}

/// The kernels every dispatcher has: one per tile size, the split-K one and the skinny ones (the
/// quantized GEMMs' and the linear layer's variants; the bf16 GEMM's `Variant` adds one more).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// 128 x 256 tiles.
    Wide,
    /// 128 x 192 tiles.
    Mid,
    /// 128 x 128 tiles taking turns in the accumulator.
    Overlapped,
    /// 128 x 64 tiles with eight stages.
    Narrow,
    /// 128 x 128 tiles, K split between this many programs per tile, which hand each other their
    /// sums through global memory (`workspace.rs`): for more than 64 rows, few tiles and a long K
    /// ([`split_ways`]).
    Split(usize),
    /// Decoding-sized M: the transposed product, 64-row slabs of the weights streamed through
    /// deep rings ([`skinny`]).
    Skinny(Rows, Spread),
}

impl Kernel {
    /// The kernel a name chooses: a tile size (`wide`, `mid`, `overlapped`, `narrow`), a split
    /// of K (`split`: 2 ways, `split3` .. `split32`) or a skinny kernel (`skinny16`, `skinny64x2`,
    /// `skinny32k4`: [`skinny_named`]).
    pub fn named(name: &str) -> Option<Kernel> {
        let name = name.trim();
        if let Some(ways) = name.strip_prefix("split") {
            let ways = if ways.is_empty() { Some(2) } else { ways.parse().ok() };
            return ways.filter(|&ways| split_ways_arg(ways).is_ok()).map(Kernel::Split);
        }
        let skinny = skinny_named(name).map(|(rows, spread)| Kernel::Skinny(rows, spread));
        skinny.or_else(|| Tiles::named(name).map(Kernel::from))
    }

    /// A skinny kernel for M <= 64 ([`skinny`], `elem_bytes` the operands' size), a split of K
    /// where few tiles would leave SMs idle and K is long ([`split_ways`]), otherwise the tiles
    /// whose waves finish first ([`fastest`]).
    pub fn choose(m: usize, n: usize, k: usize, elem_bytes: usize) -> Kernel {
        if m <= 64 {
            let (rows, spread) = skinny(m, n, k, elem_bytes);
            return Kernel::Skinny(rows, spread);
        }
        match split_ways(m, n, k, elem_bytes) {
            Some(ways) => Kernel::Split(ways),
            None => fastest(m, n).into(),
        }
    }
}

impl From<Tiles> for Kernel {
    fn from(t: Tiles) -> Kernel {
        match t {
            Tiles::Wide => Kernel::Wide,
            Tiles::Mid => Kernel::Mid,
            Tiles::Overlapped => Kernel::Overlapped,
            Tiles::Narrow => Kernel::Narrow,
        }
    }
}
