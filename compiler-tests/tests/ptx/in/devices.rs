//! Kernels of several devices: the device's rank and the peers' addresses as parameters, a rank
//! outside the group trapping, TMA stores (plain and reducing) and loads of peers' tiles through
//! one tensor map per device, a wait for the stores' writes with the proxy fence that publishes
//! them, semaphores of system scope (a signal, a range, a wait), register stores and atomic adds
//! of system scope into peers' memory; then a group large enough that the peers' tensor maps need
//! PTX ISA 8.1's larger parameter space.
// expect: .param .u32 device_rank
// expect: .param .align 8 .b8 peers_out[32]
// expect: .param .align 64 .b8 tmap_1[512]
// expect: ld.param.u32
// expect: @%p4 trap
// expect: mad.wide.u32
// expect: cp.async.bulk.wait_group 0
// expect: fence.proxy.async.global
// expect: red.release.sys.global.add.u32
// expect: fence.acq_rel.sys
// expect: red.relaxed.sys.global.add.u32
// expect: ld.acquire.sys.global.u32
// expect: atom.acquire.sys.global.cas.b32
// expect: cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group
// expect: red.relaxed.sys.global.add.v2.f32
// expect: red.relaxed.sys.global.add.noftz.bf16x2
// expect: .version 8.1

use tessel::prelude::*;

#[kernel(grid = (M / 64), devices = 4)]
fn ring_step(x: Gmem<f32, M, 64>, #[peers] out: GmemMut<f32, S, 64>, #[peers] ready: GmemMut<u32, 4>) {
    let (i, me) = (program_id(0), device_id());
    let next = (me + 1) % device_count();
    run_scoped(|t: Smem<f32, 64, 64>, bar: Barrier| {
        copy_gmem_to_smem(x.tile([i, 0]), t, bar);
        barrier_wait(bar);
        copy_smem_to_gmem(t, remote(out, next).tile([me * num_programs(0) + i, 0]));
        copy_smem_to_gmem(t, remote(out, next).tile([i, 0]), reduce = Reduce::Add);
        wait_smem_to_gmem(0, complete = true);
        semaphore_signal(remote(ready, next), me);
        semaphore_signal(remote(ready, (me + 2) % 4), 0..4, 2);
        semaphore_wait(ready, me, 3);
        copy_gmem_to_smem(remote(out, (me + 3) % 4).tile([i, 0]), t, bar);
        barrier_wait(bar);
        out.tile([i, 0], [64, 64]).store(t.load(Layout::Strided));
    });
}

#[kernel(grid = (M / 64), devices = 2)]
fn scatter_regs(x: Gmem<f32, M, 64>, h: Gmem<bf16, M, 64>, #[peers] y: GmemMut<f32, M, 64>, #[peers] g: GmemMut<bf16, M, 64>) {
    let i = program_id(0);
    let other = 1 - device_id();
    let v = x.tile([i, 0], [64, 64]).load(Layout::Wgmma);
    remote(y, other).tile([i, 0]).store(v);
    remote(y, other).tile([i, 0]).atomic_add(v);
    remote(g, other).tile([i, 0]).atomic_add(h.tile([i, 0], [64, 64]).load(Layout::Wgmma));
}

#[kernel(grid = (M / 64), devices = 16)]
fn wide_group(#[peers] a: Gmem<f32, M, 64>, #[peers] b: Gmem<f32, M, 64>, #[peers] c: Gmem<f32, M, 64>, y: GmemMut<f32, M, 64>) {
    let i = program_id(0);
    let peer = (device_id() + 1) % 16;
    run_scoped(|t: Smem<f32, 3, 64, 64>, bar: Barrier<3>| {
        copy_gmem_to_smem(remote(a, peer).tile([i, 0]), t.at(0), bar);
        copy_gmem_to_smem(remote(b, peer).tile([i, 0]), t.at(1), bar);
        copy_gmem_to_smem(remote(c, peer).tile([i, 0]), t.at(2), bar);
        barrier_wait(bar);
        let s = t.at(0).load(Layout::Strided) + t.at(1).load(Layout::Strided) + t.at(2).load(Layout::Strided);
        y.tile([i, 0], [64, 64]).store(s);
    });
}

fn main() {}
