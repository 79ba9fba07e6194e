//! tessel: `set_max_registers` in a kernel without `max_registers = ..` (ptxas would ignore it).

use tessel::prelude::*;

#[kernel(grid = (1), warpgroups = 2, warpgroup_axis = wg)]
fn no_cap() {
    if warpgroup_id() == 0 {
        set_max_registers(40);
    }
}

fn main() {}
