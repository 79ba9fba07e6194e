//! Kernel functions: the plain `fn`s of a `#[kernels]` module, which its kernels call and `inline`
//! expands at each call.
//!
//! A function is read once, where it is declared, whether or not anything calls it: its signature
//! (parameters and return type in the language's own type syntax, read into [`Declared`]) and its
//! body (read as a kernel body is, and checked for names it cannot see). A function whose reading
//! reported an error is `broken`: its calls are not inlined, and each gets a note instead, so that
//! its errors are reported once, at its own tokens. Types are checked at each call (`typeck::call`),
//! with that call's arguments.

use super::ast::{self, Layout};
use super::types::{dtype_of, layout_path, path_parts};
use crate::codes::Code;
use crate::diag::{Ctxt, Loc};
use crate::types::DType;
use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::rc::Rc;
use syn::spanned::Spanned as _;
use syn::{GenericArgument, Type};

pub(crate) use crate::generic::decl::{Kind as GenericKind, Param as GenericParam, Value as GenericValue};

/// The kernel functions of a module, by scope, and the names of its kernels, as the calls in a
/// body see them.
///
/// Scope 0 is the module's: its own functions and the public (`pub fn`) functions of the
/// libraries it uses (`#[kernels(uses(..))]`, `module::uses`). Each library has a scope of its
/// own holding all its functions, private ones included, where its functions' bodies look up
/// their calls: a body's calls resolve in its function's scope ([`Function::scope`]), so a
/// library's functions call each other whatever the module names its own.
#[derive(Default)]
pub struct Functions {
    scopes: Vec<HashMap<String, Rc<Function>>>,
    /// The libraries' private functions that scope 0 does not see, with their library's name: what
    /// a call of one from the module is told.
    private: HashMap<String, String>,
    kernels: HashSet<String>,
}

/// What a call's name refers to.
pub enum Callee {
    Function(Rc<Function>),
    /// A kernel of the module: launched from the host, never called.
    Kernel,
    /// A function of a library the module uses that is not `pub`: the library's name.
    Private(String),
}

/// The scope of a module's own functions and its kernels' bodies.
pub const MODULE_SCOPE: usize = 0;

impl Functions {
    /// The table of a module's functions (read with [`read`]) and kernels, without libraries.
    pub fn new(functions: impl IntoIterator<Item = Rc<Function>>, kernels: HashSet<String>) -> Functions {
        let module = functions.into_iter().map(|f| (f.name.to_string(), f)).collect();
        Functions { scopes: vec![module], private: HashMap::new(), kernels }
    }

    /// Adds a library's functions as the scope `scope` (which their [`Function::scope`] names):
    /// its public ones also to the module's scope, unless the module has a function of that name
    /// (a clash, which the caller reports).
    pub fn add_library(&mut self, scope: usize, library: &str, functions: &[Rc<Function>]) {
        if self.scopes.len() <= scope {
            self.scopes.resize_with(scope + 1, HashMap::new);
        }
        for f in functions {
            let name = f.name.to_string();
            self.scopes[scope].insert(name.clone(), f.clone());
            if !f.public {
                self.private.entry(name).or_insert_with(|| library.to_string());
            } else {
                self.scopes[MODULE_SCOPE].entry(name).or_insert_with(|| f.clone());
            }
        }
    }

    /// The function (or kernel) `name` in `scope`, if there is one.
    pub fn get(&self, scope: usize, name: &str) -> Option<Callee> {
        if let Some(f) = self.scopes.get(scope).and_then(|s| s.get(name)) {
            return Some(Callee::Function(f.clone()));
        }
        if scope != MODULE_SCOPE {
            return None;
        }
        if self.kernels.contains(name) {
            return Some(Callee::Kernel);
        }
        self.private.get(name).map(|library| Callee::Private(library.clone()))
    }

    /// The function `name` that the module's scope sees, if any.
    pub fn in_module(&self, name: &str) -> Option<&Rc<Function>> {
        self.scopes.first().and_then(|s| s.get(name))
    }
}

