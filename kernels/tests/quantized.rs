//! The quantized GEMMs of the examples (`kernels/src/quantized.rs`): every element against an
//! f64 reference in the interpreter (and, with `--ignored` on the GPU machine, on the GPU against
//! the reference and the interpreter), and the shapes the launch refuses.

use crate::common;

use tessel_kernels::quantized as kernels;

use common::{assert_close, values, Rng, SKINNY};
use kernels::*;
use tessel::prelude::*;
use tessel::Element;
use tessel_kernels::waves::{Rows, Spread};

/// bf16 output: half an ulp (at most 2^-8 of a value) on top of the accumulation and two f32
/// multiplies, relative to the largest element.
const TOLERANCE: f64 = 5e-3;
/// Two bf16 results may round to neighbouring values: one ulp, at most 2^-7 of a value.
const ONE_ULP: f64 = 1.0 / 128.0;

/// A (M x K), W (N x K), per-row and per-column scales, as the kernels take them.
struct Inputs<T: Element> {
    a: HostTensor<T>,
    w: HostTensor<T>,
    a_scale: HostTensor<f32>,
    w_scale: HostTensor<f32>,
}

impl<T: Element> Inputs<T> {
    /// N(0, `spread`) operands rounded to `T` (integers saturate), and scales in [0.5, 1.5) of
    /// `scale`, different for every row and column.
    fn new(m: usize, n: usize, k: usize, spread: f64, scale: f64, seed: u64) -> Inputs<T> {
        let mut rng = Rng::new(seed);
        let (a, w) = (rng.tensor::<T>(&[m, k], spread), rng.tensor::<T>(&[n, k], spread));
        let mut scales =
            |len: usize| HostTensor::from_fn([len], |_| (scale * (1.0 + 0.25 * rng.normal().tanh())) as f32);
        let (a_scale, w_scale) = (scales(m).unwrap(), scales(n).unwrap());
        Inputs { a, w, a_scale, w_scale }
    }

    fn shape(&self) -> (usize, usize, usize) {
        (self.a.shape()[0], self.w.shape()[0], self.a.shape()[1])
    }

    /// C[i, j] = a_scale[i] w_scale[j] sum_p A[i, p] W[j, p], in f64.
    fn reference(&self) -> Vec<f64> {
        let (m, n, k) = self.shape();
        let (a, w) = (values(&self.a), values(&self.w));
        let mut c = vec![0.0; m * n];
        for i in 0..m {
            for j in 0..n {
                let dot: f64 = (0..k).map(|p| a[i * k + p] * w[j * k + p]).sum();
                c[i * n + j] = f64::from(self.a_scale.data()[i]) * f64::from(self.w_scale.data()[j]) * dot;
            }
        }
        c
    }

    /// A C of the right shape, poisoned, for the kernel to overwrite.
    fn output(&self) -> HostTensor<bf16> {
        let (m, n, _) = self.shape();
        HostTensor::new([m, n], vec![bf16::NAN; m * n]).unwrap()
    }
}

/// Interprets `kernel` (an instance's `interpret`) on `inputs` and checks every element against
/// the f64 reference.
fn interpreted<T: Element>(
    kernel: impl Fn(&HostTensor<T>, &HostTensor<T>, &HostTensor<f32>, &HostTensor<f32>, &mut HostTensor<bf16>) -> Result<()>,
    inputs: Inputs<T>,
) {
    let (m, n, k) = inputs.shape();
    let mut c = inputs.output();
    kernel(&inputs.a, &inputs.w, &inputs.a_scale, &inputs.w_scale, &mut c).unwrap();
    let what = format!("{} {m} x {n} x {k} in the interpreter", std::any::type_name_of_val(&kernel));
    assert_close(&what, &values(&c), &inputs.reference(), TOLERANCE);
}

/// The fp8 and int8 dispatchers, by operand type.
trait Operand: Element {
    /// Whether the GPU's C is the interpreter's bit for bit: int8's i32 sums are exact in any
    /// order; fp8's WGMMAs accumulate with fewer bits than f32 (as cuBLASLt's fast accumulation
    /// does) where the interpreter sums exactly, so within one bf16 ulp.
    const EXACT: bool;

