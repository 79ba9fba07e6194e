//! Scoped allocations, barriers and warpgroup synchronization (PTX ISA §9.7.13: bar, mbarrier,
//! barrier.cluster, setmaxnreg).

use super::gen::Gen;
use super::value::Val;
use super::writer::Class;
use crate::typeck::{AccTy, AllocKind};
use crate::types::DType;
use tessel_ir::ops::Waiters;
use tessel_ir::program::{Allocation, Block, Expr};

/// Registers of a zeroed accumulator: f32 and i32 hold one element each, f16 packs two per `.b32`.
pub fn zero_acc(g: &mut Gen, ty: &AccTy) -> Vec<String> {
    let n = acc_regs(ty);
    (0..n)
        .map(|_| {
            let class = if ty.dtype == DType::F32 { Class::F32 } else { Class::B32 };
            let r = g.w.reg(class);
            let zero = if class == Class::F32 { "0f00000000" } else { "0" };
            let suffix = if class == Class::F32 { "f32" } else { "b32" };
            g.w.ins(format!("mov.{suffix} {r}, {zero}"));
            r
        })
        .collect()
}

/// How many registers an accumulator takes per thread.
pub fn acc_regs(ty: &AccTy) -> usize {
    let elems = (ty.shape[0] * ty.shape[1] / 128) as usize;
    if ty.dtype == DType::F16 {
        elems / 2
    } else {
        elems
    }
}

/// `bar.sync` over this warpgroup's 128 threads (named barrier 1 + warpgroup index); none right
/// after another, with nothing between (`commit_smem()` then `barrier_arrive(..)`, say): every
/// thread has passed the first, and nothing was done since that the second would order.
pub fn sync_warpgroup(g: &mut Gen) {
    if g.warpgroup_synced == Some(g.w.mark()) {
        return;
    }
    let id = g.w.reg(Class::B32);
    g.w.ins(format!("add.u32 {id}, {}, 1", g.lanes.wg));
    g.w.ins(format!("bar.sync {id}, 128"));
    g.warpgroup_synced = Some(g.w.mark());
}

/// `bar.sync 0`: every thread of the program.
pub fn sync_program(g: &mut Gen) {
    g.w.ins("bar.sync 0");
}

/// Every thread of the cluster.
fn sync_cluster(g: &mut Gen) {
    g.w.ins("barrier.cluster.arrive.release.aligned");
    g.w.ins("barrier.cluster.wait.acquire.aligned");
}

/// `run_scoped(..)`: binds each allocation, initialises barriers, runs the body. Where the program
/// synchronizes on entry and exit (`sync_entry`, `sync_exit`, `sync_cluster`) is the program's
/// to say, so that the interpreter synchronizes at the same places.
pub fn emit_run_scoped(g: &mut Gen, allocs: &[(usize, Allocation)], body: &Block, sync: [bool; 3]) -> Val {
    let [entry, exit, cluster] = sync;
    if entry {
        // Everyone has left the previous scope that may have used this memory (like Mosaic GPU).
        sync_program(g);
    }
    g.push_scope();
    let mut barriers = Vec::new();
    for &(slot, how) in allocs {
        let v = bind_alloc(g, how.alloc());
        if matches!(v, Val::Barrier { .. }) {
            barriers.push(how.alloc());
        }
        g.bind(slot, v, false);
    }
    if !barriers.is_empty() {
        init_barriers(g, &barriers, cluster);
    }
    let result = g.block(body);
    if exit {
        if cluster {
            sync_cluster(g);
        }
        sync_program(g);
        invalidate_barriers(g, &barriers);
    }
    g.pop_scope();
    result
}

fn bind_alloc(g: &mut Gen, alloc: usize) -> Val {
    let a = g.prog.allocs[alloc].clone();
    match &a.kind {
        AllocKind::Acc { dtype, shape } => {
            let ty = AccTy { dtype: *dtype, shape: shape.clone(), sliced: false };
            Val::Acc { regs: zero_acc(g, &ty), ty }
        }
        AllocKind::Smem { dtype, stored, swizzle, transposed } => {
            let addr = g.w.reg(Class::B32);
            g.w.ins(format!("add.u32 {addr}, {}, {}", g.smem_base, a.offset));
            let ty = crate::typeck::SmemTy {
                alloc,
                dtype: *dtype,
                stored: stored.clone(),
                transposed: *transposed,
                swizzle: *swizzle,
                sliced: false,
            };
            Val::Smem { addr, ty }
        }
        AllocKind::Barrier { .. } => {
            let addr = g.w.reg(Class::B32);
            g.w.ins(format!("add.u32 {addr}, {}, {}", g.smem_base, a.offset));
            let mask = g.w.reg(Class::B32);
            g.w.ins(format!("mov.b32 {mask}, 0"));
            g.parity.insert(alloc, mask);
            Val::Barrier { addr, alloc, index: None }
        }
    }
}

