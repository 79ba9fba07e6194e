//! tessel: a global array's static dimension (a literal or a const) is positive.

use tessel::prelude::*;

#[kernel(grid = (1), consts(ROWS = -64))]
fn negative_rows(x: GmemMut<f32, ROWS, 64>) {}

fn main() {}
