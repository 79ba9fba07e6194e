//! tessel: a warpgroup asks `setmaxnreg` for more registers than the program's pool can ever give
//! it (it would wait forever on the GPU).

use tessel::prelude::*;

#[kernel(grid = (1), warpgroups = 2, warpgroup_axis = wg, max_registers = 128)]
fn greedy() {
    if warpgroup_id() == 0 {
        set_max_registers(240);
    }
}

fn main() {}