/// A kernel function as declared.
pub struct Function {
    pub name: syn::Ident,
    pub params: Vec<Param>,
    /// [`Declared::Unit`] without a return type.
    pub ret: Declared,
    /// The return type's tokens, where "returns T, but the body has no value" points.
    pub ret_at: Option<Loc>,
    pub body: syn::Block,
    /// Whether reading it (its signature, its body, its calls) reported an error.
    pub broken: Cell<bool>,
    /// A generic function's parameters (`fn load<T, const N: usize>`) and its declaration, which each
    /// call instantiates with its generic arguments ([`instantiate`]); empty and `None` for a plain
    /// function. The rest of a generic function is read from the declaration with `f32` and `64`
    /// for its parameters, for the errors that do not depend on them.
    pub(crate) generics: Vec<GenericParam>,
    pub declaration: Option<syn::ItemFn>,
    /// Whether it is declared `pub fn`: a library's public functions are the ones the modules
    /// that use it can call.
    pub public: bool,
    /// The scope its body's calls resolve in ([`Functions`]): [`MODULE_SCOPE`] for a module's own
    /// function, its library's for a library's.
    pub scope: usize,
}

impl Function {
    /// `name(a, b, c)`, for arity errors.
    pub fn form(&self) -> String {
        let names: Vec<String> = self.params.iter().map(|p| p.name.to_string()).collect();
        format!("{}({})", self.name, names.join(", "))
    }
}

/// One parameter: `mut k: i32`, `a_s: Smem<bf16, 64, 64, Swizzle128>`, `_: i32`.
pub struct Param {
    pub name: syn::Ident,
    pub mutable: bool,
    pub ty: Declared,
}

/// One extent of a declared shape: a literal, or any (`_`, or a name in a global array's shape).
#[derive(Clone, Debug, PartialEq)]
pub enum Extent {
    Exactly(i64),
    /// Matches any extent; the name it was written with, if any (`M`), for messages.
    Any(Option<String>),
}

/// A parameter or return type of a kernel function: what a call's argument (or the body's value)
/// must be. Shapes may leave extents open (`Acc<f32, 64, _>`), so one function serves several
/// tile sizes.
#[derive(Clone, Debug, PartialEq)]
pub enum Declared {
    Unit,
    Scalar(DType),
    /// A return value of several parts: `-> (i32, i32)`.
    Tuple(Vec<Declared>),
    Regs {
        dtype: DType,
        shape: Vec<Extent>,
        layout: Layout,
    },
    Acc {
        dtype: DType,
        shape: Vec<Extent>,
    },
    /// A shared-memory buffer or view: its logical shape, swizzle in bytes (0: none), transposed.
    Smem {
        dtype: DType,
        shape: Vec<Extent>,
        swizzle: u32,
        transposed: bool,
    },
    /// `Barrier`, `Barrier<2>`, `Barrier<1, 4>` (an array), with `_` for any.
    Barrier {
        arrivals: Extent,
        count: Option<Extent>,
    },
    Gmem {
        dtype: DType,
        shape: Vec<Extent>,
        mutable: bool,
    },
}

impl fmt::Display for Extent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Extent::Exactly(v) => write!(f, "{v}"),
            Extent::Any(Some(name)) => f.write_str(name),
            Extent::Any(None) => f.write_str("_"),
        }
    }
}

/// `d0, d1, ..` as a type writes them.
fn extents(shape: &[Extent]) -> String {
    shape.iter().map(Extent::to_string).collect::<Vec<_>>().join(", ")
}

impl fmt::Display for Declared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Declared::Unit => f.write_str("()"),
            Declared::Scalar(d) => write!(f, "{d}"),
            Declared::Tuple(parts) => {
                write!(f, "({})", parts.iter().map(Declared::to_string).collect::<Vec<_>>().join(", "))
            }
            Declared::Regs { dtype, shape, layout } => write!(f, "Regs<{dtype}, {}, {layout}>", extents(shape)),
            Declared::Acc { dtype, shape } => write!(f, "Acc<{dtype}, {}>", extents(shape)),
            Declared::Smem { dtype, shape, swizzle, transposed } => {
                write!(f, "Smem<{dtype}, {}", extents(shape))?;
                if *swizzle != 0 {
                    write!(f, ", Swizzle{swizzle}")?;
                }
                if *transposed {
                    f.write_str(", Transposed")?;
                }
                f.write_str(">")
            }
            Declared::Barrier { arrivals, count: Some(count) } => write!(f, "Barrier<{arrivals}, {count}>"),
            Declared::Barrier { arrivals: Extent::Exactly(1), count: None } => f.write_str("Barrier"),
            Declared::Barrier { arrivals, count: None } => write!(f, "Barrier<{arrivals}>"),
            Declared::Gmem { dtype, shape, mutable } => {
                write!(f, "{}<{dtype}, {}>", if *mutable { "GmemMut" } else { "Gmem" }, extents(shape))
            }
        }
    }
}

