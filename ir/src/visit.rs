//! A walk over every expression of a program, for whole-kernel questions (which PTX version an
//! instruction needs, whether any TMA store is issued) and the checks that read the program.

use crate::program::{Block, Expr, ExprKind, Program, Stmt};

impl Program {
    /// Calls `f` on every expression of the body, parents before children, in program order.
    pub fn for_each_expr(&self, f: &mut dyn FnMut(&Expr)) {
        block(&self.body, f);
    }

    /// Whether any expression of the body satisfies `p`.
    pub fn any_expr(&self, p: impl Fn(&Expr) -> bool) -> bool {
        let mut found = false;
        self.for_each_expr(&mut |e| found |= p(e));
        found
    }
}

fn block(b: &Block, f: &mut dyn FnMut(&Expr)) {
    b.stmts.iter().for_each(|s| stmt(s, f));
    if let Some(t) = &b.tail {
        expr(t, f);
    }
}

fn stmt(s: &Stmt, f: &mut dyn FnMut(&Expr)) {
    match s {
        Stmt::Let { init, .. } => expr(init, f),
        Stmt::Assign { value, .. } => expr(value, f),
        Stmt::For { start, end, body, .. } => {
            expr(start, f);
            expr(end, f);
            block(body, f);
        }
        Stmt::If { cond, then, otherwise } => {
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

fn exprs<'a>(es: impl IntoIterator<Item = &'a Expr>, f: &mut dyn FnMut(&Expr)) {
    es.into_iter().for_each(|e| expr(e, f));
}

fn expr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    f(e);
    use ExprKind as K;
    match &e.kind {
        K::Lit(_)
        | K::Local(_)
        | K::Const(_)
        | K::Dim(_)
        | K::ProgramId(_)
        | K::NumPrograms(_)
        | K::WarpgroupId
        | K::ClusterRank
        | K::DeviceId
        | K::GlobalTimer
        | K::Iota { .. }
        | K::WgmmaWait(_)
        | K::CommitSmem
        | K::WaitSmemToGmem { .. }
        | K::SetMaxRegisters(_) => {}
        K::Tuple(items) => exprs(items, f),
        K::If { cond, then, otherwise } => {
            expr(cond, f);
            block(then, f);
            block(otherwise, f);
        }
        K::Unary { operand: x, .. }
        | K::ScalarCast { value: x, .. }
        | K::Transpose { base: x, .. }
        | K::Slice { base: x, .. }
        | K::Load { src: x, .. }
        | K::Splat { value: x, .. }
        | K::Arrive { barrier: x, .. }
        | K::Wait { barrier: x, .. }
        | K::Math { arg: x, .. }
        | K::Cast { value: x, .. }
        | K::Bitcast { value: x, .. }
        | K::Reduce { value: x, .. }
        | K::Broadcast { value: x, .. }
        | K::ToLayout(x)
        | K::LayoutCast(x) => expr(x, f),
        K::Binary { lhs, rhs, .. } | K::Math2 { lhs, rhs, .. } => exprs([&**lhs, &**rhs], f),
        K::Fma(operands) => exprs(operands.iter(), f),
        K::Tile { gmem, index, .. } => {
            expr(gmem, f);
            exprs(index, f);
        }
        K::At { base, index } => exprs([&**base, &**index], f),
        K::Remote { gmem, rank } => exprs([&**gmem, &**rank], f),
        K::Store { dst, value } | K::AtomicAdd { dst, value } => exprs([&**dst, &**value], f),
        K::Wgmma { acc, a, b, accumulate } => {
            exprs([&**acc, &**a, &**b], f);
            exprs(accumulate.as_deref(), f);
        }
        K::Mma { acc, a, b } => exprs([&**acc, &**a, &**b], f),
        K::CopyIn { src, dst, barrier, .. } => exprs([&**src, &**dst, &**barrier], f),
        K::CopyOut { src, dst, .. } => exprs([&**src, &**dst], f),
        K::CopyToPeer { src, dst, barrier, rank } => exprs([&**src, &**dst, &**barrier, &**rank], f),
        K::Semaphore { sems, index, end, count, .. } => {
            exprs([&**sems, &**index], f);
            exprs(end.as_deref(), f);
            exprs(count.as_deref(), f);
        }
        K::RunScoped { body, .. } => block(body, f),
        K::RunState { init, body, .. } => {
            expr(init, f);
            block(body, f);
        }
    }
}
