//! GEMMs for every WGMMA dtype combination on the GPU, against an f64 reference and the interpreter.
//! Run on the GPU machine: `.gpu/tests/tessel-test --ignored --nocapture gpu_gemm::`.

use crate::common;
use crate::kernels;

use common::{assert_close, matmul, values, Rng};
use kernels::*;
use tessel::prelude::*;

fn device() -> Device {
    Device::new(0).expect("an sm_90 GPU")
}

/// Runs one GEMM on the GPU and in the interpreter and checks both against f64.
macro_rules! gemm_case {
    ($name:ident, $kernel:ident, $ta:ty, $tb:ty, $tc:ty, b_kn = $b_kn:expr, ints = $ints:expr, tol = $tol:expr, shapes = $shapes:expr) => {
        #[test]
        #[ignore = "needs an NVIDIA GPU"]
        fn $name() {
            let dev = device();
            for (m, n, k) in $shapes {
                let mut rng = Rng::new((m * 31 + n * 7 + k) as u64);
                let b_shape = if $b_kn { [k, n] } else { [n, k] };
                let (a, b) = if $ints {
                    (rng.ints::<$ta>(&[m, k]), rng.ints::<$tb>(&b_shape))
                } else {
                    (rng.tensor::<$ta>(&[m, k], 1.0), rng.tensor::<$tb>(&b_shape, 1.0))
                };
                let want = matmul(&values(&a), &values(&b), m, n, k, $b_kn);
                let (da, db) = (DeviceTensor::from_host(&dev, &a).unwrap(), DeviceTensor::from_host(&dev, &b).unwrap());
                let mut dc = DeviceTensor::<$tc>::zeros(&dev, [m, n]).unwrap();
                dc.poison(<$tc as tessel::Element>::from_f64(f64::NAN)).unwrap();
                $kernel::launch(&dev, &da, &db, &mut dc).unwrap();
                let got = values(&dc.to_host().unwrap());
                assert_close(&format!("{} {m}x{n}x{k} GPU", stringify!($kernel)), &got, &want, $tol);
                if m * n * k <= 256 * 256 * 512 {
                    let mut hc = HostTensor::<$tc>::zeros([m, n]).unwrap();
                    $kernel::interpret(&a, &b, &mut hc).unwrap();
                    let cpu = values(&hc);
                    assert_close(&format!("{} {m}x{n}x{k} GPU vs interpreter", stringify!($kernel)), &got, &cpu, $tol);
                }
            }
        }
    };
}

gemm_case!(
    bf16_f32,
    gemm_bf16,
    bf16,
    bf16,
    f32,
    b_kn = true,
    ints = false,
    tol = 1e-5,
    shapes = [(64, 128, 64), (256, 384, 512), (1024, 512, 256)]
);
gemm_case!(
    pipelined_2x1_cluster,
    pipelined_cluster,
    bf16,
    bf16,
    f32,
    b_kn = true,
    ints = false,
    tol = 1e-5,
    shapes = [(128, 128, 64), (256, 256, 1024), (512, 384, 2048)]
);
gemm_case!(
    accumulator_restarts_per_tile,
    tiles_down_a_column,
    bf16,
    bf16,
    f32,
    b_kn = true,
    ints = false,
    tol = 1e-5,
    shapes = [(64, 128, 64), (192, 256, 128), (512, 384, 1024)]
);
gemm_case!(
    split_k_through_a_peer,
    split_k_pair,
    bf16,
    bf16,
    f32,
    b_kn = true,
    ints = false,
    tol = 1e-5,
    shapes = [(64, 128, 128), (128, 256, 768), (256, 384, 4096)]
);
gemm_case!(
    f16_f16,
    gemm_f16_f16,
    f16,
    f16,
    f16,
    b_kn = true,
    ints = false,
    tol = 2e-2,
    shapes = [(128, 64, 64), (256, 192, 512)]
);
gemm_case!(
    bf16_regs_a,
    gemm_bf16_rega,
    bf16,
    bf16,
    bf16,
    b_kn = false,
    ints = false,
    tol = 1e-2,
    shapes = [(64, 64, 64), (192, 256, 320)]
);
gemm_case!(
    tf32_f32,
    gemm_tf32,
    f32,
    f32,
    f32,
    b_kn = false,
    ints = false,
    tol = 5e-3,
    shapes = [(64, 64, 32), (256, 128, 512)]
);
gemm_case!(
    fp8_mix_f32,
    gemm_fp8,
    F8E4M3,
    F8E5M2,
    f32,
    b_kn = false,
    ints = false,
    tol = 5e-3,
    shapes = [(64, 64, 128), (128, 192, 512)]
);
gemm_case!(
    i8_i32,
    gemm_i8,
    i8,
    i8,
    i32,
    b_kn = false,
    ints = true,
    tol = 0.0,
    shapes = [(64, 64, 128), (256, 128, 1024)]
);

#[test]
#[ignore = "needs an NVIDIA GPU"]
fn gemm_jit_logs_have_no_wgmma_serialization() {
    let dev = device();
    let modules = [
        (gemm_bf16::PTX, gemm_bf16::ENTRY),
        (gemm_f16_f16::PTX, gemm_f16_f16::ENTRY),
        (gemm_bf16_rega::PTX, gemm_bf16_rega::ENTRY),
        (gemm_tf32::PTX, gemm_tf32::ENTRY),
        (gemm_fp8::PTX, gemm_fp8::ENTRY),
        (gemm_i8::PTX, gemm_i8::ENTRY),
    ];
    for (ptx, entry) in modules {
        let module = tessel::Module::load(&dev, ptx, entry).unwrap();
        let log = module.info_log();
        assert!(!log.contains("C75"), "{entry}: the JIT reported wgmma serialization:\n{log}");
        println!("{entry}: JIT info log has no C75xx line ({} bytes)", log.len());
    }
}
