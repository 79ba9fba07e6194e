//! Calls of kernel functions, inlined where they are read: `tile_order(t, tiles, 8)` becomes a
//! scope of its own whose value is the function's:
//!
//! ```text
//! tile_order(t, tiles, 8)        run_scoped(|| {
//!                                    let (u, tiles_m, group) = (t, tiles, 8);   // the binding
//!                                    <tile_order's body, its consts renamed (`hygiene`)>
//!                                })
//! ```
//!
//! A `run_scoped` without allocations is a scope with a value that costs nothing: no barrier, no
//! instruction. The arguments are evaluated once, in order, before anything of the function is
//! bound (one `let` of a tuple), so an argument that names the caller's `group` sees the caller's,
//! as in a Rust call; handles (arrays, buffers, barriers, accumulators) are bound like scalars and
//! alias what they name. The binding's value is the call's mark: `typeck::call` finds the
//! function by its id and checks the arguments against the parameters' types, the body (in the
//! call's context, for the notes at the call) and the return value.
//!
//! Each call reads the function's body again, with fresh expression ids, outside any enclosing
//! `#[unroll]` loop (`Ctxt::isolated`): a caller's loop counter is not the function's name.

use super::ast::*;
use super::expr::{first_span, last_span, lower_expr, lower_function_body};
use super::function::{self, Callee, Function, Functions, GenericValue};
use crate::codes::Code;
use crate::diag::{Ctxt, Diag, Loc};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

/// The most calls inlined into one kernel (nested calls count): a guard against bodies that
/// multiply, a call of `g` twice in `f`, of `f` twice in `e`, and so on.
const MAX_CALLS: usize = 4096;

/// One inlined call: the function and the call's tokens (`tile_order(t, tiles, 8)`).
pub struct Site {
    pub function: Rc<Function>,
    pub at: Loc,
}

/// The kernel functions a body may call, the calls inlined so far, and which calls' bodies are
/// being read or checked: what the notes at the calls are made of (`Ctxt::finish`).
#[derive(Default)]
pub struct Calls {
    functions: RefCell<Option<Rc<Functions>>>,
    sites: RefCell<Vec<Rc<Site>>>,
    /// The call each binding (by the id of its value) binds the parameters of.
    bindings: RefCell<HashMap<ExprId, usize>>,
    /// The calls whose bodies are being read or checked, innermost last.
    open: RefCell<Vec<usize>>,
    /// Whether the bodies read are the module's functions, each read once where it is declared
    /// (`module`): a call there of a function with errors gets no note, as the caller then has
    /// errors too, and each call of the caller gets one.
    reading_functions: Cell<bool>,
    /// The scope the body being read resolves its calls in: the module's in a kernel, a
    /// function's own in its body (`Functions`).
    scope: Cell<usize>,
    /// Whether the function body being read (`reading_body`) called a function with errors.
    called_broken: Cell<bool>,
}

impl Calls {
    pub fn set_functions(&self, functions: Rc<Functions>) {
        *self.functions.borrow_mut() = Some(functions);
    }

    pub fn set_reading_functions(&self) {
        self.reading_functions.set(true);
    }

    fn functions(&self) -> Option<Rc<Functions>> {
        self.functions.borrow().clone()
    }

    pub fn site(&self, call: usize) -> Option<Rc<Site>> {
        self.sites.borrow().get(call).cloned()
    }

    /// The call whose parameters `value` (a binding's value) binds.
    pub fn bound_by(&self, value: ExprId) -> Option<usize> {
        self.bindings.borrow().get(&value).copied()
    }

    /// Runs `f` inside the body of `call`: the errors it reports get a note at the call.
    pub fn within<R>(&self, call: usize, f: impl FnOnce() -> R) -> R {
        self.open.borrow_mut().push(call);
        let out = f();
        self.open.borrow_mut().pop();
        out
    }

    /// The calls whose bodies are open, innermost first.
    pub fn open(&self) -> Vec<usize> {
        self.open.borrow().iter().rev().copied().collect()
    }

