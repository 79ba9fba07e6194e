//! Macros are not expanded inside a kernel.

use tessel::prelude::*;

#[kernel(grid = (1))]
fn debug_print(n: i32) {
    println!("{}", n);
}

fn main() {}
