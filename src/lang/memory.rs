//! Global arrays, their tiles, shared-memory buffers and their views, and the transforms that lay
//! buffers out.

use super::copy_type;
use super::layouts::RegisterLayout;
use super::registers::Regs;
use super::sealed::{Never, Sealed};
use std::marker::PhantomData;

/// A read-only global array: a kernel parameter `a: Gmem<T, d0, d1, ..>`.
///
/// # Forms
///
/// `Gmem<T, d0, d1, ..>` with one or more dimensions (a TMA copy's array has at most five). A
/// dimension is an integer literal or a const
/// (static: the launch checks the tensor's extent), or an upper-case name, a *runtime dimension*:
/// read from the tensors at launch, equal wherever it appears, passed to the kernel as a 32-bit
/// integer, and usable in expressions and in the grid (`grid = (M / 64, N / 64)`).
///
/// # Rules
///
/// - `T` is a dtype with a host type ([`DType`](super::DType)): not `i4` or `bool` (and `tf32` data
///   is passed as `f32`).
/// - A kernel reads a `Gmem` through its tiles ([`Gmem::tile`]); a store into one is a compile
///   error (declare the parameter [`GmemMut`]).
/// - Scalar parameters (`alpha: f32`) are `f32`, `i32`, `u32`, `i64` or `u64`.
///
/// # Host side
///
/// `launch` takes a `Gmem<T, ..>` parameter as `&DeviceTensor<T>`, `interpret` as
/// `&HostTensor<T>`; the launch checks each tensor's rank and static extents, binds the runtime
/// dimensions and checks that tiles divide them (see `ragged(..)` in the crate documentation).
///
/// # PTX
///
/// A `.param .u64` global address, a `.param .s32` per runtime dimension, and for the arrays that
/// TMA copies, one `.param .align 64 .b8 [128]` tensor map per box shape and swizzle, encoded
/// and cached by the launch.
///
/// # Interpreter
///
/// The host tensor itself, read in place.
///
/// # Example
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// y[h] = x[h] + 1 for each of the H matrices of a 3-D array.
/// #[kernel(grid = (H, R / 64))]
/// fn add_one(x: Gmem<f32, H, R, 64>, y: GmemMut<f32, H, R, 64>) {
///     let (h, i) = (program_id(0), program_id(1));
///     // A 1 x 64 x 64 tile loads as a 64 x 64 array (leading extents of 1 do not count).
///     let v = x.tile([h, i, 0], [1, 64, 64]).load(Layout::Wgmma);
///     y.tile([h, i, 0], [1, 64, 64]).store(v + 1.0);
/// }
///
/// fn main() -> tessel::Result<()> {
///     let x = HostTensor::from_fn([2, 128, 64], |ix| (ix[0] * 1000 + ix[1]) as f32)?;
///     let mut y = HostTensor::zeros([2, 128, 64])?;
///     add_one::interpret(&x, &mut y)?;
///     assert_eq!(y.get(&[1, 70, 5]), Some(1071.0));
///     Ok(())
/// }
/// ```
pub struct Gmem<T, S> {
    pub(super) never: Never,
    types: PhantomData<(T, S)>,
}

/// A global array the kernel writes (and may read): a kernel parameter `c: GmemMut<T, d0, d1, ..>`.
///
/// Everything of [`Gmem`] holds, and tiles of a `GmemMut` also take stores
/// ([`Tile::store`], [`copy_smem_to_gmem`](super::copy_smem_to_gmem)) and atomic adds
/// ([`Tile::atomic_add`], `copy_smem_to_gmem(.., reduce = Reduce::Add)`). A 1-D `GmemMut<u32, N>` is
/// also the array of counters of [`semaphore_signal`](super::semaphore_signal) and
/// [`semaphore_wait`](super::semaphore_wait).
///
/// `launch` takes it as `&mut DeviceTensor<T>` and `interpret` as `&mut HostTensor<T>`, so
/// Rust's borrows rule out an output aliasing another argument.
///
/// A kernel function's parameter `Gmem<T, ..>` accepts a `GmemMut` array (and may only read it).
pub struct GmemMut<T, S> {
    pub(super) never: Never,
    types: PhantomData<(T, S)>,
}

