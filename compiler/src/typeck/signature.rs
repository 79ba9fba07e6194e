//! The kernel's signature: its parameters (global arrays and their runtime dimensions, scalars)
//! and its `#[kernel(..)]` attribute (grid, warpgroups, cluster, register cap).

use super::{scalar, Checker, DimVal, GmemTy, Ty, SM_REGISTERS};
use crate::codes::Code;
use crate::syntax::ast::{Dim, ParamTy, Spanned};
use crate::types::DType;

impl Checker<'_> {
    pub(super) fn check_params(&mut self) {
        for (index, p) in self.kernel.params.iter().enumerate() {
            let ty = match &p.ty {
                ParamTy::Gmem { dtype, shape, mutable, .. } => {
                    let shape = shape.iter().map(|d| self.gmem_dim(d)).collect();
                    Ty::Gmem(GmemTy {
                        param: index,
                        name: p.name.to_string(),
                        dtype: dtype.value,
                        shape,
                        mutable: *mutable,
                        peers: p.peers.is_some(),
                        remote: false,
                    })
                }
                ParamTy::Scalar(d) => {
                    self.check_scalar_param(&p.name, d);
                    Ty::Scalar(d.value)
                }
            };
            super::devices::check_peers_param(self, p);
            if self.lookup(&p.name.to_string()).is_some() {
                self.ctx.type_error(
                    p.name.span(),
                    Code::NameClash,
                    format!("the name `{}` is used twice", p.name),
                    "rename one of the parameters",
                );
            }
            self.bind(&p.name, ty, false);
        }
        self.check_dim_names();
    }

    /// A scalar parameter has a type the kernel ABI passes by value (`legality::SCALAR_PARAMS`);
    /// another is taken in the nearest of those and converted in the kernel. The parameter keeps
    /// its declared type, so that its uses report nothing more.
    fn check_scalar_param(&mut self, name: &syn::Ident, d: &Spanned<DType>) {
        let allowed = crate::legality::SCALAR_PARAMS;
        if allowed.contains(&d.value) {
            return;
        }
        let names: Vec<&str> = allowed.iter().map(|d| d.name()).collect();
        let list = match names.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => names.join(""),
        };
        let help = match d.value {
            DType::Bool => format!("take an `i32` and test it in the kernel (`{name} != 0`)"),
            t if t.is_float() => format!("take an `f32` and convert it in the kernel (`{name} as {t}`)"),
            t => format!("take an `i32` and convert it in the kernel (`{name} as {t}`)"),
        };
        self.ctx.type_error(d.span, Code::ParamType, format!("a scalar parameter is {list}, got {}", d.value), help);
    }

    /// `ragged(..)` names runtime dimensions of the signature, each once: a static dimension's
    /// tiles are checked when the kernel is compiled, and a name that is no dimension is a typo.
    fn check_ragged(&mut self) {
        let ragged = &self.kernel.attr.ragged;
        for (i, d) in ragged.iter().enumerate() {
            let name = d.to_string();
            if ragged[..i].contains(d) {
                self.ctx.type_error(
                    d.span(),
                    Code::Ragged,
                    format!("`{name}` is named twice in `ragged(..)`"),
                    "name it once",
                );
            } else if self.facts.consts.contains_key(&name) {
                self.ctx.type_error(
                    d.span(),
                    Code::Ragged,
                    format!("`{name}` is a const, and `ragged(..)` names runtime dimensions"),
                    "a static dimension's tiles are checked when the kernel is compiled: make it a multiple \
                     of the tile",
                );
            } else if !self.facts.runtime_dims.contains(&name) {
                self.ctx.type_error(
                    d.span(),
                    Code::Ragged,
                    format!("`{name}` is not a dimension of this kernel's arrays"),
                    "name runtime dimensions of the signature, e.g. `ragged(M)` for `a: Gmem<bf16, M, K>`",
                );
            } else {
                self.facts.ragged.push(name);
            }
        }
    }

    /// A runtime dimension is read from an array's shape at launch: naming it like a parameter
    /// would read as if the parameter gave it.
    fn check_dim_names(&mut self) {
        for p in &self.kernel.params {
            let ParamTy::Gmem { shape, .. } = &p.ty else { continue };
            for d in shape {
                let Dim::Name(n) = d else { continue };
                if !self.facts.consts.contains_key(&n.to_string()) && self.kernel.params.iter().any(|q| q.name == *n) {
                    self.ctx.type_error(
                        n.span(),
                        Code::NameClash,
                        format!("`{n}` is both a parameter and a dimension of `{}`", p.name),
                        "a runtime dimension is read from the array's shape at launch: give it its own name \
                         (upper case by convention, e.g. `N`)",
                    );
                }
            }
        }
    }

    fn gmem_dim(&mut self, d: &Dim) -> DimVal {
        match d {
            Dim::Lit(v) => self.static_gmem_dim(v.value, v.span),
            Dim::Name(n) => {
                let name = n.to_string();
                if let Some(&v) = self.facts.consts.get(&name) {
                    return self.static_gmem_dim(v, n.span());
                }
                if !self.facts.runtime_dims.contains(&name) {
                    self.facts.runtime_dims.push(name.clone());
                }
                DimVal::Runtime(name)
            }
        }
    }

    /// A static dimension of a global array: positive, like every static shape, and indexable in
    /// 32 bits, like a runtime one (which the launch checks).
    fn static_gmem_dim(&mut self, v: i64, span: proc_macro2::Span) -> DimVal {
        if v <= 0 {
            self.ctx.type_error(
                span,
                Code::Dimension,
                format!("a dimension must be positive, got {v}"),
                "shapes are positive compile-time integers",
            );
        } else if i32::try_from(v).is_err() {
            self.ctx.type_error(
                span,
                Code::Dimension,
                format!("a global dimension is at most {}, got {v}", i32::MAX),
                "kernels index global arrays with 32-bit integers",
            );
        }
        DimVal::Static(v)
    }

    pub(super) fn check_attr(&mut self) {
        self.check_ragged();
        super::devices::check_devices_attr(self);
        let attr = &self.kernel.attr;
        for g in &attr.grid {
            let ty = self.check_expr(g);
            if scalar::expect_int(self, g, &ty, "a grid dimension") {
                scalar::check_grid_extent(self, g);
            }
        }
        let wg = &attr.warpgroups;
        if wg.value == 0 || wg.value > 8 {
            self.ctx.type_error(
                wg.span,
                Code::KernelAttribute,
                format!("a program has 1 to 8 warpgroups, got {}", wg.value),
                "at most 1024 threads (8 warpgroups of 128) form a block",
            );
        }
        let c = &attr.cluster;
        let size = attr.cluster_size();
        if size == 0 || size > 8 {
            self.ctx.type_error(
                c.span,
                Code::KernelAttribute,
                format!("a cluster has 1 to 8 programs, got {size}"),
                "portable cluster sizes on sm_90 are at most 8",
            );
        }
        if let Some(n) = &attr.max_registers {
            let threads = 128 * u64::from(wg.value);
            if !crate::legality::max_registers_legal(n.value) {
                self.ctx.type_error(
                    n.span,
                    Code::RegisterCap,
                    format!("max_registers must be a multiple of 8 from 24 to 256, got {}", n.value),
                    "PTX `.maxnreg` and `setmaxnreg` take 24..=256 in steps of 8",
                );
            } else if u64::from(n.value) * threads > SM_REGISTERS {
                self.ctx.type_error(
                    n.span,
                    Code::RegisterCap,
                    format!(
                        "max_registers = {} for {threads} threads needs {} registers, more than an SM's {}",
                        n.value,
                        u64::from(n.value) * threads,
                        SM_REGISTERS
                    ),
                    format!(
                        "with {} warpgroups, max_registers is at most {}",
                        wg.value,
                        SM_REGISTERS / threads / 8 * 8
                    ),
                );
            }
        }
    }
}