    /// Variant `v` on the GPU.
    fn launch(
        v: Variant,
        dev: &Device,
        t: &[DeviceTensor<Self>; 2],
        s: &[DeviceTensor<f32>; 2],
        c: &mut DeviceTensor<bf16>,
    ) -> Result<()>;

    /// Variant `v` in the interpreter.
    fn interpret(v: Variant, inputs: &Inputs<Self>, c: &mut HostTensor<bf16>) -> Result<()>;
}

impl Operand for F8E4M3 {
    const EXACT: bool = false;

    fn launch(
        v: Variant,
        dev: &Device,
        [a, w]: &[DeviceTensor<Self>; 2],
        [sa, sw]: &[DeviceTensor<f32>; 2],
        c: &mut DeviceTensor<bf16>,
    ) -> Result<()> {
        kernels::fp8_matmul_variant(v, dev, a, w, sa, sw, c)
    }

    fn interpret(v: Variant, i: &Inputs<Self>, c: &mut HostTensor<bf16>) -> Result<()> {
        kernels::interpret_fp8_matmul_variant(v, &i.a, &i.w, &i.a_scale, &i.w_scale, c)
    }
}

impl Operand for i8 {
    const EXACT: bool = true;

    fn launch(
        v: Variant,
        dev: &Device,
        [a, w]: &[DeviceTensor<Self>; 2],
        [sa, sw]: &[DeviceTensor<f32>; 2],
        c: &mut DeviceTensor<bf16>,
    ) -> Result<()> {
        kernels::i8_matmul_variant(v, dev, a, w, sa, sw, c)
    }

    fn interpret(v: Variant, i: &Inputs<Self>, c: &mut HostTensor<bf16>) -> Result<()> {
        kernels::interpret_i8_matmul_variant(v, &i.a, &i.w, &i.a_scale, &i.w_scale, c)
    }
}

#[test]
fn fp8_matches_the_reference() {
    // 2 x 2 tiles, 2 steps of K; then 9 tile rows (a GROUP of 8 and a remainder of 1) and 3 steps.
    interpreted(scaled_matmul::<f8e4m3, f32, 256, 3>::interpret, Inputs::<F8E4M3>::new(256, 512, 256, 1.0, 0.01, 1));
    interpreted(scaled_matmul::<f8e4m3, f32, 256, 3>::interpret, Inputs::<F8E4M3>::new(1152, 256, 384, 4.0, 0.5, 2));
}

#[test]
fn int8_matches_the_reference() {
    // Values across the whole int8 range (N(0, 50) saturates at +-127 now and then).
    interpreted(scaled_matmul::<i8, i32, 256, 3>::interpret, Inputs::<i8>::new(256, 512, 256, 50.0, 1e-4, 3));
    interpreted(scaled_matmul::<i8, i32, 256, 3>::interpret, Inputs::<i8>::new(1152, 256, 128, 50.0, 1e-4, 4));
}

#[test]
fn a_half_tile_of_rows_is_computed_and_nothing_beyond() {
    // M = 192: the second tile row's upper half is in A and C, its lower half outside both.
    interpreted(scaled_matmul::<f8e4m3, f32, 256, 3>::interpret, Inputs::<F8E4M3>::new(192, 256, 128, 1.0, 1.0, 5));
    interpreted(scaled_matmul::<i8, i32, 256, 3>::interpret, Inputs::<i8>::new(320, 256, 256, 50.0, 1e-3, 6));
}

