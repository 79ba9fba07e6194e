//! Working beside cudarc: the prelude's `Result` leaves other error types alone, a driver failure
//! keeps the driver's result (so a caller can match out-of-memory), and every generated `launch`
//! takes views of part of a buffer wherever it takes a tensor. On a GPU (`--ignored`): launches on
//! a stream and buffers that cudarc code made, through views, with the result read back by cudarc;
//! views' checks; and out-of-memory as a driver result.

use std::error::Error as _;
use std::sync::Arc;

use tessel::cudarc::driver::sys::CUresult;
use tessel::cudarc::driver::{CudaContext, CudaSlice, DriverError};
use tessel::prelude::*;

/// y = x + 1 through TMA both ways (reads and writes go through tensor maps of the views).
#[kernel(grid = (M / 64, N / 64))]
fn add_one(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(|s_in: Smem<f32, 64, 64, Swizzle128>, s_out: Smem<f32, 64, 64>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, j]), s_in, bar);
        barrier_wait(bar);
        let v = s_in.load(Layout::Strided);
        s_out.store(v + 1.0);
        commit_smem();
        copy_smem_to_gmem(s_out, y.tile([i, j]));
        wait_smem_to_gmem(0);
    });
}

/// C = A @ B: A and B through TMA, C stored from registers in pairs (`st.global.v2`).
#[kernel(grid = (M / 64, N / 64), instances(bf16, f16))]
fn gemm<T>(a: Gmem<T, M, K>, b: Gmem<T, K, N>, c: GmemMut<f32, M, N>) {
    let (i, j) = (program_id(0), program_id(1));
    run_scoped(
        |acc: Acc<f32, 64, 64>, a_s: Smem<T, 64, 64, Swizzle128>, b_s: Smem<T, 64, 64, Swizzle128>, bar: Barrier<2>| {
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

/// Every way a plain and a generic kernel's `launch` takes its arrays: tensors, read-only views,
/// writable views, and a writable view where a read-only array is expected. Only compiled: the
/// GPU tests below run the same calls.
#[allow(dead_code)]
fn launches_take_tensors_and_views(
    device: &Device,
    x: &DeviceTensor<f32>,
    y: &mut DeviceTensor<f32>,
    a: &DeviceTensor<bf16>,
    b: &DeviceTensor<bf16>,
    mut c: DeviceViewMut<'_, f32>,
) -> Result<()> {
    add_one::launch(device, x, y)?;
    add_one::launch(device, &x.view(..64 * 64, [64, 64])?, &mut y.view_mut(..64 * 64, [64, 64])?)?;
    add_one::launch(device, &c, y)?;
    add_one::launch(device, x, &mut c)?;
    let a0 = a.view(..64 * 64, [64, 64])?;
    gemm::<bf16>::launch(device, &a0, b, &mut c)?;
    gemm::<bf16>::launch(device, a, &b.as_view(), &mut y.view_mut(.., [64, 64])?)
}

#[test]
fn the_prelude_result_leaves_other_errors_alone() {
    fn boxed() -> Result<(), Box<dyn std::error::Error>> {
        Err(Error::NoDriver)?;
        Ok(())
    }
    fn plain() -> Result<()> {
        Err(Error::NoDriver)
    }
    let err = boxed().unwrap_err();
    assert!(matches!(err.downcast_ref::<Error>(), Some(Error::NoDriver)), "{err}");
    assert!(matches!(plain(), Err(Error::NoDriver)));
}

#[test]
fn a_driver_failure_keeps_the_driver_result() {
    let oom = DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY);
    let err = Error::from(oom);
    assert!(matches!(err.driver_error(), Some(DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY))));
    let source = err.source().expect("the driver's result as the source");
    assert_eq!(source.downcast_ref::<DriverError>(), Some(&oom));
    assert!(err.to_string().starts_with("CUDA driver error: CUDA_ERROR_OUT_OF_MEMORY"), "{err}");
}

/// Views are checked before anything reaches the GPU; without one, no buffer can be made, so the
/// checks are the runtime's unit tests (`view::tests`) and `views_are_checked` below.
#[test]
fn without_a_gpu_launch_arguments_are_still_checked() {
    let err = add_one::check_args(&[64, 64], &[64, 128]).unwrap_err();
    assert!(matches!(err, Error::DimMismatch { dim: "N", .. }), "{err}");
}

fn device() -> Device {
    Device::new(0).expect("an sm_90 GPU")
}

/// Copies a cudarc buffer back with cudarc.
fn read(buffer: &CudaSlice<f32>) -> Vec<f32> {
    buffer.stream().clone_dtoh(buffer).expect("a copy to the host")
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn launches_run_on_a_cudarc_stream_through_views() {
    let context = CudaContext::new(0).unwrap();
    let stream = context.new_stream().unwrap();
    let device = Device::from_stream(Arc::clone(&stream)).unwrap();
    assert!(Arc::ptr_eq(device.stream(), &stream));
    assert_eq!(device.compute_capability(), (9, 0));

    // Three 64 x 128 blocks; y = x + 1 on the middle one only, the others keep their poison.
    let block = 64 * 128;
    let host: Vec<f32> = (0..3 * block).map(|i| i as f32).collect();
    let x: CudaSlice<f32> = stream.clone_htod(&host).unwrap();
    let mut y: CudaSlice<f32> = stream.clone_htod(&vec![-7.0f32; 3 * block]).unwrap();
    {
        let xv = DeviceView::new(&x, block..2 * block, [64, 128]).unwrap();
        let mut yv = DeviceViewMut::new(&mut y, block..2 * block, [64, 128]).unwrap();
        add_one::launch(&device, &xv, &mut yv).unwrap();
        // The view reads back in its own shape, too.
        assert_eq!(yv.to_host().unwrap().shape(), &[64, 128]);
    }
    let got = read(&y);
    for (i, &v) in got.iter().enumerate() {
        let want = if (block..2 * block).contains(&i) { i as f32 + 1.0 } else { -7.0 };
        assert_eq!(v, want, "element {i}");
    }
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn a_gemm_reads_and_writes_parts_of_buffers() {
    let device = Device::from_context(CudaContext::new(0).unwrap()).unwrap();
    let (m, k, n) = (128, 128, 64);
    // A batch of two A matrices in one tensor; C[1] is the second half of one buffer.
    let a = HostTensor::from_fn([2 * m, k], |i| bf16::from_f32(((i[0] * 3 + i[1]) % 7) as f32 - 3.0)).unwrap();
    let b = HostTensor::from_fn([k, n], |i| bf16::from_f32(((i[0] + 2 * i[1]) % 5) as f32 - 2.0)).unwrap();
    let a_gpu = DeviceTensor::from_host(&device, &a).unwrap();
    let b_gpu = DeviceTensor::from_host(&device, &b).unwrap();
    let mut c_gpu = DeviceTensor::<f32>::zeros(&device, [2 * m, n]).unwrap();
    let a1 = a_gpu.view(m * k.., [m, k]).unwrap();
    gemm::<bf16>::launch(&device, &a1, &b_gpu, &mut c_gpu.view_mut(m * n.., [m, n]).unwrap()).unwrap();

    let mut want = HostTensor::<f32>::zeros([m, n]).unwrap();
    let a1_host = HostTensor::new([m, k], a.data()[m * k..].to_vec()).unwrap();
    gemm::<bf16>::interpret(&a1_host, &b, &mut want).unwrap();
    let c = c_gpu.into_slice();
    let got = read(&c);
    assert!(got[..m * n].iter().all(|&v| v == 0.0), "C[0] was written");
    assert_eq!(&got[m * n..], want.data());
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn views_are_checked() {
    let device = device();
    let mut t = DeviceTensor::<f32>::zeros(&device, [256]).unwrap();
    let err = t.view(1..5, [4]).unwrap_err();
    assert!(matches!(err, Error::ViewMisaligned { start: 1, .. }), "{err}");
    let err = t.view(0..300, [300]).unwrap_err();
    assert!(matches!(err, Error::ViewOutOfBounds { start: 0, end: 300, len: 256, .. }), "{err}");
    let err = t.view_mut(0..64, [8, 4]).unwrap_err();
    assert!(matches!(err, Error::ViewShape { elements: 32, range: (0, 64), .. }), "{err}");
    t.view(4..68, [8, 8]).unwrap();

    let slice = t.into_slice();
    let err = DeviceView::new(&slice, 250..260, [10]).unwrap_err();
    assert!(matches!(err, Error::ViewOutOfBounds { view: "DeviceView::new", .. }), "{err}");
    let (low, high) = slice.split_at(128);
    assert_eq!(DeviceView::from_cuda_view(low, [2, 64]).unwrap().shape(), &[2, 64]);
    let err = DeviceView::from_cuda_view(high, [64]).unwrap_err();
    assert!(matches!(err, Error::ViewShape { elements: 64, range: (0, 128), .. }), "{err}");
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn running_out_of_memory_is_the_driver_result() {
    let device = device();
    let err = DeviceTensor::<u8>::zeros(&device, [1 << 50]).unwrap_err();
    assert_eq!(err.driver_error(), Some(DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY)), "{err}");
    assert!(err.to_string().contains("CUDA_ERROR_OUT_OF_MEMORY"), "{err}");
}
