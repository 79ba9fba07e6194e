//! Reading kernel bodies: syn statements and expressions to `ast`.
//!
//! Anything the language does not have is reported as `unsupported in a tessel kernel: ..` at its span
//! and replaced by `ExprKind::Invalid`, so the rest of the kernel is still read and checked.
//!
//! An expression that a `macro_rules!` substituted (`$e:expr`) arrives in an invisible group
//! (`syn::Expr::Group`): where its kind decides what it is (a statement, an assignment's target, a
//! loop's range) the group is looked through ([`peel`]); as an operand it is lowered as the one
//! expression it is, so `$e * 2` with `a + b` is `(a + b) * 2`.

use super::ast::*;
use super::calls::{lower_call, lower_method};
use super::peel;
use super::types::type_expr;
use crate::codes::Code;
use crate::diag::{Ctxt, Loc};
use crate::types::DType;
use syn::spanned::Spanned as _;

pub fn invalid(ctx: &Ctxt, span: proc_macro2::Span) -> Expr {
    Expr { id: ctx.next_id(), kind: ExprKind::Invalid, span, end: span }
}

pub fn lower_block(ctx: &Ctxt, block: &syn::Block) -> Block {
    lower_block_as(ctx, block, false)
}

/// A kernel function's body: the body of a function that returns a value is a block whose value
/// is used, so that it may end in an `if` with an `else`, as a Rust function's may.
pub fn lower_function_body(ctx: &Ctxt, f: &super::function::Function) -> Block {
    lower_block_as(ctx, &f.body, f.ret != super::function::Declared::Unit)
}

/// A block whose value is used (a branch of an `if` value): a last `if` with an `else` is its value.
fn lower_value_block(ctx: &Ctxt, block: &syn::Block) -> Block {
    lower_block_as(ctx, block, true)
}

fn lower_block_as(ctx: &Ctxt, block: &syn::Block, value: bool) -> Block {
    let mut stmts = Vec::new();
    let mut tail = None;
    let n = block.stmts.len();
    for (i, stmt) in block.stmts.iter().enumerate() {
        match stmt {
            syn::Stmt::Expr(e, None) if i + 1 == n && !is_statement_like(peel(e), value) => {
                tail = Some(Box::new(lower_expr(ctx, e)));
            }
            _ => lower_stmt(ctx, stmt, &mut stmts),
        }
    }
    Block { stmts, tail, span: block.brace_token.span.join() }
}

/// Control flow written without a trailing semicolon is a statement, not the block's value, except
/// an `if` with an `else` at the end of a block whose value is used.
fn is_statement_like(e: &syn::Expr, value: bool) -> bool {
    match e {
        syn::Expr::If(i) => !(value && i.else_branch.is_some()),
        _ => matches!(e, syn::Expr::ForLoop(_) | syn::Expr::Assign(_)),
    }
}

fn lower_stmt(ctx: &Ctxt, stmt: &syn::Stmt, out: &mut Vec<Stmt>) {
    match stmt {
        syn::Stmt::Local(local) => {
            if let Some(s) = lower_let(ctx, local) {
                out.push(s);
            }
        }
        syn::Stmt::Item(syn::Item::Const(c)) => {
            let def = ConstDef { name: c.ident.clone(), value: lower_expr(ctx, &c.expr) };
            know_const(ctx, &def);
            out.push(Stmt::Const(def))
        }
        syn::Stmt::Item(item) => ctx.unsupported(
            item.span(),
            Code::UnsupportedSyntax,
            "items inside a kernel (only `const NAME: usize = ..;`)",
        ),
        syn::Stmt::Macro(m) => ctx.unsupported(m.span(), Code::UnsupportedSyntax, "macros inside a kernel"),
        syn::Stmt::Expr(e, _) => match peel(e) {
            // A stray `;` reads as an empty statement: Rust accepts it, and so does tessel.
            syn::Expr::Verbatim(v) if v.is_empty() => {}
            syn::Expr::Assign(a) if matches!(peel(&a.left), syn::Expr::Tuple(_)) => lower_tuple_assign(ctx, a, out),
            syn::Expr::ForLoop(f) => lower_for(ctx, f, out),
            e => out.push(lower_expr_stmt(ctx, e)),
        },
    }
}