#[test]
fn each_shape_gets_its_kernel() {
    let pick = |m: usize, n: usize, k: usize| choose(Some(&m), Some(&n), Some(&k));
    // The tiles whose waves finish first (kernels/src/waves.rs): wide ones where their waves are full
    // or nearly, 128 x 192 or 128 x 128 ones where those finish sooner (also where they waste
    // less of a partial last column of tiles), 128 x 64 ones for the skinniest shapes.
    assert_eq!(pick(4096, 4096, 4096), Variant::Wide);
    assert_eq!(pick(512, 8192, 8192), Variant::Wide);
    assert_eq!(pick(1536, 4096, 4096), Variant::Mid);
    assert_eq!(pick(2560, 4096, 4096), Variant::Overlapped);
    assert_eq!(pick(256, 8192, 8192), Variant::Overlapped);
    assert_eq!(pick(4096, 4224, 4096), Variant::Overlapped);
    assert_eq!(pick(4096, 4160, 4096), Variant::Overlapped);
    assert_eq!(pick(128, 4096, 4096), Variant::Narrow);
    assert_eq!(pick(1152, 2048, 4096), Variant::Mid);
    // Few tiles and a row of K of 8 KiB or more: K split over the programs of 128 x 128 tiles,
    // as many per tile as a model of their time says (kernels/src/waves.rs, `split_ways`); a shorter
    // row keeps the tiles.
    assert_eq!(pick(80, 4096, 14336), Variant::Split(4));
    assert_eq!(pick(128, 1024, 14336), Variant::Split(8));
    assert_eq!(pick(128, 2048, 8192), Variant::Split(5));
    // Decoding-sized M: the skinny kernels (kernels/src/waves.rs, `skinny`), rows to cover M; two
    // slabs of W per program where one would make more programs than SMs; K split where they
    // would leave most SMs idle.
    assert_eq!(pick(1, 8192, 8192), Variant::Skinny(Rows::R16, Spread::One));
    assert_eq!(pick(32, 4096, 4096), Variant::Skinny(Rows::R32, Spread::One));
    // 8-bit programs sharing a long K two ways are faster, while they fit the SMs.
    assert_eq!(pick(32, 4096, 14336), Variant::Skinny(Rows::R32, Spread::SplitK2));
    assert_eq!(pick(1, 8192, 8192), Variant::Skinny(Rows::R16, Spread::One));
    assert_eq!(pick(64, 14336, 4096), Variant::Skinny(Rows::R64, Spread::Two));
    assert_eq!(pick(16, 2048, 8192), Variant::Skinny(Rows::R16, Spread::SplitK2));
    assert_eq!(pick(8, 1024, 4096), Variant::Skinny(Rows::R16, Spread::SplitK4));
    // A missing dimension goes to the wide kernel, whose launch reports it.
    assert_eq!(choose(Some(&128), None, Some(&256)), Variant::Wide);
    // Through the dispatcher: 128 x 256 is one wide tile, so four narrow ones.
    let inputs = Inputs::<F8E4M3>::new(128, 256, 512, 2.0, 1.0, 10);
    let mut c = inputs.output();
    kernels::interpret_fp8_matmul(&inputs.a, &inputs.w, &inputs.a_scale, &inputs.w_scale, &mut c).unwrap();
    assert_close("fp8_matmul 128 x 256 x 512 (narrow)", &values(&c), &inputs.reference(), TOLERANCE);
}

#[test]
fn overlapped_tiles_take_turns_in_the_accumulator() {
    // 2 x 5 tiles of 128 x 128 over 3 programs (4, 3 and 3 tiles: the last result in either half),
    // 2 steps; then 3 tile rows, the last a half one, over 2 programs (2 and 1 tiles).
    interpreted(
        scaled_matmul_overlapped::<f8e4m3, f32, 3>::interpret,
        Inputs::<F8E4M3>::new(256, 640, 256, 1.0, 0.1, 23),
    );
    interpreted(scaled_matmul_overlapped::<i8, i32, 2>::interpret, Inputs::<i8>::new(320, 128, 128, 50.0, 1e-4, 24));
}

#[test]
fn narrow_tiles_match_the_reference() {
    // 128 x 64 tiles: 3 x 3 of them, 2 steps; then a half tile of rows.
    interpreted(scaled_matmul::<f8e4m3, f32, 64, 8>::interpret, Inputs::<F8E4M3>::new(384, 192, 256, 1.0, 0.1, 19));
    interpreted(scaled_matmul::<i8, i32, 64, 8>::interpret, Inputs::<i8>::new(192, 128, 384, 50.0, 1e-4, 20));
}

