//! Closures exist only as the bodies of `run_scoped` and `run_state`.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn lambda() {
    let double = |x: i32| x * 2;
}

fn main() {}
