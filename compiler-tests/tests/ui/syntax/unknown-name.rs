//! tessel: a name that is neither a local, a parameter, a const nor a runtime dimension.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn typo(count: i32) {
    let n = cuont + 1;
}

fn main() {}