/// Reads a function's signature; errors (an unsupported signature, a type the language lacks)
/// go to `ctx` and make the function `broken`. A generic function is read with `f32` and `64` for
/// its parameters (see `Function::generics`).
pub fn read(ctx: &Ctxt, item: &syn::ItemFn) -> Function {
    let before = ctx.error_count();
    let generics = crate::generic::decl::params(ctx, &item.sig.generics);
    if generics.is_empty() {
        return read_plain(ctx, item, before);
    }
    let placeholders: Vec<GenericValue> = generics
        .iter()
        .map(|p| match p.kind {
            GenericKind::Dtype => GenericValue::Dtype(DType::F32),
            GenericKind::Int { .. } => GenericValue::Int(64),
        })
        .collect();
    match crate::generic::subst::function(item, &generics, &placeholders) {
        Ok(model) => {
            let mut f = read_plain(ctx, &model.func, before);
            f.generics = generics;
            f.declaration = Some(item.clone());
            f
        }
        Err(e) => {
            let help = "each call replaces a generic parameter by its value: use `T` where a dtype may appear and \
                        a const parameter where an integer may";
            ctx.type_error(e.span(), Code::GenericParam, e.to_string(), help);
            let f = read_plain(ctx, &without_generics(item), before);
            f.broken.set(true);
            f
        }
    }
}

/// The function `item` with `values` for its generic parameters, read as a plain one (its errors,
/// which depend on the values, go to `ctx`).
pub(crate) fn instantiate(ctx: &Ctxt, f: &Function, values: &[GenericValue]) -> Option<Function> {
    let declaration = f.declaration.as_ref()?;
    let before = ctx.error_count();
    let item = match crate::generic::subst::function(declaration, &f.generics, values) {
        Ok(item) => item,
        Err(e) => {
            // The declaration read with placeholders parsed, and values of the same kinds do too.
            ctx.internal(f.name.span(), format!("an instance of `{}` no longer parses: {e}", f.name));
            return None;
        }
    };
    let mut instance = read_plain(ctx, &item.func, before);
    // Its calls resolve where the declaration's do.
    instance.scope = f.scope;
    (!instance.broken.get()).then_some(instance)
}

fn without_generics(item: &syn::ItemFn) -> syn::ItemFn {
    let mut plain = item.clone();
    plain.sig.generics = syn::Generics::default();
    plain
}

/// Reads a function without generics (or an instance of a generic one).
fn read_plain(ctx: &Ctxt, item: &syn::ItemFn, before: usize) -> Function {
    for attr in item.attrs.iter().filter(|a| !a.path().is_ident("doc")) {
        ctx.unsupported(
            attr.span(),
            Code::UnsupportedSignature,
            "attributes on a kernel function (only documentation)",
        );
    }
    check_signature(ctx, &item.sig);
    let params = item.sig.inputs.iter().filter_map(|arg| param(ctx, arg)).collect::<Vec<_>>();
    let mut seen = HashSet::new();
    for p in params.iter().filter(|p| p.name != "_") {
        if !seen.insert(p.name.to_string()) {
            let help = "rename one of the parameters";
            ctx.type_error(
                p.name.span(),
                Code::NameClash,
                format!("`{}` is bound twice in this signature", p.name),
                help,
            );
        }
    }
    let (ret, ret_at) = match &item.sig.output {
        syn::ReturnType::Default => (Declared::Unit, None),
        syn::ReturnType::Type(_, ty) => (returned(ctx, ty).unwrap_or(Declared::Unit), Some(type_loc(ty))),
    };
    let broken = Cell::new(ctx.error_count() > before);
    let body = (*item.block).clone();
    Function {
        name: item.sig.ident.clone(),
        params,
        ret,
        ret_at,
        body,
        broken,
        generics: Vec::new(),
        declaration: None,
        public: matches!(item.vis, syn::Visibility::Public(_)),
        scope: MODULE_SCOPE,
    }
}

