//! Flash attention forward for one head: S = Q K^T on WGMMA (K-major B through `.t()`), an online
//! softmax over row vectors carried across the loop, P from registers into a second WGMMA with V, a
//! double-buffered K/V pipeline, and a TMA store of the output.

use tessel::prelude::*;

#[kernel(grid = (S / 64), consts(D = 64, BT = 64))]
fn attention(q: Gmem<bf16, S, D>, k: Gmem<bf16, T, D>, v: Gmem<bf16, T, D>, o: GmemMut<bf16, S, D>, scale: f32) {
    let i = program_id(0);
    run_scoped(
        |s_acc: Acc<f32, 64, BT>,
         o_acc: Acc<f32, 64, D>,
         q_s: Smem<bf16, 64, D, Swizzle128>,
         k_s: Smem<bf16, 2, BT, D, Swizzle128>,
         v_s: Smem<bf16, 2, BT, D, Swizzle128>,
         o_s: Smem<bf16, 64, D, Swizzle128>,
         q_bar: Barrier,
         kv_bar: Barrier<2, 2>| {
            copy_gmem_to_smem(q.tile([i, 0]), q_s, q_bar);
            copy_gmem_to_smem(k.tile([0, 0]), k_s.at(0), kv_bar.at(0));
            copy_gmem_to_smem(v.tile([0, 0]), v_s.at(0), kv_bar.at(0));
            barrier_wait(q_bar);
            let mut m_i = splat::<f32>(-1.0e30, [64]).to_layout(Layout::WgmmaRow);
            let mut l_i = splat::<f32>(0.0, [64]).to_layout(Layout::WgmmaRow);
            o_acc.store(splat::<f32>(0.0, [64, D]));
            for t in 0..T / BT {
                let s = t % 2;
                if t + 1 < T / BT {
                    let n = (t + 1) % 2;
                    copy_gmem_to_smem(k.tile([t + 1, 0]), k_s.at(n), kv_bar.at(n));
                    copy_gmem_to_smem(v.tile([t + 1, 0]), v_s.at(n), kv_bar.at(n));
                }
                barrier_wait(kv_bar.at(s));
                s_acc.store(splat::<f32>(0.0, [64, BT]));
                wgmma(s_acc, q_s, k_s.at(s).t());
                wgmma_wait(0);
                let scores = s_acc.load() * (scale * 1.4426950408889634);
                let m_new = max(m_i, scores.max(1));
                let alpha = exp2(m_i - m_new);
                let p = exp2(scores - m_new.broadcast([64, BT], Layout::Wgmma));
                l_i = l_i * alpha + p.sum(1);
                o_acc.store(o_acc.load() * alpha.broadcast([64, D], Layout::Wgmma));
                wgmma(o_acc, p.cast::<bf16>(), v_s.at(s));
                wgmma_wait(0);
                m_i = m_new;
            }
            let out = o_acc.load() / l_i.broadcast([64, D], Layout::Wgmma);
            o_s.store(out.cast::<bf16>());
            commit_smem();
            copy_smem_to_gmem(o_s, o.tile([i, 0]));
            wait_smem_to_gmem(0);
        },
    );
}

fn main() {}
