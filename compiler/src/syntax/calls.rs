//! Reading the language's operations: free functions (`wgmma(..)`, `run_scoped(..)`) and methods
//! (`acc.load()`, `x.cast::<bf16>()`), each checked for its arity here and for its types in `typeck`.
//!
//! An argument whose form matters (a shape `[64, 64]`, a layout, a closure, `accumulate = ..`) may be
//! a fragment that a `macro_rules!` substituted: it is read through its invisible group ([`peel`]).

use super::ast::*;
use super::expr::{first_span, loc_of, lower_block, lower_expr};
use super::peel;
use super::types::{dtype_of, layout_path, type_expr};
use crate::codes::Code;
use crate::diag::{Ctxt, Diag, Loc};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned as _;

type Args = Punctuated<syn::Expr, syn::Token![,]>;

/// The arguments, if there are exactly as many as the signature `form` shows.
fn arity<'a>(ctx: &Ctxt, span: Loc, form: &str, args: &'a Args, n: usize) -> Option<Vec<&'a syn::Expr>> {
    if args.len() == n {
        return Some(args.iter().collect());
    }
    ctx.type_error(
        span,
        Code::OperationForm,
        format!("`{form}` takes {n} argument{}, got {}", if n == 1 { "" } else { "s" }, args.len()),
        format!("write `{form}`"),
    );
    None
}

fn boxed(ctx: &Ctxt, e: &syn::Expr) -> Box<Expr> {
    Box::new(lower_expr(ctx, e))
}

/// A compile-time `u32` written as a literal: `program_id(0)`, `wgmma_wait(1)`.
fn lit_u32(ctx: &Ctxt, e: &syn::Expr) -> Option<Spanned<u32>> {
    super::expect_int_literal(ctx, e, loc_of(e), "this argument must be known when the kernel is compiled")
}

fn shape_arg(ctx: &Ctxt, e: &syn::Expr) -> Option<ShapeExpr> {
    if let syn::Expr::Array(a) = peel(e) {
        return Some(ShapeExpr {
            dims: a.elems.iter().map(|d| lower_expr(ctx, d)).collect(),
            span: a.bracket_token.span.join(),
        });
    }
    ctx.type_error(
        loc_of(e),
        Code::OperationForm,
        "expected a shape `[d0, d1, ..]`",
        "shapes are arrays of compile-time integers",
    );
    None
}

fn layout_arg(ctx: &Ctxt, e: &syn::Expr) -> Option<Spanned<Layout>> {
    if let syn::Expr::Path(p) = peel(e) {
        return layout_path(ctx, &p.path);
    }
    ctx.type_error(
        loc_of(e),
        Code::OperationForm,
        "expected a layout such as `Layout::Wgmma`",
        "name one of the `Layout` variants",
    );
    None
}

fn index_list(ctx: &Ctxt, e: &syn::Expr) -> Option<Vec<Expr>> {
    if let syn::Expr::Array(a) = peel(e) {
        return Some(a.elems.iter().map(|d| lower_expr(ctx, d)).collect());
    }
    ctx.type_error(
        loc_of(e),
        Code::OperationForm,
        "expected block indices `[i, j]`",
        "write the block index of each dimension",
    );
    None
}

/// `f(args)` for the language's free functions.
pub fn lower_call(ctx: &Ctxt, call: &syn::ExprCall) -> ExprKind {
    let span = Loc::new(first_span(&call.func), call.paren_token.span.close());
    let syn::Expr::Path(p) = peel(&call.func) else {
        ctx.unsupported(peel(&call.func).span(), Code::UnknownOperation, "calls of computed functions");
        return ExprKind::Invalid;
    };
    // A kernel function of the module (it may shadow an operation, as a Rust item shadows a glob import).
    if let Some(inlined) = super::inline::call(ctx, call, &p.path) {
        return inlined;
    }
    let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
    let name = segs.join("::");
    let turbofish = p.path.segments.last().and_then(|s| match &s.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.first().cloned(),
        _ => None,
    });
    let dtype_arg = || match &turbofish {
        Some(syn::GenericArgument::Type(t)) => dtype_of(ctx, t),
        _ => None,
    };
    let a = &call.args;
    lower_named_call(ctx, span, &name, a, dtype_arg).unwrap_or(ExprKind::Invalid)
}

