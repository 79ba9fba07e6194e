//! The runtime on a real Hopper GPU, with hand-written PTX: copies, module loading and the JIT
//! log, launches with more than 48 KiB of dynamic shared memory, and TMA tensor maps passed by
//! value (unswizzled and 128B-swizzled). Run with `cargo test -p tessel-runtime -- --ignored`.

use std::sync::Arc;

use tessel_runtime::cudarc::driver::{sys::CUresult, DriverError};
use tessel_runtime::{
    bf16, launch, Device, DeviceTensor, Error, HostTensor, KernelArg, LaunchConfig, Module, Swizzle, TensorMap,
};

/// `out[i] = in[i] + 1` for i < n, one thread per element.
const ADD_ONE: &str = r#"
.version 8.0
.target sm_90a
.address_size 64

.visible .entry add_one(.param .u64 src, .param .u64 dst, .param .u32 n)
{
    .reg .pred %p;
    .reg .b32 %r<6>;
    .reg .f32 %f<2>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd0, [src];
    ld.param.u64 %rd1, [dst];
    ld.param.u32 %r0, [n];
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ntid.x;
    mov.u32 %r3, %tid.x;
    mad.lo.u32 %r4, %r1, %r2, %r3;
    setp.ge.u32 %p, %r4, %r0;
    @%p bra DONE;
    mul.wide.u32 %rd2, %r4, 4;
    cvta.to.global.u64 %rd0, %rd0;
    cvta.to.global.u64 %rd1, %rd1;
    add.u64 %rd3, %rd0, %rd2;
    add.u64 %rd4, %rd1, %rd2;
    ld.global.f32 %f0, [%rd3];
    add.f32 %f1, %f0, 0f3F800000;
    st.global.f32 [%rd4], %f1;
DONE:
    ret;
}
"#;

/// One 64x64 bf16 tile per CTA: TMA-load it (through the map passed by value) into dynamic
/// shared memory, then copy it to `out` (row-major, `cols` wide) with plain stores. `xor_mask`
/// is 7 for a 128B-swizzled map (chunk j of row r sits at slot j ^ (r & 7)), 0 otherwise.
const TMA_TILE: &str = r#"
.version 8.0
.target sm_90a
.address_size 64

.extern .shared .align 1024 .b8 smem[];

.visible .entry tma_tile(
    .param .align 64 .b8 tmap[128],
    .param .u64 out,
    .param .u32 cols,
    .param .u32 xor_mask
)
.reqntid 128, 1, 1
{
    .reg .pred %p<4>;
    .reg .b16 %h;
    .reg .b32 %r<32>;
    .reg .b64 %rd<8>;

    mov.u32 %r0, %tid.x;
    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %ctaid.y;
    ld.param.u32 %r20, [cols];
    ld.param.u32 %r21, [xor_mask];
    ld.param.u64 %rd3, [out];
    cvta.to.global.u64 %rd3, %rd3;
    mov.b64 %rd0, tmap;
    cvta.param.u64 %rd0, %rd0;

    mov.u32 %r3, smem;
    add.u32 %r3, %r3, 1023;
    and.b32 %r3, %r3, -1024;
    add.u32 %r4, %r3, 8192;
    setp.eq.u32 %p0, %r0, 0;
    @!%p0 bra INIT_DONE;
    mbarrier.init.shared::cta.b64 [%r4], 1;
    fence.mbarrier_init.release.cluster;
INIT_DONE:
    bar.sync 0;
    @!%p0 bra WAIT;
    mbarrier.arrive.expect_tx.shared::cta.b64 _, [%r4], 8192;
    shl.b32 %r5, %r1, 6;
    shl.b32 %r6, %r2, 6;
    cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd0, {%r5, %r6}], [%r4];
WAIT:
    mov.u32 %r7, 0;
    mbarrier.try_wait.parity.shared::cta.b64 %p1, [%r4], %r7;
    @!%p1 bra WAIT;

    mov.u32 %r10, 0;
LOOP:
    mad.lo.u32 %r11, %r10, 128, %r0;
    shr.u32 %r12, %r11, 6;
    and.b32 %r13, %r11, 63;
    and.b32 %r14, %r12, %r21;
    shr.u32 %r15, %r13, 3;
    xor.b32 %r15, %r15, %r14;
    shl.b32 %r16, %r12, 7;
    shl.b32 %r15, %r15, 4;
    add.u32 %r16, %r16, %r15;
    and.b32 %r17, %r13, 7;
    shl.b32 %r17, %r17, 1;
    add.u32 %r16, %r16, %r17;
    add.u32 %r16, %r16, %r3;
    ld.shared.b16 %h, [%r16];
    mad.lo.u32 %r18, %r2, 64, %r12;
    mad.lo.u32 %r19, %r1, 64, %r13;
    mul.wide.u32 %rd1, %r18, %r20;
    cvt.u64.u32 %rd2, %r19;
    add.u64 %rd1, %rd1, %rd2;
    shl.b64 %rd1, %rd1, 1;
    add.u64 %rd1, %rd1, %rd3;
    st.global.b16 [%rd1], %h;
    add.u32 %r10, %r10, 1;
    setp.lt.u32 %p2, %r10, 32;
    @%p2 bra LOOP;
    ret;
}
"#;