/// From the first token of `t` to its last, if it has any.
pub(crate) fn tokens_loc(t: &impl quote::ToTokens) -> Option<Loc> {
    let tokens: Vec<proc_macro2::TokenTree> = t.to_token_stream().into_iter().collect();
    Some(Loc::new(tokens.first()?.span(), tokens.last()?.span()))
}

/// From a type's first token to its last.
fn type_loc(ty: &Type) -> Loc {
    tokens_loc(ty).unwrap_or_else(|| ty.span().into())
}

/// Kernel functions are plain functions: no generics, `async`, `const` and so on.
fn check_signature(ctx: &Ctxt, sig: &syn::Signature) {
    let reject = |present: bool, span: proc_macro2::Span, what: &str| {
        if present {
            ctx.unsupported(span, Code::UnsupportedSignature, format!("{what} (a kernel function is a plain `fn`)"));
        }
    };
    reject(sig.constness.is_some(), sig.fn_token.span, "`const fn` kernel functions");
    reject(sig.asyncness.is_some(), sig.fn_token.span, "`async fn` kernel functions");
    reject(sig.unsafety.is_some(), sig.fn_token.span, "`unsafe fn` kernel functions");
    reject(sig.abi.is_some(), sig.fn_token.span, "`extern` kernel functions");
    reject(sig.variadic.is_some(), sig.fn_token.span, "variadic kernel functions");
    if sig.ident.to_string().contains("__") {
        let help = "names with `__` are tessel's own (the pipeline rewrite's): rename the function";
        ctx.type_error(
            sig.ident.span(),
            Code::NameClash,
            format!("`{}` is not a kernel function's name", sig.ident),
            help,
        );
    }
}

fn param(ctx: &Ctxt, arg: &syn::FnArg) -> Option<Param> {
    let syn::FnArg::Typed(pt) = arg else {
        ctx.unsupported(arg.span(), Code::UnsupportedSignature, "`self` parameters");
        return None;
    };
    let (name, mutable) = match &*pt.pat {
        syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
            (pi.ident.clone(), pi.mutability.is_some())
        }
        syn::Pat::Wild(w) => (syn::Ident::new("_", w.underscore_token.span), false),
        other => {
            let at = tokens_loc(other).unwrap_or_else(|| other.span().into());
            ctx.unsupported(at, Code::UnsupportedSignature, "this parameter pattern (name the parameter)");
            // Still a parameter, for the calls' arity (the function is broken: it is never checked).
            return Some(Param { name: syn::Ident::new("_", other.span()), mutable: false, ty: Declared::Unit });
        }
    };
    for attr in &pt.attrs {
        // A kernel function takes every argument its calls pass: an instance leaves a parameter
        // out at the kernel (`#[when(..)]` there), and a call passes what its kernel has.
        let at = tokens_loc(attr).unwrap_or_else(|| attr.span().into());
        let help = "a kernel function takes every argument; put `#[when(condition)]` on the kernel's parameter, \
                    and call the function under an `if` on the same condition";
        ctx.type_error(at, Code::FunctionParamAttr, "an attribute on a kernel function's parameter", help);
    }
    // Likewise a parameter whose type was rejected.
    let ty = parameter(ctx, &pt.ty).unwrap_or(Declared::Unit);
    Some(Param { name, mutable, ty })
}

/// A parameter's type: a scalar, `Gmem`, `GmemMut`, `Smem`, `Barrier`, `Acc` or `Regs`.
fn parameter(ctx: &Ctxt, ty: &Type) -> Option<Declared> {
    match ty {
        Type::Paren(p) => parameter(ctx, &p.elem),
        Type::Group(g) => parameter(ctx, &g.elem),
        Type::Tuple(_) => {
            let what = "tuple parameters (a kernel function takes one value per parameter)";
            ctx.unsupported(type_loc(ty), Code::FunctionParam, what);
            None
        }
        _ => declared(ctx, ty),
    }
}