fn lower_named_call(
    ctx: &Ctxt,
    span: Loc,
    name: &str,
    a: &Args,
    dtype_arg: impl Fn() -> Option<Spanned<crate::types::DType>>,
) -> Option<ExprKind> {
    Some(match name {
        "program_id" => ExprKind::ProgramId(lit_u32(ctx, arity(ctx, span, "program_id(axis)", a, 1)?[0])?),
        "num_programs" => ExprKind::NumPrograms(lit_u32(ctx, arity(ctx, span, "num_programs(axis)", a, 1)?[0])?),
        "warpgroup_id" => {
            arity(ctx, span, "warpgroup_id()", a, 0)?;
            ExprKind::WarpgroupId
        }
        "cluster_rank" => {
            arity(ctx, span, "cluster_rank()", a, 0)?;
            ExprKind::ClusterRank
        }
        "device_id" => {
            arity(ctx, span, "device_id()", a, 0)?;
            ExprKind::DeviceId
        }
        "globaltimer" => {
            arity(ctx, span, "globaltimer()", a, 0)?;
            ExprKind::GlobalTimer
        }
        "device_count" => {
            arity(ctx, span, "device_count()", a, 0)?;
            ExprKind::DeviceCount
        }
        "remote" => {
            let v = arity(ctx, span, "remote(buf, rank)", a, 2)?;
            ExprKind::Remote { gmem: boxed(ctx, v[0]), rank: boxed(ctx, v[1]) }
        }
        "splat" => {
            let v = arity(ctx, span, "splat::<T>(value, [d0, d1])", a, 2)?;
            ExprKind::Splat { dtype: dtype_arg(), value: boxed(ctx, v[0]), shape: shape_arg(ctx, v[1])? }
        }
        "iota" => {
            let v = arity(ctx, span, "iota::<T>([d0, d1], axis)", a, 2)?;
            ExprKind::Iota { dtype: dtype_arg(), shape: shape_arg(ctx, v[0])?, axis: lit_u32(ctx, v[1])? }
        }
        "wgmma" => lower_wgmma(ctx, span, a)?,
        "wgmma_wait" => ExprKind::WgmmaWait(lit_u32(ctx, arity(ctx, span, "wgmma_wait(n)", a, 1)?[0])?),
        "mma" => {
            let v = arity(ctx, span, "mma(acc, a, b)", a, 3)?;
            ExprKind::Mma { acc: boxed(ctx, v[0]), a: boxed(ctx, v[1]), b: boxed(ctx, v[2]) }
        }
        "copy_gmem_to_smem" => lower_tma_load(ctx, span, a)?,
        "copy_smem_to_gmem" => lower_tma_store(ctx, span, a)?,
        "copy_smem_to_peer" => {
            let v = arity(ctx, span, "copy_smem_to_peer(src, dst, bar, rank)", a, 4)?;
            ExprKind::CopySmemToPeer {
                src: boxed(ctx, v[0]),
                dst: boxed(ctx, v[1]),
                barrier: boxed(ctx, v[2]),
                rank: boxed(ctx, v[3]),
            }
        }
        "commit_smem" => {
            arity(ctx, span, "commit_smem()", a, 0)?;
            ExprKind::CommitSmem
        }
        "wait_smem_to_gmem" => lower_wait_smem_to_gmem(ctx, span, a)?,
        "barrier_arrive" => lower_arrive(ctx, span, a)?,
        "barrier_wait" | "barrier_wait__in_step" => {
            let waiters = [Waiters::Each, Waiters::InStep].into_iter().find(|w| w.call_name() == name)?;
            ExprKind::BarrierWait(boxed(ctx, arity(ctx, span, "barrier_wait(bar)", a, 1)?[0]), waiters)
        }
        "semaphore_signal" => lower_semaphore(ctx, span, SemaphoreOp::Signal, a)?,
        "semaphore_wait" => lower_semaphore(ctx, span, SemaphoreOp::Wait, a)?,
        "set_max_registers" => {
            ExprKind::SetMaxRegisters(lit_u32(ctx, arity(ctx, span, "set_max_registers(n)", a, 1)?[0])?)
        }
        "run_scoped" => lower_run_scoped(ctx, span, a)?,
        "pipeline_produce" | "pipeline_consume" => {
            // A call naming a pipeline of an enclosing `run_scoped` was rewritten by `pipeline`.
            ctx.type_error(
                a.first().map_or(span, |r| r.span().into()),
                Code::Pipeline,
                format!("`{name}` takes a `Pipeline` allocated by an enclosing `run_scoped` first"),
                "allocate it: `run_scoped(|ring: Pipeline<STAGES, copies, releases>, ..| { .. })`",
            );
            return None;
        }
        "run_state" => lower_run_state(ctx, span, a)?,
        "Acc::from_regs" => ExprKind::AccFromRegs(boxed(ctx, arity(ctx, span, "Acc::from_regs(x)", a, 1)?[0])),
        "max" | "min" => {
            let v = arity(ctx, span, &format!("{name}(x, y)"), a, 2)?;
            let func = if name == "max" { MathFn2::Max } else { MathFn2::Min };
            ExprKind::Math2 { func, lhs: boxed(ctx, v[0]), rhs: boxed(ctx, v[1]) }
        }
        "cdiv" => {
            let v = arity(ctx, span, "cdiv(a, b)", a, 2)?;
            cdiv(ctx, span, v[0], v[1])
        }
        "fma" => {
            let v = arity(ctx, span, "fma(a, b, c)", a, 3)?;
            ExprKind::Fma { a: boxed(ctx, v[0]), b: boxed(ctx, v[1]), c: boxed(ctx, v[2]) }
        }
        _ => match math_fn(name) {
            Some(func) => ExprKind::Math { func, arg: boxed(ctx, arity(ctx, span, &format!("{name}(x)"), a, 1)?[0]) },
            None => {
                ctx.unsupported(
                    span.start,
                    Code::UnknownOperation,
                    format!("call to `{name}`, which is not a tessel operation"),
                );
                return None;
            }
        },
    })
}

