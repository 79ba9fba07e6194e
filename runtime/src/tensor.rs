//! Tensors: dense row-major arrays on the host ([`HostTensor`]) and on the GPU ([`DeviceTensor`]).

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, CudaViewMut, DevicePtr, DevicePtrMut, SyncOnDrop};

use crate::device::AsStream;
use crate::element::Element;
use crate::error::{Error, Result};
use crate::tensor_map::TensorMapCache;

/// The number of elements of `shape`, or [`Error::ShapeTooLarge`] if it overflows.
pub(crate) fn element_count(shape: &[usize]) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .ok_or_else(|| Error::ShapeTooLarge { shape: shape.to_vec() })
}

/// A dense, row-major tensor in host memory: the input and output of `interpret` and the staging
/// area for device tensors.
#[derive(Clone, Debug, PartialEq)]
pub struct HostTensor<T: Element> {
    data: Vec<T>,
    shape: Vec<usize>,
}

impl<T: Element> HostTensor<T> {
    /// A tensor of `shape` holding `data` in row-major order.
    /// Fails with [`Error::ElementCount`] if `data.len()` is not the product of `shape`.
    pub fn new(shape: impl Into<Vec<usize>>, data: Vec<T>) -> Result<Self> {
        let shape = shape.into();
        let expected = element_count(&shape)?;
        if data.len() != expected {
            return Err(Error::ElementCount { tensor: "HostTensor::new", shape, expected, got: data.len() });
        }
        Ok(HostTensor { data, shape })
    }

    /// A tensor of `shape` filled with zeros.
    pub fn zeros(shape: impl Into<Vec<usize>>) -> Result<Self> {
        let shape = shape.into();
        let len = element_count(&shape)?;
        Ok(HostTensor { data: vec![T::default(); len], shape })
    }

    /// A tensor of `shape` whose element at each multi-index is `f(index)`, called in row-major
    /// order.
    pub fn from_fn(shape: impl Into<Vec<usize>>, mut f: impl FnMut(&[usize]) -> T) -> Result<Self> {
        let shape = shape.into();
        let len = element_count(&shape)?;
        let mut data = Vec::with_capacity(len);
        let mut index = vec![0usize; shape.len()];
        for _ in 0..len {
            data.push(f(&index));
            // Odometer increment: bump the last axis, carrying into earlier ones.
            for axis in (0..shape.len()).rev() {
                index[axis] += 1;
                if index[axis] < shape[axis] {
                    break;
                }
                index[axis] = 0;
            }
        }
        Ok(HostTensor { data, shape })
    }

    /// The shape, outermost axis first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The elements in row-major order.
    pub fn data(&self) -> &[T] {
        &self.data
    }

    /// The elements in row-major order, mutable.
    pub fn data_mut(&mut self) -> &mut [T] {
        &mut self.data
    }

    /// The elements in row-major order, by value.
    pub fn into_data(self) -> Vec<T> {
        self.data
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether the tensor has no elements.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The row-major offset of a multi-index, or `None` if its rank or any coordinate is out of
    /// range.
    pub fn offset(&self, index: &[usize]) -> Option<usize> {
        if index.len() != self.shape.len() {
            return None;
        }
        index.iter().zip(&self.shape).try_fold(0usize, |offset, (&i, &d)| (i < d).then(|| offset * d + i))
    }

    /// The element at a multi-index, or `None` if it is out of range.
    pub fn get(&self, index: &[usize]) -> Option<T> {
        self.offset(index).map(|offset| self.data[offset])
    }
}

/// Source of [`DeviceTensor::id`]: unique for the life of the process.
static NEXT_BUFFER_ID: AtomicU64 = AtomicU64::new(1);

/// A dense, row-major tensor in GPU memory: a cudarc [`CudaSlice`] plus its shape.
///
/// It remembers the stream it was allocated on (its memory is freed there) and caches the TMA
/// tensor maps built over it, so a map can never outlive the buffer it points into.
///
/// Part of it is lent as a [`DeviceView`](crate::DeviceView) ([`view`](Self::view),
/// [`view_mut`](Self::view_mut)), which a launch takes wherever it takes the tensor; a cudarc
/// buffer becomes a tensor with [`from_slice`](Self::from_slice) and comes back out with
/// [`into_slice`](Self::into_slice).
pub struct DeviceTensor<T: Element> {
    slice: CudaSlice<T>,
    shape: Vec<usize>,
    id: u64,
    address: u64,
    pub(crate) maps: TensorMapCache,
}

impl<T: Element> DeviceTensor<T> {
    /// Copies a host tensor to a new device tensor on `stream`.
    pub fn from_host(stream: &impl AsStream, host: &HostTensor<T>) -> Result<Self> {
        let stream = stream.as_stream();
        let slice = if host.is_empty() { stream.null()? } else { stream.clone_htod(host.data())? };
        Ok(Self::wrap(slice, host.shape().to_vec()))
    }