fn device() -> Device {
    Device::new(0).expect("an sm_90 GPU")
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn device_opens_and_copies_round_trip() {
    let device = device();
    assert!(Device::is_available());
    assert_eq!(device.compute_capability(), (9, 0));
    println!("device 0: {}", device.name());
    let host = HostTensor::from_fn([3, 5], |i| bf16::from_f32((i[0] * 5 + i[1]) as f32)).unwrap();
    let mut gpu = DeviceTensor::from_host(&device, &host).unwrap();
    assert_eq!(gpu.address() % 256, 0);
    assert_eq!(gpu.to_host().unwrap(), host);
    gpu.poison(bf16::NAN).unwrap();
    assert!(gpu.to_host().unwrap().data().iter().all(|x| x.is_nan()));
    let zeros = DeviceTensor::<i32>::zeros(&device, [0, 4]).unwrap();
    assert!(zeros.to_host().unwrap().is_empty());
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn module_loads_once_and_launches() {
    let device = device();
    let module = Module::load(&device, ADD_ONE, "add_one").unwrap();
    let again = Module::load(&device, ADD_ONE, "add_one").unwrap();
    assert!(Arc::ptr_eq(&module, &again));
    println!("JIT info log:\n{}", module.info_log());
    assert!(!module.info_log().contains("C75"));

    let n = 1000;
    let src = HostTensor::from_fn([n], |i| i[0] as f32).unwrap();
    let src = DeviceTensor::from_host(&device, &src).unwrap();
    let mut dst = DeviceTensor::<f32>::zeros(&device, [n]).unwrap();
    let stream = device.stream();
    let cfg = LaunchConfig {
        grid: [n.div_ceil(128) as u32, 1, 1],
        block: [128, 1, 1],
        // Above 48 KiB: exercises the opt-in attribute.
        dynamic_smem: 100 * 1024,
    };
    {
        let (src_ptr, _src_guard) = src.device_ptr(stream);
        let (dst_ptr, _dst_guard) = dst.device_ptr_mut(stream);
        let args = [KernelArg::Ptr(src_ptr), KernelArg::Ptr(dst_ptr), KernelArg::U32(n as u32)];
        // Safety: add_one takes (u64 src, u64 dst, u32 n) and touches n f32s of each buffer.
        unsafe { launch(&device, &module, &cfg, &args) }.unwrap();
    }
    let out = dst.to_host().unwrap();
    assert!(out.data().iter().enumerate().all(|(i, &x)| x == i as f32 + 1.0));

    let too_much = LaunchConfig { dynamic_smem: 300 * 1024, ..cfg };
    // Safety: rejected before the launch.
    let err = unsafe { launch(&device, &module, &too_much, &[]) }.unwrap_err();
    assert!(matches!(err, Error::Launch(_)), "{err}");
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn bad_ptx_is_a_jit_error_with_the_log() {
    let device = device();
    let bad = ADD_ONE.replace("add.f32 %f1, %f0, 0f3F800000;", "frobnicate.f32 %f1;");
    let err = Module::load_uncached(device.context(), &bad, "add_one").unwrap_err();
    println!("{err}");
    assert!(err.to_string().contains("CUDA_ERROR_INVALID_PTX"), "{err}");
    match &err {
        Error::Jit { source, log } => {
            assert_eq!(source.0, CUresult::CUDA_ERROR_INVALID_PTX);
            assert!(!log.is_empty());
        }
        other => panic!("expected a JIT error, got {other}"),
    }
    assert_eq!(err.driver_error(), Some(DriverError(CUresult::CUDA_ERROR_INVALID_PTX)));
    let err = Module::load_uncached(device.context(), ADD_ONE, "no_such_kernel").unwrap_err();
    assert!(err.to_string().contains("no_such_kernel"), "{err}");
    assert!(matches!(err, Error::LaunchRejected { source: DriverError(CUresult::CUDA_ERROR_NOT_FOUND), .. }), "{err}");
}

fn tma_tile(swizzle: Swizzle, xor_mask: u32) {
    let device = device();
    let module = Module::load(&device, TMA_TILE, "tma_tile").unwrap();
    assert!(!module.info_log().contains("C75"));
    let (rows, cols) = (128, 192);
    // Distinct finite bit patterns (below 0x6000), so any misplaced element shows.
    let host = HostTensor::from_fn([rows, cols], |i| bf16::from_bits((i[0] * cols + i[1]) as u16)).unwrap();
    let a = DeviceTensor::from_host(&device, &host).unwrap();
    let mut out = DeviceTensor::<bf16>::zeros(&device, [rows, cols]).unwrap();
    out.poison(bf16::NAN).unwrap();
    let map = a.tensor_map_cached("a", &[64, 64], swizzle).unwrap();
    assert_eq!(map, a.tensor_map_cached("a", &[64, 64], swizzle).unwrap());
    assert_eq!(map, TensorMap::encode_2d(&a, "a", 64, 64, swizzle).unwrap());
    let stream = device.stream();
    let cfg = LaunchConfig {
        grid: [(cols / 64) as u32, (rows / 64) as u32, 1],
        block: [128, 1, 1],
        dynamic_smem: 8192 + 1024 + 64,
    };
    {
        let (_a_ptr, _a_guard) = a.device_ptr(stream);
        let (out_ptr, _out_guard) = out.device_ptr_mut(stream);
        let args =
            [KernelArg::TensorMap(map), KernelArg::Ptr(out_ptr), KernelArg::U32(cols as u32), KernelArg::U32(xor_mask)];
        // Safety: tma_tile takes (tensor map, u64 out, u32 cols, u32 mask); the map covers `a`
        // with the 64x64 box the PTX assumes, and the grid covers `out` exactly.
        unsafe { launch(&device, &module, &cfg, &args) }.unwrap();
    }
    assert_eq!(out.to_host().unwrap(), host);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn tma_tile_unswizzled() {
    tma_tile(Swizzle::None, 0);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn tma_tile_swizzled_128b() {
    tma_tile(Swizzle::B128, 7);
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn tensor_map_errors_name_the_tensor() {
    let device = device();
    let a = DeviceTensor::<bf16>::zeros(&device, [64, 60]).unwrap();
    let err = a.tensor_map("a", &[64, 8], Swizzle::None).unwrap_err();
    assert!(matches!(err, Error::Misaligned { tensor: "a", .. }), "{err}");
    let b = DeviceTensor::<bf16>::zeros(&device, [64, 64]).unwrap();
    let err = b.tensor_map("b", &[64, 128], Swizzle::B128).unwrap_err();
    assert!(matches!(err, Error::TensorMap { tensor: "b", .. }), "{err}");
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn info_log_carries_ptxas_warnings() {
    // setmaxnreg without a register cap at entry is ignored, with C7508 in the JIT's info log
    // (checked on the H200); the log must reach `Module::info_log`.
    let ptx = ADD_ONE.replace("DONE:\n", "DONE:\n    setmaxnreg.inc.sync.aligned.u32 240;\n");
    let device = device();
    let module = Module::load_uncached(device.context(), &ptx, "add_one").unwrap();
    println!("JIT info log:\n{}", module.info_log());
    assert!(module.info_log().contains("C7508"), "{}", module.info_log());
}

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn launches_on_a_second_stream_are_ordered_by_cudarc() {
    let device = device();
    let module = Module::load(&device, ADD_ONE, "add_one").unwrap();
    let n = 1 << 20;
    let src = HostTensor::from_fn([n], |i| i[0] as f32).unwrap();
    let src = DeviceTensor::from_host(&device, &src).unwrap();
    let mut dst = DeviceTensor::<f32>::zeros(&device, [n]).unwrap();
    let stream = device.new_stream().unwrap();
    src.check_device("src", &stream).unwrap();
    let cfg = LaunchConfig { grid: [(n / 128) as u32, 1, 1], block: [128, 1, 1], dynamic_smem: 0 };
    {
        let (src_ptr, _src_guard) = src.device_ptr(&stream);
        let (dst_ptr, _dst_guard) = dst.device_ptr_mut(&stream);
        let args = [KernelArg::Ptr(src_ptr), KernelArg::Ptr(dst_ptr), KernelArg::U32(n as u32)];
        // Safety: as in `module_loads_once_and_launches`.
        unsafe { launch(&stream, &module, &cfg, &args) }.unwrap();
    }
    // `to_host` runs on the default stream: the write event recorded above orders it.
    let out = dst.to_host().unwrap();
    assert!(out.data().iter().enumerate().all(|(i, &x)| x == i as f32 + 1.0));
}
