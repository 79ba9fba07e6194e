//! A walk over every expression of a kernel body, for whole-kernel questions the writer asks before
//! it writes (how much scratch shared memory, which PTX version).

use crate::syntax::ast::{Block, Expr, ExprKind, Kernel, SliceArg, Stmt};

/// Calls `f` on every expression of the kernel's body, parents before children.
pub fn for_each_expr(kernel: &Kernel, f: &mut dyn FnMut(&Expr)) {
    block(&kernel.body, f);
}

fn block(b: &Block, f: &mut dyn FnMut(&Expr)) {
    for s in &b.stmts {
        stmt(s, f);
    }
    if let Some(t) = &b.tail {
        expr(t, f);
    }
}

fn stmt(s: &Stmt, f: &mut dyn FnMut(&Expr)) {
    match s {
        Stmt::Let { init, .. } => expr(init, f),
        Stmt::Const(c) => expr(&c.value, f),
        Stmt::Assign { value, .. } => expr(value, f),
        Stmt::For { start, end, body, .. } => {
            expr(start, f);
            expr(end, f);
            block(body, f);
        }
        Stmt::If { cond, then, otherwise, .. } => {
            expr(cond, f);
            block(then, f);
            if let Some(o) = otherwise {
                block(o, f);
            }
        }
        Stmt::Block(b) => block(b, f),
        Stmt::Expr(e) => expr(e, f),
    }
}

fn expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    use ExprKind as K;
    match &e.kind {
        K::Invalid
        | K::Int(..)
        | K::Float(..)
        | K::Bool(_)
        | K::Var(_)
        | K::ProgramId(_)
        | K::NumPrograms(_)
        | K::WarpgroupId
        | K::ClusterRank
        | K::Iota { .. }
        | K::WgmmaWait(_)
        | K::CommitSmem
        | K::WaitSmemToGmem(_)
        | K::SetMaxRegisters(_) => {}
        K::Tuple(items) => items.iter().for_each(|i| expr(i, f)),
        K::If { cond, then, otherwise } => {
            expr(cond, f);
            block(then, f);
            block(otherwise, f);
        }
        K::Unary { operand: x, .. }
        | K::ScalarCast { value: x, .. }
        | K::Transpose { base: x, .. }
        | K::Load { src: x, .. }
        | K::AccFromRegs(x)
        | K::Splat { value: x, .. }
        | K::BarrierArrive { barrier: x, .. }
        | K::BarrierWait(x, _)
        | K::Math { arg: x, .. }
        | K::Cast { value: x, .. }
        | K::Bitcast { value: x, .. }
        | K::Reduce { value: x, .. }
        | K::Broadcast { value: x, .. }
        | K::ToLayout { value: x, .. }
        | K::LayoutCast { value: x, .. } => expr(x, f),
        K::Binary { lhs, rhs, .. } | K::Math2 { lhs, rhs, .. } => {
            expr(lhs, f);
            expr(rhs, f);
        }
        K::Fma { a, b, c } => {
            expr(a, f);
            expr(b, f);
            expr(c, f);
        }
        K::Tile { gmem, index, .. } => {
            expr(gmem, f);
            index.iter().for_each(|i| expr(i, f));
        }
        K::At { base, index } => {
            expr(base, f);
            expr(index, f);
        }
        K::Slice { base, args } => {
            expr(base, f);
            for a in args {
                if let SliceArg::Range { start, end, .. } = a {
                    expr(start, f);
                    expr(end, f);
                }
            }
        }
        K::Store { dst, value } => {
            expr(dst, f);
            expr(value, f);
        }
        K::Wgmma { acc, a, b, accumulate } => {
            expr(acc, f);
            expr(a, f);
            expr(b, f);
            if let Some(c) = accumulate {
                expr(c, f);
            }
        }
        K::Mma { acc, a, b } => {
            expr(acc, f);
            expr(a, f);
            expr(b, f);
        }
        K::CopyGmemToSmem { src, dst, barrier, .. } => {
            expr(src, f);
            expr(dst, f);
            expr(barrier, f);
        }
        K::CopySmemToGmem { src, dst } => {
            expr(src, f);
            expr(dst, f);
        }
        K::CopySmemToPeer { src, dst, barrier, rank } => {
            expr(src, f);
            expr(dst, f);
            expr(barrier, f);
            expr(rank, f);
        }
        K::Semaphore { sems, index, end, count, .. } => {
            expr(sems, f);
            expr(index, f);
            for e in end.iter().chain(count) {
                expr(e, f);
            }
        }
        K::RunScoped { body, .. } => block(body, f),
        K::RunState { init, body, .. } => {
            expr(init, f);
            block(body, f);
        }
    }
}