/// `cdiv(a, b)`, the number of `b`-wide tiles that cover `a` (the last one perhaps partial), is
/// `(a + b - 1) / b`: written out here, so that typeck, the PTX writer, the interpreter and the
/// launch's grid evaluation all see integer arithmetic they already know.
fn cdiv(ctx: &Ctxt, span: Loc, a: &syn::Expr, b: &syn::Expr) -> ExprKind {
    let node = |kind| Box::new(Expr { id: ctx.next_id(), kind, span: span.start, end: span.end });
    let sum = node(ExprKind::Binary { op: BinOp::Add, lhs: boxed(ctx, a), rhs: boxed(ctx, b) });
    let one = node(ExprKind::Int(1, None));
    let last = node(ExprKind::Binary { op: BinOp::Sub, lhs: sum, rhs: one });
    ExprKind::Binary { op: BinOp::Div, lhs: last, rhs: boxed(ctx, b) }
}

fn math_fn(name: &str) -> Option<MathFn> {
    Some(match name {
        "exp2" => MathFn::Exp2,
        "exp" => MathFn::Exp,
        "log2" => MathFn::Log2,
        "log" => MathFn::Log,
        "sqrt" => MathFn::Sqrt,
        "rsqrt" => MathFn::Rsqrt,
        "tanh" => MathFn::Tanh,
        "abs" => MathFn::Abs,
        "recip" => MathFn::Recip,
        "floor" => MathFn::Floor,
        "ceil" => MathFn::Ceil,
        "round" => MathFn::Round,
        "trunc" => MathFn::Trunc,
        _ => return None,
    })
}

