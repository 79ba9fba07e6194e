//! The dispatchers of the GEMM families (matmul, quantized, linear): for each element type, the
//! functions their users call, written from one table per family; and the instance tables of the
//! attention and collective dispatchers (`with_instance!`).
//!
//! An instance of a generic kernel is a concrete type (`scaled_matmul::<F8E4M3, f32, 256, 3>`),
//! whose `launch` and `interpret` exist only for the instances its attribute lists, so a Rust
//! function generic over the element type cannot call them; the table is therefore a
//! `macro_rules!` that writes it out once per element type, with `T` (and `A`, the accumulator's
//! type) standing for that type in its arms.

/// For each element type (`dtypes { module (T = .., A = ..): launch, launch_variant, interpret,
/// interpret_variant; .. }`), four functions: a launch and an interpretation with the variant
/// `variant = ..` chooses for the arguments' shapes, and a launch and an interpretation of a
/// variant the caller names (for tuning and tests). The arguments are tensors of the given element
/// types (`args(inputs..; output)`), and possibly one value passed as it is (`, act: Activation`).
/// `match |v| scrutinee { .. }` maps a variant to its kernel: the `split` arm to the split-K
/// kernel, run with a workspace for an `m` x `n` output, `ways` programs per tile, and the other
/// arms to an instance, each with extra arguments after the tensors (`[act.code()]`) if any.
macro_rules! dispatchers {
    (dtypes { $($module:ident (T = $t:ty, A = $a:ty): $launch:ident, $launch_variant:ident, $interpret:ident,
                $interpret_variant:ident;)* }
     $table:tt) => {
        $(
            mod $module {
                use super::*;
                type T = $t;
                type A = $a;
                dispatchers!(@fns [$launch, $launch_variant, $interpret, $interpret_variant] $table);
            }
            pub use $module::{$interpret, $interpret_variant, $launch, $launch_variant};
        )*
    };
    // The tensors' names, for the arms' calls (a repetition of its own cannot sit inside theirs).
    (@fns $fns:tt {
        doc = $doc:literal;
        args($($arg:ident: $elem:ty),*; $out:ident: $out_elem:ty $(, $opt:ident: $opt_ty:ty)?);
        $($rest:tt)*
    }) => {
        dispatchers!(@expand $fns ($($arg,)* $out) {
            doc = $doc;
            args($($arg: $elem),*; $out: $out_elem $(, $opt: $opt_ty)?);
            $($rest)*
        });
    };
    (@expand [$launch:ident, $launch_variant:ident, $interpret:ident, $interpret_variant:ident] $tensors:tt {
        doc = $doc:literal;
        args($($arg:ident: $elem:ty),*; $out:ident: $out_elem:ty $(, $opt:ident: $opt_ty:ty)?);
        variant = $variant:expr;
        match |$v:ident| $scrutinee:tt {
            split $split_pat:pat => $split:ty [$($sx:expr),*] (ways = $ways:ident, m = $m:expr, n = $n:expr),
            $($pat:pat => $kernel:ty $([$($x:expr),*])?,)*
        }
    }) => {
        #[doc = concat!($doc, " on the GPU, with the variant for these shapes.")]
        pub fn $launch(
            stream: &impl tessel::AsStream,
            $($arg: &DeviceTensor<$elem>,)*
            $out: &mut DeviceTensor<$out_elem>,
            $($opt: $opt_ty,)?
        ) -> tessel::Result<()> {
            $launch_variant($variant, stream, $($arg,)* $out, $($opt)?)
        }

        #[doc = concat!($doc, " on the GPU with variant `", stringify!($v), "`.")]
        pub fn $launch_variant(
            $v: Variant,
            stream: &impl tessel::AsStream,
            $($arg: &DeviceTensor<$elem>,)*
            $out: &mut DeviceTensor<$out_elem>,
            $($opt: $opt_ty,)?
        ) -> tessel::Result<()> {
            match $scrutinee {
                $split_pat => Workspace::<A>::on_device(stream, $m, $n, $ways, |partial, sems, ways| {
                    <$split>::launch(stream, $($arg,)* $out, partial, sems, ways, $($sx),*)
                }),
                $($pat => dispatchers!(@call launch, $kernel, (stream), $tensors, [$($($x),*)?]),)*
            }
        }

        #[doc = concat!($doc, " in the interpreter, with the variant the GPU would run.")]
        pub fn $interpret(
            $($arg: &HostTensor<$elem>,)*
            $out: &mut HostTensor<$out_elem>,
            $($opt: $opt_ty,)?
        ) -> tessel::Result<()> {
            $interpret_variant($variant, $($arg,)* $out, $($opt)?)
        }

        #[doc = concat!($doc, " in the interpreter with variant `", stringify!($v), "`.")]
        pub fn $interpret_variant(
            $v: Variant,
            $($arg: &HostTensor<$elem>,)*
            $out: &mut HostTensor<$out_elem>,
            $($opt: $opt_ty,)?
        ) -> tessel::Result<()> {
            match $scrutinee {
                $split_pat => Workspace::<A>::on_host($m, $n, $ways, |partial, sems, ways| {
                    <$split>::interpret($($arg,)* $out, partial, sems, ways, $($sx),*)
                }),
                $($pat => dispatchers!(@call interpret, $kernel, (), $tensors, [$($($x),*)?]),)*
            }
        }
    };
    // One arm's call: the instance's `launch` or `interpret` with the arguments and its extras.
    (@call $f:ident, $kernel:ty, ($($stream:ident)?), ($($arg:ident),*), [$($x:expr),*]) => {
        <$kernel>::$f($($stream,)? $($arg,)* $($x),*)
    };
}

