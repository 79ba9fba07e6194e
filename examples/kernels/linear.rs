//! A linear layer with its bias and activation fused into the GEMM's epilogue, as a transformer's
//! MLP runs it: Y = act(X W^T + b), X (M x K, tokens by features), W (N x K, as `nn.Linear`
//! stores it), b (N), Y (M x N), all bf16 or f16 with f32 accumulation.
//!
//! The kernel is the persistent warp-specialized GEMM of `kernels/matmul.rs` (128 x 256 tiles,
//! a 3-stage `Pipeline`, two consumer warpgroups of m64n256k16 WGMMAs) reading W K-major, as the
//! quantized GEMMs do, and the producer copies each tile's 256 biases with TMA (a second,
//! two-stage `Pipeline`). The epilogue, 64 columns at a time, adds the bias and applies the
//! activation in f32 before rounding: ReLU, GELU (tanh form, as PyTorch's `approximate="tanh"`
//! and cuBLASLt's GELU epilogue) or SiLU, or none. The activation is a const of the kernel text,
//! so each instantiation carries only its own.

use tessel::prelude::*;

/// Y = act(X W^T + b) with 128 x 256 tiles; `ACT` is 0 (none), 1 (ReLU), 2 (GELU, tanh form) or 3
/// (SiLU). M must be a multiple of 128, N of 256 and K of 64 (the launch checks N and K;
/// [`linear_bf16`] and [`linear_f16`] check M).
macro_rules! linear {
    ($name:ident, $t:ident, ACT = $act:literal) => {
        #[kernel(grid = (132,), warpgroups = 3, warpgroup_axis = wg, max_registers = 168,
                                 consts(BM = 128, BN = 256, BK = 64, STAGES = 3, GROUP = 8, BLOCKS = 4, ACT = $act))]
        pub fn $name(x: Gmem<$t, M, K>, w: Gmem<$t, N, K>, b: Gmem<$t, N>, y: GmemMut<$t, M, N>) {
            let (tile_rows, tile_cols, steps) = (M / BM, N / BN, K / BK);
            let (p, programs) = (program_id(0), num_programs(0));
            let tiles = tile_rows * tile_cols;
            run_scoped(
                collective_axes = [wg],
                |x_s: Smem<$t, STAGES, 2, 64, BK, Swizzle128>,
                 w_s: Smem<$t, STAGES, BN, BK, Swizzle128>,
                 y_s: Smem<$t, 2, BLOCKS, 64, 64, Swizzle128>,
                 ring: Pipeline<STAGES, 3, 2>,
                 // A tile's biases: one copy, two consumers.
                 b_s: Smem<$t, 2, BN>,
                 biases: Pipeline<2, 1, 2>| {
                    if warpgroup_id() == 0 {
                        set_max_registers(40);
                        for t in 0..(tiles - p + programs - 1) / programs {
                            // L2-friendly order: GROUP tile-rows at a time, walking down each column.
                            let u = p + t * programs;
                            let first = u / (GROUP * tile_cols) * GROUP;
                            let rows = min(tile_rows - first, GROUP);
                            let (ti, tj) = (first + u % (GROUP * tile_cols) % rows, u % (GROUP * tile_cols) / rows);
                            pipeline_produce(biases, 1, |_k, s, bar| {
                                copy_gmem_to_smem(b.tile([tj]), b_s.at(s), bar);
                            });
                            pipeline_produce(ring, steps, |k, s, bar| {
                                copy_gmem_to_smem(x.tile([2 * ti, k]), x_s.at(s).at(0), bar);
                                copy_gmem_to_smem(x.tile([2 * ti + 1, k]), x_s.at(s).at(1), bar);
                                copy_gmem_to_smem(w.tile([tj, k]), w_s.at(s), bar);
                            });
                        }
                    } else {
                        set_max_registers(232);
                        let h = warpgroup_id() - 1;
                        run_scoped(|acc: Acc<f32, 64, BN>| {
                            for t in 0..(tiles - p + programs - 1) / programs {
                                let u = p + t * programs;
                                let first = u / (GROUP * tile_cols) * GROUP;
                                let rows = min(tile_rows - first, GROUP);
                                let (ti, tj) = (first + u % (GROUP * tile_cols) % rows, u % (GROUP * tile_cols) / rows);
                                pipeline_consume(ring, steps, |k, s| {
                                    // W's stage is N x K: `.t()` is the K x N operand, K-major.
                                    wgmma(acc, x_s.at(s).at(h), w_s.at(s).t(), accumulate = k > 0);
                                });
                                // The previous tile's stores must have read y_s before it is rewritten.
                                wait_smem_to_gmem(0);
                                pipeline_consume(biases, 1, |_k, s| {
                                    #[unroll]
                                    for q in 0..BLOCKS {
                                        let bias = b_s.at(s).slice([64 * q..64 * q + 64]).load(Layout::WgmmaCol);
                                        let z = acc.slice([.., 64 * q..64 * q + 64]).load()
                                            + bias.cast::<f32>().broadcast([64, 64], Layout::Wgmma);
                                        // The activation, chosen when the kernel compiles.
                                        let a = if ACT == 1 {
                                            max(z, 0.0)
                                        } else if ACT == 2 {
                                            // 0.5 z (1 + tanh(sqrt(2 / pi) (z + 0.044715 z^3)))
                                            let inner = z * (0.7978846 + 0.035677407 * z * z);
                                            0.5 * z * (1.0 + tanh(inner))
                                        } else if ACT == 3 {
                                            z * recip(1.0 + exp(-z))
                                        } else {
                                            z
                                        };
                                        y_s.at(h).at(q).store(a.cast::<$t>());
                                    }
                                });
                                commit_smem();
                                #[unroll]
                                for q in 0..BLOCKS {
                                    copy_smem_to_gmem(y_s.at(h).at(q), y.tile([2 * ti + h, BLOCKS * tj + q]));
                                }
                            }
                        });
                    }
                },
            );
        }
    };
}