/// `copy_gmem_to_smem(src, dst, bar)` or `copy_gmem_to_smem(src, dst, bar, multicast = true)`.
fn lower_tma_load(ctx: &Ctxt, span: Loc, a: &Args) -> Option<ExprKind> {
    let multicast = flag_argument(
        ctx,
        span,
        a,
        ("copy_gmem_to_smem(src, dst, bar)", 3),
        ("multicast", "the fourth argument multicasts the copy to every program of the cluster"),
    )?;
    Some(ExprKind::CopyGmemToSmem {
        src: boxed(ctx, &a[0]),
        dst: boxed(ctx, &a[1]),
        barrier: boxed(ctx, &a[2]),
        multicast,
    })
}

/// `copy_smem_to_gmem(src, dst)` or `copy_smem_to_gmem(src, dst, reduce = Reduce::Add)`.
fn lower_tma_store(ctx: &Ctxt, span: Loc, a: &Args) -> Option<ExprKind> {
    let reduce = named_argument(
        ctx,
        span,
        a,
        ("copy_smem_to_gmem(src, dst)", 2),
        "reduce",
        ("`reduce = Reduce::Add`", "the third argument combines the buffer into the tile instead of overwriting it"),
    )?;
    Some(ExprKind::CopySmemToGmem {
        src: boxed(ctx, &a[0]),
        dst: boxed(ctx, &a[1]),
        reduce: match reduce {
            Some(asg) => Some(reduce_op(ctx, &asg.right)?),
            None => None,
        },
    })
}

/// `Reduce::Add`, `Reduce::Min`, ..: the operation of a reducing TMA store.
fn reduce_op(ctx: &Ctxt, e: &syn::Expr) -> Option<Spanned<GmemReduce>> {
    if let syn::Expr::Path(p) = peel(e) {
        let segs: Vec<String> = p.path.segments.iter().map(|s| s.ident.to_string()).collect();
        if let [r, name] = segs.as_slice() {
            if let Some(op) = GmemReduce::from_name(name).filter(|_| r == "Reduce") {
                return Some(Spanned::new(op, p.path.segments[1].ident.span()));
            }
        }
    }
    let names: Vec<String> = GmemReduce::ALL.iter().map(|op| format!("`Reduce::{}`", op.name())).collect();
    ctx.type_error(
        loc_of(e),
        Code::ReduceOpName,
        "expected a reduction: `Reduce::` and one of Add, Min, Max, Inc, Dec, And, Or, Xor",
        format!("write `reduce = Reduce::Add` (or {})", names[1..].join(", ")),
    );
    None
}

/// `wgmma(acc, a, b)` or `wgmma(acc, a, b, accumulate = c)`.
fn lower_wgmma(ctx: &Ctxt, span: Loc, a: &Args) -> Option<ExprKind> {
    let accumulate = named_argument(
        ctx,
        span,
        a,
        ("wgmma(acc, a, b)", 3),
        "accumulate",
        (
            "`accumulate = <bool>`",
            "the fourth argument says whether the product adds to the accumulator or replaces it",
        ),
    )?;
    Some(ExprKind::Wgmma {
        acc: boxed(ctx, &a[0]),
        a: boxed(ctx, &a[1]),
        b: boxed(ctx, &a[2]),
        accumulate: accumulate.map(|asg| boxed(ctx, &asg.right)),
    })
}

/// `wait_smem_to_gmem(n)` or `wait_smem_to_gmem(n, complete = true)`.
fn lower_wait_smem_to_gmem(ctx: &Ctxt, span: Loc, a: &Args) -> Option<ExprKind> {
    let complete = flag_argument(
        ctx,
        span,
        a,
        ("wait_smem_to_gmem(n)", 1),
        ("complete", "the second argument waits for the stores' writes to global memory, not only their reads"),
    )?;
    Some(ExprKind::WaitSmemToGmem { n: lit_u32(ctx, &a[0])?, complete })
}

/// `barrier_arrive(bar)` or `barrier_arrive(bar, cluster = true)`.
fn lower_arrive(ctx: &Ctxt, span: Loc, a: &Args) -> Option<ExprKind> {
    let cluster = flag_argument(
        ctx,
        span,
        a,
        ("barrier_arrive(bar)", 1),
        ("cluster", "the second argument arrives on this barrier in every program of the cluster"),
    )?;
    Some(ExprKind::BarrierArrive { barrier: boxed(ctx, &a[0]), cluster })
}

