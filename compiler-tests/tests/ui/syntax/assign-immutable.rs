//! tessel: assignment to a variable not declared `let mut`.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn frozen() {
    let total = 0;
    total = total + 1;
}

fn main() {}