/// One thread initialises every mbarrier; the init is fenced and made visible to the program (and
/// the cluster) before anyone uses it (checked on the H200).
fn init_barriers(g: &mut Gen, allocs: &[usize], cluster: bool) {
    let skip = g.w.label("init_done");
    g.w.ins(format!("@!{} bra {skip}", g.lanes.first));
    for a in allocs {
        let alloc = g.prog.allocs[*a].clone();
        if let AllocKind::Barrier { arrivals, count } = alloc.kind {
            for i in 0..count {
                let addr = g.w.reg(Class::B32);
                g.w.ins(format!("add.u32 {addr}, {}, {}", g.smem_base, alloc.offset + 8 * i as u64));
                g.w.ins(format!("mbarrier.init.shared::cta.b64 [{addr}], {arrivals}"));
            }
        }
    }
    g.w.ins("fence.mbarrier_init.release.cluster");
    g.w.put_label(&skip);
    sync_program(g);
    if cluster {
        sync_cluster(g);
    }
}

fn invalidate_barriers(g: &mut Gen, allocs: &[usize]) {
    let skip = g.w.label("inval_done");
    g.w.ins(format!("@!{} bra {skip}", g.lanes.first));
    for a in allocs {
        let alloc = g.prog.allocs[*a].clone();
        if let AllocKind::Barrier { count, .. } = alloc.kind {
            for i in 0..count {
                let addr = g.w.reg(Class::B32);
                g.w.ins(format!("add.u32 {addr}, {}, {}", g.smem_base, alloc.offset + 8 * i as u64));
                g.w.ins(format!("mbarrier.inval.shared::cta.b64 [{addr}]"));
            }
        }
    }
    g.w.put_label(&skip);
}

/// `run_state(Acc::from_regs(x), |acc| body)`.
pub fn emit_run_state(g: &mut Gen, init: &Expr, ty: &AccTy, slot: usize, body: &Block) -> Val {
    let regs = match g.expr(init) {
        Val::Regs { regs, .. } => regs,
        other => return g.internal(format!("run_state's initial value is {other:?}, not a register array")),
    };
    let acc = super::memory::regs_to_acc(g, ty, &regs);
    g.push_scope();
    g.bind(slot, Val::Acc { regs: acc, ty: ty.clone() }, false);
    let v = g.block(body);
    g.pop_scope();
    v
}

/// The barrier's address and its parity bit position.
fn barrier_parts(g: &mut Gen, b: &Expr) -> Option<(String, usize, Option<String>)> {
    match g.expr(b) {
        Val::Barrier { addr, alloc, index, .. } => Some((addr, alloc, index)),
        _ => None,
    }
}

/// `barrier_arrive(bar)`: the warpgroup's writes are done (bar.sync), then one thread arrives.
/// With `cluster`, it arrives on the barrier at the same offset in every program of the cluster
/// (`mapa` to each rank's shared window: checked on the H200). The arrival keeps the default
/// `.release.cta` semantics: what it orders is the warpgroup's reads of a stage, which its
/// `wgmma_wait` has already completed, and a `.release.cluster` fence on every release stalls the
/// warpgroup's next wgmma (it measured 40% slower).
pub fn emit_arrive(g: &mut Gen, b: &Expr, cluster: bool) -> Val {
    let Some((addr, _, _)) = barrier_parts(g, b) else {
        return g.internal("an arrival on something other than a barrier");
    };
    sync_warpgroup(g);
    let skip = g.w.label("arrived");
    g.w.ins(format!("@!{} bra {skip}", g.lanes.leader));
    if cluster {
        for rank in 0..g.prog.cluster_size() {
            let remote = g.w.reg(Class::B32);
            g.w.ins(format!("mapa.shared::cluster.u32 {remote}, {addr}, {rank}"));
            g.w.ins(format!("mbarrier.arrive.shared::cluster.b64 _, [{remote}]"));
        }
    } else {
        let state = g.w.reg(Class::B64);
        g.w.ins(format!("mbarrier.arrive.shared::cta.b64 {state}, [{addr}]"));
    }
    g.w.put_label(&skip);
    Val::Unit
}

