//! Pipelines: a producer warpgroup fills a ring of stages that a consumer warpgroup drains. The
//! producer's wait for a free stage ends at a warpgroup barrier, whether its step only issues
//! copies (`copied`) or writes the stage itself (`stored`): a parity wait by a thread that nothing
//! waits for could sleep through two phases and then wait for a third that never comes.
// expect: mbarrier.try_wait.parity.shared::cta.b64
// expect: bar.sync

use tessel::prelude::*;

#[kernel(grid = (M / 64,), warpgroups = 2, warpgroup_axis = wg, consts(STAGES = 2))]
fn copied(x: Gmem<f32, M, K>, out: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    let steps = K / 64;
    run_scoped(collective_axes = [wg], |x_s: Smem<f32, STAGES, 64, 64>, ring: Pipeline<STAGES, 1, 1>| {
        if warpgroup_id() == 0 {
            pipeline_produce(ring, steps, |k, s, bar| {
                copy_gmem_to_smem(x.tile([i, k]), x_s.at(s), bar);
            });
        } else {
            let mut sum = splat::<f32>(0.0, [64, 64]).to_layout(Layout::Strided);
            pipeline_consume(ring, steps, |k, s| {
                sum = sum + x_s.at(s).load(Layout::Strided);
            });
            out.tile([i, 0], [64, 64]).store(sum);
        }
    });
}

#[kernel(grid = (M / 64,), warpgroups = 2, warpgroup_axis = wg, consts(STAGES = 2, STEPS = 4))]
fn stored(x: Gmem<f32, M, 64>, out: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    run_scoped(collective_axes = [wg], |x_s: Smem<f32, STAGES, 64, 64>, ring: Pipeline<STAGES, 1, 1>| {
        if warpgroup_id() == 0 {
            let v = x.tile([i, 0], [64, 64]).load(Layout::Strided);
            pipeline_produce(ring, STEPS, |k, s, bar| {
                x_s.at(s).store(v);
                barrier_arrive(bar);
            });
        } else {
            let mut sum = splat::<f32>(0.0, [64, 64]).to_layout(Layout::Strided);
            pipeline_consume(ring, STEPS, |k, s| {
                sum = sum + x_s.at(s).load(Layout::Strided);
            });
            out.tile([i, 0], [64, 64]).store(sum);
        }
    });
}

fn main() {}
