//! The benchmarks' inputs: N(0,1) samples from fixed seeds (never zeros: a matrix product on zeros
//! runs measurably faster than on real data).

/// `len` N(0,1) values (Box-Muller over splitmix64), each passed through `map` (the element type's
/// rounding, or a quantization), the same for a seed whatever the thread count: each chunk has its
/// own stream. Threads, because the largest shapes need 2^28 values per dtype.
pub fn randn<T: Copy + Default + Send>(len: usize, seed: u64, map: impl Fn(f64) -> T + Copy + Send) -> Vec<T> {
    const CHUNK: usize = 1 << 16;
    let mut out = vec![T::default(); len];
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut shares: Vec<Vec<(usize, &mut [T])>> = (0..threads).map(|_| Vec::new()).collect();
    for (index, chunk) in out.chunks_mut(CHUNK).enumerate() {
        shares[index % threads].push((index, chunk));
    }
    std::thread::scope(|scope| {
        for share in shares {
            scope.spawn(move || {
                for (index, chunk) in share {
                    fill_normal(chunk, seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ index as u64, map);
                }
            });
        }
    });
    out
}

fn fill_normal<T>(chunk: &mut [T], seed: u64, map: impl Fn(f64) -> T) {
    let mut state = seed;
    let mut uniform = move || {
        // splitmix64 (Steele, Lea, Flood 2014), top 53 bits, in (0, 1) so that ln() is finite.
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64 + 0.5 / (1u64 << 53) as f64
    };
    for pair in chunk.chunks_mut(2) {
        let (radius, angle) = ((-2.0 * uniform().ln()).sqrt(), std::f64::consts::TAU * uniform());
        pair[0] = map(radius * angle.cos());
        if let Some(second) = pair.get_mut(1) {
            *second = map(radius * angle.sin());
        }
    }
}