/// A return type: `()`, a scalar, a register array, or a tuple of them.
fn returned(ctx: &Ctxt, ty: &Type) -> Option<Declared> {
    match ty {
        Type::Paren(p) => returned(ctx, &p.elem),
        Type::Group(g) => returned(ctx, &g.elem),
        Type::Tuple(t) => {
            let parts: Vec<Option<Declared>> = t.elems.iter().map(|e| returned(ctx, e)).collect();
            let parts: Option<Vec<Declared>> = parts.into_iter().collect();
            parts.map(|parts| if parts.is_empty() { Declared::Unit } else { Declared::Tuple(parts) })
        }
        _ => match declared(ctx, ty)? {
            d @ (Declared::Scalar(_) | Declared::Regs { .. }) => Some(d),
            other => {
                let help = "return what the caller needs as values (`acc.load()` for an accumulator), and pass \
                            memory, barriers and accumulators in as parameters";
                let message =
                    format!("a kernel function returns scalars, register arrays or tuples of them, not {other}");
                ctx.type_error(type_loc(ty), Code::FunctionReturn, message, help);
                None
            }
        },
    }
}

const KINDS: &str = "a kernel function's parameters are scalars, `Gmem`, `GmemMut`, `Smem`, `Barrier`, `Acc` or `Regs`";

/// A type of the language: `i32`, `Acc<f32, 64, _>`, `Smem<bf16, 64, 64, Swizzle128>`, ..
fn declared(ctx: &Ctxt, ty: &Type) -> Option<Declared> {
    let Some((name, args)) = path_parts(ty) else {
        ctx.unsupported(type_loc(ty), Code::TypeSyntax, format!("this type; {KINDS}"));
        return None;
    };
    let kind = name.to_string();
    let dims = args.get(1..).unwrap_or(&[]);
    match kind.as_str() {
        "Gmem" | "GmemMut" => {
            let dtype = first_dtype(ctx, name, &args);
            let shape = shape(ctx, dims, true, name.span());
            Some(Declared::Gmem { dtype: dtype?, shape: shape?, mutable: kind == "GmemMut" })
        }
        "Acc" => {
            let dtype = first_dtype(ctx, name, &args);
            Some(Declared::Acc { dtype: dtype?, shape: shape(ctx, dims, false, name.span())? })
        }
        "Regs" => {
            let dtype = first_dtype(ctx, name, &args);
            let Some((layout, dims)) = dims.split_last() else {
                ctx.unsupported(
                    type_loc(ty),
                    Code::TypeSyntax,
                    "`Regs` takes a dtype, dimensions and a layout: `Regs<f32, 64, 64, Layout::Wgmma>`",
                );
                return None;
            };
            let layout = match layout {
                GenericArgument::Type(Type::Path(p)) => layout_path(ctx, &p.path).map(|l| l.value),
                other => {
                    ctx.unsupported(other.span(), Code::TypeSyntax, "expected a layout such as `Layout::Wgmma`");
                    None
                }
            };
            let shape = shape(ctx, dims, false, name.span());
            Some(Declared::Regs { dtype: dtype?, shape: shape?, layout: layout? })
        }
        "Smem" => smem(ctx, name, &args),
        "Barrier" => {
            if args.len() > 2 {
                ctx.unsupported(
                    type_loc(ty),
                    Code::TypeSyntax,
                    "`Barrier<arrivals, count>` takes at most two arguments",
                );
                return None;
            }
            let mut read = args.iter().map(|a| extent(ctx, a, false));
            let arrivals = read.next().unwrap_or(Some(Extent::Exactly(1)));
            let count = read.next();
            Some(Declared::Barrier { arrivals: arrivals?, count: count.map_or(Some(None), |c| c.map(Some))? })
        }
        "Pipeline" => {
            let help = "a ring's step counters belong to the `run_scoped` that allocates it: call `pipeline_produce` \
                        or `pipeline_consume` there, and the function inside the closure, with the stage's buffers \
                        and barrier";
            ctx.type_error(
                type_loc(ty),
                Code::FunctionParam,
                "a kernel function cannot take a `Pipeline` (not yet)",
                help,
            );
            None
        }
        _ if args.is_empty() && DType::from_name(&kind).is_some() => {
            dtype_of(ctx, ty).map(|d| Declared::Scalar(d.value))
        }
        _ => {
            ctx.unsupported(type_loc(ty), Code::TypeSyntax, format!("the type `{kind}`; {KINDS}"));
            None
        }
    }
}

/// The dtype that leads a type's arguments.
fn first_dtype(ctx: &Ctxt, name: &syn::Ident, args: &[&GenericArgument]) -> Option<DType> {
    match args.first() {
        Some(GenericArgument::Type(t)) => dtype_of(ctx, t).map(|d| d.value),
        Some(other) => {
            ctx.unsupported(other.span(), Code::TypeSyntax, "expected a dtype here");
            None
        }
        None => {
            ctx.unsupported(name.span(), Code::TypeSyntax, format!("missing dtype argument: `{name}<f32, ..>`"));
            None
        }
    }
}

