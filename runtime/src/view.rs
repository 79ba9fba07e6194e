//! Views: part of a device buffer, borrowed, with a shape of its own ([`DeviceView`] to read,
//! [`DeviceViewMut`] to write), and the traits that let a launch take a view wherever it takes a
//! [`DeviceTensor`] ([`AsDeviceView`], [`AsDeviceViewMut`]).
//!
//! A view is a contiguous range of elements read as a dense row-major tensor. It borrows the
//! buffer as cudarc's `CudaView`/`CudaViewMut` do (and is built on them), so Rust's borrows keep
//! a written view from aliasing anything else passed to the same launch, and cudarc orders its
//! uses across streams like the buffer's. Every constructor checks the range, the shape and the
//! alignment and returns an [`Error`] instead of panicking.

use std::borrow::Cow;
use std::fmt;
use std::ops::{Bound, RangeBounds};
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, DeviceSlice};

use crate::element::Element;
use crate::error::{Error, Result};
use crate::tensor::{element_count, AccessGuard, DeviceTensor, HostTensor};
use crate::tensor_map::{tensor_map_of, Swizzle, TensorMap, TensorMapCache};

/// The alignment of a view's first element, in bytes: TMA needs 16-byte aligned global addresses
/// (CUDA Driver API, `cuTensorMapEncodeTiled`), and kernels move pairs of elements with one
/// `ld.global.v2`/`st.global.v2`, which needs the pair's size (at most 16 bytes). Whole
/// allocations are aligned to 256 bytes.
pub const VIEW_ALIGN: u64 = 16;

/// A read-only view of part of a device buffer, with a shape: a kernel's `Gmem` argument, like
/// `&DeviceTensor`.
///
/// Made by [`DeviceTensor::view`], [`DeviceView::new`] (of a cudarc `CudaSlice`) or
/// [`DeviceView::from_cuda_view`]; it borrows the buffer for `'a`.
pub struct DeviceView<'a, T: Element> {
    view: CudaView<'a, T>,
    meta: Meta<'a>,
}

/// A writable view of part of a device buffer, with a shape: a kernel's `GmemMut` argument, like
/// `&mut DeviceTensor`, and also a `Gmem` one.
///
/// Made by [`DeviceTensor::view_mut`], [`DeviceViewMut::new`] or
/// [`DeviceViewMut::from_cuda_view`]; it borrows the buffer mutably for `'a`.
pub struct DeviceViewMut<'a, T: Element> {
    view: CudaViewMut<'a, T>,
    meta: Meta<'a>,
}

/// What a view knows beside its cudarc view: its shape, its address (read once, for tensor maps),
/// and the tensor-map cache of the tensor it borrows whole, if it does.
struct Meta<'a> {
    shape: Cow<'a, [usize]>,
    address: u64,
    /// Only a view of a whole [`DeviceTensor`] shares its cache: the maps of sub-views are encoded
    /// at each launch, so that many views of one tensor do not grow its cache without bound.
    maps: Option<&'a TensorMapCache>,
}

/// Anything a launch can read as a tensor in GPU memory: a [`DeviceTensor`], a [`DeviceView`] or a
/// [`DeviceViewMut`]. Generated `launch` functions take a `Gmem<T, ..>` parameter as
/// `&impl AsDeviceView<T>`.
///
/// A type of your own that owns or borrows device memory can implement it by returning a view
/// made with [`DeviceView::new`] or [`DeviceView::from_cuda_view`], which check its shape.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tensor in GPU memory with elements of type `{T}`",
    label = "expected a `DeviceTensor<{T}>`, `DeviceView<{T}>` or `DeviceViewMut<{T}>`",
    note = "a kernel's `Gmem` parameter takes `&DeviceTensor<T>` or a view of one (`tensor.view(range, shape)`); \
            `interpret` takes `&HostTensor<T>`"
)]
pub trait AsDeviceView<T: Element> {
    /// The tensor as a read-only view.
    fn as_view(&self) -> DeviceView<'_, T>;
}

/// Anything a launch can write as a tensor in GPU memory: a [`DeviceTensor`] or a
/// [`DeviceViewMut`]. Generated `launch` functions take a `GmemMut<T, ..>` parameter as
/// `&mut impl AsDeviceViewMut<T>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a writable tensor in GPU memory with elements of type `{T}`",
    label = "expected a `DeviceTensor<{T}>` or a `DeviceViewMut<{T}>`",
    note = "a kernel's `GmemMut` parameter takes `&mut DeviceTensor<T>` or a writable view of one \
            (`tensor.view_mut(range, shape)`); a `DeviceView` is read-only"
)]
pub trait AsDeviceViewMut<T: Element>: AsDeviceView<T> {
    /// The tensor as a writable view.
    fn as_view_mut(&mut self) -> DeviceViewMut<'_, T>;
}

