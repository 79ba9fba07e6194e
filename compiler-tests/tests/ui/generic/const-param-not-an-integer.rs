//! A kernel's const parameter is a compile-time integer.

use tessel::prelude::*;

#[kernel(grid = (1), instances(true))]
fn flag<const CAUSAL: bool>() {}

fn main() {}
