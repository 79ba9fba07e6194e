//! Bad inputs to `interpret` are errors with the GPU launch's messages, and nothing is written back.

mod interp_support;

use interp_support::*;
use tessel_runtime::{bf16, interpret, Arg, Error, HostArray, HostTensor, KernelSource};

static MATMUL: KernelSource = KernelSource {
    attr: "grid = (M / 64, N / 64)",
    item: r#"
fn matmul(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>, a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}"#,
};

fn run(a: &HostTensor<bf16>, b: &HostTensor<bf16>, c: &mut HostTensor<f32>) -> Result<(), Error> {
    interpret(&MATMUL, &mut [Arg::Tensor(a), Arg::Tensor(b), Arg::TensorMut(c)])
}

#[test]
fn inconsistent_runtime_dimensions() {
    let (a, b) = (randn::<bf16>(&[64, 128], 1, 1.0), randn::<bf16>(&[64, 64], 2, 1.0));
    let mut c = poisoned::<f32>(&[64, 64], f64::NAN);
    let err = run(&a, &b, &mut c).unwrap_err();
    assert_eq!(err, Error::DimMismatch { dim: "K", first: ("a", 1, 128), second: ("b", 0, 64) });
    assert!(values(&c).iter().all(|v| v.is_nan()));
}

#[test]
fn dimensions_tiles_do_not_cover() {
    let (a, b) = (randn::<bf16>(&[64, 96], 1, 1.0), randn::<bf16>(&[96, 64], 2, 1.0));
    let mut c = poisoned::<f32>(&[64, 64], f64::NAN);
    let err = run(&a, &b, &mut c).unwrap_err();
    assert_eq!(
        err.to_string(),
        "runtime dimension K = 96 must be a multiple of 64: the kernel's tiles are 64 wide along K and must cover it \
         exactly (`ragged(K)` lets the last one overhang)"
    );
}

#[test]
fn wrong_rank_dtype_and_mutability() {
    let (a, b) = (randn::<bf16>(&[64, 64], 1, 1.0), randn::<bf16>(&[64, 64], 2, 1.0));
    let mut c3 = poisoned::<f32>(&[64, 64, 1], f64::NAN);
    assert_eq!(
        run(&a, &b, &mut c3).unwrap_err().to_string(),
        "`c` must have rank 2, but its shape is [64, 64, 1] (rank 3)"
    );

    let a32 = randn::<f32>(&[64, 64], 1, 1.0);
    let mut c = poisoned::<f32>(&[64, 64], f64::NAN);
    let err = interpret(&MATMUL, &mut [Arg::Tensor(&a32), Arg::Tensor(&b), Arg::TensorMut(&mut c)]).unwrap_err();
    assert_eq!(err.to_string(), "interpreter: `matmul`: parameter `a` holds bf16, but the tensor holds f32");

    let c_ro = poisoned::<f32>(&[64, 64], f64::NAN);
    let err = interpret(&MATMUL, &mut [Arg::Tensor(&a), Arg::Tensor(&b), Arg::Tensor(&c_ro)]).unwrap_err();
    assert!(err.to_string().contains("parameter `c` is written (`GmemMut`)"), "{err}");

    let err = interpret(&MATMUL, &mut [Arg::Tensor(&a), Arg::Tensor(&b)]).unwrap_err();
    assert!(err.to_string().contains("`matmul` takes 3 arguments, but 2 were given"), "{err}");

    let err = interpret(&MATMUL, &mut [Arg::Tensor(&a), Arg::I32(3), Arg::TensorMut(&mut c)]).unwrap_err();
    assert!(err.to_string().contains("parameter `b` is a global array, but the argument is an i32"), "{err}");
}

#[test]
fn an_empty_grid_is_a_launch_error() {
    let (a, b) = (randn::<bf16>(&[0, 64], 1, 1.0), randn::<bf16>(&[64, 64], 2, 1.0));
    let mut c = poisoned::<f32>(&[0, 64], f64::NAN);
    let err = run(&a, &b, &mut c).unwrap_err();
    assert!(matches!(err, Error::Launch(_)), "{err}");
    assert_eq!(
        err.to_string(),
        "kernel launch failed: `matmul`: the grid's x extent `M / 64` is 0, but must be at least 1 (is a runtime \
         dimension smaller than a tile?)"
    );
}