/// `(i, j) = (e0, e1);` assigns both after evaluating both, as in Rust (so `(i, j) = (j, i)`
/// swaps): it reads as `let (t0, t1) = (e0, e1); i = t0; j = t1;`, with hidden names for the
/// temporaries. A `let` gives a value its own registers when they are a mutable name's, so the
/// assignments cannot see each other. `_` takes a value and drops it.
fn lower_tuple_assign(ctx: &Ctxt, a: &syn::ExprAssign, out: &mut Vec<Stmt>) {
    let syn::Expr::Tuple(targets) = peel(&a.left) else { return };
    let mut names = Vec::new();
    for target in &targets.elems {
        match peel(target) {
            syn::Expr::Infer(_) => names.push(None),
            t => match assign_target(ctx, t) {
                Some(name) => names.push(Some(name)),
                None => return,
            },
        }
    }
    let id = ctx.next_id();
    let temps: Vec<_> = names
        .iter()
        .enumerate()
        .map(|(k, name)| match name {
            Some(n) => (syn::Ident::new(&format!("__tessel_assign_{id}_{k}"), n.span()), false),
            None => (syn::Ident::new("_", a.eq_token.span), false),
        })
        .collect();
    let span = a.eq_token.span;
    out.push(Stmt::Let { names: temps.clone(), ty: None, init: lower_expr(ctx, &a.right), span });
    for (k, (name, (temp, _))) in names.into_iter().zip(temps).enumerate() {
        let Some(name) = name else { continue };
        let (at, end) = value_loc(&a.right, k);
        let value = Expr { id: ctx.next_id(), kind: ExprKind::Var(temp), span: at, end };
        out.push(Stmt::Assign { name, value, span });
    }
}

/// Where a tuple assignment's `k`-th value was written: that element of a tuple literal, else the
/// whole right-hand side.
fn value_loc(right: &syn::Expr, k: usize) -> (proc_macro2::Span, proc_macro2::Span) {
    match peel(right) {
        syn::Expr::Tuple(t) if k < t.elems.len() => (first_span(&t.elems[k]), last_span(&t.elems[k])),
        _ => (first_span(right), last_span(right)),
    }
}

fn lower_let(ctx: &Ctxt, local: &syn::Local) -> Option<Stmt> {
    let span = local.let_token.span;
    let (pat, ty) = match &local.pat {
        syn::Pat::Type(pt) => (&*pt.pat, type_expr(ctx, &pt.ty)),
        p => (p, None),
    };
    let names = pattern_names(ctx, pat)?;
    let Some(init) = &local.init else {
        ctx.unsupported(span, Code::UnsupportedSyntax, "`let` without a value");
        return None;
    };
    if let Some((else_tok, _)) = &init.diverge {
        ctx.unsupported(else_tok.span(), Code::UnsupportedSyntax, "`let .. else`");
    }
    Some(Stmt::Let { names, ty, init: lower_expr(ctx, &init.expr), span })
}

/// Whether `name` may be bound or assigned here: not while it is the counter of an unrolled loop,
/// which every copy of the body reads as a literal (a new binding would be ignored silently).
fn unrolled_counter_free(ctx: &Ctxt, name: &syn::Ident) -> bool {
    if ctx.unrolled_value(name).is_none() {
        return true;
    }
    let help = "an unrolled loop's counter is a constant in each copy of the body: use another name";
    ctx.type_error(
        name.span(),
        Code::Unroll,
        format!("`{name}` is the counter of an enclosing `#[unroll]` loop"),
        help,
    );
    false
}

/// `x`, `mut x`, `(i, j)`.
fn pattern_names(ctx: &Ctxt, pat: &syn::Pat) -> Option<Vec<(syn::Ident, bool)>> {
    match pat {
        syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
            unrolled_counter_free(ctx, &pi.ident).then(|| vec![(pi.ident.clone(), pi.mutability.is_some())])
        }
        syn::Pat::Tuple(t) => {
            let mut names = Vec::new();
            for p in &t.elems {
                names.extend(pattern_names(ctx, p)?);
            }
            Some(names)
        }
        syn::Pat::Wild(w) => Some(vec![(syn::Ident::new("_", w.span()), false)]),
        other => {
            ctx.unsupported(other.span(), Code::UnsupportedSyntax, "this pattern (use a name or a tuple of names)");
            None
        }
    }
}

