//! Tensor-map validation, without a GPU: every rule of `cuTensorMapEncodeTiled` the runtime
//! checks, including the four configurations the H200's driver was seen to reject
//! (checked on the H200: 256 B inner box with 128B swizzle, box 512, stride 120, inner box 8 B).

use std::cell::Cell;

use super::*;

const BASE: u64 = 0x7f00_0000_0000;

/// A bf16 `[rows, cols]` row-major layout at `base`.
fn bf16_2d(base: u64, rows: usize, cols: usize, boxes: [u32; 2], swizzle: Swizzle) -> Result<()> {
    TensorMapLayout::row_major("a", base, &[rows, cols], 2, &boxes, swizzle)?.validate("a")
}

#[test]
fn accepts_the_matmul_tile() {
    bf16_2d(BASE, 256, 512, [64, 64], Swizzle::B128).unwrap();
    bf16_2d(BASE, 256, 512, [64, 16], Swizzle::B32).unwrap();
    bf16_2d(BASE, 256, 512, [256, 256], Swizzle::None).unwrap();
}

#[test]
fn row_major_puts_the_innermost_dimension_first() {
    let layout = TensorMapLayout::row_major("a", BASE, &[8, 256, 512], 4, &[1, 64, 32], Swizzle::B128).unwrap();
    assert_eq!(layout.dims, [512, 256, 8]);
    assert_eq!(layout.strides, [512 * 4, 512 * 256 * 4]);
    assert_eq!(layout.box_dims, [32, 64, 1]);
}

#[test]
fn rejects_a_misaligned_base() {
    let err = bf16_2d(BASE + 8, 64, 64, [64, 64], Swizzle::B128).unwrap_err();
    assert_eq!(err, Error::Misaligned { tensor: "a", what: "the base address".into(), value: BASE + 8, required: 16 });
    assert!(err.to_string().starts_with("`a`: the base address is"), "{err}");
}

#[test]
fn rejects_a_row_stride_of_120_bytes() {
    // 60 bf16 per row: each row is 120 bytes, not a multiple of 16.
    let err = bf16_2d(BASE, 64, 60, [64, 8], Swizzle::None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "`a`: the stride of axis 0 is 120 bytes (0x78), not a multiple of 16 bytes, as TMA \
         requires"
    );
}

#[test]
fn rejects_a_box_of_512() {
    let err = bf16_2d(BASE, 1024, 64, [512, 64], Swizzle::B128).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot build a TMA tensor map for `a`: the box [512, 64] has extent 512 along axis 0, \
         but TMA boxes are 1 to 256 elements along each axis"
    );
    assert!(bf16_2d(BASE, 64, 64, [0, 64], Swizzle::None).is_err());
}

#[test]
fn rejects_an_inner_box_of_8_bytes() {
    let err = bf16_2d(BASE, 64, 64, [64, 4], Swizzle::None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot build a TMA tensor map for `a`: the box's innermost extent is 4 elements of 2 \
         bytes = 8 bytes, but TMA needs a multiple of 16 bytes"
    );
}

#[test]
fn rejects_an_inner_box_wider_than_the_swizzle() {
    let err = bf16_2d(BASE, 64, 256, [64, 128], Swizzle::B128).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot build a TMA tensor map for `a`: the box's innermost extent is 128 elements = 256 \
         bytes, wider than the 128 bytes of the 128-byte swizzle; at most 64 elements fit, so \
         split the tile along axis 1"
    );
    assert!(bf16_2d(BASE, 64, 256, [64, 32], Swizzle::B64).is_ok());
    assert!(bf16_2d(BASE, 64, 256, [64, 64], Swizzle::B64).is_err());
}

#[test]
fn rejects_bad_ranks_and_extents() {
    let rank6 = TensorMapLayout::row_major("x", BASE, &[1; 6], 4, &[1; 6], Swizzle::None);
    let err = rank6.unwrap().validate("x").unwrap_err();
    assert!(err.to_string().contains("rank 1 to 5"), "{err}");

    let mismatch = TensorMapLayout::row_major("x", BASE, &[4, 4], 4, &[4], Swizzle::None);
    assert!(mismatch.unwrap_err().to_string().contains("has rank 1"));

    let err = bf16_2d(BASE, 0, 64, [1, 64], Swizzle::None).unwrap_err();
    assert!(err.to_string().contains("axis 0 has extent 0"), "{err}");
}

#[test]
fn rank_1_and_5_are_fine() {
    let rank1 = TensorMapLayout::row_major("v", BASE, &[1000], 4, &[256], Swizzle::None).unwrap();
    assert!(rank1.strides.is_empty());
    rank1.validate("v").unwrap();
    let shape = [2, 3, 4, 5, 64];
    let rank5 = TensorMapLayout::row_major("v", BASE, &shape, 1, &[1, 1, 2, 5, 64], Swizzle::B64).unwrap();
    rank5.validate("v").unwrap();
}

fn dummy_map(tag: u64) -> TensorMap {
    let mut raw = sys::CUtensorMap { opaque: [0; 16] };
    raw.opaque[0] = tag;
    TensorMap { raw }
}

#[test]
fn the_cache_encodes_each_layout_once() {
    let cache = TensorMapCache::default();
    let calls = Cell::new(0);
    let layout = |swizzle| TensorMapLayout::row_major("a", BASE, &[64, 64], 2, &[64, 64], swizzle).unwrap();
    let encode = |_: &TensorMapLayout| {
        calls.set(calls.get() + 1);
        Ok(dummy_map(calls.get()))
    };
    let first = cache.get_or_encode(layout(Swizzle::B128), encode).unwrap();
    let again = cache.get_or_encode(layout(Swizzle::B128), encode).unwrap();
    let other = cache.get_or_encode(layout(Swizzle::None), encode).unwrap();
    assert_eq!(calls.get(), 2);
    assert_eq!(first, again);
    assert_ne!(first, other);

    // A failed encode is reported and not cached.
    let failing = |_: &TensorMapLayout| Err(Error::Internal("no".into()));
    assert!(cache.get_or_encode(layout(Swizzle::B64), failing).is_err());
    cache.get_or_encode(layout(Swizzle::B64), encode).unwrap();
    assert_eq!(calls.get(), 3);
}

#[test]
fn the_map_is_128_bytes_and_128_aligned() {
    assert_eq!(std::mem::size_of::<TensorMap>(), 128);
    assert_eq!(std::mem::align_of::<TensorMap>(), 128);
}