    /// Runs `f` with the calls it reads resolved in `scope`.
    fn in_scope<R>(&self, scope: usize, f: impl FnOnce() -> R) -> R {
        let outer = self.scope.replace(scope);
        let out = f();
        self.scope.set(outer);
        out
    }

    /// Reads a function's body where it is declared (`f`, in the function's `scope`): its value,
    /// and whether it calls a function with errors.
    pub fn reading_body<R>(&self, scope: usize, f: impl FnOnce() -> R) -> (R, bool) {
        let outer = self.called_broken.replace(false);
        let out = self.in_scope(scope, f);
        (out, self.called_broken.replace(outer))
    }
}

/// If `call` names a kernel function, the call inlined; `None` for anything else (the language's
/// operations). A call that cannot be inlined is reported and becomes `ExprKind::Invalid`.
pub fn call(ctx: &Ctxt, call: &syn::ExprCall, path: &syn::Path) -> Option<ExprKind> {
    let functions = ctx.calls.functions()?;
    let [seg] = path.segments.iter().collect::<Vec<_>>()[..] else { return None };
    if path.leading_colon.is_some() {
        return None;
    }
    let callee = functions.get(ctx.calls.scope.get(), &seg.ident.to_string())?;
    let at = Loc::new(seg.ident.span(), call.paren_token.span.close());
    // The arguments are the caller's: read (and their errors reported) whatever becomes of the call.
    let args: Vec<Expr> = call.args.iter().map(|a| lower_expr(ctx, a)).collect();
    let f = match callee {
        Callee::Function(f) => f,
        Callee::Kernel => {
            let help = "a kernel runs as a launch of its own: put the shared code in a kernel function (a plain \
                        `fn` of the module) and call that";
            ctx.type_error(
                seg.ident.span(),
                Code::UnknownOperation,
                format!("`{}` is a kernel, which cannot be called", seg.ident),
                help,
            );
            return Some(ExprKind::Invalid);
        }
        Callee::Private(library) => {
            let help = format!(
                "only a library's `pub fn`s are called from the modules that use it: make `{}` public in \
                 `{library}`, or call a public function of it that calls `{}`",
                seg.ident, seg.ident
            );
            ctx.type_error(
                seg.ident.span(),
                Code::PrivateFunction,
                format!("`{}` is a private function of the kernel-function library `{library}`", seg.ident),
                help,
            );
            return Some(ExprKind::Invalid);
        }
    };
    let values = match (f.generics.is_empty(), loc_of_generics(&seg.arguments)) {
        (true, None) => None,
        (true, Some(generics)) => {
            let help = format!("write `{}`: leave open extents as `_` in its parameter types", f.form());
            ctx.type_error(generics, Code::FunctionArgument, "a kernel function takes no generic arguments", help);
            return Some(ExprKind::Invalid);
        }
        (false, _) => match super::generic_call::values(ctx, &f, seg) {
            Some(values) => Some(values),
            None => return Some(ExprKind::Invalid),
        },
    };
    if args.len() != f.params.len() {
        let n = f.params.len();
        let message = format!("`{}` takes {n} argument{}, got {}", f.name, if n == 1 { "" } else { "s" }, args.len());
        ctx.type_error(loc_of_args(call), Code::FunctionArgument, message, format!("write `{}`", f.form()));
        return Some(ExprKind::Invalid);
    }
    if f.broken.get() {
        if ctx.calls.reading_functions.get() {
            ctx.calls.called_broken.set(true);
        } else {
            ctx.error(at, Diag::InCall { function: f.name.to_string(), broken: true });
        }
        return Some(ExprKind::Invalid);
    }
    if ctx.calls.sites.borrow().len() >= MAX_CALLS {
        let message = format!("this call of `{}` would inline more than {MAX_CALLS} calls into the kernel", f.name);
        ctx.type_error(at, Code::Inlining, message, "call the functions in loops rather than in many copies");
        return Some(ExprKind::Invalid);
    }
    Some(inline(ctx, f, values, at, args, call))
}