fn lower_expr_stmt(ctx: &Ctxt, e: &syn::Expr) -> Stmt {
    let span = first_span(e);
    match e {
        syn::Expr::If(i) => lower_if(ctx, i),
        syn::Expr::Assign(a) => match assign_target(ctx, &a.left) {
            Some(name) => Stmt::Assign { name, value: lower_expr(ctx, &a.right), span },
            None => Stmt::Expr(invalid(ctx, span)),
        },
        syn::Expr::Binary(b) if compound_op(&b.op).is_some() => {
            let Some(name) = assign_target(ctx, &b.left) else { return Stmt::Expr(invalid(ctx, span)) };
            let op = compound_op(&b.op).unwrap_or(BinOp::Add);
            let (left, left_end) = (first_span(&b.left), last_span(&b.left));
            let lhs = Expr { id: ctx.next_id(), kind: ExprKind::Var(name.clone()), span: left, end: left_end };
            let value = Expr {
                id: ctx.next_id(),
                kind: ExprKind::Binary { op, lhs: Box::new(lhs), rhs: Box::new(lower_expr(ctx, &b.right)) },
                span,
                end: last_span(&b.right),
            };
            Stmt::Assign { name, value, span }
        }
        other => Stmt::Expr(lower_expr(ctx, other)),
    }
}

fn assign_target(ctx: &Ctxt, e: &syn::Expr) -> Option<syn::Ident> {
    if let syn::Expr::Path(p) = peel(e) {
        if let Some(id) = p.path.get_ident() {
            return unrolled_counter_free(ctx, id).then(|| id.clone());
        }
    }
    ctx.unsupported(loc_of(e), Code::UnsupportedSyntax, "assignment to anything but a local variable");
    None
}

fn compound_op(op: &syn::BinOp) -> Option<BinOp> {
    Some(match op {
        syn::BinOp::AddAssign(_) => BinOp::Add,
        syn::BinOp::SubAssign(_) => BinOp::Sub,
        syn::BinOp::MulAssign(_) => BinOp::Mul,
        syn::BinOp::DivAssign(_) => BinOp::Div,
        syn::BinOp::RemAssign(_) => BinOp::Rem,
        _ => return None,
    })
}

/// The most copies an `#[unroll]` loop makes: each is checked and emitted in full.
const MAX_UNROLL: i64 = 64;

fn lower_for(ctx: &Ctxt, f: &syn::ExprForLoop, out: &mut Vec<Stmt>) {
    let span = f.for_token.span;
    let var = match &*f.pat {
        syn::Pat::Ident(pi) => pi.ident.clone(),
        syn::Pat::Wild(w) => syn::Ident::new("_", w.span()),
        other => {
            ctx.unsupported(other.span(), Code::UnsupportedSyntax, "this loop pattern (use a name)");
            syn::Ident::new("_", other.span())
        }
    };
    if let Some(label) = &f.label {
        ctx.unsupported(label.span(), Code::UnsupportedSyntax, "loop labels");
    }
    let mut unroll = false;
    for attr in &f.attrs {
        match attr.path().is_ident("unroll") && matches!(attr.meta, syn::Meta::Path(_)) {
            true => unroll = true,
            false => {
                ctx.unsupported(attr.span(), Code::UnsupportedSyntax, "this attribute on a loop (only `#[unroll]`)")
            }
        }
    }
    let bounds = match peel(&f.expr) {
        syn::Expr::Range(r) => match (&r.start, &r.end, r.limits) {
            (Some(start), Some(end), syn::RangeLimits::HalfOpen(_)) => Some((&**start, &**end)),
            _ => {
                ctx.unsupported(r.span(), Code::UnsupportedSyntax, "open or closed ranges (write `start..end`)");
                None
            }
        },
        other => {
            ctx.unsupported(other.span(), Code::UnsupportedSyntax, "loops over anything but `start..end`");
            None
        }
    };
    match bounds {
        Some(bounds) if unroll => lower_unrolled(ctx, &var, bounds, &f.body, out),
        Some((start, end)) => out.push(Stmt::For {
            var,
            start: lower_expr(ctx, start),
            end: lower_expr(ctx, end),
            body: lower_block(ctx, &f.body),
            span,
        }),
        // The body is still checked, for its own errors.
        None => out.push(Stmt::For {
            var,
            start: invalid(ctx, span),
            end: invalid(ctx, span),
            body: lower_block(ctx, &f.body),
            span,
        }),
    }
}