    /// A new device tensor of `shape` filled with zeros, on `stream`.
    pub fn zeros(stream: &impl AsStream, shape: impl Into<Vec<usize>>) -> Result<Self> {
        let shape = shape.into();
        let len = element_count(&shape)?;
        let stream = stream.as_stream();
        let slice = if len == 0 { stream.null()? } else { stream.alloc_zeros(len)? };
        Ok(Self::wrap(slice, shape))
    }

    /// Wraps a cudarc slice (e.g. one filled by cuBLAS) as a tensor of `shape`, which must hold
    /// exactly its elements ([`Error::ElementCount`] otherwise). The slice's stream becomes the
    /// tensor's.
    pub fn from_slice(slice: CudaSlice<T>, shape: impl Into<Vec<usize>>) -> Result<Self> {
        let shape = shape.into();
        let expected = element_count(&shape)?;
        if slice.len() != expected {
            return Err(Error::ElementCount { tensor: "DeviceTensor::from_slice", shape, expected, got: slice.len() });
        }
        Ok(Self::wrap(slice, shape))
    }

    fn wrap(slice: CudaSlice<T>, shape: Vec<usize>) -> Self {
        // The address is read once, on the slice's own stream, where the access bookkeeping
        // cudarc does (a read event) orders nothing; later uses go through `device_ptr`.
        let address = slice.device_ptr(slice.stream()).0;
        DeviceTensor {
            slice,
            shape,
            id: NEXT_BUFFER_ID.fetch_add(1, Ordering::Relaxed),
            address,
            maps: TensorMapCache::default(),
        }
    }

    /// Copies the tensor back to the host. Waits for the tensor's stream, so this is also where
    /// an asynchronous kernel fault surfaces.
    pub fn to_host(&self) -> Result<HostTensor<T>> {
        let stream = self.slice.stream();
        let data = if self.slice.is_empty() { Vec::new() } else { stream.clone_dtoh(&self.slice)? };
        stream.synchronize()?;
        HostTensor::new(self.shape.clone(), data)
    }

    /// Overwrites the tensor with a host tensor of the same shape.
    pub fn copy_from_host(&mut self, host: &HostTensor<T>) -> Result<()> {
        if host.shape() != self.shape.as_slice() {
            return Err(Error::ShapeMismatch {
                tensor: "DeviceTensor::copy_from_host",
                expected: self.shape.clone(),
                got: host.shape().to_vec(),
            });
        }
        if !host.is_empty() {
            let stream = self.slice.stream().clone();
            stream.memcpy_htod(host.data(), &mut self.slice)?;
        }
        Ok(())
    }

    /// Fills every element with `value`, so that tests can tell elements a kernel wrote from
    /// elements it skipped (a NaN or an unlikely integer is a good poison).
    pub fn poison(&mut self, value: T) -> Result<()> {
        let host = HostTensor::new(self.shape.clone(), vec![value; self.len()])?;
        self.copy_from_host(&host)
    }

    /// The shape, outermost axis first.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.slice.len()
    }

    /// Whether the tensor has no elements.
    pub fn is_empty(&self) -> bool {
        self.slice.is_empty()
    }

    /// A process-wide unique id of this buffer (keys the tensor-map cache).
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The ordinal of the device holding the tensor.
    pub fn ordinal(&self) -> usize {
        self.slice.ordinal()
    }