/// A block of a global array: what [`Gmem::tile`] gives, to load, store or copy.
///
/// Its shape `S` is the one written as `.tile([i, k], [64, 16])`'s second argument, or, for
/// `.tile([i, k])`, the shape of the other side of the copy or store it is used in.
pub struct Tile<T, S> {
    pub(super) never: Never,
    types: PhantomData<(T, S)>,
}

macro_rules! tile_method {
    ($ty:ident) => {
        impl<T, S> $ty<T, S> {
            /// The block at block index `index` (one 32-bit integer per dimension): the elements
            /// `[i * d0 .. (i + 1) * d0, k * d1 .. (k + 1) * d1, ..]` for a tile of shape `[d0, d1, ..]`.
            ///
            /// # Forms
            ///
            /// - `a.tile([i, k])`: the tile's shape is that of the other side of the copy or store
            ///   it is used in (a TMA copy's buffer, a stored value).
            /// - `a.tile([i, k], [64, 16])`: the shape given; register loads need it.
            ///
            /// # Rules
            ///
            /// - One index per dimension of the array, each an `i32` or `u32`; the shape, when
            ///   given, has the array's rank and compile-time extents.
            /// - A static dimension of the array is a multiple of the tile's extent; a runtime one
            ///   is checked at launch ([`Error::Divisibility`](crate::Error::Divisibility)) unless
            ///   the kernel lists it in `ragged(..)`, where the last tile may overhang the array:
            ///   loads read 0 past the end and stores drop what falls outside.
            ///
            /// # PTX
            ///
            /// Address arithmetic (`mad.lo`) for register loads and stores, or the box coordinates
            /// of a TMA copy.
            ///
            /// # Interpreter
            ///
            /// The block `[i * d0 .., k * d1 .., ..]` of the host tensor.
            pub fn tile<const R: usize, V>(self, index: [i32; R]) -> Tile<T, V> {
                match self.never {}
            }
        }
    };
}
tile_method!(Gmem);
tile_method!(GmemMut);

impl<T, S> Tile<T, S> {
    /// Loads the tile into a register array of layout `layout`, from global memory.
    ///
    /// # Forms
    ///
    /// `a.tile([i, k], [64, 16]).load(Layout::Wgmma)`, or `.load()` for
    /// [`Layout::Strided`](super::Layout::Strided). The
    /// tile needs its shape (the second argument of `tile`).
    ///
    /// # Rules
    ///
    /// - The array is `[rows, cols]` of the tile without its leading extents of 1:
    ///   `o.tile([h, i, 0], [1, 64, D])` of an `H x S x D` array loads as a `64 x D` array.
    /// - The layout holds the shape (see [`Layout`](super::Layout)); `Layout::Splat` is not a
    ///   layout to load in.
    ///
    /// # PTX
    ///
    /// `ld.global` per fragment element: the thread's first address computed once, each element a
    /// row `mad` plus an immediate offset (for every layout but `Strided`); the side-by-side pairs
    /// of `Wgmma`, `WgmmaCol`, `MmaAcc` and `MmaLhs` arrays of 2-byte or wider elements as one
    /// `ld.global.v2` when rows have an even length (known from a static dimension or a tile the
    /// launch checks; otherwise a branch on the parity at run time). Elements outside the array
    /// (a ragged dimension's last tile) read as 0.
    ///
    /// # Interpreter
    ///
    /// Copies the elements; those outside the array are 0.
    ///
    /// # Example
    ///
    /// [`Gmem`]'s loads and stores `1 x 64 x 64` tiles of a 3-D array; [`cdiv`](super::cdiv)'s
    /// tiles overhang a ragged dimension.
    pub fn load<L: RegisterLayout>(self, layout: L) -> Regs<T, S, L> {
        match self.never {}
    }