/// `#[unroll] for q in 0..4 { .. }`: one copy of the body per value, in which `q` is that value,
/// an integer literal (so `acc.slice([.., 64 * q..64 * q + 64])` has the constant bounds a
/// slice needs). The bounds are integer expressions of literals (also passed on by a
/// `macro_rules!`), consts and the counters of enclosing unrolled loops. Each copy
/// is a block of its own (`Stmt::Block`).
fn lower_unrolled(
    ctx: &Ctxt,
    var: &syn::Ident,
    (start, end): (&syn::Expr, &syn::Expr),
    body: &syn::Block,
    out: &mut Vec<Stmt>,
) {
    let bound = |e: &syn::Expr| {
        let value = super::known::int(ctx, &lower_expr(ctx, e));
        if value.is_none() {
            let help =
                "write the bounds with integer literals, consts and outer unrolled counters, or drop `#[unroll]`";
            ctx.type_error(
                loc_of(e),
                Code::Unroll,
                "an unrolled loop's bounds must be known when the kernel is read",
                help,
            );
        }
        value
    };
    let (from, to) = (bound(start), bound(end));
    let copies = match (from, to) {
        (Some(from), Some(to)) if to - from > MAX_UNROLL => {
            let message = format!("unrolling {from}..{to} would make {} copies of the body", to - from);
            ctx.type_error(loc_of(end), Code::Unroll, message, format!("unroll at most {MAX_UNROLL} iterations"));
            from..from + 1
        }
        (Some(from), Some(to)) => from..to,
        // After an error: one copy, so that the body's own errors are reported too.
        _ => 0..1,
    };
    for value in copies {
        out.push(Stmt::Block(ctx.with_unrolled(var, value, || lower_block(ctx, body))));
    }
}

/// Records a const's value when `syntax` can compute it (for `#[unroll]` bounds; `typeck` checks
/// and evaluates every const on its own).
pub fn know_const(ctx: &Ctxt, def: &ConstDef) {
    if let Some(value) = super::known::int(ctx, &def.value) {
        ctx.know_const(&def.name, value);
    }
}

fn lower_if(ctx: &Ctxt, i: &syn::ExprIf) -> Stmt {
    let cond = lower_expr(ctx, &i.cond);
    if let Some(known) = super::known::condition(ctx, &cond) {
        return known_if(ctx, i, known);
    }
    let otherwise = i.else_branch.as_ref().map(|(_, e)| match peel(e) {
        syn::Expr::Block(b) => lower_block(ctx, &b.block),
        syn::Expr::If(nested) => Block { stmts: vec![lower_if(ctx, nested)], tail: None, span: nested.if_token.span },
        other => {
            ctx.unsupported(other.span(), Code::UnsupportedSyntax, "this `else` branch");
            Block { stmts: vec![], tail: None, span: other.span() }
        }
    });
    Stmt::If { cond, then: lower_block(ctx, &i.then_branch), otherwise, span: i.if_token.span }
}

/// An `if` statement whose condition is known when the kernel is read (`known::condition`: of
/// literals, consts, generic parameters and unrolled counters) is its branch: the other one is
/// parsed (by rustc) but neither read nor checked, so that an instance of a generic kernel leaves
/// out what only other instances have (`if SPLIT > 1 { .. }`). The PTX is the same as the `if`'s,
/// whose known condition the writer would fold.
fn known_if(ctx: &Ctxt, i: &syn::ExprIf, known: bool) -> Stmt {
    let empty = |span| Stmt::Block(Block { stmts: vec![], tail: None, span });
    if known {
        return Stmt::Block(lower_block(ctx, &i.then_branch));
    }
    match i.else_branch.as_ref().map(|(_, e)| peel(e)) {
        Some(syn::Expr::Block(b)) => Stmt::Block(lower_block(ctx, &b.block)),
        Some(syn::Expr::If(nested)) => lower_if(ctx, nested),
        Some(other) => {
            ctx.unsupported(other.span(), Code::UnsupportedSyntax, "this `else` branch");
            empty(other.span())
        }
        None => empty(i.if_token.span),
    }
}