/// `semaphore_signal(sems, i)`, `semaphore_wait(sems, i)`, or either with a count `n` third; a
/// signal's index may be a range `start..end`.
fn lower_semaphore(ctx: &Ctxt, span: Loc, op: SemaphoreOp, a: &Args) -> Option<ExprKind> {
    let name = op.name();
    if !(2..=3).contains(&a.len()) {
        ctx.type_error(
            span,
            Code::OperationForm,
            format!("`{name}(sems, i)` takes 2 or 3 arguments, got {}", a.len()),
            format!("write `{name}(sems, i)`, or `{name}(sems, i, n)` for a count other than 1"),
        );
        return None;
    }
    let (index, end) = match peel(&a[1]) {
        syn::Expr::Range(r) => {
            let (syn::RangeLimits::HalfOpen(_), Some(start), Some(end)) = (r.limits, &r.start, &r.end) else {
                ctx.unsupported(
                    loc_of(&a[1]),
                    Code::SemaphoreIndex,
                    "open or closed ranges of semaphores (write `start..end`)",
                );
                return None;
            };
            if op == SemaphoreOp::Wait {
                ctx.type_error(
                    loc_of(&a[1]),
                    Code::SemaphoreIndex,
                    "`semaphore_wait` waits on one semaphore, not a range",
                    "wait on each semaphore of the range in turn, or signal one semaphore that counts them",
                );
                return None;
            }
            (boxed(ctx, start), Some(boxed(ctx, end)))
        }
        index => (boxed(ctx, index), None),
    };
    Some(ExprKind::Semaphore { op, sems: boxed(ctx, &a[0]), index, end, count: a.get(2).map(|n| boxed(ctx, n)) })
}

/// A call of `form` with `n` arguments and an optional last one, `flag = true`: the flag's span if
/// it is there. `None` (reported) for a wrong count; a malformed flag is reported and dropped.
fn flag_argument(
    ctx: &Ctxt,
    span: Loc,
    a: &Args,
    form: (&str, usize),
    (flag, help): (&str, &str),
) -> Option<Option<Loc>> {
    let expected = format!("`{flag} = true`");
    let named = named_argument(ctx, span, a, form, flag, (&expected, help))?;
    // `flag = false` (also as a condition known when the kernel is read: `CLUSTER > 1`) is no flag.
    Some(named.and_then(|asg| super::known::flag(ctx, flag, &asg.right)?.then(|| loc_of(&a[form.1]))))
}

/// A call of `form` with `n` arguments and an optional last one, `name = value`: that assignment
/// if it is there. `None` (reported) for a wrong count; a last argument of another form is
/// reported ("expected {expected}") and dropped.
fn named_argument<'a>(
    ctx: &Ctxt,
    span: Loc,
    a: &'a Args,
    (form, n): (&str, usize),
    name: &str,
    (expected, help): (&str, &str),
) -> Option<Option<&'a syn::ExprAssign>> {
    if a.len() != n + 1 {
        arity(ctx, span, form, a, n)?;
        return Some(None);
    }
    match peel(&a[n]) {
        syn::Expr::Assign(asg) if is_ident(&asg.left, name) => Some(Some(asg)),
        other => {
            ctx.type_error(loc_of(other), Code::OperationForm, format!("expected {expected}"), help);
            Some(None)
        }
    }
}

pub(super) fn is_ident(e: &syn::Expr, name: &str) -> bool {
    matches!(peel(e), syn::Expr::Path(p) if p.path.is_ident(name))
}

