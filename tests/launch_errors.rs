//! Bad launch arguments are `Err(tessel::Error)`s, never panics, and are caught before any CUDA
//! call: `check_args` (which `launch` and `interpret` call first) runs here without a GPU. So is
//! an empty batch (a `ragged(..)` dimension of 0), which launches nothing and returns `Ok`.

use tessel::prelude::*;
use tessel::LaunchPlan;

#[kernel(grid = (M / 64, N / 64), warpgroups = 1)]
fn matmul(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>,
         a_s: Smem<bf16, 64, 64, Swizzle128>,
         b_s: Smem<bf16, 64, 64, Swizzle128>,
         bar: Barrier<2>| {
            for k in 0..K / 64 {
                copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s);
                wgmma_wait(0);
            }
            c.tile([i, j]).store(acc.load());
        },
    );
}

/// Rows of 64 columns: a static dimension beside a runtime one.
#[kernel(grid = (M / 64), consts(W = 64))]
fn copy_rows(x: Gmem<f32, M, W>, y: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    let v = x.tile([i, 0], [64, 64]).load(Layout::Strided);
    y.tile([i, 0], [64, 64]).store(v);
}

/// Programs in clusters of two along x, and a grid that reads a scalar parameter. The parameters
/// are named like the locals of the generated code, which must not capture them.
#[kernel(grid = (M / 64, stream), cluster = (2, 1))]
fn clustered(dims: Gmem<f32, M, 64>, args: GmemMut<f32, M, 64>, stream: i32) {
    let i = program_id(0);
    let v = dims.tile([i, 0], [64, 64]).load(Layout::Strided);
    args.tile([i, 0], [64, 64]).store(v);
}

/// y = x + 1 over any number of rows (`ragged(M)`): the last tile of rows may overhang.
#[kernel(grid = (cdiv(M, 64)), ragged(M))]
fn add_one_rows(x: Gmem<f32, M, 64>, y: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    let v = x.tile([i, 0], [64, 64]).load(Layout::Wgmma);
    y.tile([i, 0], [64, 64]).store(v + 1.0);
}

/// Column sums over any number of rows into a [64] output, which a ragged M of 0 leaves to write.
#[kernel(grid = (cdiv(M, 64)), ragged(M))]
fn column_sums(x: Gmem<f32, M, 64>, y: GmemMut<f32, 64>) {
    let i = program_id(0);
    let v = x.tile([i, 0], [64, 64]).load(Layout::Wgmma);
    y.tile([0], [64]).store(v.sum(0));
}

#[test]
fn good_shapes_give_the_launch_configuration() {
    let plan: LaunchPlan<3> = matmul::check_args(&[256, 128], &[128, 512], &[256, 512]).unwrap();
    assert_eq!(plan.config.grid, [4, 8, 1]);
    assert_eq!(plan.config.block, [128, 1, 1]);
    // The buffers and barriers, plus scratch and 1024 bytes to align the base (`typeck::scratch`).
    assert!(plan.config.dynamic_smem >= matmul::SIGNATURE.smem_bytes + 1024);
    // Runtime dimensions in signature order: M, K, N.
    assert_eq!(matmul::SIGNATURE.runtime_dims, &["M", "K", "N"]);
    assert_eq!(plan.dims, [256, 128, 512]);
}

#[test]
fn a_runtime_dimension_must_agree_across_tensors() {
    let err = matmul::check_args(&[256, 128], &[64, 512], &[256, 512]).unwrap_err();
    assert_eq!(err, Error::DimMismatch { dim: "K", first: ("a", 1, 128), second: ("b", 0, 64) });
    assert_eq!(err.to_string(), "runtime dimension K is 128 from `a` (axis 1) but 64 from `b` (axis 0)");
}

#[test]
fn ranks_are_checked() {
    let err = matmul::check_args(&[256, 128, 1], &[128, 512], &[256, 512]).unwrap_err();
    assert_eq!(err.to_string(), "`a` must have rank 2, but its shape is [256, 128, 1] (rank 3)");
}

#[test]
fn tiles_must_cover_runtime_dimensions() {
    let err = matmul::check_args(&[256, 100], &[100, 512], &[256, 512]).unwrap_err();
    assert!(matches!(err, Error::Divisibility { dim: "K", value: 100, divisor: 64, .. }), "{err}");
    assert!(err.to_string().starts_with("runtime dimension K = 100 must be a multiple of 64"), "{err}");
}

#[test]
fn an_empty_grid_is_an_error() {
    let err = matmul::check_args(&[0, 128], &[128, 512], &[0, 512]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "kernel launch failed: `matmul`: the grid's x extent `M / 64` is 0, but must be at least 1 (is a \
         runtime dimension smaller than a tile?)"
    );
}

