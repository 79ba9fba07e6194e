//! Text the macro embeds compressed: each kernel's PTX module.
//!
//! PTX is long and repetitive (the shipped kernels' modules are 10-180 KB each, a few hundred
//! of them in a binary that links the dispatchers), so the macro deflates it (RFC 1951, raw
//! DEFLATE without a zlib or gzip frame) and the runtime inflates it once per process, the first
//! time the text is needed. The kernels' PTX compresses about 4.8 times; inflating the largest
//! module (180 KB) takes well under a millisecond, against the tens of milliseconds or more the
//! driver then spends compiling it.
//!
//! Both sides live here so that the format is written once. The length of the text travels
//! beside the bytes: inflating stops there, so corrupt bytes never make a large allocation, and a
//! text of another length is an error rather than a silently different kernel.

use std::fmt;

/// The DEFLATE level the macro compresses at: `miniz_oxide`'s 0 (store) to 10. The macro runs
/// unoptimized in most builds (cargo builds proc macros at `opt-level = 0`), where a higher level
/// costs more build time than the few percent of size it saves.
pub const LEVEL: u8 = 4;

/// Why compressed bytes are not the text they should hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InflateError(String);

impl fmt::Display for InflateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for InflateError {}

/// `bytes` compressed (raw DEFLATE at [`LEVEL`]).
pub fn deflate(bytes: &[u8]) -> Vec<u8> {
    miniz_oxide::deflate::compress_to_vec(bytes, LEVEL)
}

/// The `len` bytes that [`deflate`] compressed into `compressed`.
pub fn inflate(compressed: &[u8], len: usize) -> Result<Vec<u8>, InflateError> {
    let bytes = miniz_oxide::inflate::decompress_to_vec_with_limit(compressed, len)
        .map_err(|e| InflateError(format!("the compressed bytes do not inflate: {:?}", e.status)))?;
    match bytes.len() == len {
        true => Ok(bytes),
        false => Err(InflateError(format!("the compressed bytes inflate to {} bytes, not {len}", bytes.len()))),
    }
}

/// The text [`deflate`] compressed from `text`'s bytes, checked to be UTF-8.
pub fn inflate_str(compressed: &[u8], len: usize) -> Result<String, InflateError> {
    String::from_utf8(inflate(compressed, len)?).map_err(|_| InflateError("the inflated bytes are not UTF-8".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A PTX-like text: repetitive lines with varying register numbers.
    fn text() -> String {
        (0..2000).map(|i| format!("\tadd.s32 %r{}, %r{}, {};\n", i % 97, i % 89, i % 7)).collect()
    }

    #[test]
    fn text_round_trips_and_shrinks() {
        let text = text();
        let packed = deflate(text.as_bytes());
        assert!(packed.len() * 4 < text.len(), "{} bytes from {}", packed.len(), text.len());
        assert_eq!(inflate_str(&packed, text.len()).as_deref(), Ok(text.as_str()));
    }

    #[test]
    fn empty_text_round_trips() {
        assert_eq!(inflate_str(&deflate(b""), 0).as_deref(), Ok(""));
    }

    #[test]
    fn a_wrong_length_is_an_error() {
        let text = text();
        let packed = deflate(text.as_bytes());
        let shorter = inflate(&packed, text.len() - 1).unwrap_err();
        assert!(shorter.to_string().contains("do not inflate"), "{shorter}");
        let longer = inflate(&packed, text.len() + 1).unwrap_err();
        assert!(longer.to_string().contains(&format!("inflate to {} bytes", text.len())), "{longer}");
    }

    #[test]
    fn corrupt_bytes_are_an_error() {
        let text = text();
        let mut packed = deflate(text.as_bytes());
        packed.truncate(packed.len() / 2);
        assert!(inflate(&packed, text.len()).is_err());
        assert!(inflate(&[0xff; 16], 100).is_err());
    }

    #[test]
    fn bytes_that_are_not_utf8_are_an_error() {
        let packed = deflate(&[0xc3, 0x28]);
        assert_eq!(inflate(&packed, 2), Ok(vec![0xc3, 0x28]));
        assert!(inflate_str(&packed, 2).unwrap_err().to_string().contains("UTF-8"));
    }
}
