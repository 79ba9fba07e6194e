//! The text buffer of one PTX function: virtual registers by class, labels, instructions.
//!
//! Registers are virtual (ptxas allocates); each class has its own prefix so that no name can shadow
//! a special register (checked on the H200: a register named `%tid` breaks `mov.u32 %tid, %tid.x`).

use crate::types::DType;
use std::fmt::Write as _;

/// A class of PTX registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Class {
    /// `.pred`
    Pred,
    /// `.b16`: bf16, f16 and 8-bit floats (low byte).
    B16,
    /// `.b32`: 32-bit and narrower integers (extended), and packed pairs.
    B32,
    /// `.b64`: addresses, 64-bit integers, descriptors.
    B64,
    /// `.f32`: f32 and tf32.
    F32,
}

impl Class {
    const ALL: [Class; 5] = [Class::Pred, Class::B16, Class::B32, Class::B64, Class::F32];

    fn prefix(self) -> &'static str {
        match self {
            Class::Pred => "%p",
            Class::B16 => "%h",
            Class::B32 => "%r",
            Class::B64 => "%rd",
            Class::F32 => "%f",
        }
    }

    fn decl(self) -> &'static str {
        match self {
            Class::Pred => ".pred",
            Class::B16 => ".b16",
            Class::B32 => ".b32",
            Class::B64 => ".b64",
            Class::F32 => ".f32",
        }
    }

    /// The register class holding one element of `dtype`.
    pub fn of(dtype: DType) -> Class {
        match dtype {
            DType::Bool => Class::Pred,
            DType::Bf16 | DType::F16 | DType::F8E4M3 | DType::F8E5M2 => Class::B16,
            DType::F32 | DType::Tf32 => Class::F32,
            DType::I4 | DType::I8 | DType::U8 | DType::I16 | DType::U16 | DType::I32 | DType::U32 => Class::B32,
            DType::I64 | DType::U64 => Class::B64,
        }
    }
}

/// One PTX function body under construction.
#[derive(Default)]
pub struct Writer {
    body: String,
    counts: [u32; 5],
    labels: u32,
}

impl Writer {
    /// A fresh register of `class`.
    pub fn reg(&mut self, class: Class) -> String {
        let i = Class::ALL.iter().position(|c| *c == class).unwrap_or(0);
        self.counts[i] += 1;
        format!("{}{}", class.prefix(), self.counts[i])
    }

    /// A fresh register holding one element of `dtype`.
    pub fn reg_for(&mut self, dtype: DType) -> String {
        self.reg(Class::of(dtype))
    }

    pub fn label(&mut self, hint: &str) -> String {
        self.labels += 1;
        format!("L_{hint}_{}", self.labels)
    }

    /// Emits one instruction (the `;` is added).
    pub fn ins(&mut self, text: impl AsRef<str>) {
        let _ = writeln!(self.body, "\t{};", text.as_ref());
    }

    pub fn put_label(&mut self, label: &str) {
        let _ = writeln!(self.body, "{label}:");
    }

    /// A comment line, for readers of the PTX (golden tests key on them too).
    pub fn comment(&mut self, text: impl AsRef<str>) {
        let _ = writeln!(self.body, "\t// {}", text.as_ref());
    }

    /// Where the body ends now: two equal marks have nothing written between them.
    pub fn mark(&self) -> usize {
        self.body.len()
    }

    /// Register declarations followed by the body.
    pub fn finish(self) -> String {
        let mut out = String::new();
        for (i, class) in Class::ALL.iter().enumerate() {
            if self.counts[i] > 0 {
                let _ = writeln!(out, "\t.reg {} {}<{}>;", class.decl(), class.prefix(), self.counts[i] + 1);
            }
        }
        out.push_str(&self.body);
        out
    }
}