/// `run_scoped(|a: T, ..| body)` or `run_scoped(collective_axes = [wg], |..| body)`.
fn lower_run_scoped(ctx: &Ctxt, span: Loc, a: &Args) -> Option<ExprKind> {
    let (collective_axes, closure) = match a.len() {
        1 => (None, peel(&a[0])),
        2 => (Some(collective_axes(ctx, &a[0])?), peel(&a[1])),
        _ => {
            ctx.type_error(
                span,
                Code::OperationForm,
                "`run_scoped` takes a closure, optionally after `collective_axes = [..]`",
                "write `run_scoped(|x: T| { .. })`",
            );
            return None;
        }
    };
    let syn::Expr::Closure(c) = closure else {
        ctx.type_error(
            closure.span(),
            Code::OperationForm,
            "expected a closure `|name: Type, ..| { .. }`",
            "the closure's parameters are the allocations",
        );
        return None;
    };
    let c = &super::pipeline::desugar(ctx, &allocated(ctx, c))?;
    let mut params = Vec::new();
    for input in &c.inputs {
        match input {
            syn::Pat::Type(pt) => {
                let syn::Pat::Ident(pi) = &*pt.pat else {
                    ctx.unsupported(pt.pat.span(), Code::OperationForm, "this pattern (name each allocation)");
                    continue;
                };
                match type_expr(ctx, &pt.ty) {
                    Some(ty) => params.push((pi.ident.clone(), ty)),
                    None => ctx.reject_declaration(&pi.ident),
                }
            }
            other => ctx.type_error(
                other.span(),
                Code::OperationForm,
                "an allocation needs a type: `name: Smem<..>`",
                "write the type of each allocation",
            ),
        }
    }
    Some(ExprKind::RunScoped { collective_axes, params, body: closure_body(ctx, &c.body) })
}

/// The closure without the allocations whose `#[when(condition)]` is false, and without that
/// attribute on those it keeps: an instance of a generic kernel allocates what its code uses
/// (`#[when(SPLIT > 1)] part: Smem<f32, 64, 64>`, used under `if SPLIT > 1 { .. }`). An allocation
/// whose condition is not known is kept (and reported), so that its uses report nothing more.
fn allocated(ctx: &Ctxt, c: &syn::ExprClosure) -> syn::ExprClosure {
    let mut out = c.clone();
    out.inputs = c
        .inputs
        .iter()
        .filter_map(|input| {
            let syn::Pat::Type(pt) = input else { return Some(input.clone()) };
            let mut pt = pt.clone();
            let mut keep = true;
            for attr in std::mem::take(&mut pt.attrs) {
                keep &= when(ctx, &attr).unwrap_or(true);
            }
            keep.then_some(syn::Pat::Type(pt))
        })
        .collect();
    out
}

/// `#[when(condition)]`'s value; `None` for another attribute or a condition not known (both
/// reported).
fn when(ctx: &Ctxt, attr: &syn::Attribute) -> Option<bool> {
    let help = "an allocation takes one attribute, `#[when(condition)]`, which leaves it out where the \
                condition is false";
    let at = super::function::tokens_loc(attr).unwrap_or_else(|| attr.span().into());
    if !attr.path().is_ident("when") {
        ctx.type_error(at, Code::AllocationAttr, "this attribute on an allocation", help);
        return None;
    }
    match attr.parse_args::<syn::Expr>() {
        Ok(cond) => super::known::when(ctx, &cond),
        Err(_) => {
            ctx.type_error(at, Code::AllocationAttr, "expected `#[when(condition)]`", help);
            None
        }
    }
}

fn collective_axes(ctx: &Ctxt, e: &syn::Expr) -> Option<CollectiveAxes> {
    let e = peel(e);
    if let syn::Expr::Assign(asg) = e {
        if is_ident(&asg.left, "collective_axes") {
            if let syn::Expr::Array(arr) = peel(&asg.right) {
                let axes: Option<Vec<syn::Ident>> = arr
                    .elems
                    .iter()
                    .map(|x| match peel(x) {
                        syn::Expr::Path(p) => p.path.get_ident().cloned(),
                        _ => None,
                    })
                    .collect();
                if let Some(axes) = axes {
                    let loc = Loc::new(first_span(&asg.left), arr.bracket_token.span.close());
                    return Some(CollectiveAxes { axes, loc });
                }
            }
        }
    }
    ctx.type_error(
        e.span(),
        Code::OperationForm,
        "expected `collective_axes = [axis, ..]`",
        "name the warpgroup axis: `collective_axes = [wg]`",
    );
    None
}

fn closure_body(ctx: &Ctxt, body: &syn::Expr) -> Block {
    match peel(body) {
        syn::Expr::Block(b) => lower_block(ctx, &b.block),
        other => Block { stmts: vec![], tail: Some(Box::new(lower_expr(ctx, other))), span: first_span(other) },
    }
}