/// The range `bounds` of a buffer of `len` elements, checked for a view of `shape`: inside the
/// buffer, not reversed, and holding exactly the shape's elements. `view` names the constructor.
pub(crate) fn checked_range(
    view: &'static str,
    bounds: impl RangeBounds<usize>,
    len: usize,
    shape: &[usize],
) -> Result<(usize, usize)> {
    // A bound past usize::MAX saturates, and is then out of bounds like any other.
    let start = match bounds.start_bound() {
        Bound::Included(&s) => s,
        Bound::Excluded(&s) => s.saturating_add(1),
        Bound::Unbounded => 0,
    };
    let end = match bounds.end_bound() {
        Bound::Included(&e) => e.saturating_add(1),
        Bound::Excluded(&e) => e,
        Bound::Unbounded => len,
    };
    if start > end || end > len {
        return Err(Error::ViewOutOfBounds { view, start, end, len });
    }
    let elements = element_count(shape)?;
    if elements != end - start {
        return Err(Error::ViewShape { view, shape: shape.to_vec(), elements, range: (start, end) });
    }
    Ok((start, end))
}

/// Checks that a view whose element `start` is at `address` is aligned as kernels need.
pub(crate) fn check_aligned(view: &'static str, start: usize, address: u64) -> Result<()> {
    if address.is_multiple_of(VIEW_ALIGN) {
        Ok(())
    } else {
        Err(Error::ViewMisaligned { view, start, address })
    }
}

/// The device address of a cudarc buffer, read on its own stream, where the read event cudarc
/// records orders nothing new.
fn address_of<T>(buffer: &impl DevicePtr<T>) -> u64 {
    let (address, _record) = buffer.device_ptr(buffer.stream());
    address
}

impl<'a, T: Element> DeviceView<'a, T> {
    /// The elements `range` of a cudarc buffer, read as a tensor of `shape`.
    ///
    /// Fails with [`Error::ViewOutOfBounds`] if the range leaves the buffer, [`Error::ViewShape`] if
    /// the shape does not hold exactly the range's elements, and [`Error::ViewMisaligned`] if the
    /// first element is not 16-byte aligned ([`VIEW_ALIGN`]).
    pub fn new(slice: &'a CudaSlice<T>, range: impl RangeBounds<usize>, shape: impl Into<Vec<usize>>) -> Result<Self> {
        let shape = shape.into();
        let (start, end) = checked_range("DeviceView::new", range, slice.len(), &shape)?;
        let address = address_of(slice) + (start * T::BYTES) as u64;
        check_aligned("DeviceView::new", start, address)?;
        let view = slice.try_slice(start..end).ok_or_else(|| internal_range(start, end, slice.len()))?;
        Ok(DeviceView { view, meta: Meta { shape: Cow::Owned(shape), address, maps: None } })
    }

    /// A cudarc view (e.g. one half of `split_at`), read as a tensor of `shape`, which must hold
    /// exactly its elements; its start must be 16-byte aligned.
    pub fn from_cuda_view(view: CudaView<'a, T>, shape: impl Into<Vec<usize>>) -> Result<Self> {
        let shape = shape.into();
        checked_range("DeviceView::from_cuda_view", .., view.len(), &shape)?;
        let address = address_of(&view);
        check_aligned("DeviceView::from_cuda_view", 0, address)?;
        Ok(DeviceView { view, meta: Meta { shape: Cow::Owned(shape), address, maps: None } })
    }

    /// The view as cudarc's `CudaView`, e.g. to read it back with `stream.clone_dtoh`.
    pub fn as_cuda_view(&self) -> CudaView<'_, T> {
        self.view.slice(..)
    }

    /// The address, for a kernel on `stream` that reads the view (as
    /// [`DeviceTensor::device_ptr`]).
    pub fn device_ptr<'s>(&'s self, stream: &'s CudaStream) -> (u64, AccessGuard<'s>) {
        let (address, sync) = self.view.device_ptr(stream);
        (address, AccessGuard::new(sync))
    }

    /// Copies the view to a host tensor of its shape, waiting for its stream.
    pub fn to_host(&self) -> Result<HostTensor<T>> {
        to_host(&self.view, &self.meta.shape)
    }
}