/// How long (ns) a `try_wait` may suspend the thread before it rechecks (PTX ISA: a hint; the wait
/// returns as soon as the phase completes).
const SUSPEND_HINT_NS: u32 = 10_000_000;

/// `barrier_wait(bar)`: wait for the phase of this thread's parity bit, then flip the bit; with
/// `Waiters::InStep` the warpgroup synchronizes after the wait. On the H200 that barrier cost the
/// GEMM nothing, where waiting in the leader's warp alone cost the f16 128 x 8192 x 8192 GEMM 5%
/// and the leader thread alone 18% (its warp split): `docs/experiments.md`.
pub fn emit_wait(g: &mut Gen, b: &Expr, waiters: Waiters) -> Val {
    let Some((addr, alloc, index)) = barrier_parts(g, b) else {
        return g.internal("a wait on something other than a barrier");
    };
    let Some(mask) = g.parity.get(&alloc).cloned() else {
        return g.internal(format!("barrier {alloc} has no parity bits"));
    };
    let bit = g.w.reg(Class::B32);
    match &index {
        Some(i) => g.w.ins(format!("shl.b32 {bit}, 1, {i}")),
        None => g.w.ins(format!("mov.b32 {bit}, 1")),
    }
    let parity = g.w.reg(Class::B32);
    g.w.ins(format!("and.b32 {parity}, {mask}, {bit}"));
    g.w.ins(format!("min.u32 {parity}, {parity}, 1"));
    let (top, p) = (g.w.label("wait"), g.w.reg(Class::Pred));
    g.w.put_label(&top);
    // The suspend-time hint lets a waiting warp sleep instead of spinning: on a power-limited
    // GPU the spin loops of eight waiting warps cost clock speed.
    g.w.ins(format!("mbarrier.try_wait.parity.shared::cta.b64 {p}, [{addr}], {parity}, {SUSPEND_HINT_NS}"));
    g.w.ins(format!("@!{p} bra {top}"));
    if waiters == Waiters::InStep {
        sync_warpgroup(g);
    }
    g.w.ins(format!("xor.b32 {mask}, {mask}, {bit}"));
    Val::Unit
}

/// `commit_smem()`: this warpgroup's generic-proxy shared-memory writes become visible to the async
/// proxy (TMA, wgmma): every writer fences, then the warpgroup synchronizes (checked on the H200).
pub fn emit_commit_smem(g: &mut Gen) -> Val {
    g.w.ins("fence.proxy.async.shared::cta");
    sync_warpgroup(g);
    Val::Unit
}

/// `set_max_registers(n)`: `setmaxnreg.inc` above the entry cap, `.dec` below it.
pub fn emit_set_max_registers(g: &mut Gen, n: u32) -> Val {
    let cap = g.prog.max_registers.unwrap_or(n);
    if n > cap {
        g.w.ins(format!("setmaxnreg.inc.sync.aligned.u32 {n}"));
    } else if n < cap {
        g.w.ins(format!("setmaxnreg.dec.sync.aligned.u32 {n}"));
    }
    Val::Unit
}

/// `wait_smem_to_gmem(n)`: the thread that issued the TMA stores waits until at most `n` of them are
/// still reading shared memory (`.read`), then the warpgroup synchronizes so no thread rewrites the
/// buffers early. Bulk groups belong to the issuing thread (PTX ISA, cp.async.bulk.wait_group).
///
/// With `complete` (`legality::Completion::WaitComplete`): until at most `n` are still writing
/// global memory (`cp.async.bulk.wait_group n`, without `.read`: the writes are complete and
/// visible to the issuing thread), then `fence.proxy.async.global`, a proxy fence that orders those
/// writes, made through the async proxy, before the thread's later generic-proxy operations: the
/// release of a later `semaphore_signal`, issued by the same thread, then publishes them, to
/// another device too at system scope.
pub fn emit_wait_smem_to_gmem(g: &mut Gen, n: u32, complete: bool) -> Val {
    let leader = g.lanes.leader.clone();
    if complete {
        g.w.ins(format!("@{leader} cp.async.bulk.wait_group {n}"));
        g.w.ins(format!("@{leader} fence.proxy.async.global"));
    } else {
        g.w.ins(format!("@{leader} cp.async.bulk.wait_group.read {n}"));
    }
    sync_warpgroup(g);
    Val::Unit
}
