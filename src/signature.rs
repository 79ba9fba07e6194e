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
    /// The devices it runs on at once: `W` of `devices = W`, 1 for a kernel of one device.
    pub devices: u32,
}

/// One kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    /// The parameter's name, as written.
    pub name: &'static str,
    /// A global array or a scalar.
    pub kind: ParamKind,
}

/// What a parameter is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// A global array: `Gmem<T, ..>`, or `GmemMut<T, ..>` when `mutable`.
    Gmem {
        /// The element dtype, spelled as in the kernel (`"bf16"`).
        dtype: &'static str,
        /// The declared dimensions, outermost first.
        shape: &'static [Dim],
        /// Whether the kernel writes the array (`GmemMut`).
        mutable: bool,
        /// Whether it is `#[peers]`: a `SymmetricTensor`, one copy per device of the group.
        peers: bool,
    },
    /// A scalar passed by value.
    Scalar {
        /// The dtype, spelled as in the kernel (`"f32"`).
        dtype: &'static str,
    },
}

/// One dimension of a global array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    /// A literal or a const: the tensor's extent must equal it.
    Static(i64),
    /// A runtime dimension, by name: read from the tensors at launch, equal wherever it appears.
    Runtime(&'static str),
}
