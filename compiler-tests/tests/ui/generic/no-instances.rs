//! A generic kernel lists its instances: each is compiled when the crate builds.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn tiled<const BK: usize>() {}

fn main() {}