#[test]
fn partial_tiles_overhang_every_dimension() {
    // M, N and K that no tile size divides (K in 16-byte rows, which TMA needs).
    interpreted(scaled_matmul::<f8e4m3, f32, 256, 3>::interpret, Inputs::<F8E4M3>::new(200, 328, 144, 1.0, 0.1, 7));
    interpreted(scaled_matmul::<i8, i32, 256, 3>::interpret, Inputs::<i8>::new(200, 328, 144, 50.0, 1e-4, 8));
    interpreted(
        scaled_matmul_overlapped::<f8e4m3, f32, 132>::interpret,
        Inputs::<F8E4M3>::new(200, 328, 144, 1.0, 0.1, 9),
    );
    interpreted(scaled_matmul::<i8, i32, 192, 4>::interpret, Inputs::<i8>::new(200, 328, 144, 50.0, 1e-4, 16));
    interpreted(scaled_matmul::<i8, i32, 64, 8>::interpret, Inputs::<i8>::new(1, 8, 16, 50.0, 1e-4, 15));
}

/// Variant `v` of the fp8 and int8 dispatchers in the interpreter, against the f64 reference.
fn interpret_variant(v: Variant, fp8: &Inputs<F8E4M3>, int8: &Inputs<i8>) {
    let (m, n, k) = fp8.shape();
    let mut c = fp8.output();
    F8E4M3::interpret(v, fp8, &mut c).unwrap();
    assert_close(&format!("fp8 {v:?} {m} x {n} x {k}"), &values(&c), &fp8.reference(), TOLERANCE);
    let mut c = int8.output();
    i8::interpret(v, int8, &mut c).unwrap();
    assert_close(&format!("int8 {v:?} {m} x {n} x {k}"), &values(&c), &int8.reference(), TOLERANCE);
}

#[test]
fn skinny_kernels_match_the_reference() {
    // M below and above one program's rows, N overhanging the last slab of W, K in 5 steps of
    // 128 (the last 112 wide), so that split shares differ; each kernel by its name, through the
    // dispatchers.
    let (fp8, int8) =
        (Inputs::<F8E4M3>::new(20, 200, 624, 1.0, 0.1, 40), Inputs::<i8>::new(20, 200, 624, 50.0, 1e-4, 41));
    for name in SKINNY {
        interpret_variant(Variant::named(name).unwrap(), &fp8, &int8);
    }
}

#[test]
fn k_splits_over_programs() {
    // 2 x 2 tiles of 128 x 128, the last overhanging M and N; 9 steps of K, the last 16 wide:
    // shares of 4 and 5 steps (2 ways), 3 (3 ways), 1 and 2 (6 ways).
    let (m, n, k) = (130, 136, 1040);
    let (fp8, int8) = (Inputs::<F8E4M3>::new(m, n, k, 1.0, 0.05, 45), Inputs::<i8>::new(m, n, k, 50.0, 1e-4, 46));
    for ways in [2, 3, 6] {
        interpret_variant(Variant::Split(ways), &fp8, &int8);
    }
    assert_eq!(Variant::named("split3"), Some(Variant::Split(3)));
}

#[test]
fn rows_tma_cannot_stride_are_refused() {
    // A's and W's rows of 100 bytes are not whole 16-byte units.
    let inputs = Inputs::<F8E4M3>::new(128, 256, 100, 1.0, 1.0, 7);
    let mut c = inputs.output();
    let err =
        scaled_matmul::<f8e4m3, f32, 256, 3>::interpret(&inputs.a, &inputs.w, &inputs.a_scale, &inputs.w_scale, &mut c)
            .unwrap_err();
    assert!(matches!(err, Error::Misaligned { .. }), "{err}");
    assert!(c.data().iter().all(|v| v.is_nan()));
}