linear!(linear_none_bf16, bf16, ACT = 0);
linear!(linear_relu_bf16, bf16, ACT = 1);
linear!(linear_gelu_bf16, bf16, ACT = 2);
linear!(linear_silu_bf16, bf16, ACT = 3);
linear!(linear_none_f16, f16, ACT = 0);
linear!(linear_relu_f16, f16, ACT = 1);
linear!(linear_gelu_f16, f16, ACT = 2);
linear!(linear_silu_f16, f16, ACT = 3);

/// The activation after the bias.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    None,
    Relu,
    /// GELU in its tanh form: 0.5 z (1 + tanh(sqrt(2 / pi) (z + 0.044715 z^3))).
    Gelu,
    /// z sigmoid(z).
    Silu,
}

impl Activation {
    /// Its value on one f64, the reference the tests and benchmarks check against.
    pub fn apply(self, z: f64) -> f64 {
        match self {
            Activation::None => z,
            Activation::Relu => z.max(0.0),
            Activation::Gelu => {
                0.5 * z * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (z + 0.044715 * z.powi(3))).tanh())
            }
            Activation::Silu => z / (1.0 + (-z).exp()),
        }
    }
}

/// The dispatch over activations for one element type: a launch and an interpretation.
macro_rules! linear_fns {
    ($launch:ident, $interpret:ident, $t:ident, $none:ident, $relu:ident, $gelu:ident, $silu:ident) => {
        /// Y = act(X W^T + b) on the GPU.
        pub fn $launch(
            stream: &impl tessel::AsStream,
            x: &DeviceTensor<$t>,
            w: &DeviceTensor<$t>,
            b: &DeviceTensor<$t>,
            y: &mut DeviceTensor<$t>,
            act: Activation,
        ) -> tessel::Result<()> {
            whole_row_tiles(x.shape().first().copied().unwrap_or(0))?;
            match act {
                Activation::None => $none::launch(stream, x, w, b, y),
                Activation::Relu => $relu::launch(stream, x, w, b, y),
                Activation::Gelu => $gelu::launch(stream, x, w, b, y),
                Activation::Silu => $silu::launch(stream, x, w, b, y),
            }
        }

        /// Y = act(X W^T + b) in the interpreter.
        pub fn $interpret(
            x: &HostTensor<$t>,
            w: &HostTensor<$t>,
            b: &HostTensor<$t>,
            y: &mut HostTensor<$t>,
            act: Activation,
        ) -> tessel::Result<()> {
            whole_row_tiles(x.shape().first().copied().unwrap_or(0))?;
            match act {
                Activation::None => $none::interpret(x, w, b, y),
                Activation::Relu => $relu::interpret(x, w, b, y),
                Activation::Gelu => $gelu::interpret(x, w, b, y),
                Activation::Silu => $silu::interpret(x, w, b, y),
            }
        }
    };
}

linear_fns!(
    linear_bf16,
    interpret_linear_bf16,
    bf16,
    linear_none_bf16,
    linear_relu_bf16,
    linear_gelu_bf16,
    linear_silu_bf16
);
linear_fns!(linear_f16, interpret_linear_f16, f16, linear_none_f16, linear_relu_f16, linear_gelu_f16, linear_silu_f16);

/// M in whole 128-row tiles: the launch checks the TMA boxes (64 rows), not what a program
/// computes (two of them). An X without rows (of the wrong rank) passes, for the launch to report.
fn whole_row_tiles(m: usize) -> tessel::Result<()> {
    match m % 128 {
        0 => Ok(()),
        _ => Err(tessel::Error::Divisibility {
            dim: "M",
            value: m,
            divisor: 128,
            why: "a program computes whole 128-row tiles",
        }),
    }
}

/// Every instantiation's name and PTX (for `ptxas` checks and `TESSEL_DUMP_PTX`).
pub const ALL_PTX: &[(&str, &str)] = &[
    ("linear_none_bf16", linear_none_bf16::PTX),
    ("linear_relu_bf16", linear_relu_bf16::PTX),
    ("linear_gelu_bf16", linear_gelu_bf16::PTX),
    ("linear_silu_bf16", linear_silu_bf16::PTX),
    ("linear_none_f16", linear_none_f16::PTX),
    ("linear_relu_f16", linear_relu_f16::PTX),
    ("linear_gelu_f16", linear_gelu_f16::PTX),
    ("linear_silu_f16", linear_silu_f16::PTX),
];
