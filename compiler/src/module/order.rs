//! The calls between the functions of one scope: an order in which to check their bodies, each
//! after the functions it calls, and the recursive calls, which cannot be inlined.

use crate::codes::Code;
use crate::diag::Ctxt;
use crate::syntax::function::Function;
use proc_macro2::Span;
use std::collections::HashMap;
use std::rc::Rc;
use syn::visit_mut::{self, VisitMut};

/// The functions (of one scope: the module's own, or one library's), each after the functions
/// it calls, as indices into `functions`; a call that closes a cycle is reported, and every
/// function of the cycle is broken.
pub(super) fn order(ctx: &Ctxt, functions: &[Rc<Function>]) -> Vec<usize> {
    let index: HashMap<String, usize> = functions.iter().enumerate().map(|(i, f)| (f.name.to_string(), i)).collect();
    let calls: Vec<Vec<(usize, Span)>> = functions.iter().map(|f| calls_in(&f.body, &index)).collect();
    let mut walk =
        Walk { ctx, functions, calls: &calls, state: vec![State::New; functions.len()], path: vec![], out: vec![] };
    for f in 0..functions.len() {
        walk.visit(f);
    }
    walk.out
}

#[derive(Clone, Copy, PartialEq)]
enum State {
    New,
    /// On the current path: a call of it closes a cycle.
    Open,
    Done,
}

/// A depth-first walk of the call graph.
struct Walk<'a> {
    ctx: &'a Ctxt,
    functions: &'a [Rc<Function>],
    calls: &'a [Vec<(usize, Span)>],
    state: Vec<State>,
    path: Vec<usize>,
    out: Vec<usize>,
}

impl Walk<'_> {
    fn visit(&mut self, f: usize) {
        if self.state[f] != State::New {
            return;
        }
        self.state[f] = State::Open;
        self.path.push(f);
        for &(callee, at) in &self.calls[f] {
            match self.state[callee] {
                State::New => self.visit(callee),
                State::Open => self.recursion(f, callee, at),
                State::Done => {}
            }
        }
        self.path.pop();
        self.state[f] = State::Done;
        self.out.push(f);
    }

    /// `caller` calls `callee` at `at`, and `callee` is on the path to `caller`.
    fn recursion(&self, caller: usize, callee: usize, at: Span) {
        let start = self.path.iter().position(|&g| g == callee).unwrap_or(0);
        let cycle = &self.path[start..];
        for &g in cycle {
            self.functions[g].broken.set(true);
        }
        let names: Vec<String> =
            cycle.iter().chain([&callee]).map(|&g| format!("`{}`", self.functions[g].name)).collect();
        let message = if caller == callee {
            format!("`{}` calls itself", self.functions[callee].name)
        } else {
            let (first, rest) = names.split_first().map_or(("", &[][..]), |(f, r)| (f.as_str(), r));
            format!(
                "this call of `{}` is recursive: {first} calls {}",
                self.functions[callee].name,
                rest.join(", which calls ")
            )
        };
        let help = "kernel functions are inlined at their calls, so none may call itself, directly or through \
                    others: write the repetition as a loop";
        self.ctx.type_error(at, Code::Inlining, message, help);
    }
}

/// The calls of the module's functions in `body`, in source order: the callee and the name's token.
fn calls_in(body: &syn::Block, index: &HashMap<String, usize>) -> Vec<(usize, Span)> {
    struct Finder<'a> {
        index: &'a HashMap<String, usize>,
        found: Vec<(usize, Span)>,
    }
    impl VisitMut for Finder<'_> {
        fn visit_expr_call_mut(&mut self, call: &mut syn::ExprCall) {
            if let syn::Expr::Path(p) = &*call.func {
                let name = p.path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>();
                if let ([name], None) = (&name[..], p.path.leading_colon) {
                    if let Some(&f) = self.index.get(name) {
                        let at = p.path.segments.first().map_or_else(Span::call_site, |s| s.ident.span());
                        self.found.push((f, at));
                    }
                }
            }
            visit_mut::visit_expr_call_mut(self, call);
        }
    }
    let mut finder = Finder { index, found: Vec::new() };
    finder.visit_block_mut(&mut body.clone());
    finder.found
}