/// The scope that stands for one call: the binding, then the function's body (a generic function's
/// instance for the call's generic arguments `values`).
fn inline(
    ctx: &Ctxt,
    f: Rc<Function>,
    values: Option<Vec<GenericValue>>,
    at: Loc,
    args: Vec<Expr>,
    call: &syn::ExprCall,
) -> ExprKind {
    let site = {
        let mut sites = ctx.calls.sites.borrow_mut();
        sites.push(Rc::new(Site { function: f.clone(), at }));
        sites.len() - 1
    };
    let f = match values {
        None => f,
        // Its errors (which depend on the values) get a note at this call.
        Some(values) => match ctx.calls.within(site, || function::instantiate(ctx, &f, &values)) {
            Some(instance) => {
                let instance = Rc::new(instance);
                ctx.calls.sites.borrow_mut()[site] = Rc::new(Site { function: instance.clone(), at });
                instance
            }
            None => return ExprKind::Invalid,
        },
    };
    let binding = binding(ctx, &f, args, call);
    if let Stmt::Let { init, .. } = &binding {
        ctx.calls.bindings.borrow_mut().insert(init.id, site);
    }
    let mut body =
        ctx.calls.within(site, || ctx.calls.in_scope(f.scope, || ctx.isolated(|| lower_function_body(ctx, &f))));
    super::hygiene::rename_consts(ctx, &mut body, site);
    body.stmts.insert(0, binding);
    ExprKind::RunScoped { collective_axes: None, params: Vec::new(), body }
}

/// `let (a, b) = (arg0, arg1);` (`let a = arg0;` for one parameter, `let () = ();` for none: the
/// binding is also the call's mark).
fn binding(ctx: &Ctxt, f: &Function, mut args: Vec<Expr>, call: &syn::ExprCall) -> Stmt {
    let names: Vec<(syn::Ident, bool)> = f.params.iter().map(|p| (p.name.clone(), p.mutable)).collect();
    let init = match (args.len(), args.first(), args.last()) {
        (1, _, _) => args.remove(0),
        (_, Some(first), Some(last)) => {
            let (span, end) = (first.span, last.end);
            Expr { id: ctx.next_id(), kind: ExprKind::Tuple(args), span, end }
        }
        _ => {
            let parens = call.paren_token.span;
            Expr { id: ctx.next_id(), kind: ExprKind::Tuple(Vec::new()), span: parens.open(), end: parens.close() }
        }
    };
    Stmt::Let { names, ty: None, init, span: first_span(&call.func) }
}

/// Where an arity error points: the arguments, or the parentheses when there are none.
fn loc_of_args(call: &syn::ExprCall) -> Loc {
    match (call.args.first(), call.args.last()) {
        (Some(first), Some(last)) => Loc::new(first_span(first), last_span(last)),
        _ => Loc::new(call.paren_token.span.open(), call.paren_token.span.close()),
    }
}

/// `::<..>` after a function's name, if written.
fn loc_of_generics(args: &syn::PathArguments) -> Option<Loc> {
    match args {
        syn::PathArguments::AngleBracketed(a) => Some(Loc::new(a.lt_token.span, a.gt_token.span)),
        syn::PathArguments::Parenthesized(p) => Some(Loc::new(p.paren_token.span.open(), p.paren_token.span.close())),
        syn::PathArguments::None => None,
    }
}

/// The call an inlined scope stands for: the scope's binding marks it.
pub fn call_of(ctx: &Ctxt, body: &Block) -> Option<usize> {
    match body.stmts.first() {
        Some(Stmt::Let { init, .. }) => ctx.calls.bound_by(init.id),
        _ => None,
    }
}

/// If `e` is an inlined call, its arguments (the binding's value).
pub fn arguments_mut<'e>(ctx: &Ctxt, e: &'e mut Expr) -> Option<&'e mut Expr> {
    let ExprKind::RunScoped { body, .. } = &mut e.kind else { return None };
    call_of(ctx, body)?;
    match body.stmts.first_mut() {
        Some(Stmt::Let { init, .. }) => Some(init),
        _ => None,
    }
}