impl<'a, T: Element> DeviceViewMut<'a, T> {
    /// The elements `range` of a cudarc buffer, read and written as a tensor of `shape`; checked as
    /// [`DeviceView::new`].
    pub fn new(
        slice: &'a mut CudaSlice<T>,
        range: impl RangeBounds<usize>,
        shape: impl Into<Vec<usize>>,
    ) -> Result<Self> {
        let shape = shape.into();
        let (start, end) = checked_range("DeviceViewMut::new", range, slice.len(), &shape)?;
        let address = address_of(slice) + (start * T::BYTES) as u64;
        check_aligned("DeviceViewMut::new", start, address)?;
        let len = slice.len();
        let view = slice.try_slice_mut(start..end).ok_or_else(|| internal_range(start, end, len))?;
        Ok(DeviceViewMut { view, meta: Meta { shape: Cow::Owned(shape), address, maps: None } })
    }

    /// A cudarc mutable view (e.g. one half of `split_at_mut`), as a tensor of `shape`, which must
    /// hold exactly its elements; its start must be 16-byte aligned.
    pub fn from_cuda_view(view: CudaViewMut<'a, T>, shape: impl Into<Vec<usize>>) -> Result<Self> {
        let shape = shape.into();
        checked_range("DeviceViewMut::from_cuda_view", .., view.len(), &shape)?;
        let address = address_of(&view);
        check_aligned("DeviceViewMut::from_cuda_view", 0, address)?;
        Ok(DeviceViewMut { view, meta: Meta { shape: Cow::Owned(shape), address, maps: None } })
    }

    /// The view as cudarc's `CudaView`.
    pub fn as_cuda_view(&self) -> CudaView<'_, T> {
        self.view.as_view()
    }

    /// The view as cudarc's `CudaViewMut`, e.g. to fill it with `stream.memcpy_htod`.
    pub fn as_cuda_view_mut(&mut self) -> CudaViewMut<'_, T> {
        self.view.slice_mut(..)
    }

    /// The address, for a kernel on `stream` that reads the view.
    pub fn device_ptr<'s>(&'s self, stream: &'s CudaStream) -> (u64, AccessGuard<'s>) {
        let (address, sync) = self.view.device_ptr(stream);
        (address, AccessGuard::new(sync))
    }

    /// The address, for a kernel on `stream` that writes the view (as
    /// [`DeviceTensor::device_ptr_mut`]).
    pub fn device_ptr_mut<'s>(&'s mut self, stream: &'s CudaStream) -> (u64, AccessGuard<'s>) {
        let (address, sync) = self.view.device_ptr_mut(stream);
        (address, AccessGuard::new(sync))
    }

    /// Copies the view to a host tensor of its shape, waiting for its stream.
    pub fn to_host(&self) -> Result<HostTensor<T>> {
        to_host(&self.view, &self.meta.shape)
    }

    /// Overwrites the view with a host tensor of the same shape.
    pub fn copy_from_host(&mut self, host: &HostTensor<T>) -> Result<()> {
        if host.shape() != &*self.meta.shape {
            return Err(Error::ShapeMismatch {
                tensor: "DeviceViewMut::copy_from_host",
                expected: self.meta.shape.to_vec(),
                got: host.shape().to_vec(),
            });
        }
        if !host.is_empty() {
            let stream = Arc::clone(self.view.stream());
            stream.memcpy_htod(host.data(), &mut self.view)?;
        }
        Ok(())
    }
}

/// The `try_slice` of a range `checked_range` accepted returned nothing: a broken invariant.
fn internal_range(start: usize, end: usize, len: usize) -> Error {
    Error::Internal(format!("cudarc refused the checked range {start}..{end} of a buffer of {len} elements"))
}

/// Copies `view` to the host as a tensor of `shape` (which holds exactly its elements).
fn to_host<T: Element>(view: &impl DevicePtr<T>, shape: &[usize]) -> Result<HostTensor<T>> {
    let stream = view.stream();
    let data = if view.is_empty() { Vec::new() } else { stream.clone_dtoh(view)? };
    stream.synchronize()?;
    HostTensor::new(shape.to_vec(), data)
}