/// A host array whose data disagrees with its shape.
struct Lying(HostTensor<bf16>);

impl HostArray for Lying {
    fn dtype(&self) -> &'static str {
        "bf16"
    }
    fn shape(&self) -> &[usize] {
        &[64, 64]
    }
    fn read_f64(&self) -> Vec<f64> {
        self.0.read_f64()
    }
    fn write_f64(&mut self, values: &[f64]) {
        self.0.write_f64(values)
    }
}

#[test]
fn wrong_element_counts() {
    let a = Lying(randn::<bf16>(&[64, 32], 1, 1.0));
    let b = randn::<bf16>(&[64, 64], 2, 1.0);
    let mut c = poisoned::<f32>(&[64, 64], f64::NAN);
    let err = interpret(&MATMUL, &mut [Arg::Tensor(&a), Arg::Tensor(&b), Arg::TensorMut(&mut c)]).unwrap_err();
    assert_eq!(err, Error::ElementCount { tensor: "a", shape: vec![64, 64], expected: 4096, got: 2048 });
}

static STATIC_SHAPE: KernelSource = KernelSource {
    attr: "grid = (1)",
    item: r#"
fn fixed(x: Gmem<f32, 64, 32>, y: GmemMut<f32, 64, 32>, d: i32) {
    let v = x.tile([0, 0], [64, 32]).load(Layout::Strided);
    let q = 7 / d;
    y.tile([0, 0]).store(v * (q as f32));
}"#,
};

#[test]
fn static_dimensions_scalars_and_division_by_zero() {
    let x = randn::<f32>(&[64, 16], 3, 1.0);
    let mut y = poisoned::<f32>(&[64, 32], f64::NAN);
    let err = interpret(&STATIC_SHAPE, &mut [Arg::Tensor(&x), Arg::TensorMut(&mut y), Arg::I32(1)]).unwrap_err();
    assert_eq!(err, Error::ShapeMismatch { tensor: "x", expected: vec![64, 32], got: vec![64, 16] });

    let x = randn::<f32>(&[64, 32], 3, 1.0);
    let err = interpret(&STATIC_SHAPE, &mut [Arg::Tensor(&x), Arg::TensorMut(&mut y), Arg::F32(1.0)]).unwrap_err();
    assert!(err.to_string().contains("parameter `d` is a i32 scalar, but the argument is an f32"), "{err}");

    let err = interpret(&STATIC_SHAPE, &mut [Arg::Tensor(&x), Arg::TensorMut(&mut y), Arg::I32(0)]).unwrap_err();
    assert_eq!(err.to_string(), "interpreter: `fixed`, program (0, 0, 0), warpgroup 0: integer division by zero");

    interpret(&STATIC_SHAPE, &mut [Arg::Tensor(&x), Arg::TensorMut(&mut y), Arg::I32(2)]).unwrap();
    let want: Vec<f64> = values(&x).iter().map(|v| (v * 3.0) as f32 as f64).collect();
    assert_same("y = 3 x", &values(&y), &want);
}

static BROKEN: KernelSource = KernelSource {
    attr: "grid = (1)",
    item: "fn broken(c: GmemMut<u8, 64, 64>) { run_scoped(|acc: Acc<u8, 64, 64>| { c.tile([0, 0]).store(acc.load()); }); }",
};

#[test]
fn a_kernel_that_does_not_compile_is_an_error() {
    let mut c = poisoned::<u8>(&[64, 64], 7.0);
    let err = interpret(&BROKEN, &mut [Arg::TensorMut(&mut c)]).unwrap_err();
    assert!(err.to_string().contains("Invalid WGMMA accumulator dtype for s8/i8 WGMMA"), "{err}");
}