/// `if cond { a } else { b }` used as a value; with a condition known when the kernel is read, the
/// value of its branch (as for a statement: `known_if`).
fn lower_if_value(ctx: &Ctxt, i: &syn::ExprIf) -> ExprKind {
    let Some((_, otherwise)) = &i.else_branch else {
        ctx.unsupported(
            i.if_token.span,
            Code::UnsupportedSyntax,
            "an `if` without `else` as a value (give it an `else` branch)",
        );
        return ExprKind::Invalid;
    };
    let cond = Box::new(lower_expr(ctx, &i.cond));
    if let Some(known) = super::known::condition(ctx, &cond) {
        return match (known, peel(otherwise)) {
            (true, _) => value_of(lower_value_block(ctx, &i.then_branch)),
            (false, syn::Expr::Block(b)) => value_of(lower_value_block(ctx, &b.block)),
            (false, syn::Expr::If(nested)) => lower_if_value(ctx, nested),
            (false, other) => {
                ctx.unsupported(other.span(), Code::UnsupportedSyntax, "this `else` branch");
                ExprKind::Invalid
            }
        };
    }
    let otherwise = match peel(otherwise) {
        syn::Expr::Block(b) => lower_value_block(ctx, &b.block),
        syn::Expr::If(nested) => {
            let tail = Some(Box::new(lower_expr(ctx, otherwise)));
            Block { stmts: vec![], tail, span: nested.if_token.span }
        }
        other => {
            ctx.unsupported(other.span(), Code::UnsupportedSyntax, "this `else` branch");
            return ExprKind::Invalid;
        }
    };
    ExprKind::If { cond, then: lower_value_block(ctx, &i.then_branch), otherwise }
}

/// A block's value as an expression: its tail alone (`{ ur }` is `ur`), or a scope without
/// allocations, which costs nothing.
fn value_of(block: Block) -> ExprKind {
    match (block.stmts.is_empty(), block.tail) {
        (true, Some(tail)) => tail.kind,
        (_, tail) => ExprKind::RunScoped {
            collective_axes: None,
            params: Vec::new(),
            body: Block { stmts: block.stmts, tail, span: block.span },
        },
    }
}

pub fn lower_expr(ctx: &Ctxt, e: &syn::Expr) -> Expr {
    let span = first_span(e);
    let kind = match e {
        syn::Expr::If(i) => lower_if_value(ctx, i),
        syn::Expr::Lit(l) => lower_lit(ctx, &l.lit),
        syn::Expr::Path(p) => match p.path.get_ident() {
            Some(id) if p.qself.is_none() => match ctx.unrolled_value(id) {
                Some(value) => ExprKind::Int(value, None),
                None => ExprKind::Var(id.clone()),
            },
            _ => {
                ctx.unsupported(span, Code::UnsupportedSyntax, "paths (use a local name)");
                ExprKind::Invalid
            }
        },
        syn::Expr::Paren(p) => return lower_expr(ctx, &p.expr),
        syn::Expr::Group(g) => return lower_expr(ctx, &g.expr),
        syn::Expr::Tuple(t) => ExprKind::Tuple(t.elems.iter().map(|x| lower_expr(ctx, x)).collect()),
        syn::Expr::Unary(u) => lower_unary(ctx, u),
        syn::Expr::Binary(b) => match bin_op(&b.op) {
            Some(op) => ExprKind::Binary {
                op,
                lhs: Box::new(lower_expr(ctx, &b.left)),
                rhs: Box::new(lower_expr(ctx, &b.right)),
            },
            None => {
                ctx.unsupported(b.op.span(), Code::UnsupportedSyntax, "compound assignment inside an expression");
                ExprKind::Invalid
            }
        },
        syn::Expr::Cast(c) => match super::types::dtype_of(ctx, &c.ty) {
            Some(dtype) => ExprKind::ScalarCast { value: Box::new(lower_expr(ctx, &c.expr)), dtype },
            None => ExprKind::Invalid,
        },
        syn::Expr::Call(c) => lower_call(ctx, c),
        syn::Expr::MethodCall(m) => lower_method(ctx, m),
        syn::Expr::Block(b) if b.label.is_none() => {
            ctx.unsupported(span, Code::UnsupportedSyntax, "bare blocks (use `run_scoped` to scope allocations)");
            ExprKind::Invalid
        }
        other => {
            // Keywords (`while`, `match`, ..) are pointed at; other syntax is underlined whole.
            let keyword = matches!(
                other,
                syn::Expr::While(_)
                    | syn::Expr::Loop(_)
                    | syn::Expr::Match(_)
                    | syn::Expr::If(_)
                    | syn::Expr::ForLoop(_)
                    | syn::Expr::Closure(_)
                    | syn::Expr::Async(_)
                    | syn::Expr::Unsafe(_)
                    | syn::Expr::Macro(_)
            );
            ctx.unsupported(
                if keyword { span.into() } else { loc_of(other) },
                Code::UnsupportedSyntax,
                describe(other),
            );
            ExprKind::Invalid
        }
    };
    Expr { id: ctx.next_id(), kind, span, end: last_span(e) }
}