/// The instance tables of the families whose dispatchers pick a kernel at run time: runs `$call`
/// with `$k` the instance chosen, as a type. One arm per family, each its table:
/// - `with_instance!(d, keys, attention<E, TRAIN = 0 or 1>, |K| ..)`: the instance of
///   [`attention`](struct@crate::attention::attention) for the head dimension `d` and the `keys`
///   (its D, QBUF, CAUSAL and RAGGED_T);
/// - `with_instance!(all_gather_matmul, world, tiles, |K| ..)` and
///   `with_instance!(matmul_reduce_scatter, world, tiles, |K| ..)`: the collective GEMMs' instance
///   for the world size and the tile width (BN, STAGES and, for the all-gather, CN), with
///   `PROGRAMS` last; a world without an instance is an internal error.
macro_rules! with_instance {
    (all_gather_matmul, $w:expr, $tiles:expr, |$k:ident| $call:expr) => {
        with_instance!(@world all_gather_matmul, $w, $tiles, wide: (256, 4, 128), narrow: (128, 6, 128), |$k| $call)
    };
    (matmul_reduce_scatter, $w:expr, $tiles:expr, |$k:ident| $call:expr) => {
        with_instance!(@world matmul_reduce_scatter, $w, $tiles, wide: (256, 3), narrow: (128, 5), |$k| $call)
    };
    (@world $kernel:ident, $w:expr, $tiles:expr, wide: ($($wide:tt)*), narrow: ($($narrow:tt)*), |$k:ident| $call:expr) => {
        match ($w, $tiles) {
            (1, Tiles::Wide) => { type $k = $kernel<bf16, 1, $($wide)*, PROGRAMS>; $call }
            (2, Tiles::Wide) => { type $k = $kernel<bf16, 2, $($wide)*, PROGRAMS>; $call }
            (4, Tiles::Wide) => { type $k = $kernel<bf16, 4, $($wide)*, PROGRAMS>; $call }
            (8, Tiles::Wide) => { type $k = $kernel<bf16, 8, $($wide)*, PROGRAMS>; $call }
            (1, Tiles::Narrow) => { type $k = $kernel<bf16, 1, $($narrow)*, PROGRAMS>; $call }
            (2, Tiles::Narrow) => { type $k = $kernel<bf16, 2, $($narrow)*, PROGRAMS>; $call }
            (4, Tiles::Narrow) => { type $k = $kernel<bf16, 4, $($narrow)*, PROGRAMS>; $call }
            (8, Tiles::Narrow) => { type $k = $kernel<bf16, 8, $($narrow)*, PROGRAMS>; $call }
            (w, _) => Err(Error::Internal(format!("no collective GEMM instance for {w} ranks (WORLDS)"))),
        }
    };
    ($d:expr, $keys:expr, attention<$e:ty, TRAIN = $train:literal>, |$kernel:ident| $call:expr) => {
        with_instance!(@arms ($d, $keys), attention<$e, $train>, $kernel, $call,
            (64, Keys::Whole) => (64, 2, 0, 0);
            (_, Keys::Whole) => (128, 1, 0, 0);
            (64, Keys::Ragged) => (64, 2, 0, 1);
            (_, Keys::Ragged) => (128, 1, 0, 1);
            (64, Keys::Causal) => (64, 2, 1, 1);
            (_, Keys::Causal) => (128, 1, 1, 1);
        )
    };
    (@arms $scrutinee:expr, attention<$e:ty, $train:literal>, $kernel:ident, $call:expr,
     $($arm:pat => ($dim:literal, $qbuf:literal, $causal:literal, $ragged:literal);)*) => {
        match $scrutinee {
            $($arm => {
                type $kernel = attention<$e, $dim, $qbuf, $causal, $ragged, $train, 0>;
                $call
            })*
        }
    };
}
