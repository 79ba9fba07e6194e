//! `Pipeline<STAGES, COPIES, RELEASES>`: a ring of shared-memory stages filled by TMA and drained
//! by compute, in the manner of Pallas's `emit_pipeline`. It is sugar, rewritten here (before the
//! closure of its `run_scoped` is read) into what the rest of the compiler already knows: two
//! barrier arrays, a step counter and a stage counter, and loops with parity waits.
//!
//! ```text
//! ring: Pipeline<S, C, R>            ring__full: Barrier<C, S>, ring__empty: Barrier<R, S>, and
//!                                    `let mut ring__step = 0; let mut ring__stage = 0;` first
//!
//! pipeline_produce(ring, n,          for k in 0..n {
//!     |k, s, bar| body);                 let s = ring__stage;
//!                                        if ring__step >= S { barrier_wait__in_step(ring__empty.at(s)); }
//!                                        body (with `bar` = ring__full.at(s))
//!                                        ring__step = ring__step + 1;
//!                                        ring__stage = ring__stage + 1;
//!                                        if ring__stage == S { ring__stage = 0; }
//!                                    }
//!
//! pipeline_consume(ring, n,          for k in 0..n {
//!     |k, s| body);                      let s = ring__stage;
//!                                        barrier_wait(ring__full.at(s));
//!                                        body
//!                                        wgmma_wait(0);
//!                                        barrier_arrive(ring__empty.at(s));
//!                                        (the step and the stage advance as above)
//!                                    }
//! ```
//!
//! The stage is counted, not computed as `ring__step % S`: the remainder was a division on every
//! step, on the consumer's path from one stage's wgmmas to the next's.
//!
//! The producer's wait for a free stage ends at a warpgroup barrier (`barrier_wait__in_step`), so
//! that no producer warp falls two phases behind (`Waiters` says why). The consumers need no such
//! barrier: their release of a stage (`barrier_arrive`) synchronizes the warpgroup.
//!
//! A consumer releases a stage (`barrier_arrive` on its `empty` barrier) as soon as its wgmmas
//! have read it. With two consumers the other's wgmmas keep the tensor cores busy meanwhile; this
//! measured 5% faster on the H200 than keeping a group in flight, because the ring refills a step
//! sooner. `delay_release = true` after the closure keeps one wgmma group in flight instead
//! (`wgmma_wait(1)`, each stage released a step late; the last one after the loop), which suits a
//! single consumer. `cluster = true` makes releases arrive in every program of the cluster: what a
//! ring needs whose stages are filled by multicast copies. `C` counts the copies that fill a stage,
//! `R` the releases of a stage (consuming warpgroups, times the cluster size for cluster releases).
//! A straight-line producer must issue exactly `C` copies on `bar` (checked when `C` is a
//! literal). The step counter lives in each warpgroup's registers, so the producer's and each consumer's
//! walk over the ring continue across loops (a persistent kernel's tiles share one ring).

use super::calls::is_ident;
use super::expr::{first_span, loc_of};
use super::known;
use super::{peel, peel_ty};
use crate::codes::Code;
use crate::diag::{Ctxt, Loc};
use crate::syntax::ast::Waiters;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote_spanned};
use syn::spanned::Spanned as _;
use syn::visit_mut::{self, VisitMut};

/// A pipeline allocated by the `run_scoped` being read: its name and its stage count (`None` for
/// a malformed one, whose uses expand to nothing).
struct Ring {
    name: syn::Ident,
    stages: Option<syn::Expr>,
    /// The copies that fill a stage, when written as a literal.
    copies: Option<u64>,
}

impl Ring {
    fn part(&self, what: &str) -> syn::Ident {
        part_name(&self.name, what)
    }
}

/// One step on around the ring: the step count, and the stage, which wraps to 0 after the last
/// (counted rather than computed as `step % stages`, a division on every step of the loop).
fn advance(ring: &Ring, stages: &syn::Expr, span: Span) -> TokenStream {
    let (step, stage) = (ring.part("step"), ring.part("stage"));
    quote_spanned! {span=>
        #step = #step + 1;
        #stage = #stage + 1;
        if #stage == (#stages) {
            #stage = 0;
        }
    }
}

/// The name of a ring's barriers (`ring__full`, `ring__empty`) or counters (`ring__step`,
/// `ring__stage`, `ring__previous`).
fn part_name(ring: &syn::Ident, what: &str) -> syn::Ident {
    format_ident!("{ring}__{what}", span = ring.span())
}

