//! `match` is not in the language (`if` is).

use tessel::prelude::*;

#[kernel(grid = (4))]
fn dispatch() {
    let p = program_id(0);
    let x = match p {
        0 => 1,
        _ => 2,
    };
}

fn main() {}
