//! NCCL's data type for each tensor element type (`ncclDataType_t`, nccl.h).

use cudarc::nccl::sys::ncclDataType_t as Nccl;
use tessel_ir::types::DType;

use crate::element::Element;
use crate::error::{Error, Result};

/// NCCL's type for a dtype, `None` where NCCL has none. Exhaustive, so a new dtype must decide.
/// The fp8 types need NCCL 2.24 or newer at run time; an older NCCL rejects them with
/// `ncclInvalidArgument`.
fn nccl_type(dtype: DType) -> Option<Nccl> {
    match dtype {
        DType::Bf16 => Some(Nccl::ncclBfloat16),
        DType::F16 => Some(Nccl::ncclFloat16),
        DType::F32 => Some(Nccl::ncclFloat32),
        DType::F8E4M3 => Some(Nccl::ncclFloat8e4m3),
        DType::F8E5M2 => Some(Nccl::ncclFloat8e5m2),
        DType::I8 => Some(Nccl::ncclInt8),
        DType::U8 => Some(Nccl::ncclUint8),
        DType::I32 => Some(Nccl::ncclInt32),
        DType::U32 => Some(Nccl::ncclUint32),
        DType::I64 => Some(Nccl::ncclInt64),
        DType::U64 => Some(Nccl::ncclUint64),
        DType::I16 | DType::U16 | DType::Tf32 | DType::I4 | DType::Bool => None,
    }
}

/// NCCL's type for elements of type `T`, or [`Error::InvalidArgument`] naming the collective.
pub(super) fn of<T: Element>(collective: &'static str) -> Result<Nccl> {
    DType::from_name(T::DTYPE).and_then(nccl_type).ok_or_else(|| Error::InvalidArgument {
        argument: collective,
        reason: format!(
            "NCCL has no {} type; collectives take bf16, f16, f32, f8e4m3, f8e5m2, i8, u8, i32, u32, i64 or u64",
            T::DTYPE
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use float8::F8E4M3;
    use half::bf16;

    #[test]
    fn every_element_type_has_an_answer() {
        assert_eq!(of::<bf16>("c").unwrap(), Nccl::ncclBfloat16);
        assert_eq!(of::<F8E4M3>("c").unwrap(), Nccl::ncclFloat8e4m3);
        assert_eq!(of::<u64>("c").unwrap(), Nccl::ncclUint64);
        let err = of::<i16>("all_reduce").unwrap_err();
        assert!(err.to_string().starts_with("`all_reduce`: NCCL has no i16 type"), "{err}");
    }
}