/// `run_state(init, |acc| body)`.
fn lower_run_state(ctx: &Ctxt, span: Loc, a: &Args) -> Option<ExprKind> {
    let v = arity(ctx, span, "run_state(Acc::from_regs(x), |acc| { .. })", a, 2)?;
    let syn::Expr::Closure(c) = peel(v[1]) else {
        ctx.type_error(
            peel(v[1]).span(),
            Code::OperationForm,
            "expected a closure `|acc| { .. }`",
            "the closure receives the initialised accumulator",
        );
        return None;
    };
    let param = match c.inputs.iter().collect::<Vec<_>>().as_slice() {
        [syn::Pat::Ident(pi)] => pi.ident.clone(),
        [syn::Pat::Type(pt)] => match &*pt.pat {
            syn::Pat::Ident(pi) => pi.ident.clone(),
            other => {
                ctx.unsupported(other.span(), Code::OperationForm, "this pattern (name the accumulator)");
                return None;
            }
        },
        _ => {
            // An empty parameter list has no span of its own: point at the closure's `|..|`.
            let span = if c.inputs.is_empty() { c.or1_token.span } else { c.inputs.span() };
            ctx.type_error(
                span,
                Code::OperationForm,
                "`run_state` passes one accumulator to its closure",
                "write `|acc| { .. }`",
            );
            return None;
        }
    };
    Some(ExprKind::RunState { init: boxed(ctx, v[0]), param, body: closure_body(ctx, &c.body) })
}

/// `receiver.method(args)`.
pub fn lower_method(ctx: &Ctxt, m: &syn::ExprMethodCall) -> ExprKind {
    let span = Loc::new(m.method.span(), m.paren_token.span.close());
    let name = m.method.to_string();
    let recv = || boxed(ctx, &m.receiver);
    let a = &m.args;
    let turbofish_dtype = || match m.turbofish.as_ref().and_then(|t| t.args.first()) {
        Some(syn::GenericArgument::Type(t)) => dtype_of(ctx, t),
        _ => {
            ctx.type_error(
                span,
                Code::OperationForm,
                format!("`.{name}` needs a dtype: `.{name}::<bf16>()`"),
                "name the target dtype with a turbofish",
            );
            None
        }
    };
    let kind = (|| {
        Some(match name.as_str() {
            "tile" if a.len() == 2 => {
                ExprKind::Tile { gmem: recv(), index: index_list(ctx, &a[0])?, shape: Some(shape_arg(ctx, &a[1])?) }
            }
            "tile" => ExprKind::Tile {
                gmem: recv(),
                index: index_list(ctx, arity(ctx, span, ".tile([i, j])", a, 1)?[0])?,
                shape: None,
            },
            "at" => ExprKind::At { base: recv(), index: boxed(ctx, arity(ctx, span, ".at(i)", a, 1)?[0]) },
            "slice" => lower_slice(ctx, span, recv(), a)?,
            "t" => {
                arity(ctx, span, ".t()", a, 0)?;
                ExprKind::Transpose { base: recv(), perm: None }
            }
            "transpose" => {
                let v = arity(ctx, span, ".transpose([perm..])", a, 1)?;
                ExprKind::Transpose { base: recv(), perm: Some(perm_arg(ctx, v[0])?) }
            }
            "load" => match a.len() {
                0 => ExprKind::Load { src: recv(), layout: None },
                _ => ExprKind::Load {
                    src: recv(),
                    layout: Some(layout_arg(ctx, arity(ctx, span, ".load(layout)", a, 1)?[0])?),
                },
            },
            "store" => ExprKind::Store { dst: recv(), value: boxed(ctx, arity(ctx, span, ".store(value)", a, 1)?[0]) },
            "atomic_add" => {
                ExprKind::AtomicAdd { dst: recv(), value: boxed(ctx, arity(ctx, span, ".atomic_add(value)", a, 1)?[0]) }
            }
            "cast" => {
                arity(ctx, span, ".cast::<T>()", a, 0)?;
                ExprKind::Cast { value: recv(), dtype: turbofish_dtype()? }
            }
            "bitcast" => {
                arity(ctx, span, ".bitcast::<T>()", a, 0)?;
                ExprKind::Bitcast { value: recv(), dtype: turbofish_dtype()? }
            }
            "sum" | "max" | "min" => {
                let arg = arity(ctx, span, &format!(".{name}(axis)"), a, 1)?[0];
                let op = match name.as_str() {
                    "sum" => ReduceOp::Sum,
                    "max" => ReduceOp::Max,
                    _ => ReduceOp::Min,
                };
                let Some(axis) = super::int_literal(arg) else {
                    ctx.error(loc_of(arg), Diag::ReduceAxisNotLiteral { op });
                    return None;
                };
                ExprKind::Reduce { value: recv(), op, axis }
            }
            "broadcast" => {
                let v = arity(ctx, span, ".broadcast([d0, d1], layout)", a, 2)?;
                ExprKind::Broadcast { value: recv(), shape: shape_arg(ctx, v[0])?, layout: layout_arg(ctx, v[1])? }
            }
            "to_layout" => ExprKind::ToLayout {
                value: recv(),
                layout: layout_arg(ctx, arity(ctx, span, ".to_layout(layout)", a, 1)?[0])?,
            },
            "layout_cast" => ExprKind::LayoutCast {
                value: recv(),
                layout: layout_arg(ctx, arity(ctx, span, ".layout_cast(layout)", a, 1)?[0])?,
            },
            _ => match math_fn(&name) {
                Some(func) => {
                    arity(ctx, span, &format!(".{name}()"), a, 0)?;
                    ExprKind::Math { func, arg: recv() }
                }
                None => {
                    ctx.unsupported(
                        m.method.span(),
                        Code::UnknownOperation,
                        format!("the method `.{name}()`, which is not a tessel operation"),
                    );
                    return None;
                }
            },
        })
    })();
    kind.unwrap_or(ExprKind::Invalid)
}