#[test]
fn an_empty_ragged_batch_launches_nothing() {
    // M = 0: every written array is empty, so the plan has no programs, and `launch` returns
    // `Ok` before anything reaches the driver.
    let plan = add_one_rows::check_args(&[0, 64], &[0, 64]).unwrap();
    assert!(plan.launches_nothing());
    assert_eq!((plan.config.grid, plan.dims), ([0, 0, 0], [0]));
    let plan = add_one_rows::check_args(&[100, 64], &[100, 64]).unwrap();
    assert!(!plan.launches_nothing());
    assert_eq!(plan.config.grid, [2, 1, 1]);
    // The other checks still apply to an empty batch.
    let err = add_one_rows::check_args(&[0, 64], &[0, 32]).unwrap_err();
    assert!(matches!(err, Error::ShapeMismatch { tensor: "y", .. }), "{err}");
    // The interpreter does the same.
    let x = HostTensor::<f32>::zeros([0, 64]).unwrap();
    let mut y = HostTensor::<f32>::zeros([0, 64]).unwrap();
    add_one_rows::interpret(&x, &mut y).unwrap();
    assert!(y.is_empty());
}

#[test]
fn an_empty_ragged_batch_with_an_output_to_write_is_launched() {
    // M = 0 leaves `y` [64] to write: the launch is not skipped, and its grid of `cdiv(M, 64)` = 0
    // programs is refused as any empty grid is.
    let err = column_sums::check_args(&[0, 64], &[64]).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("the grid's x extent") && text.contains("is 0, but must be at least 1"), "{err}");
    let x = HostTensor::<f32>::zeros([0, 64]).unwrap();
    let mut y = HostTensor::<f32>::zeros([64]).unwrap();
    assert_eq!(column_sums::interpret(&x, &mut y).unwrap_err(), err);
}

/// An empty batch on the GPU: `launch` returns `Ok`, and the empty tensors stay empty.
#[test]
#[ignore = "needs an NVIDIA GPU"]
fn an_empty_ragged_batch_launches_nothing_on_the_gpu() {
    let dev = Device::new(0).expect("an sm_90 GPU");
    let x = DeviceTensor::<f32>::zeros(&dev, [0, 64]).unwrap();
    let mut y = DeviceTensor::<f32>::zeros(&dev, [0, 64]).unwrap();
    add_one_rows::launch(&dev, &x, &mut y).unwrap();
    dev.synchronize().unwrap();
    assert!(y.to_host().unwrap().is_empty());
    // A batch of rows right after it runs as usual.
    let host = HostTensor::<f32>::from_fn([100, 64], |i| (i[0] * 64 + i[1]) as f32).unwrap();
    let x = DeviceTensor::from_host(&dev, &host).unwrap();
    let mut y = DeviceTensor::<f32>::zeros(&dev, [100, 64]).unwrap();
    add_one_rows::launch(&dev, &x, &mut y).unwrap();
    let want: Vec<f32> = host.data().iter().map(|v| v + 1.0).collect();
    assert_eq!(y.to_host().unwrap().data(), &want[..]);
}

#[test]
fn dimensions_beyond_32_bits_are_refused() {
    let huge = 1usize << 31;
    let err = matmul::check_args(&[64, huge], &[huge, 64], &[64, 64]).unwrap_err();
    assert!(err.to_string().contains("runtime dimension K = 2147483648"), "{err}");
}

#[test]
fn static_dimensions_are_checked() {
    assert_eq!(copy_rows::check_args(&[128, 64], &[128, 64]).unwrap().config.grid, [2, 1, 1]);
    let err = copy_rows::check_args(&[128, 64], &[128, 32]).unwrap_err();
    assert_eq!(err, Error::ShapeMismatch { tensor: "y", expected: vec![128, 64], got: vec![128, 32] });
}

#[test]
fn the_grid_must_be_whole_clusters_and_may_read_scalars() {
    let plan = clustered::check_args(&[256, 64], &[256, 64], 3).unwrap();
    assert_eq!(plan.config.grid, [4, 3, 1]);
    let err = clustered::check_args(&[192, 64], &[192, 64], 3).unwrap_err();
    assert!(err.to_string().contains("is not a whole number of clusters of [2, 1, 1]"), "{err}");
    let err = clustered::check_args(&[256, 64], &[256, 64], -1).unwrap_err();
    assert!(err.to_string().contains("the grid's y extent `stream` is -1"), "{err}");
}

#[test]
fn interpret_checks_its_arguments_like_launch() {
    let a = HostTensor::<bf16>::zeros([256, 128]).unwrap();
    let b = HostTensor::<bf16>::zeros([64, 512]).unwrap();
    let mut c = HostTensor::<f32>::zeros([256, 512]).unwrap();
    let err = matmul::interpret(&a, &b, &mut c).unwrap_err();
    assert!(matches!(err, Error::DimMismatch { dim: "K", .. }), "{err}");
}

/// Without an NVIDIA driver there is no stream to launch on: opening the device is the error.
#[test]
fn without_a_driver_the_device_is_an_error() {
    if Device::is_available() {
        return; // A GPU machine: the GPU tests launch for real.
    }
    assert!(matches!(Device::new(0), Err(Error::NoDriver)));
}

#[test]
fn interpret_runs_the_kernel_after_the_checks() {
    let x = HostTensor::<f32>::from_fn([128, 64], |i| (i[0] * 64 + i[1]) as f32).unwrap();
    let mut y = HostTensor::<f32>::zeros([128, 64]).unwrap();
    copy_rows::interpret(&x, &mut y).unwrap();
    assert_eq!(y, x);
}
