//! Choosing a GEMM's tile size by the waves it makes on the GPU's 132 SMs.
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