fn perm_arg(ctx: &Ctxt, e: &syn::Expr) -> Option<Spanned<Vec<usize>>> {
    let e = peel(e);
    if let syn::Expr::Array(arr) = e {
        let perm: Option<Vec<usize>> = arr
            .elems
            .iter()
            .map(|x| match peel(x) {
                syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse().ok(),
                _ => None,
            })
            .collect();
        if let Some(perm) = perm {
            return Some(Spanned::new(perm, arr.bracket_token.span.join()));
        }
    }
    ctx.type_error(
        e.span(),
        Code::OperationForm,
        "expected a permutation of literal dimensions, e.g. `[0, 2, 1]`",
        "list every dimension once",
    );
    None
}

/// `r.slice([.., 0..32])`.
fn lower_slice(ctx: &Ctxt, span: Loc, base: Box<Expr>, a: &Args) -> Option<ExprKind> {
    let v = arity(ctx, span, ".slice([.., start..end])", a, 1)?;
    let syn::Expr::Array(arr) = peel(v[0]) else {
        ctx.type_error(
            peel(v[0]).span(),
            Code::OperationForm,
            "expected `[.., start..end, ..]`",
            "one range per dimension",
        );
        return None;
    };
    let mut args = Vec::new();
    for el in &arr.elems {
        match peel(el) {
            syn::Expr::Range(r) if matches!(r.limits, syn::RangeLimits::HalfOpen(_)) => match (&r.start, &r.end) {
                (None, None) => args.push(SliceArg::Full(r.span())),
                (Some(s), Some(e)) => {
                    args.push(SliceArg::Range { start: lower_expr(ctx, s), end: lower_expr(ctx, e), span: r.span() })
                }
                _ => {
                    ctx.unsupported(r.span(), Code::OperationForm, "half-open slices (write `start..end` or `..`)");
                    return None;
                }
            },
            other => {
                ctx.type_error(
                    other.span(),
                    Code::OperationForm,
                    "expected `..` or `start..end`",
                    "slice each dimension with a range",
                );
                return None;
            }
        }
    }
    Some(ExprKind::Slice { base, args })
}
