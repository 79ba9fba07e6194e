//! Kernel functions that call each other in a cycle: reported at the call that closes it, and
//! the kernel's call of one of them gets a note.

use tessel::prelude::*;

#[kernels]
mod sums {
    use tessel::prelude::*;

    fn even_sum(n: i32) -> i32 {
        if n == 0 { 0 } else { n + odd_sum(n - 1) }
    }

    fn odd_sum(n: i32) -> i32 {
        if n == 0 { 0 } else { n + even_sum(n - 1) }
    }

    #[kernel(grid = (1))]
    fn store(y: GmemMut<f32, 128>) {
        let s = even_sum(4);
        y.tile([0], [128]).store(splat::<f32>(s as f32, [128]).to_layout(Layout::Strided));
    }
}

fn main() {}