/// The dimensions of a declared shape: at least one.
fn shape(ctx: &Ctxt, dims: &[&GenericArgument], global: bool, at: proc_macro2::Span) -> Option<Vec<Extent>> {
    if dims.is_empty() {
        ctx.unsupported(
            at,
            Code::TypeSyntax,
            "missing dimensions after the dtype (e.g. `Acc<f32, 64, 64>`, or `_` for any)",
        );
        return None;
    }
    let read: Vec<Option<Extent>> = dims.iter().map(|d| extent(ctx, d, global)).collect();
    read.into_iter().collect()
}

/// One extent: an integer literal or `_`; in a global array's shape also a name, which matches any
/// extent (a kernel function cannot see the kernel's consts or runtime dimensions).
fn extent(ctx: &Ctxt, arg: &GenericArgument, global: bool) -> Option<Extent> {
    match arg {
        GenericArgument::Type(Type::Infer(_)) => Some(Extent::Any(None)),
        GenericArgument::Const(e) if super::int_literal(e).is_some() => {
            super::int_literal(e).map(|v| Extent::Exactly(i64::from(v.value)))
        }
        GenericArgument::Type(Type::Path(p)) if global && p.qself.is_none() && p.path.get_ident().is_some() => {
            Some(Extent::Any(p.path.get_ident().map(|i| i.to_string())))
        }
        other => {
            let help = "a kernel function cannot see the kernel's consts: write the extent, or `_` for any";
            ctx.type_error(other.span(), Code::TypeSyntax, "expected an integer literal or `_`", help);
            None
        }
    }
}

/// `Smem<T, d0, .., transforms>` with `Swizzle32/64/128`, `Swizzle<bytes>`, `NoSwizzle`, `Transposed`.
fn smem(ctx: &Ctxt, name: &syn::Ident, args: &[&GenericArgument]) -> Option<Declared> {
    let dtype = first_dtype(ctx, name, args);
    let rest = args.get(1..).unwrap_or(&[]);
    // The dimensions run up to the first transform (`Tiled` too, which is reported below).
    let is_transform = |a: &&&GenericArgument| {
        let names = ["Swizzle32", "Swizzle64", "Swizzle128", "Swizzle", "NoSwizzle", "Transposed", "Tiled"];
        matches!(a, GenericArgument::Type(t) if path_parts(t).is_some_and(|(n, _)| names.iter().any(|x| n == x)))
    };
    let n = rest.iter().take_while(|a| !is_transform(a)).count();
    let (dims, transforms) = rest.split_at(n);
    let shape = shape(ctx, dims, false, name.span());
    let (mut swizzle, mut transposed, mut ok) = (0, false, true);
    for t in transforms {
        match super::types::transform(ctx, t) {
            Some(ast::Transform::Swizzle(bytes)) => swizzle = bytes.value,
            Some(ast::Transform::Transposed(_)) => transposed = true,
            Some(ast::Transform::Tiled(_)) => {
                let what = "this shared-memory transform in a kernel function's parameter (Swizzle32/64/128, \
                            Swizzle<bytes>, NoSwizzle, Transposed)";
                ctx.unsupported(t.span(), Code::FunctionParam, what);
                ok = false;
            }
            // Reported where the transform was read.
            None => ok = false,
        }
    }
    let smem = Declared::Smem { dtype: dtype?, shape: shape?, swizzle, transposed };
    ok.then_some(smem)
}

/// Reads a function's body as a kernel body is read, with the functions it calls inlined (those
/// come first: `module` checks callees before callers), and checks that it names only its
/// parameters and its own locals and consts. The body read here is thrown away: each call reads
/// it again, with fresh expression ids.
pub fn check_body(ctx: &Ctxt, f: &Function) {
    let before = ctx.error_count();
    let (body, calls_broken) =
        ctx.calls.reading_body(f.scope, || ctx.isolated(|| super::expr::lower_function_body(ctx, f)));
    super::hygiene::check(ctx, f, body);
    // A function that calls a function with errors cannot be inlined either.
    if ctx.error_count() > before || calls_broken {
        f.broken.set(true);
    }
}
