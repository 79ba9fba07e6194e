//! tessel: an argument `#[kernel]` does not take.

use tessel::prelude::*;

#[kernel(grid = (1), threads = 256)]
fn threads() {}

fn main() {}