    /// Stores a register array into the tile of a [`GmemMut`] array.
    ///
    /// # Rules
    ///
    /// - The array is a `GmemMut` parameter (a `Gmem` is read-only).
    /// - The value has the array's dtype (convert with `.cast::<T>()`), and the tile's shape, or
    ///   that shape without its leading extents of 1 (a `64 x D` value into `[1, 64, D]`); a tile
    ///   written without a shape, `c.tile([i, j])`, takes the value's shape, of the array's rank.
    /// - Any layout: the value's elements go where its layout puts them.
    ///
    /// # PTX
    ///
    /// `st.global` per fragment element (pairs as `st.global.v2`, as [`Tile::load`]); elements
    /// outside the array are skipped. Register stores are ordered before a later
    /// [`semaphore_signal`](super::semaphore_signal) of the same warpgroup.
    ///
    /// # Interpreter
    ///
    /// Copies the elements; those outside the array are dropped.
    pub fn store<L: RegisterLayout>(self, value: Regs<T, S, L>) {
        match self.never {}
    }

    /// Adds a register array into the tile of a [`GmemMut`] array, element by element, atomically:
    /// programs may add into one tile concurrently (attention's `dQ` accumulated over programs,
    /// split-K partial sums). [`copy_smem_to_gmem`](super::copy_smem_to_gmem) with
    /// `reduce = Reduce::Add` does the same from a shared buffer, with TMA.
    ///
    /// # Rules
    ///
    /// - As [`Tile::store`]: a `GmemMut` array, a value of its dtype and of the tile's shape (or that
    ///   shape without its leading extents of 1), in any layout; elements outside the array (a
    ///   ragged dimension's last tile) are dropped.
    /// - The dtype is one `red.global.add` adds: `f32`, `f16`, `bf16`, `i32`, `u32` or `u64`.
    ///
    /// # PTX
    ///
    /// `red.global.add` per fragment element (`.f32`, `.noftz.f16`, `.noftz.bf16`, `.s32`, `.u32`,
    /// `.u64`); the side-by-side pairs of a `Wgmma`-like layout (as [`Tile::load`] moves them) as
    /// one `red.global.add.v2.f32` (which makes the module PTX ISA 8.1) or one packed
    /// `red.global.add.noftz.f16x2`/`.bf16x2`. Each element's add is atomic; the order of
    /// different threads' and programs' adds to one element is unspecified. `red.global.add.f32`
    /// flushes subnormal inputs and results to zero (PTX ISA, `red`).
    ///
    /// # Interpreter
    ///
    /// Adds each element with an atomic read-modify-write, rounding the sum to the dtype (and
    /// flushing `f32` subnormals, as the GPU does); a warpgroup adds its elements in row-major
    /// order, and different programs in the order the host threads run them. Floating-point sums
    /// depend on that order, which the GPU does not fix either: compare such results with a
    /// tolerance, or use values whose sums are exact. For the race detector, atomic adds race
    /// with loads and stores of the same elements that nothing orders, never with other atomic
    /// adds or reducing TMA stores.
    ///
    /// # Example
    ///
    /// ```rust
    /// use tessel::prelude::*;
    ///
    /// /// y += x * (r + 1) for r in 0..R: R programs add into each tile.
    /// #[kernel(grid = (M / 64, R))]
    /// fn accumulate(x: Gmem<f32, M, 64>, y: GmemMut<f32, M, 64>, R: i32) {
    ///     let (i, r) = (program_id(0), program_id(1));
    ///     let v = x.tile([i, 0], [64, 64]).load(Layout::Wgmma) * ((r + 1) as f32);
    ///     y.tile([i, 0], [64, 64]).atomic_add(v);
    /// }
    ///
    /// fn main() -> tessel::Result<()> {
    ///     let x = HostTensor::from_fn([128, 64], |ix| ix[1] as f32)?;
    ///     let mut y = HostTensor::zeros([128, 64])?;
    ///     accumulate::interpret(&x, &mut y, 3)?;
    ///     assert_eq!(y.get(&[70, 5]), Some(30.0)); // 5 * (1 + 2 + 3)
    ///     Ok(())
    /// }
    /// ```
    pub fn atomic_add<L: RegisterLayout>(self, value: Regs<T, S, L>) {
        match self.never {}
    }
}