/// From the first token of an expression to its last.
pub fn loc_of(e: &syn::Expr) -> Loc {
    Loc::new(first_span(e), last_span(e))
}

/// The span of an expression's first token. syn's `Spanned::span` prints the whole expression to
/// find it, which is quadratic over nested expressions; this walks down the left edge instead.
pub fn first_span(e: &syn::Expr) -> proc_macro2::Span {
    use syn::Expr as E;
    match e {
        E::Binary(b) => first_span(&b.left),
        E::MethodCall(m) => first_span(&m.receiver),
        E::Call(c) => first_span(&c.func),
        E::Field(f) => first_span(&f.base),
        E::Index(i) => first_span(&i.expr),
        E::Cast(c) => first_span(&c.expr),
        E::Assign(a) => first_span(&a.left),
        E::Try(t) => first_span(&t.expr),
        E::Await(a) => first_span(&a.base),
        E::Group(g) => first_span(&g.expr),
        E::Range(r) => r.start.as_deref().map_or_else(|| last_token(&r.limits), first_span),
        E::Path(p) if p.qself.is_none() && p.attrs.is_empty() => match (&p.path.leading_colon, p.path.segments.first())
        {
            (None, Some(seg)) => seg.ident.span(),
            _ => e.span(),
        },
        E::Lit(l) if l.attrs.is_empty() => l.lit.span(),
        E::Paren(p) if p.attrs.is_empty() => p.paren_token.span.open(),
        E::Tuple(t) if t.attrs.is_empty() => t.paren_token.span.open(),
        E::Array(a) if a.attrs.is_empty() => a.bracket_token.span.open(),
        E::ForLoop(f) if f.attrs.is_empty() && f.label.is_none() => f.for_token.span,
        E::If(i) if i.attrs.is_empty() => i.if_token.span,
        E::While(w) if w.attrs.is_empty() && w.label.is_none() => w.while_token.span,
        E::Match(m) if m.attrs.is_empty() => m.match_token.span,
        other => other.span(),
    }
}

/// The span of an expression's last token, for diagnostics that underline the whole expression
/// (`e.span()` gives only the first token on stable Rust, which cannot join spans).
pub fn last_span(e: &syn::Expr) -> proc_macro2::Span {
    use syn::Expr as E;
    match e {
        E::Binary(b) => last_span(&b.right),
        E::Unary(u) => last_span(&u.expr),
        E::Cast(c) => last_token(&c.ty),
        E::Call(c) => c.paren_token.span.close(),
        E::MethodCall(m) => m.paren_token.span.close(),
        E::Paren(p) => p.paren_token.span.close(),
        E::Tuple(t) => t.paren_token.span.close(),
        E::Array(a) => a.bracket_token.span.close(),
        E::Index(i) => i.bracket_token.span.close(),
        E::Group(g) => last_span(&g.expr),
        E::Assign(a) => last_span(&a.right),
        E::Range(r) => match &r.end {
            Some(end) => last_span(end),
            None => last_token(&r.limits),
        },
        E::Lit(l) => l.lit.span(),
        other => last_token(other),
    }
}

fn last_token(t: &impl quote::ToTokens) -> proc_macro2::Span {
    t.to_token_stream().into_iter().last().map_or_else(|| t.span(), |tt| tt.span())
}