    /// The stream the tensor was allocated on, and will be freed on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        self.slice.stream()
    }

    /// The device address of the first element, for encoding into descriptors. Reading or
    /// writing through it from a kernel must go through [`device_ptr`](Self::device_ptr) or
    /// [`device_ptr_mut`](Self::device_ptr_mut), which order the access against other streams.
    pub fn address(&self) -> u64 {
        self.address
    }

    /// The address, for a kernel on `stream` that reads the tensor.
    ///
    /// When the context has several streams, cudarc makes `stream` wait for the tensor's last
    /// write, and the returned guard records the read when dropped. Keep the guard alive until
    /// the launch has been queued (cudarc `DevicePtr`).
    pub fn device_ptr<'a>(&'a self, stream: &'a CudaStream) -> (u64, AccessGuard<'a>) {
        let (address, sync) = self.slice.device_ptr(stream);
        (address, AccessGuard { _sync: sync })
    }

    /// The address, for a kernel on `stream` that writes the tensor: as
    /// [`device_ptr`](Self::device_ptr), but `stream` also waits for earlier reads, and the guard
    /// records a write (cudarc `DevicePtrMut`).
    pub fn device_ptr_mut<'a>(&'a mut self, stream: &'a CudaStream) -> (u64, AccessGuard<'a>) {
        let (address, sync) = self.slice.device_ptr_mut(stream);
        (address, AccessGuard { _sync: sync })
    }

    /// Checks that the tensor lives on the same device (context) as `stream`; `name` is the
    /// kernel parameter, for the message.
    pub fn check_device(&self, name: &'static str, stream: &CudaStream) -> Result<()> {
        if self.slice.context() == stream.context() {
            return Ok(());
        }
        Err(Error::WrongDevice {
            tensor: name,
            tensor_device: self.slice.ordinal(),
            stream_device: stream.context().ordinal(),
        })
    }

    /// The underlying cudarc slice, e.g. to hand to cuBLAS.
    pub fn as_slice(&self) -> &CudaSlice<T> {
        &self.slice
    }

    /// The underlying cudarc slice as a mutable view of all of it, e.g. for cuBLAS to write.
    pub fn as_cuda_view_mut(&mut self) -> CudaViewMut<'_, T> {
        self.slice.as_view_mut()
    }

    /// The underlying cudarc slice, mutable.
    ///
    /// # Safety
    /// The slice must stay the one this tensor wraps: writing its elements is fine, replacing it
    /// (`*t.as_slice_mut() = other`, `std::mem::swap`) is not, since launches trust the tensor's
    /// shape to bound every access and its cached tensor maps hold the buffer's address. Use
    /// [`as_cuda_view_mut`](Self::as_cuda_view_mut) where a `CudaViewMut` will do, and
    /// [`into_slice`](Self::into_slice) to take the slice out.
    pub unsafe fn as_slice_mut(&mut self) -> &mut CudaSlice<T> {
        &mut self.slice
    }

    /// The underlying cudarc slice, by value: the tensor's shape and tensor maps are dropped.
    pub fn into_slice(self) -> CudaSlice<T> {
        self.slice
    }

    /// The slice, the shape and the tensor-map cache, borrowed apart (for mutable views).
    pub(crate) fn parts_mut(&mut self) -> (&mut CudaSlice<T>, &[usize], &TensorMapCache) {
        (&mut self.slice, &self.shape, &self.maps)
    }
}

impl<T: Element> fmt::Debug for DeviceTensor<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceTensor")
            .field("dtype", &T::DTYPE)
            .field("shape", &self.shape)
            .field("device", &self.slice.ordinal())
            .field("id", &self.id)
            .finish()
    }
}

/// Proof that a tensor's use by queued GPU work is being tracked; drop it only after the launch
/// that uses the address has been queued. See [`DeviceTensor::device_ptr`].
#[must_use = "drop the guard only after the launch that uses the address has been queued"]
pub struct AccessGuard<'a> {
    _sync: SyncOnDrop<'a>,
}

impl<'a> AccessGuard<'a> {
    pub(crate) fn new(sync: SyncOnDrop<'a>) -> Self {
        AccessGuard { _sync: sync }
    }
}

impl fmt::Debug for AccessGuard<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AccessGuard")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::bf16;

    #[test]
    fn new_checks_the_element_count() {
        let err = HostTensor::<f32>::new([2, 3], vec![0.0; 5]).unwrap_err();
        assert_eq!(err.to_string(), "`HostTensor::new`: shape [2, 3] has 6 elements, but 5 values were given");
        assert!(HostTensor::<f32>::new([2, 3], vec![0.0; 6]).is_ok());
    }

    #[test]
    fn shapes_that_overflow_are_errors() {
        let err = HostTensor::<u8>::zeros([usize::MAX, 2]).unwrap_err();
        assert!(matches!(err, Error::ShapeTooLarge { .. }));
    }

    #[test]
    fn from_fn_visits_row_major() {
        let t = HostTensor::<i32>::from_fn([2, 3], |i| (10 * i[0] + i[1]) as i32).unwrap();
        assert_eq!(t.data(), &[0, 1, 2, 10, 11, 12]);
        assert_eq!(t.get(&[1, 2]), Some(12));
        assert_eq!(t.get(&[2, 0]), None);
        assert_eq!(t.get(&[1]), None);
    }

    #[test]
    fn zeros_and_scalars() {
        let t = HostTensor::<bf16>::zeros([4, 0]).unwrap();
        assert!(t.is_empty());
        let s = HostTensor::<f32>::from_fn(Vec::new(), |_| 7.0).unwrap();
        assert_eq!((s.len(), s.get(&[])), (1, Some(7.0)));
    }
}