/// A shared-memory buffer (or a view of one), allocated by [`run_scoped`](super::run_scoped):
/// `a_s: Smem<T, d0, d1, .., transforms>`.
///
/// # Forms
///
/// - `Smem<bf16, 64, 64, Swizzle128>`: dimensions (integer literals, consts, or `{ expression }`
///   over consts), then the transforms: a swizzle ([`Swizzle128`], [`Swizzle64`], [`Swizzle32`],
///   [`Swizzle<bytes>`](Swizzle), [`NoSwizzle`]), [`Tiled<rows, cols>`](Tiled), [`Transposed`],
///   each at most once.
/// - A leading dimension is often the pipeline stage: `Smem<bf16, STAGES, 64, 64, Swizzle128>`
///   and [`.at(s)`](Smem::at).
/// - Views of a buffer are `Smem` too: [`at`](Smem::at), [`slice`](Smem::slice), [`t`](Smem::t),
///   [`transpose`](Smem::transpose).
///
/// # Rules
///
/// - In a kernel of several warpgroups, buffers are allocated collectively, for the whole program:
///   `run_scoped(collective_axes = [wg], |a_s: Smem<..>| ..)`.
/// - A swizzled row holds exactly `8 * swizzle / bits` elements (64 `bf16` for 128 bytes): the
///   last stored dimension is a multiple of it (the buffer is then stored as column tiles of that
///   width), or a `Tiled<rows, width>` transform names it.
/// - The shared memory of a kernel (its buffers and barriers at the deepest point, alignment
///   padding, and the scratch of register relayouts) is at most 232448 bytes (227 KiB, sm_90's
///   opt-in limit).
/// - A buffer lives as long as its `run_scoped`: the next scope at the same depth reuses its
///   memory, as in Mosaic GPU, and a scope's value cannot be a buffer.
/// - Ordinary stores ([`Smem::store`]) become visible to TMA and `wgmma` after
///   [`commit_smem`](super::commit_smem).
///
/// # PTX
///
/// An offset into `.extern .shared .align 1024 .b8 smem[]` (dynamic shared memory): swizzled
/// buffers aligned to 1024 bytes (so that WGMMA descriptors need no base offset), others to 128.
///
/// # Interpreter
///
/// The buffer at its offset in the program's shared memory, which reads as NaN until written (so
/// that a read of what no copy or store has filled shows; the GPU's holds whatever was there).
///
/// # Example
///
/// ```rust
/// use tessel::prelude::*;
///
/// /// y = alpha x, a tile at a time, through shared memory with TMA both ways.
/// #[kernel(grid = (M / 64, N / 64))]
/// fn scale(x: Gmem<bf16, M, N>, y: GmemMut<bf16, M, N>, alpha: f32) {
///     let (i, j) = (program_id(0), program_id(1));
///     run_scoped(|x_s: Smem<bf16, 64, 64, Swizzle128>, y_s: Smem<bf16, 64, 64, Swizzle128>, bar: Barrier| {
///         copy_gmem_to_smem(x.tile([i, j]), x_s, bar);
///         barrier_wait(bar);
///         let v = x_s.load(Layout::Wgmma).cast::<f32>() * alpha;
///         y_s.store(v.cast::<bf16>());
///         commit_smem(); // the TMA store reads what the threads stored
///         copy_smem_to_gmem(y_s, y.tile([i, j]));
///         wait_smem_to_gmem(0);
///     });
/// }
///
/// fn main() -> tessel::Result<()> {
///     let x = HostTensor::from_fn([64, 128], |ix| bf16::from_f32(ix[1] as f32))?;
///     let mut y = HostTensor::<bf16>::zeros([64, 128])?;
///     scale::interpret(&x, &mut y, 0.5)?;
///     assert_eq!(y.get(&[3, 101]), Some(bf16::from_f32(50.5)));
///     Ok(())
/// }
/// ```
pub struct Smem<T, S, X = NoSwizzle> {
    pub(super) never: Never,
    types: PhantomData<(T, S, X)>,
}