/// Rewrites the pipelines among `closure`'s parameters, and their uses in its body, into barriers
/// and loops. Returns the closure unchanged when it allocates no pipeline; `None` if the rewrite
/// failed (reported).
pub fn desugar(ctx: &Ctxt, closure: &syn::ExprClosure) -> Option<syn::ExprClosure> {
    let mut out = closure.clone();
    let mut rings = Vec::new();
    let mut inputs = syn::punctuated::Punctuated::new();
    for input in &closure.inputs {
        match ring_param(ctx, input) {
            Param::Other => inputs.push(input.clone()),
            // Reported; its uses expand to nothing, so that they report nothing more.
            Param::Malformed(name) => rings.push(Ring { name, stages: None, copies: None }),
            Param::Ring(ring) => {
                let RingParam { name, stages, copies, releases } = *ring;
                let span = name.span();
                let literal = literal_u64(&copies);
                for (part, arrivals) in [("full", copies), ("empty", releases)] {
                    let ty = parse(ctx, span, quote_spanned!(span => Barrier<#arrivals, #stages>))?;
                    inputs.push(typed_name(part_name(&name, part), ty));
                }
                rings.push(Ring { name, stages: Some(stages), copies: literal });
            }
        }
    }
    if rings.is_empty() {
        return Some(out);
    }
    out.inputs = inputs;
    let counters = rings.iter().filter(|r| r.stages.is_some()).map(|r| {
        let (step, stage) = (r.part("step"), r.part("stage"));
        quote_spanned!(r.name.span() => let mut #step = 0; let mut #stage = 0;)
    });
    // The counters come first in the closure's own block, whose value (its tail) is kept.
    let body = &closure.body;
    let inner = match peel(body) {
        syn::Expr::Block(b) => b.block.stmts.iter().map(|s| quote::quote!(#s)).collect(),
        other => quote::quote!(#other),
    };
    let at = closure.or1_token.span;
    let mut block: syn::Block = parse(ctx, at, quote_spanned!(at => { #(#counters)* #inner }))?;
    Rewriter { ctx, rings: &rings }.visit_block_mut(&mut block);
    out.body = Box::new(syn::Expr::Block(syn::ExprBlock { attrs: vec![], label: None, block }));
    Some(out)
}

/// `name: ty` as a closure parameter.
fn typed_name(name: syn::Ident, ty: syn::Type) -> syn::Pat {
    let pat =
        syn::Pat::Ident(syn::PatIdent { attrs: vec![], by_ref: None, mutability: None, ident: name, subpat: None });
    let colon_token = syn::Token![:](pat.span());
    syn::Pat::Type(syn::PatType { attrs: vec![], pat: Box::new(pat), colon_token, ty: Box::new(ty) })
}

/// Parses generated tokens; a failure (a bug here, not in the kernel) is reported at `span`.
fn parse<T: syn::parse::Parse>(ctx: &Ctxt, span: Span, tokens: TokenStream) -> Option<T> {
    syn::parse2(tokens)
        .map_err(|e| ctx.unsupported(span, Code::Pipeline, format!("this pipeline (internal: {e})")))
        .ok()
}

/// What a `run_scoped` parameter is, as far as pipelines go.
enum Param {
    Other,
    /// A `Pipeline` whose type is wrong (reported).
    Malformed(syn::Ident),
    Ring(Box<RingParam>),
}

/// `name: Pipeline<stages, copies, releases>`, read.
struct RingParam {
    name: syn::Ident,
    stages: syn::Expr,
    copies: syn::Expr,
    releases: syn::Expr,
}

/// Reads `name: Pipeline<stages, copies, releases>`.
fn ring_param(ctx: &Ctxt, input: &syn::Pat) -> Param {
    let syn::Pat::Type(pt) = input else { return Param::Other };
    let (syn::Type::Path(tp), syn::Pat::Ident(pi)) = (peel_ty(&pt.ty), &*pt.pat) else { return Param::Other };
    let Some(last) = tp.path.segments.last() else { return Param::Other };
    if tp.qself.is_some() || tp.path.segments.len() != 1 || last.ident != "Pipeline" {
        return Param::Other;
    }
    let args: Vec<syn::Expr> = match &last.arguments {
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .filter_map(|g| match g {
                syn::GenericArgument::Const(e) => Some(e.clone()),
                syn::GenericArgument::Type(ty) => match peel_ty(ty) {
                    syn::Type::Path(p) => {
                        Some(syn::Expr::Path(syn::ExprPath { attrs: vec![], qself: None, path: p.path.clone() }))
                    }
                    _ => None,
                },
                _ => None,
            })
            .collect(),
        _ => vec![],
    };
    match <[syn::Expr; 3]>::try_from(args) {
        Ok([stages, copies, releases]) => {
            Param::Ring(Box::new(RingParam { name: pi.ident.clone(), stages, copies, releases }))
        }
        Err(_) => {
            let end = match &last.arguments {
                syn::PathArguments::AngleBracketed(a) => a.gt_token.span,
                _ => last.ident.span(),
            };
            ctx.type_error(
                Loc::new(last.ident.span(), end),
                Code::Pipeline,
                "`Pipeline<stages, copies, releases>` takes three arguments",
                "e.g. `Pipeline<3, 2, 1>`: three stages, two TMA copies fill a stage, one warpgroup releases it",
            );
            Param::Malformed(pi.ident.clone())
        }
    }
}

/// Replaces statements `pipeline_produce(ring, ..);` / `pipeline_consume(ring, ..);` naming a ring
/// of this `run_scoped` (calls naming anything else are left for `calls` to report).
struct Rewriter<'a> {
    ctx: &'a Ctxt,
    rings: &'a [Ring],
}

impl VisitMut for Rewriter<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let mut stmts = Vec::with_capacity(block.stmts.len());
        for mut stmt in std::mem::take(&mut block.stmts) {
            match self.expand(&stmt) {
                Some(expanded) => stmts.extend(expanded),
                None => {
                    visit_mut::visit_stmt_mut(self, &mut stmt);
                    stmts.push(stmt);
                }
            }
        }
        block.stmts = stmts;
    }
}

impl Rewriter<'_> {
    /// The statements a pipeline call expands to; `None` if `stmt` is not one.
    fn expand(&mut self, stmt: &syn::Stmt) -> Option<Vec<syn::Stmt>> {
        let syn::Stmt::Expr(e, _) = stmt else { return None };
        let syn::Expr::Call(call) = peel(e) else { return None };
        let syn::Expr::Path(f) = peel(&call.func) else { return None };
        let produce = f.path.is_ident("pipeline_produce");
        if !produce && !f.path.is_ident("pipeline_consume") {
            return None;
        }
        let ring = match call.args.first().map(peel) {
            Some(syn::Expr::Path(p)) => self.rings.iter().find(|r| p.path.is_ident(&r.name))?,
            _ => return None,
        };
        let span = f.path.span();
        let tokens = match &ring.stages {
            None => None,
            Some(stages) if produce => self.produce(ring, stages, call, span),
            Some(stages) => self.consume(ring, stages, call, span),
        };
        // A malformed call was reported; it expands to nothing so that nothing else is reported.
        let tokens = tokens.unwrap_or_default();
        let mut block: syn::Block = parse(self.ctx, span, quote_spanned!(span => { #tokens }))
            .unwrap_or(syn::Block { brace_token: Default::default(), stmts: vec![] });
        self.visit_block_mut(&mut block);
        Some(block.stmts)
    }

    fn produce(&mut self, ring: &Ring, stages: &syn::Expr, call: &syn::ExprCall, span: Span) -> Option<TokenStream> {
        let form = "pipeline_produce(ring, steps, |k, stage, bar| { .. })";
        let [_, steps, closure] = self.args::<3>(call, form)?;
        let (names, body) = self.closure(closure, 3, form)?;
        let [k, s, bar] = [&names[0], &names[1], &names[2]];
        self.check_copies(ring, body, bar, closure);
        let (full, empty, step) = (ring.part("full"), ring.part("empty"), ring.part("step"));
        let mut body = body.clone();
        let with = parse(self.ctx, bar.span(), quote_spanned!(bar.span() => #full.at(#s)))?;
        Substitute { name: bar, with }.visit_expr_mut(&mut body);
        let body = statements(&body);
        let (stage, advance) = (ring.part("stage"), advance(ring, stages, span));
        let wait = syn::Ident::new(Waiters::InStep.call_name(), span);
        Some(quote_spanned! {span=>
            for #k in 0..(#steps) {
                let #s = #stage;
                if #step >= (#stages) {
                    #wait(#empty.at(#s));
                }
                #body
                #advance
            }
        })
    }

    fn consume(&mut self, ring: &Ring, stages: &syn::Expr, call: &syn::ExprCall, span: Span) -> Option<TokenStream> {
        let form = "pipeline_consume(ring, steps, |k, stage| { .. })";
        let args: Vec<&syn::Expr> = call.args.iter().collect();
        if args.len() < 3 {
            self.args::<3>(call, form)?;
        }
        let (steps, closure) = (args[1], args[2]);
        let options = self.options(&args[3..])?;
        let (names, body) = self.closure(closure, 2, form)?;
        let body = statements(body);
        let [k, s] = [&names[0], &names[1]];
        let (full, empty) = (ring.part("full"), ring.part("empty"));
        let (stage, advance) = (ring.part("stage"), advance(ring, stages, span));
        let flag = options.cluster.map(|span| quote_spanned!(span => , cluster = true));
        if !options.delay_release {
            // Each step's wgmmas complete before its stage is released: the other consumers'
            // wgmmas keep the tensor cores busy meanwhile, and the ring refills a step sooner.
            return Some(quote_spanned! {span=>
                for #k in 0..(#steps) {
                    let #s = #stage;
                    barrier_wait(#full.at(#s));
                    #body
                    wgmma_wait(0);
                    barrier_arrive(#empty.at(#s) #flag);
                    #advance
                }
            });
        }
        // The stage before the ring's current one: the last step's.
        let previous = ring.part("previous");
        let release = quote_spanned! {span=>
            let mut #previous = #stage - 1;
            if #stage == 0 {
                #previous = (#stages) - 1;
            }
            barrier_arrive(#empty.at(#previous) #flag);
        };
        Some(quote_spanned! {span=>
            for #k in 0..(#steps) {
                let #s = #stage;
                barrier_wait(#full.at(#s));
                #body
                wgmma_wait(1);
                if #k > 0 {
                    #release
                }
                #advance
            }
            wgmma_wait(0);
            if (#steps) > 0 {
                #release
            }
        })
    }

    /// The options after `pipeline_consume`'s closure: `cluster = true`, `delay_release = true`.
    fn options(&self, args: &[&syn::Expr]) -> Option<ConsumeOptions> {
        let mut options = ConsumeOptions { cluster: None, delay_release: false };
        let mut ok = true;
        for arg in args {
            match flag(arg) {
                Some(("cluster", asg)) if options.cluster.is_none() => {
                    match known::flag(self.ctx, "cluster", &asg.right) {
                        Some(set) => options.cluster = set.then(|| asg.span()),
                        None => ok = false,
                    }
                }
                Some(("delay_release", asg)) if !options.delay_release => {
                    match known::flag(self.ctx, "delay_release", &asg.right) {
                        Some(set) => options.delay_release = set,
                        None => ok = false,
                    }
                }
                _ => {
                    self.ctx.type_error(
                        loc_of(arg),
                        Code::Pipeline,
                        "expected `cluster = true` or `delay_release = true`",
                        "`cluster = true` releases each stage in every program of the cluster; `delay_release = true` \
                         keeps one wgmma group in flight and releases each stage a step later",
                    );
                    ok = false;
                }
            }
        }
        ok.then_some(options)
    }

    /// A producer body without control flow around its copies must issue exactly the ring's
    /// `copies` on `bar` per stage: fewer never complete the stage (a deadlock), more complete it
    /// while a copy is still landing (a race). Bodies whose copies sit under `if`/`for`, and rings
    /// whose count is not a literal, are left to the interpreter's deadlock report.
    fn check_copies(&self, ring: &Ring, body: &syn::Expr, bar: &syn::Ident, closure: &syn::Expr) {
        let Some(expected) = ring.copies else { return };
        let stmts: Vec<&syn::Expr> = match peel(body) {
            syn::Expr::Block(b) => b
                .block
                .stmts
                .iter()
                .filter_map(|st| match st {
                    syn::Stmt::Expr(e, _) => Some(peel(e)),
                    _ => None,
                })
                .collect(),
            other => vec![other],
        };
        let mut count = 0;
        for e in stmts {
            if is_copy_on(e, bar) {
                count += 1;
            } else if mentions(quote::quote!(#e), bar) {
                return;
            }
        }
        if count != expected {
            let at = match closure {
                syn::Expr::Closure(c) => Loc::new(c.or1_token.span, c.or2_token.span),
                other => loc_of(other),
            };
            self.ctx.type_error(
                at,
                Code::PipelineCopies,
                format!(
                    "this producer issues {count} {} per stage on `{bar}`, but `{}: Pipeline<_, {expected}, _>` \
                     expects {expected}",
                    if count == 1 { "copy" } else { "copies" },
                    ring.name
                ),
                "a stage is full after `copies` arrivals, one per copy: fewer never fill it, more let it \
                 complete before the last copy lands",
            );
        }
    }

    /// Exactly `N` arguments, or an error naming the form.
    fn args<'c, const N: usize>(&self, call: &'c syn::ExprCall, form: &str) -> Option<[&'c syn::Expr; N]> {
        let args: Vec<&syn::Expr> = call.args.iter().collect();
        <[&syn::Expr; N]>::try_from(args).ok().or_else(|| {
            let span = if call.args.is_empty() { call.paren_token.span.join() } else { call.args.span() };
            self.ctx.type_error(
                span,
                Code::Pipeline,
                format!("expected `{form}`"),
                "see `Pipeline` in the crate documentation",
            );
            None
        })
    }

    /// The closure's parameter names (exactly `n` plain names) and its body.
    fn closure<'c>(&self, e: &'c syn::Expr, n: usize, form: &str) -> Option<(Vec<syn::Ident>, &'c syn::Expr)> {
        let syn::Expr::Closure(c) = peel(e) else {
            self.ctx.type_error(
                loc_of(e),
                Code::Pipeline,
                format!("expected a closure: `{form}`"),
                "the closure is one step's work",
            );
            return None;
        };
        let names: Option<Vec<syn::Ident>> = c
            .inputs
            .iter()
            .map(|p| match p {
                syn::Pat::Ident(pi) => Some(pi.ident.clone()),
                _ => None,
            })
            .collect();
        match names {
            Some(names) if names.len() == n => Some((names, &c.body)),
            _ => {
                self.ctx.type_error(
                    Loc::new(c.or1_token.span, c.or2_token.span),
                    Code::Pipeline,
                    format!("this closure takes {n} plain names: `{form}`"),
                    "the step index, the stage index (and for a producer, the stage's barrier)",
                );
                None
            }
        }
    }
}

struct ConsumeOptions {
    cluster: Option<Span>,
    delay_release: bool,
}

/// `name = value` for one of `pipeline_consume`'s options: the name and the assignment (its value
/// is a condition known when the kernel is read: `known::flag`).
fn flag(e: &syn::Expr) -> Option<(&'static str, &syn::ExprAssign)> {
    let syn::Expr::Assign(a) = peel(e) else { return None };
    let name = ["cluster", "delay_release"].into_iter().find(|n| is_ident(&a.left, n))?;
    Some((name, a))
}

/// `copy_gmem_to_smem(src, dst, bar, ..)` completing on `bar`.
fn is_copy_on(e: &syn::Expr, bar: &syn::Ident) -> bool {
    let syn::Expr::Call(c) = peel(e) else { return false };
    let syn::Expr::Path(f) = peel(&c.func) else { return false };
    f.path.is_ident("copy_gmem_to_smem")
        && matches!(c.args.iter().nth(2).map(peel), Some(syn::Expr::Path(p)) if p.path.is_ident(bar))
}

/// Whether `tokens` use the name `name` anywhere.
fn mentions(tokens: TokenStream, name: &syn::Ident) -> bool {
    tokens.into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == *name,
        proc_macro2::TokenTree::Group(g) => mentions(g.stream(), name),
        _ => false,
    })
}

/// The value of an integer literal (possibly in the invisible group a `macro_rules!` adds).
fn literal_u64(e: &syn::Expr) -> Option<u64> {
    match peel(e) {
        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse().ok(),
        _ => None,
    }
}

/// A closure body as statements to splice into a loop: a block's statements (its tail, if any,
/// ended with `;`), or the expression as one statement.
fn statements(body: &syn::Expr) -> TokenStream {
    let body = peel(body);
    let syn::Expr::Block(b) = body else { return quote_spanned!(first_span(body) => #body;) };
    let mut out = TokenStream::new();
    for stmt in &b.block.stmts {
        match stmt {
            syn::Stmt::Expr(e, None) => out.extend(quote_spanned!(first_span(e) => #e;)),
            other => out.extend(quote::quote!(#other)),
        }
    }
    out
}

/// Replaces the expression `name` with `with` (the producer's `bar`).
struct Substitute<'a> {
    name: &'a syn::Ident,
    with: syn::Expr,
}

impl VisitMut for Substitute<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        match e {
            syn::Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.name) => *e = self.with.clone(),
            _ => visit_mut::visit_expr_mut(self, e),
        }
    }
}
