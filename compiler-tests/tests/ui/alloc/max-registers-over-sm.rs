//! tessel: `max_registers` for every thread of the program exceeds an SM's 64K registers (the
//! launch would fail).

use tessel::prelude::*;

#[kernel(grid = (1), warpgroups = 3, max_registers = 256)]
fn too_wide() {}

fn main() {}