impl<T, S, X> Smem<T, S, X> {
    /// The `i`-th slab of the buffer along its first dimension: `a_s.at(s)` of
    /// `Smem<bf16, STAGES, 64, 64, Swizzle128>` is a `64 x 64` buffer (a pipeline stage).
    ///
    /// # Rules
    ///
    /// - The buffer has two or more stored dimensions (a 2-D `Transposed` buffer has no slabs).
    /// - `i` is an `i32` or `u32`; a compile-time `i` lies in `0..d0`, a runtime one is the
    ///   kernel's to keep in range.
    /// - A slab keeps the buffer's dtype and transforms, and is whole: TMA copies into it.
    ///
    /// # PTX
    ///
    /// Address and descriptor arithmetic: `i` times the slab's bytes.
    ///
    /// # Interpreter
    ///
    /// A view of the same elements.
    ///
    /// # Example
    ///
    /// ```rust
    /// use tessel::prelude::*;
    ///
    /// /// out = x + z: two slabs of one buffer, each filled by TMA on its own barrier.
    /// #[kernel(grid = (M / 32, N / 64))]
    /// fn add(x: Gmem<f32, M, N>, z: Gmem<f32, M, N>, out: GmemMut<f32, M, N>) {
    ///     let (i, j) = (program_id(0), program_id(1));
    ///     run_scoped(|in_s: Smem<f32, 2, 32, 64>, loaded: Barrier<1, 2>| {
    ///         copy_gmem_to_smem(x.tile([i, j]), in_s.at(0), loaded.at(0));
    ///         copy_gmem_to_smem(z.tile([i, j]), in_s.at(1), loaded.at(1));
    ///         barrier_wait(loaded.at(0));
    ///         barrier_wait(loaded.at(1));
    ///         let sum = in_s.at(0).load(Layout::Strided) + in_s.at(1).load(Layout::Strided);
    ///         out.tile([i, j], [32, 64]).store(sum);
    ///     });
    /// }
    ///
    /// fn main() -> tessel::Result<()> {
    ///     let x = HostTensor::from_fn([64, 64], |ix| ix[0] as f32)?;
    ///     let z = HostTensor::from_fn([64, 64], |ix| 100.0 * ix[1] as f32)?;
    ///     let mut out = HostTensor::zeros([64, 64])?;
    ///     add::interpret(&x, &z, &mut out)?;
    ///     assert_eq!(out.get(&[40, 2]), Some(240.0));
    ///     Ok(())
    /// }
    /// ```
    pub fn at<V>(self, i: i32) -> Smem<T, V, X> {
        match self.never {}
    }

    /// A static window of the buffer: `a_s.slice([.., 0..32])`.
    ///
    /// # Forms
    ///
    /// `[r0, r1, ..]`, one entry per dimension (of the view, as [`Smem::t`] shows it): `..` for
    /// the whole dimension or `start..end`.
    ///
    /// # Rules
    ///
    /// - Bounds are known when the kernel compiles: literals, consts, `#[unroll]` counters, and
    ///   immutable `let`s of them; `0 <= start < end <= extent`.
    /// - In a swizzled buffer a window of the swizzled (stored last) dimension takes whole column
    ///   blocks: its start and length are multiples of a swizzled row's elements (64 bf16 or 32
    ///   f32 under `Swizzle128`; a wider buffer is stored as blocks of that width); a window
    ///   across the rows starts at a multiple of 8 rows (where the swizzle pattern repeats).
    /// - TMA copies whole buffers or slabs, not windows: copy, then slice for compute (`wgmma`
    ///   takes windows).
    ///
    /// # PTX
    ///
    /// Address and descriptor arithmetic.
    ///
    /// # Interpreter
    ///
    /// A view of the same elements.
    ///
    /// # Example
    ///
    /// ```rust
    /// use tessel::prelude::*;
    ///
    /// /// Each 64 x 64 tile of y is the left half of x's 64 x 128 tile, twice.
    /// #[kernel(grid = (M / 64))]
    /// fn halves(x: Gmem<f32, M, 128>, y: GmemMut<f32, M, 64>) {
    ///     let i = program_id(0);
    ///     run_scoped(|x_s: Smem<f32, 64, 128>| {
    ///         x_s.store(x.tile([i, 0], [64, 128]).load(Layout::Strided));
    ///         commit_smem(); // each thread reads elements that others stored
    ///         let left = x_s.slice([.., 0..64]).load(Layout::Strided);
    ///         y.tile([i, 0], [64, 64]).store(left * 2.0);
    ///     });
    /// }
    ///
    /// fn main() -> tessel::Result<()> {
    ///     let x = HostTensor::from_fn([64, 128], |ix| ix[1] as f32)?;
    ///     let mut y = HostTensor::zeros([64, 64])?;
    ///     halves::interpret(&x, &mut y)?;
    ///     assert_eq!(y.get(&[9, 63]), Some(126.0));
    ///     Ok(())
    /// }
    /// ```
    pub fn slice<W, V>(self, window: W) -> Smem<T, V, X> {
        match self.never {}
    }