/// The accessors both view types share (`$ty` is one of them).
macro_rules! common {
    ($ty:ident) => {
        impl<T: Element> $ty<'_, T> {
            /// The shape, outermost axis first.
            pub fn shape(&self) -> &[usize] {
                &self.meta.shape
            }

            /// The number of elements.
            pub fn len(&self) -> usize {
                self.view.len()
            }

            /// Whether the view has no elements.
            pub fn is_empty(&self) -> bool {
                self.view.len() == 0
            }

            /// The device address of the first element (see [`DeviceTensor::address`]).
            pub fn address(&self) -> u64 {
                self.meta.address
            }

            /// The stream of the buffer the view borrows (where it was allocated).
            pub fn stream(&self) -> &Arc<CudaStream> {
                self.view.stream()
            }

            /// The ordinal of the device holding the view.
            pub fn ordinal(&self) -> usize {
                self.view.stream().context().ordinal()
            }

            /// Checks that the view lives on the same device (context) as `stream`; `name` is the
            /// kernel parameter, for the message.
            pub fn check_device(&self, name: &'static str, stream: &CudaStream) -> Result<()> {
                let context = self.view.stream().context();
                if context == stream.context() {
                    return Ok(());
                }
                Err(Error::WrongDevice {
                    tensor: name,
                    tensor_device: context.ordinal(),
                    stream_device: stream.context().ordinal(),
                })
            }

            /// Encodes a TMA tensor map over the view, moved in boxes of `box_shape` (see
            /// [`DeviceTensor::tensor_map`]).
            pub fn tensor_map(&self, name: &'static str, box_shape: &[u32], swizzle: Swizzle) -> Result<TensorMap> {
                let meta = &self.meta;
                tensor_map_of::<T>(name, meta.address, &meta.shape, box_shape, swizzle, None)
            }

            /// As [`tensor_map`](Self::tensor_map), reusing the maps of the tensor the view
            /// borrows whole; a sub-view's map is encoded at each call.
            pub fn tensor_map_cached(
                &self,
                name: &'static str,
                box_shape: &[u32],
                swizzle: Swizzle,
            ) -> Result<TensorMap> {
                let meta = &self.meta;
                tensor_map_of::<T>(name, meta.address, &meta.shape, box_shape, swizzle, meta.maps)
            }
        }

        impl<T: Element> fmt::Debug for $ty<'_, T> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($ty))
                    .field("dtype", &T::DTYPE)
                    .field("shape", &self.meta.shape)
                    .field("device", &self.ordinal())
                    .field("address", &format_args!("{:#x}", self.meta.address))
                    .finish()
            }
        }
    };
}

common!(DeviceView);
common!(DeviceViewMut);

impl<T: Element> DeviceTensor<T> {
    /// The elements `range` of the tensor (in row-major order), read as a tensor of `shape`:
    /// e.g. `x.view(k * n..(k + 1) * n, [n])` is row `k` of an `[m, n]` tensor, and
    /// `x.view(.., [m * n])` the whole tensor flattened.
    ///
    /// Fails with [`Error::ViewOutOfBounds`], [`Error::ViewShape`] or [`Error::ViewMisaligned`]
    /// (a view must start 16-byte aligned: at a multiple of 8 elements for `bf16`, 4 for `f32`).
    pub fn view(&self, range: impl RangeBounds<usize>, shape: impl Into<Vec<usize>>) -> Result<DeviceView<'_, T>> {
        let shape = shape.into();
        let (start, end) = checked_range("DeviceTensor::view", range, self.len(), &shape)?;
        let address = self.address() + (start * T::BYTES) as u64;
        check_aligned("DeviceTensor::view", start, address)?;
        let view = self.as_slice().try_slice(start..end).ok_or_else(|| internal_range(start, end, self.len()))?;
        Ok(DeviceView { view, meta: Meta { shape: Cow::Owned(shape), address, maps: None } })
    }

    /// As [`view`](Self::view), writable.
    pub fn view_mut(
        &mut self,
        range: impl RangeBounds<usize>,
        shape: impl Into<Vec<usize>>,
    ) -> Result<DeviceViewMut<'_, T>> {
        let shape = shape.into();
        let len = self.len();
        let (start, end) = checked_range("DeviceTensor::view_mut", range, len, &shape)?;
        let address = self.address() + (start * T::BYTES) as u64;
        check_aligned("DeviceTensor::view_mut", start, address)?;
        let (slice, _, _) = self.parts_mut();
        let view = slice.try_slice_mut(start..end).ok_or_else(|| internal_range(start, end, len))?;
        Ok(DeviceViewMut { view, meta: Meta { shape: Cow::Owned(shape), address, maps: None } })
    }

    /// The whole tensor as a read-only view (sharing its tensor-map cache).
    pub fn as_view(&self) -> DeviceView<'_, T> {
        let meta = Meta { shape: Cow::Borrowed(self.shape()), address: self.address(), maps: Some(&self.maps) };
        DeviceView { view: self.as_slice().as_view(), meta }
    }

    /// The whole tensor as a writable view (sharing its tensor-map cache).
    pub fn as_view_mut(&mut self) -> DeviceViewMut<'_, T> {
        let address = self.address();
        let (slice, shape, maps) = self.parts_mut();
        let meta = Meta { shape: Cow::Borrowed(shape), address, maps: Some(maps) };
        DeviceViewMut { view: slice.as_view_mut(), meta }
    }
}

