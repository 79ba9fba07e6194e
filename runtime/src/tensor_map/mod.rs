//! TMA tensor maps: the 128-byte descriptors `cp.async.bulk.tensor` reads global tiles through.
//!
//! A map encodes a buffer's address, so it is only valid while the buffer lives. Maps are built
//! by [`DeviceTensor::tensor_map`] and cached inside the tensor they describe
//! ([`DeviceTensor::tensor_map_cached`]), which ties the cache's lifetime to the buffer's.

mod layout;
#[cfg(test)]
mod tests;

use std::sync::{Mutex, PoisonError};

use cudarc::driver::sys;

pub use layout::{Swizzle, TensorMapLayout};

use crate::driver::{self, RawTiledMap};
use crate::element::Element;
use crate::error::{describe, Error, Result};
use crate::tensor::DeviceTensor;

/// An encoded TMA descriptor (`CUtensorMap`), ready to pass to a kernel by value.
///
/// The kernel declares it as `.param .align 64 .b8 tmap[128]` (checked on the H200); the driver
/// requires 64-byte alignment and the CUDA 13 headers declare 128, which this type keeps.
#[repr(C, align(128))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorMap {
    raw: sys::CUtensorMap,
}

impl TensorMap {
    /// Validates `layout` and encodes it with `cuTensorMapEncodeTiled`. `tensor` names the
    /// tensor in error messages.
    pub fn encode(
        tensor: &'static str,
        dtype: sys::CUtensorMapDataType,
        layout: &TensorMapLayout,
    ) -> Result<TensorMap> {
        layout.validate(tensor)?;
        // The encode call loads libcuda; without it cudarc would panic.
        if !driver::library_present() {
            return Err(Error::NoDriver);
        }
        let raw = driver::encode_tiled(&RawTiledMap {
            dtype,
            address: layout.base,
            dims: &layout.dims,
            strides: &layout.strides,
            box_dims: &layout.box_dims,
            swizzle: sys_swizzle(layout.swizzle),
        })
        .map_err(|source| Error::TensorMap {
            tensor,
            reason: format!("cuTensorMapEncodeTiled rejected {layout:?}: {}", describe(source)),
            source: Some(source),
        })?;
        Ok(TensorMap { raw })
    }

    /// The map of a rank-2 tensor `[rows, cols]` moved in boxes of `[box_rows, box_cols]`.
    pub fn encode_2d<T: Element>(
        tensor: &DeviceTensor<T>,
        name: &'static str,
        box_rows: u32,
        box_cols: u32,
        swizzle: Swizzle,
    ) -> Result<TensorMap> {
        crate::dims::check_rank(name, tensor.shape(), 2)?;
        tensor.tensor_map(name, &[box_rows, box_cols], swizzle)
    }

    /// The raw descriptor.
    pub fn as_raw(&self) -> &sys::CUtensorMap {
        &self.raw
    }

    /// An all-zero map, for tests that only need its size and alignment.
    #[cfg(test)]
    pub(crate) fn zeroed_for_tests() -> TensorMap {
        TensorMap { raw: sys::CUtensorMap { opaque: [0; 16] } }
    }
}

impl<T: Element> DeviceTensor<T> {
    /// Encodes a tensor map over this whole tensor, moved in boxes of `box_shape` (outermost
    /// axis first, like the shape). `name` names the tensor in error messages.
    pub fn tensor_map(&self, name: &'static str, box_shape: &[u32], swizzle: Swizzle) -> Result<TensorMap> {
        tensor_map_of::<T>(name, self.address(), self.shape(), box_shape, swizzle, None)
    }

    /// As [`tensor_map`](Self::tensor_map), but encoded once per (box, swizzle) and then reused:
    /// launch functions call this on every launch.
    pub fn tensor_map_cached(&self, name: &'static str, box_shape: &[u32], swizzle: Swizzle) -> Result<TensorMap> {
        tensor_map_of::<T>(name, self.address(), self.shape(), box_shape, swizzle, Some(&self.maps))
    }
}

/// The map of the row-major tensor of `T` at `address` with `shape`, moved in boxes of
/// `box_shape`: found in `cache` or encoded (and then cached, if there is a cache).
pub(crate) fn tensor_map_of<T: Element>(
    name: &'static str,
    address: u64,
    shape: &[usize],
    box_shape: &[u32],
    swizzle: Swizzle,
    cache: Option<&TensorMapCache>,
) -> Result<TensorMap> {
    let layout = TensorMapLayout::row_major(name, address, shape, T::BYTES, box_shape, swizzle)?;
    let encode = |layout: &TensorMapLayout| TensorMap::encode(name, T::tma_dtype(), layout);
    match cache {
        Some(cache) => cache.get_or_encode(layout, encode),
        None => encode(&layout),
    }
}

/// The tensor maps built over one buffer, keyed by their layout (which holds the buffer's
/// address and shape, the box and the swizzle). Owned by the [`DeviceTensor`], so it is dropped
/// with the buffer; a handful of entries at most, so a vector beats a map.
#[derive(Debug, Default)]
pub(crate) struct TensorMapCache {
    entries: Mutex<Vec<(TensorMapLayout, TensorMap)>>,
}

impl TensorMapCache {
    /// The cached map for `layout`, or the one `encode` builds (cached only if it succeeds).
    fn get_or_encode(
        &self,
        layout: TensorMapLayout,
        encode: impl FnOnce(&TensorMapLayout) -> Result<TensorMap>,
    ) -> Result<TensorMap> {
        // A panic while the lock was held cannot leave the vector half-updated (push is the only
        // mutation), so a poisoned lock is still usable.
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, map)) = entries.iter().find(|(key, _)| *key == layout) {
            return Ok(*map);
        }
        let map = encode(&layout)?;
        entries.push((layout, map));
        Ok(map)
    }
}

/// The driver's enum value of a swizzle.
fn sys_swizzle(swizzle: Swizzle) -> sys::CUtensorMapSwizzle {
    match swizzle {
        Swizzle::None => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
        Swizzle::B32 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
        Swizzle::B64 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
        Swizzle::B128 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
    }
}