    /// The view with the last two dimensions swapped: `b_s.t()` of a `[N, K]` buffer is a
    /// `[K, N]` operand.
    ///
    /// How `wgmma` reads an operand stored the other way round: B stored `[N, K]` (K-major) is
    /// passed as `b_s.t()`. Needs two or more dimensions.
    ///
    /// # PTX
    ///
    /// Nothing of its own: the WGMMA descriptor's major-ness, or swapped address arithmetic.
    ///
    /// # Interpreter
    ///
    /// A view of the same elements.
    ///
    /// # Example
    ///
    /// ```rust
    /// use tessel::prelude::*;
    ///
    /// /// C = A @ Bᵀ with B given as N x K: B's tile is copied as stored and read through `.t()`.
    /// #[kernel(grid = (M / 64, N / 64))]
    /// fn matmul_nt(a: Gmem<bf16, M, K>, bt: Gmem<bf16, N, K>, c: GmemMut<f32, M, N>) {
    ///     let (i, j) = (program_id(0), program_id(1));
    ///     run_scoped(
    ///         |acc: Acc<f32, 64, 64>,
    ///          a_s: Smem<bf16, 64, 64, Swizzle128>,
    ///          b_s: Smem<bf16, 64, 64, Swizzle128>,
    ///          bar: Barrier<2>| {
    ///             for k in 0..K / 64 {
    ///                 copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
    ///                 copy_gmem_to_smem(bt.tile([j, k]), b_s, bar);
    ///                 barrier_wait(bar);
    ///                 wgmma(acc, a_s, b_s.t());
    ///                 wgmma_wait(0);
    ///             }
    ///             c.tile([i, j]).store(acc.load());
    ///         },
    ///     );
    /// }
    ///
    /// fn main() -> tessel::Result<()> {
    ///     let a = HostTensor::from_fn([64, 64], |ix| bf16::from_f32((ix[0] == ix[1]) as u8 as f32))?;
    ///     let bt = HostTensor::from_fn([64, 64], |ix| bf16::from_f32((ix[0] + 2 * ix[1]) as f32))?;
    ///     let mut c = HostTensor::zeros([64, 64])?;
    ///     matmul_nt::interpret(&a, &bt, &mut c)?; // A is the identity: C = Bᵀ
    ///     assert_eq!(c.get(&[5, 7]), Some(17.0));
    ///     Ok(())
    /// }
    /// ```
    pub fn t<V>(self) -> Smem<T, V, X> {
        match self.never {}
    }

    /// A transposed view by a permutation of the dimensions: `s.transpose([0, 2, 1])`.
    ///
    /// # Rules
    ///
    /// The permutation lists every dimension once, as literals, and moves at most the last two:
    /// the identity, or their swap (which is [`Smem::t`]). Moving a swizzled buffer's last
    /// (swizzled) dimension elsewhere is an error.
    ///
    /// # PTX and interpreter
    ///
    /// As [`Smem::t`].
    pub fn transpose<const R: usize, V>(self, perm: [usize; R]) -> Smem<T, V, X> {
        match self.never {}
    }

    /// Loads the buffer (or view) into a register array of layout `layout`.
    ///
    /// # Forms
    ///
    /// `a_s.load(Layout::Wgmma)`, or `a_s.load()` for [`Layout::Strided`](super::Layout::Strided).
    ///
    /// # Rules
    ///
    /// The layout holds the view's shape (see [`Layout`](super::Layout)); `Layout::Splat` is not a
    /// layout to load in.
    ///
    /// # PTX
    ///
    /// `ld.shared` per fragment element, at swizzled addresses for a swizzled buffer. A
    /// `Layout::Wgmma` array into a row-major view: the thread's address computed once, a
    /// constant per element (one swizzle per distinct offset within the swizzle's 8 rows), and
    /// the side-by-side pairs as one access (`ld.shared.v2` of 32-bit elements, `ld.shared.b32`
    /// of two 16-bit floats). A `Layout::WgmmaRow` or `Layout::WgmmaCol` vector from a plain 1-D
    /// view likewise (a `WgmmaCol` vector's elements in pairs).
    ///
    /// # Interpreter
    ///
    /// Copies the elements.
    pub fn load<L: RegisterLayout>(self, layout: L) -> Regs<T, S, L> {
        match self.never {}
    }