impl<T: Element> AsDeviceView<T> for DeviceTensor<T> {
    fn as_view(&self) -> DeviceView<'_, T> {
        DeviceTensor::as_view(self)
    }
}

impl<T: Element> AsDeviceViewMut<T> for DeviceTensor<T> {
    fn as_view_mut(&mut self) -> DeviceViewMut<'_, T> {
        DeviceTensor::as_view_mut(self)
    }
}

impl<T: Element> AsDeviceView<T> for DeviceView<'_, T> {
    fn as_view(&self) -> DeviceView<'_, T> {
        DeviceView { view: self.view.slice(..), meta: self.meta.reborrow() }
    }
}

impl<T: Element> AsDeviceView<T> for DeviceViewMut<'_, T> {
    fn as_view(&self) -> DeviceView<'_, T> {
        DeviceView { view: self.view.as_view(), meta: self.meta.reborrow() }
    }
}

impl<T: Element> AsDeviceViewMut<T> for DeviceViewMut<'_, T> {
    fn as_view_mut(&mut self) -> DeviceViewMut<'_, T> {
        DeviceViewMut { view: self.view.slice_mut(..), meta: self.meta.reborrow() }
    }
}

impl Meta<'_> {
    /// The same description, borrowed for a shorter lifetime.
    fn reborrow(&self) -> Meta<'_> {
        Meta { shape: Cow::Borrowed(&self.shape), address: self.address, maps: self.maps }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_inside_the_buffer_with_a_matching_shape_are_accepted() {
        assert_eq!(checked_range("v", 8..24, 32, &[2, 8]).unwrap(), (8, 24));
        assert_eq!(checked_range("v", .., 32, &[4, 8]).unwrap(), (0, 32));
        assert_eq!(checked_range("v", 24.., 32, &[8]).unwrap(), (24, 32));
        assert_eq!(checked_range("v", ..=7, 32, &[8]).unwrap(), (0, 8));
        assert_eq!(checked_range("v", 32..32, 32, &[0, 4]).unwrap(), (32, 32));
        // A scalar (shape []) is one element.
        assert_eq!(checked_range("v", 5..6, 32, &[]).unwrap(), (5, 6));
    }

    #[test]
    fn ranges_outside_the_buffer_are_errors() {
        let err = checked_range("DeviceTensor::view", 16..48, 32, &[32]).unwrap_err();
        assert_eq!(err, Error::ViewOutOfBounds { view: "DeviceTensor::view", start: 16, end: 48, len: 32 });
        assert_eq!(
            err.to_string(),
            "`DeviceTensor::view`: elements 16..48 are outside the buffer, which has 32 elements"
        );
        let err = checked_range("v", ..=usize::MAX, 32, &[1]).unwrap_err();
        assert!(matches!(err, Error::ViewOutOfBounds { end: usize::MAX, .. }), "{err}");
        let err = checked_range("v", (Bound::Excluded(usize::MAX), Bound::Unbounded), 32, &[1]).unwrap_err();
        assert!(matches!(err, Error::ViewOutOfBounds { start: usize::MAX, end: 32, .. }), "{err}");
    }

    #[test]
    #[allow(clippy::reversed_empty_ranges)]
    fn reversed_ranges_are_errors() {
        let err = checked_range("v", 8..4, 32, &[0]).unwrap_err();
        assert_eq!(err.to_string(), "`v`: the range 8..4 starts after it ends (the buffer has 32 elements)");
    }

    #[test]
    fn a_shape_must_hold_exactly_the_range() {
        let err = checked_range("DeviceTensor::view", 0..16, 32, &[4, 8]).unwrap_err();
        assert_eq!(
            err,
            Error::ViewShape { view: "DeviceTensor::view", shape: vec![4, 8], elements: 32, range: (0, 16) }
        );
        assert_eq!(err.to_string(), "`DeviceTensor::view`: shape [4, 8] has 32 elements, but the range 0..16 holds 16");
        let err = checked_range("v", .., 32, &[usize::MAX, 2]).unwrap_err();
        assert!(matches!(err, Error::ShapeTooLarge { .. }), "{err}");
    }

    #[test]
    fn a_view_must_start_16_byte_aligned() {
        check_aligned("v", 4, 0x7f00_0000_0010).unwrap();
        let err = check_aligned("DeviceTensor::view", 3, 0x7f00_0000_000c).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`DeviceTensor::view`: a view must start at a 16-byte aligned address (kernels read \
             global arrays with TMA and paired loads), but element 3 is at 0x7f000000000c"
        );
    }
}
