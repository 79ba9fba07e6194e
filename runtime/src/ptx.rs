//! A kernel's PTX module as a binary holds it: compressed by the macro, inflated on first use.

use std::collections::HashMap;
use std::fmt;
use std::ops::Deref;
use std::sync::{LazyLock, Mutex, PoisonError};

use tessel_ir::compress;

use crate::error::{Error, Result};

/// The text of a PTX module: a kernel's `PTX` constant, or PTX you wrote or loaded yourself.
///
/// `#[kernel]` embeds each kernel's PTX compressed (`tessel_ir::compress`: DEFLATE, about 4.8
/// times smaller for the shipped kernels) and once per binary, in a `static` that every use refers
/// to. The text is inflated the first time it is needed (a launch that compiles the module, or a
/// read of the text) and kept for the rest of the process, so it reads as a `&'static str`:
/// `matmul::PTX.contains("wgmma")`, `println!("{}", matmul::PTX)`, `&*matmul::PTX`.
///
/// [`Ptx::new`] (or `Ptx::from`) wraps PTX text you have as a `&'static str`, for [`Module::load`].
///
/// [`Module::load`]: crate::Module::load
#[derive(Clone, Copy)]
pub struct Ptx(Repr);

#[derive(Clone, Copy)]
enum Repr {
    Text(&'static str),
    /// `len` bytes of text, deflated into `bytes`.
    Deflated {
        bytes: &'static [u8],
        len: usize,
    },
}

/// Every compressed module inflated so far, by the address of its compressed bytes. The texts
/// live until the process exits, as the modules compiled from them do.
static TEXTS: LazyLock<Mutex<HashMap<usize, &'static str>>> = LazyLock::new(Default::default);

impl Ptx {
    /// PTX text as it is: `const PTX: Ptx = Ptx::new(include_str!("kernel.ptx"));`.
    pub const fn new(text: &'static str) -> Ptx {
        Ptx(Repr::Text(text))
    }

    /// The PTX text `len` bytes long that `tessel_ir::compress::deflate` compressed into `bytes`:
    /// what generated code embeds. The macro checks that the bytes inflate to its text before
    /// embedding them.
    #[doc(hidden)]
    pub const fn deflated(bytes: &'static [u8], len: usize) -> Ptx {
        Ptx(Repr::Deflated { bytes, len })
    }

    /// The text, inflated on the first call for a compressed module. An error means the
    /// compressed bytes are corrupt, which the macro rules out: an [`Error::Internal`].
    pub fn text(self) -> Result<&'static str> {
        let (bytes, len) = match self.0 {
            Repr::Text(text) => return Ok(text),
            Repr::Deflated { bytes, len } => (bytes, len),
        };
        let mut texts = TEXTS.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(&text) = texts.get(&(bytes.as_ptr() as usize)) {
            return Ok(text);
        }
        let text = compress::inflate_str(bytes, len)
            .map_err(|e| Error::Internal(format!("the embedded PTX cannot be read: {e}")))?;
        let text: &'static str = Box::leak(text.into_boxed_str());
        texts.insert(bytes.as_ptr() as usize, text);
        Ok(text)
    }

    /// What identifies the module without inflating it: the address and length of what the binary
    /// holds (two uses of one kernel's `PTX` constant refer to the same bytes).
    pub(crate) fn identity(self) -> (usize, usize) {
        match self.0 {
            Repr::Text(text) => (text.as_ptr() as usize, text.len()),
            Repr::Deflated { bytes, len } => (bytes.as_ptr() as usize, len),
        }
    }
}

impl From<&'static str> for Ptx {
    fn from(text: &'static str) -> Ptx {
        Ptx::new(text)
    }
}

/// The text, as [`Ptx::text`] returns it.
///
/// # Panics
///
/// If a compressed module's bytes are corrupt ("internal tessel error"), which the macro rules
/// out by inflating them before it embeds them. [`Ptx::text`] returns the error instead.
impl Deref for Ptx {
    type Target = str;

    fn deref(&self) -> &str {
        self.text().unwrap_or_else(|e| panic!("internal tessel error: {e}"))
    }
}

impl AsRef<str> for Ptx {
    fn as_ref(&self) -> &str {
        self
    }
}

impl AsRef<[u8]> for Ptx {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

/// Two modules are equal when their texts are.
impl PartialEq for Ptx {
    fn eq(&self, other: &Ptx) -> bool {
        self.identity() == other.identity() || **self == **other
    }
}

impl Eq for Ptx {}

impl PartialEq<str> for Ptx {
    fn eq(&self, other: &str) -> bool {
        **self == *other
    }
}

impl PartialEq<&str> for Ptx {
    fn eq(&self, other: &&str) -> bool {
        **self == **other
    }
}

impl fmt::Display for Ptx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self)
    }
}

impl fmt::Debug for Ptx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Repr::Text(text) => write!(f, "Ptx({} bytes)", text.len()),
            Repr::Deflated { bytes, len } => write!(f, "Ptx({len} bytes, deflated to {})", bytes.len()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = ".version 8.0\n.target sm_90a\n.address_size 64\n";

    /// `TEXT` as generated code embeds it: deflated, in a static.
    const DEFLATED: Ptx = {
        static BYTES: [u8; 37] = [0; 37];
        Ptx::deflated(&BYTES, TEXT.len())
    };

    fn deflated() -> Ptx {
        let bytes = compress::deflate(TEXT.as_bytes());
        Ptx::deflated(Box::leak(bytes.into_boxed_slice()), TEXT.len())
    }

    #[test]
    fn a_deflated_module_reads_as_its_text() {
        let ptx = deflated();
        assert_eq!(ptx.text().unwrap(), TEXT);
        assert_eq!(&*ptx, TEXT);
        assert!(ptx.contains("sm_90a"));
        assert_eq!(ptx.to_string(), TEXT);
    }

    #[test]
    fn a_module_is_inflated_once() {
        let ptx = deflated();
        let (first, again) = (ptx.text().unwrap(), ptx.text().unwrap());
        assert!(std::ptr::eq(first, again), "the second read is the first's text");
    }

    #[test]
    fn text_reads_as_itself() {
        let ptx = Ptx::from(TEXT);
        assert!(std::ptr::eq(ptx.text().unwrap(), TEXT));
        assert_eq!(ptx.identity(), (TEXT.as_ptr() as usize, TEXT.len()));
    }

    #[test]
    fn corrupt_bytes_are_an_internal_error() {
        let err = DEFLATED.text().unwrap_err();
        assert!(matches!(err, Error::Internal(_)), "{err}");
        assert!(err.to_string().contains("the embedded PTX cannot be read"), "{err}");
    }

    #[test]
    fn modules_compare_by_their_text() {
        let (a, b) = (deflated(), deflated());
        assert_eq!(a, b, "two copies of one text");
        assert_eq!(a, Ptx::from(TEXT));
        assert_eq!(a, TEXT);
        assert_ne!(a, Ptx::from(".version 8.0\n"));
        assert_ne!(a, *".version 8.0\n");
    }

    #[test]
    fn debug_shows_the_sizes() {
        assert_eq!(format!("{:?}", Ptx::from(TEXT)), format!("Ptx({} bytes)", TEXT.len()));
        assert!(format!("{:?}", deflated()).starts_with(&format!("Ptx({} bytes, deflated to ", TEXT.len())));
    }
}
