//! The checked signature of a kernel, as the macro records it in `<kernel>::SIGNATURE`.

/// A kernel's parameters, runtime dimensions and resources, as checked at compile time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signature {
    /// The kernel function's name.
    pub name: &'static str,
    /// Parameters in declaration order.
    pub params: &'static [Param],
    /// Upper-case dimensions bound from the tensors at launch, in order of first appearance.
    pub runtime_dims: &'static [&'static str],
    /// Warpgroups (of 128 threads) per program.
    pub warpgroups: u32,
    /// Programs per cluster along x, y, z.
    pub cluster: [u32; 3],
    /// Peak dynamic shared memory in bytes, alignment padding included.
    pub smem_bytes: u32,
}

/// One kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: &'static str,
    pub kind: ParamKind,
}

/// What a parameter is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A global array; `mutable` for `GmemMut`.
    Gmem { dtype: &'static str, shape: &'static [Dim], mutable: bool },
    /// A scalar passed by value.
    Scalar { dtype: &'static str },
}

/// One dimension of a global array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    Static(i64),
    Runtime(&'static str),
}