fn lower_lit(ctx: &Ctxt, lit: &syn::Lit) -> ExprKind {
    // A suffix names a numeric dtype (`64i32`, `1.0f32`); `bool` is no number.
    let suffix = |s: &str| match DType::from_name(s) {
        _ if s.is_empty() => Ok(None),
        Some(DType::Bool) | None => Err(()),
        Some(d) => Ok(Some(d)),
    };
    match lit {
        syn::Lit::Int(i) => match (i.base10_parse::<i64>(), suffix(i.suffix())) {
            (Ok(v), Ok(d)) => ExprKind::Int(v, d),
            _ => {
                ctx.unsupported(
                    i.span(),
                    Code::UnsupportedSyntax,
                    "this integer literal (too large, or an unknown suffix)",
                );
                ExprKind::Invalid
            }
        },
        syn::Lit::Float(f) => match (f.base10_parse::<f64>(), suffix(f.suffix())) {
            (Ok(v), Ok(d)) => ExprKind::Float(v, d),
            _ => {
                ctx.unsupported(f.span(), Code::UnsupportedSyntax, "this float literal");
                ExprKind::Invalid
            }
        },
        syn::Lit::Bool(b) => ExprKind::Bool(b.value),
        other => {
            ctx.unsupported(other.span(), Code::UnsupportedSyntax, "string, char and byte literals");
            ExprKind::Invalid
        }
    }
}

fn lower_unary(ctx: &Ctxt, u: &syn::ExprUnary) -> ExprKind {
    let op = match u.op {
        syn::UnOp::Neg(_) => UnOp::Neg,
        syn::UnOp::Not(_) => UnOp::Not,
        _ => {
            ctx.unsupported(
                u.op.span(),
                Code::UnsupportedSyntax,
                "references and dereferences (kernel values are used by name)",
            );
            return ExprKind::Invalid;
        }
    };
    ExprKind::Unary { op, operand: Box::new(lower_expr(ctx, &u.expr)) }
}

fn bin_op(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::Add(_) => BinOp::Add,
        B::Sub(_) => BinOp::Sub,
        B::Mul(_) => BinOp::Mul,
        B::Div(_) => BinOp::Div,
        B::Rem(_) => BinOp::Rem,
        B::Shl(_) => BinOp::Shl,
        B::Shr(_) => BinOp::Shr,
        B::BitAnd(_) => BinOp::BitAnd,
        B::BitOr(_) => BinOp::BitOr,
        B::BitXor(_) => BinOp::BitXor,
        B::And(_) => BinOp::And,
        B::Or(_) => BinOp::Or,
        B::Eq(_) => BinOp::Eq,
        B::Ne(_) => BinOp::Ne,
        B::Lt(_) => BinOp::Lt,
        B::Le(_) => BinOp::Le,
        B::Gt(_) => BinOp::Gt,
        B::Ge(_) => BinOp::Ge,
        _ => return None,
    })
}

/// A short name for syntax the language lacks, for `unsupported in a tessel kernel: ..`.
fn describe(e: &syn::Expr) -> &'static str {
    match e {
        syn::Expr::Array(_) => "array expressions outside shapes and indices",
        syn::Expr::Async(_) | syn::Expr::Await(_) => "async code",
        syn::Expr::Closure(_) => "closures outside `run_scoped` and `run_state`",
        syn::Expr::Field(_) => "field access",
        syn::Expr::Index(_) => "indexing with `[..]` (use `.at(i)`, `.slice([..])` or `.tile([..])`)",
        syn::Expr::Loop(_) => "`loop` (use `for i in a..b`)",
        syn::Expr::While(_) => "`while` loops (use `for i in a..b`)",
        syn::Expr::Match(_) => "`match` (use `if`)",
        syn::Expr::Macro(_) => "macros inside a kernel",
        syn::Expr::Reference(_) => "references (kernel values are used by name)",
        syn::Expr::Return(_) => "`return`",
        syn::Expr::Break(_) | syn::Expr::Continue(_) => "`break` and `continue`",
        syn::Expr::Struct(_) => "struct literals",
        syn::Expr::Range(_) => "ranges outside `for` loops and `.slice([..])`",
        syn::Expr::Unsafe(_) => "`unsafe` blocks",
        syn::Expr::Try(_) => "the `?` operator",
        syn::Expr::Let(_) => "`let` in expressions",
        syn::Expr::ForLoop(_) => "`for` as a value",
        syn::Expr::Assign(_) => "assignment as a value",
        _ => "this expression",
    }
}