    /// Stores a register array into the buffer (or view).
    ///
    /// # Rules
    ///
    /// The value has the buffer's dtype and the view's shape, in any layout. The stored values are
    /// seen by TMA copies and `wgmma`, and by the warpgroup's other threads, after
    /// [`commit_smem`](super::commit_smem) (a proxy fence, then a warpgroup barrier); by other
    /// warpgroups after a barrier (see [`barrier_arrive`](super::barrier_arrive)).
    ///
    /// # PTX
    ///
    /// `st.shared` per fragment element, at swizzled addresses for a swizzled buffer; a 16-bit
    /// `Layout::Wgmma` array into a row-major view: `stmatrix.sync.aligned.m8n8.x4`; another
    /// `Layout::Wgmma` array into a row-major view, or a row or column vector into a plain 1-D
    /// view: addressed and paired as [`Smem::load`] (`st.shared.v2.f32` for an f32 accumulator
    /// tile).
    ///
    /// # Interpreter
    ///
    /// Copies the elements.
    pub fn store<L: RegisterLayout>(self, value: Regs<T, S, L>) {
        match self.never {}
    }
}

/// 128-byte swizzle (`Smem<bf16, 64, 64, Swizzle128>`): byte address bits 4-6 are XORed with bits
/// 7-9, so that the rows a warp reads together fall in different banks. A row holds 128 bytes (64
/// `bf16`, 32 `f32`, 128 `f8e4m3`).
///
/// The layout TMA writes and WGMMA reads: `wgmma`'s shared-memory operands are swizzled, A and B
/// alike. PTX: the tensor map's `CU_TENSOR_MAP_SWIZZLE_128B` and the WGMMA descriptor's layout
/// code 1. The interpreter stores elements in logical order (swizzles are invisible to it).
#[derive(Clone, Copy, Debug)]
pub enum Swizzle128 {}

/// 64-byte swizzle: bits 4-5 XORed with bits 7-8; a row holds 64 bytes. Descriptor layout code 2.
/// See [`Swizzle128`].
#[derive(Clone, Copy, Debug)]
pub enum Swizzle64 {}

/// 32-byte swizzle: bit 4 XORed with bit 7; a row holds 32 bytes. Descriptor layout code 3. See
/// [`Swizzle128`].
#[derive(Clone, Copy, Debug)]
pub enum Swizzle32 {}

/// No swizzle, written `NoSwizzle` (or nothing): rows are stored contiguously. `wgmma` does not
/// take unswizzled operands.
#[derive(Clone, Copy, Debug)]
pub enum NoSwizzle {}

/// A swizzle of `BYTES` bytes, for kernels that compute it: `Swizzle<128>` is [`Swizzle128`],
/// `Swizzle<0>` is [`NoSwizzle`]. PTX has 32, 64 and 128; any other width is a compile error.
#[derive(Clone, Copy, Debug)]
pub enum Swizzle<const BYTES: u32> {}

/// `Tiled<rows, cols>`: the buffer is stored as tiles of this shape over its trailing dimensions
/// (each a multiple of the tile's). With a swizzle, `cols` is the swizzle's row width (`8 *
/// swizzle / bits` elements).
#[derive(Clone, Copy, Debug)]
pub enum Tiled<const ROWS: usize, const COLS: usize> {}

/// The last two dimensions are stored swapped: `Smem<bf16, 64, 128, Transposed>` is a `64 x 128`
/// view of `128 x 64` storage (an MN-major operand). Needs two or more dimensions.
///
/// WGMMA reads MN-major operands of 16-bit dtypes only (`f16`, `bf16`); 8- and 32-bit operands are
/// K-major: A stored `[M, K]`, B stored `[N, K]` and read as `b_s.t()`.
#[derive(Clone, Copy, Debug)]
pub enum Transposed {}

copy_type!(Gmem<T, S>);
copy_type!(GmemMut<T, S>);
copy_type!(Tile<T, S>);
copy_type!(Smem<T, S, X>);
impl<T, S, X> Sealed for Smem<T, S, X> {}
