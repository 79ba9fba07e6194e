//! tessel: the attribute must say how many programs to launch.

use tessel::prelude::*;

#[kernel(warpgroups = 1)]
fn no_grid() {}

fn main() {}
