//! Choosing a GEMM's tile size by the waves it makes on the GPU's 132 SMs.
//!
//! A persistent GEMM takes as long as its busiest program: `ceil(tiles / 132)` tiles, each taking
//! a time that grows with the tile's area, less than in proportion for small tiles. Wide tiles
//! (128 x 256) are the most efficient; a shape whose wide tiles leave the last wave part-empty
//! may finish sooner in smaller tiles that fill it. The relative times below were measured on
//! the H200 at 4096^3, where every kernel has work for all SMs: a 128 x 128 tile takes 0.52 of a
//! wide one (its epilogue overlapped with the next tile's first wgmmas, but its operands read
//! from shared memory for half the work), a 128 x 64 tile 0.36 (bf16 1.48 and fp8 1.43 times
//! wide tiles' total time); and a 128 x 192 tile 0.8 (bf16 at 1536 x 2112 x 8192, one wave of
//! each: 0.82; 0.79 at 1152 x 2048 x 4096). With the first three the model picked the faster
//! kernel on every shape measured with `BENCH_VARIANTS` (`bench/results/waves/`): 1536 x 4096 x
//! 4096 in 128 x 128 tiles 1.24x faster than wide ones, 2560 x 4096 x 4096 1.12x, 1024 x 2048 x
//! 8192 1.36x faster than 128 x 64 ones; 2048^3 and 4096^3 wide, within 1% of or ahead of the
//! others. With 128 x 192 tiles (`bench/results/ragged/`): 1152 x 2048 x 4096 in them, 1.26x faster
//! than wide ones; at 2304 x 2048 x 4096 the model's 128 x 128 tiles measured 2% behind them.

/// The SMs of an H100 / H200, one persistent program on each.
pub const SMS: usize = 132;

/// A kernel choice: its tile width (tiles are 128 rows high) and a tile's time, in wide tiles'.
pub struct Tiles<V> {
    pub variant: V,
    pub width: usize,
    pub time: f64,
}

/// The kernels of a dispatcher, widest first: wide, mid 128 x 192, overlapped 128 x 128, narrow
/// 128 x 64.
pub fn candidates<V>(wide: V, mid: V, overlapped: V, narrow: V) -> [Tiles<V>; 4] {
    [
        Tiles { variant: wide, width: 256, time: 1.0 },
        Tiles { variant: mid, width: 192, time: 0.8 },
        Tiles { variant: overlapped, width: 128, time: 0.52 },
        Tiles { variant: narrow, width: 64, time: 0.36 },
    ]
}

/// The kernel whose busiest program finishes first for an M x N output (the wider on a tie). The
/// last row and column of tiles may overhang the output: they take a whole tile's time.
pub fn fastest<V: Copy>(m: usize, n: usize, kernels: &[Tiles<V>; 4]) -> V {
    let time = |t: &Tiles<V>| (m.div_ceil(128) * n.div_ceil(t.width)).div_ceil(SMS) as f64 * t.time;
    let best = kernels.iter().min_by(|x, y| time(x).total_cmp(&time(y)));
    best.unwrap_or(&kernels[0]).variant
}