#[test]
fn scales_of_the_wrong_length_are_errors() {
    let inputs = Inputs::<i8>::new(128, 256, 128, 50.0, 1e-3, 18);
    let short = HostTensor::<f32>::zeros([64]).unwrap();
    let mut c = inputs.output();
    // A row scale per row of A, a column scale per row of W: M and N bind to both.
    let rows = kernels::interpret_i8_matmul(&inputs.a, &inputs.w, &short, &inputs.w_scale, &mut c).unwrap_err();
    let cols = kernels::interpret_i8_matmul(&inputs.a, &inputs.w, &inputs.a_scale, &short, &mut c).unwrap_err();
    for (err, dim) in [(rows, "M"), (cols, "N")] {
        assert!(matches!(err, Error::DimMismatch { .. }), "{err}");
        assert!(err.to_string().contains(dim), "the error should name {dim}: {err}");
    }
    // Nothing was written.
    assert!(c.data().iter().all(|v| v.is_nan()));
}

/// Runs variant `v` on the GPU: every element against the f64 reference, and against the
/// interpreter (bit for bit, or within one bf16 ulp: `Operand::EXACT`).
fn on_the_gpu<T: Operand>(v: Variant, inputs: Inputs<T>) {
    let dev = Device::new(0).expect("an sm_90 GPU");
    let (m, n, k) = inputs.shape();
    let t = [&inputs.a, &inputs.w].map(|t| DeviceTensor::from_host(&dev, t).unwrap());
    let s = [&inputs.a_scale, &inputs.w_scale].map(|t| DeviceTensor::from_host(&dev, t).unwrap());
    let mut c = DeviceTensor::from_host(&dev, &inputs.output()).unwrap();
    T::launch(v, &dev, &t, &s, &mut c).unwrap();
    let got = c.to_host().unwrap();
    let what = format!("{} {v:?} {m} x {n} x {k} on the GPU", std::any::type_name::<T>());
    assert_close(&what, &values(&got), &inputs.reference(), TOLERANCE);
    let mut cpu = inputs.output();
    T::interpret(v, &inputs, &mut cpu).unwrap();
    if T::EXACT {
        assert!(got.data() == cpu.data(), "{what}: differs from the interpreter");
    } else {
        assert_close(&format!("{what} vs the interpreter"), &values(&got), &values(&cpu), ONE_ULP);
    }
    println!("{what}: OK");
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn fp8_on_the_gpu() {
    // 17 x 4 tiles: more than one per program for some programs; a half tile row at the end.
    on_the_gpu(Variant::Wide, Inputs::<F8E4M3>::new(2112, 1024, 1024, 1.0, 0.01, 11));
    on_the_gpu(Variant::Wide, Inputs::<F8E4M3>::new(256, 512, 128, 4.0, 1.0, 12));
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn narrow_on_the_gpu() {
    // 2 x 32 tiles of 128 x 64 on 132 programs; 16 steps of K.
    on_the_gpu(Variant::Narrow, Inputs::<F8E4M3>::new(256, 2048, 2048, 1.0, 0.01, 21));
    on_the_gpu(Variant::Narrow, Inputs::<i8>::new(256, 2048, 2048, 50.0, 1e-4, 22));
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn overlapped_on_the_gpu() {
    // 17 x 16 tiles of 128 x 128 on 132 programs: two or three each, so the last result is in
    // either half; a half tile row at the end; 4 steps of K.
    on_the_gpu(Variant::Overlapped, Inputs::<F8E4M3>::new(2112, 2048, 512, 1.0, 0.01, 26));
    on_the_gpu(Variant::Overlapped, Inputs::<i8>::new(2112, 2048, 512, 50.0, 1e-4, 27));
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn int8_on_the_gpu() {
    on_the_gpu(Variant::Wide, Inputs::<i8>::new(2112, 1024, 1024, 50.0, 1e-4, 13));
    on_the_gpu(Variant::Wide, Inputs::<i8>::new(256, 512, 128, 50.0, 1e-4, 14));
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn partial_tiles_on_the_gpu() {
    // Last tiles overhanging M, N and K (K = 1008: 7 steps of 128, the last 112 wide), in
    // every kernel; then one row of C.
    on_the_gpu(Variant::Wide, Inputs::<F8E4M3>::new(1000, 1000, 1008, 1.0, 0.03, 28));
    on_the_gpu(Variant::Wide, Inputs::<i8>::new(1000, 1000, 1008, 50.0, 1e-4, 29));
    on_the_gpu(Variant::Overlapped, Inputs::<F8E4M3>::new(1000, 1000, 1008, 1.0, 0.03, 30));
    on_the_gpu(Variant::Narrow, Inputs::<i8>::new(1000, 1000, 1008, 50.0, 1e-4, 31));
    on_the_gpu(Variant::Mid, Inputs::<F8E4M3>::new(1000, 1000, 1008, 1.0, 0.03, 33));
    on_the_gpu(Variant::Mid, Inputs::<i8>::new(1000, 1000, 1008, 50.0, 1e-4, 34));
    on_the_gpu(Variant::Narrow, Inputs::<F8E4M3>::new(1, 8, 16, 1.0, 1.0, 32));
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn split_on_the_gpu() {
    // K split 2, 4 and 8 ways through the dispatchers (one workspace for every launch: each
    // leaves its semaphores at zero for the next): tiles and K overhanging, then one row.
    fn up<T: Element>(dev: &Device, t: &HostTensor<T>) -> DeviceTensor<T> {
        DeviceTensor::from_host(dev, t).unwrap()
    }
    let dev = Device::new(0).expect("an sm_90 GPU");
    for (m, n, k) in [(1000, 1000, 1008), (130, 136, 1040), (1, 8, 16)] {
        for ways in [2, 4, 8] {
            let v = Variant::Split(ways);
            let fp8 = Inputs::<F8E4M3>::new(m, n, k, 1.0, 0.03, 47);
            let mut c = up(&dev, &fp8.output());
            let (a, w) = (up(&dev, &fp8.a), up(&dev, &fp8.w));
            let (sa, sw) = (up(&dev, &fp8.a_scale), up(&dev, &fp8.w_scale));
            kernels::fp8_matmul_variant(v, &dev, &a, &w, &sa, &sw, &mut c).unwrap();
            let what = format!("fp8 {v:?} {m} x {n} x {k} on the GPU");
            assert_close(&what, &values(&c.to_host().unwrap()), &fp8.reference(), TOLERANCE);
            let int8 = Inputs::<i8>::new(m, n, k, 50.0, 1e-4, 48);
            let mut c = up(&dev, &int8.output());
            let (a, w) = (up(&dev, &int8.a), up(&dev, &int8.w));
            let (sa, sw) = (up(&dev, &int8.a_scale), up(&dev, &int8.w_scale));
            kernels::i8_matmul_variant(v, &dev, &a, &w, &sa, &sw, &mut c).unwrap();
            let mut cpu = int8.output();
            kernels::interpret_i8_matmul_variant(v, &int8.a, &int8.w, &int8.a_scale, &int8.w_scale, &mut cpu).unwrap();
            let what = format!("int8 {v:?} {m} x {n} x {k} on the GPU");
            assert!(c.to_host().unwrap().data() == cpu.data(), "{what}: differs from the interpreter");
            println!("{what}: OK (fp8 too)");
        }
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn skinny_on_the_gpu() {
    // Every skinny kernel on a decoding-sized M that overhangs its rows, N and K overhanging
    // the last slab and step; then one row of C.
    for name in SKINNY {
        let v = Variant::named(name).unwrap();
        on_the_gpu(v, Inputs::<F8E4M3>::new(40, 1000, 2000, 1.0, 0.03, 42));
        on_the_gpu(v, Inputs::<i8>::new(40, 1000, 2000, 50.0, 1e-4, 43));
        on_the_gpu(v, Inputs::<i8>::new(1, 8, 16, 50.0, 1e-4, 44));
    }
}
