//! The synchronization check on small kernels: each rule where it must report, and the near
//! misses (a wait on one path only, a run-time index, a loop's back edge) where it must not.

use proc_macro2::TokenStream;
use quote::quote;

/// The messages (first lines) of the errors of `#[kernel(attr)] fn k(..) { body }`.
fn errors(attr: TokenStream, body: TokenStream) -> Vec<String> {
    let item = quote! {
        fn k(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>, x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
            let (i, j) = (program_id(0), program_id(1));
            #body
        }
    };
    match crate::compile(attr, item) {
        Ok(_) => Vec::new(),
        Err(e) => e.into_iter().map(|e| e.to_string().lines().next().unwrap_or_default().to_string()).collect(),
    }
}

fn one_wg() -> TokenStream {
    quote!(grid = (M / 64, N / 64))
}

fn two_wg() -> TokenStream {
    quote!(grid = (M / 64, N / 64), warpgroups = 2, warpgroup_axis = wg)
}

/// Asserts one error, containing `needle`.
fn assert_one(errors: Vec<String>, needle: &str) {
    assert_n(errors, 1, needle);
}

/// Asserts `n` errors, the first containing `needle`.
fn assert_n(errors: Vec<String>, n: usize, needle: &str) {
    let ok = errors.len() == n && errors[0].contains(needle);
    assert!(ok, "expected {n} errors, the first with {needle:?}, got {errors:#?}");
}

fn assert_none(errors: Vec<String>) {
    assert!(errors.is_empty(), "expected no error, got {errors:#?}");
}

/// A GEMM step over `body`, with the buffers, a barrier of `arrivals` and an accumulator.
fn gemm(arrivals: TokenStream, body: TokenStream) -> TokenStream {
    quote! {
        run_scoped(|acc: Acc<f32, 64, 64>, a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>,
                    bar: Barrier<#arrivals>| {
            #body
            c.tile([i, j]).store(acc.load());
        });
    }
}

#[test]
fn a_read_before_the_wait_is_reported_and_after_it_is_not() {
    let read_early = gemm(
        quote!(2),
        quote! {
            copy_gmem_to_smem(a.tile([i, 0]), a_s, bar);
            copy_gmem_to_smem(b.tile([0, j]), b_s, bar);
            wgmma(acc, a_s, b_s);
            barrier_wait(bar);
            wgmma_wait(0);
        },
    );
    // Both operands.
    assert_n(errors(one_wg(), read_early), 2, "`a_s` is read here (a wgmma) before its TMA load has landed");
    let in_order = gemm(
        quote!(2),
        quote! {
            copy_gmem_to_smem(a.tile([i, 0]), a_s, bar);
            copy_gmem_to_smem(b.tile([0, j]), b_s, bar);
            barrier_wait(bar);
            wgmma(acc, a_s, b_s);
            wgmma_wait(0);
        },
    );
    assert_none(errors(one_wg(), in_order));
}

#[test]
fn a_wait_on_one_path_only_is_not_reported() {
    let body = gemm(
        quote!(2),
        quote! {
            copy_gmem_to_smem(a.tile([i, 0]), a_s, bar);
            copy_gmem_to_smem(b.tile([0, j]), b_s, bar);
            if i > 0 {
                barrier_wait(bar);
            }
            wgmma(acc, a_s, b_s);
            wgmma_wait(0);
        },
    );
    assert_none(errors(one_wg(), body));
}

#[test]
fn the_back_edge_of_a_loop_carries_a_load_into_the_next_turn() {
    // Turn k + 1's wgmma reads the copies turn k issued after its wait.
    let body = gemm(
        quote!(2),
        quote! {
            copy_gmem_to_smem(a.tile([i, 0]), a_s, bar);
            copy_gmem_to_smem(b.tile([0, j]), b_s, bar);
            barrier_wait(bar);
            for k in 0..K / 64 {
                wgmma(acc, a_s, b_s);
                wgmma_wait(0);
                copy_gmem_to_smem(a.tile([i, k + 1]), a_s, bar);
                copy_gmem_to_smem(b.tile([k + 1, j]), b_s, bar);
            }
            barrier_wait(bar);
        },
    );
    assert_n(errors(one_wg(), body), 2, "`a_s` is read here (a wgmma) before its TMA load has landed");
}

#[test]
fn barrier_arrivals_against_the_declaration() {
    let copies = |arrivals: TokenStream| {
        gemm(
            arrivals,
            quote! {
                for k in 0..K / 64 {
                    copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                    copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                    barrier_wait(bar);
                    wgmma(acc, a_s, b_s);
                    wgmma_wait(0);
                }
            },
        )
    };
    assert_none(errors(one_wg(), copies(quote!(2))));
    assert_one(errors(one_wg(), copies(quote!(3))), "`bar` is declared `Barrier<3>`, but each of its phases gets 2 arrivals before this wait: the wait never returns");
    assert_one(
        errors(one_wg(), copies(quote!(1))),
        "`bar` is declared `Barrier<1>`, but each of its phases gets 2 arrivals: this wait can return",
    );
}

#[test]
fn arrivals_of_several_warpgroups_add_up() {
    let body = |arrivals: TokenStream| {
        quote! {
            let w = warpgroup_id();
            run_scoped(collective_axes = [wg], |x_s: Smem<f32, 2, 64, 64>, bar: Barrier<#arrivals>, done: Barrier<2>| {
                copy_gmem_to_smem(x.tile([i, j]), x_s.at(w), bar);
                barrier_wait(bar);
                let v = x_s.at(w).load(Layout::Strided);
                barrier_arrive(done);
                barrier_wait(done);
                y.tile([i, j], [64, 64]).store(v);
            });
        }
    };
    assert_none(errors(two_wg(), body(quote!(2))));
    assert_one(errors(two_wg(), body(quote!(1))), "each of its phases gets 2 arrivals");
}

#[test]
fn a_barrier_at_a_run_time_index_is_not_counted() {
    let body = quote! {
        run_scoped(|x_s: Smem<f32, 2, 64, 64>, bars: Barrier<2, 2>| {
            let s = i % 2;
            copy_gmem_to_smem(x.tile([i, j]), x_s.at(s), bars.at(s));
            barrier_wait(bars.at(s));
            y.tile([i, j], [64, 64]).store(x_s.at(s).load(Layout::Strided));
        });
    };
    assert_none(errors(one_wg(), body));
}

#[test]
fn an_operand_overwritten_under_its_wgmma() {
    let overwrite = |wait: TokenStream| {
        gemm(
            quote!(2),
            quote! {
                copy_gmem_to_smem(a.tile([i, 0]), a_s, bar);
                copy_gmem_to_smem(b.tile([0, j]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s);
                #wait
                copy_gmem_to_smem(a.tile([i, 1]), a_s, bar);
                copy_gmem_to_smem(b.tile([1, j]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s);
                wgmma_wait(0);
            },
        )
    };
    let under = "`a_s` is overwritten here (a TMA load) while a wgmma that reads it may still be in flight";
    assert_n(errors(one_wg(), overwrite(quote!())), 2, under);
    assert_none(errors(one_wg(), overwrite(quote!(wgmma_wait(0);))));
    // `wgmma_wait(1)` leaves the one group in flight.
    assert_n(errors(one_wg(), overwrite(quote!(wgmma_wait(1);))), 2, under);
}

#[test]
fn an_accumulator_read_under_its_wgmma() {
    let read = |wait: TokenStream| {
        gemm(
            quote!(2),
            quote! {
                copy_gmem_to_smem(a.tile([i, 0]), a_s, bar);
                copy_gmem_to_smem(b.tile([0, j]), b_s, bar);
                barrier_wait(bar);
                wgmma(acc, a_s, b_s);
                #wait
            },
        )
    };
    assert_one(errors(one_wg(), read(quote!())), "the accumulator `acc` is read here while a wgmma");
    assert_none(errors(one_wg(), read(quote!(wgmma_wait(0);))));
}

#[test]
fn an_accumulator_window_apart_from_the_wgmma_may_be_read() {
    let body = quote! {
        run_scoped(|acc: Acc<f32, 64, 128>, a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>,
                    bar: Barrier<2>| {
            copy_gmem_to_smem(a.tile([i, 0]), a_s, bar);
            copy_gmem_to_smem(b.tile([0, j]), b_s, bar);
            barrier_wait(bar);
            wgmma(acc.slice([.., 0..64]), a_s, b_s);
            c.tile([i, j], [64, 64]).store(acc.slice([.., 64..128]).load());
            wgmma_wait(0);
            c.tile([i, j], [64, 64]).store(acc.slice([.., 0..64]).load());
        });
    };
    assert_none(errors(one_wg(), body));
}

/// `x` through shared memory and back out by TMA, with `between` after the register store.
fn round_trip(between: TokenStream) -> TokenStream {
    quote! {
        run_scoped(|x_s: Smem<f32, 64, 64>, y_s: Smem<f32, 64, 64>, bar: Barrier| {
            copy_gmem_to_smem(x.tile([i, j]), x_s, bar);
            barrier_wait(bar);
            y_s.store(x_s.load(Layout::Strided) * 2.0);
            #between
        });
    }
}

#[test]
fn a_tma_store_of_uncommitted_register_stores() {
    let uncommitted = round_trip(quote!(copy_smem_to_gmem(y_s, y.tile([i, j])); wait_smem_to_gmem(0);));
    assert_one(
        errors(one_wg(), uncommitted),
        "`y_s` is read by a TMA store here, but the register stores into it are not committed",
    );
    let committed = round_trip(quote!(commit_smem(); copy_smem_to_gmem(y_s, y.tile([i, j])); wait_smem_to_gmem(0);));
    assert_none(errors(one_wg(), committed));
}

#[test]
fn a_buffer_rewritten_under_its_tma_store() {
    let rewrite = |wait: TokenStream| {
        round_trip(quote! {
            commit_smem();
            copy_smem_to_gmem(y_s, y.tile([i, j]));
            #wait
            y_s.store(splat::<f32>(0.0, [64, 64]));
        })
    };
    assert_one(
        errors(one_wg(), rewrite(quote!())),
        "`y_s` is overwritten here (a register store) while a TMA store that reads it",
    );
    assert_none(errors(one_wg(), rewrite(quote!(wait_smem_to_gmem(0);))));
}

#[test]
fn warpgroups_ordered_by_a_barrier_or_not() {
    let handoff = |arrive: TokenStream, wait: TokenStream| {
        quote! {
            run_scoped(collective_axes = [wg], |buf: Smem<f32, 64, 64>, ready: Barrier| {
                if warpgroup_id() == 0 {
                    buf.store(x.tile([i, j], [64, 64]).load(Layout::Strided));
                    #arrive
                } else {
                    #wait
                    y.tile([i, j], [64, 64]).store(buf.load(Layout::Strided));
                }
            });
        }
    };
    assert_none(errors(two_wg(), handoff(quote!(barrier_arrive(ready);), quote!(barrier_wait(ready);))));
    assert_one(
        errors(two_wg(), handoff(quote!(), quote!())),
        "`buf` is written by warpgroup 0 (a register store) and read here by warpgroup 1, with no barrier between them",
    );
}

/// The lowering's table of origins lines up with the program: each expression's syntax node is
/// the same construct.
#[test]
fn origins_line_up_with_the_program() {
    let item = quote! {
        fn k(a: Gmem<bf16, M, K>, b: Gmem<bf16, K, N>, c: GmemMut<f32, M, N>) {
            let (i, j) = (program_id(0), program_id(1));
            run_scoped(|acc: Acc<f32, 64, 64>, a_s: Smem<bf16, 64, 64, Swizzle128>, b_s: Smem<bf16, 64, 64, Swizzle128>,
                        bar: Barrier<2>| {
                for k in 0..K / 64 {
                    copy_gmem_to_smem(a.tile([i, k]), a_s, bar);
                    copy_gmem_to_smem(b.tile([k, j]), b_s, bar);
                    barrier_wait(bar);
                    wgmma(acc, a_s, b_s);
                    wgmma_wait(0);
                }
                let scale = if i > 0 { 0.5 } else { -1.0 };
                c.tile([i, j]).store(acc.load() * scale + 1);
            });
        }
    };
    let compiled = crate::compile(quote!(grid = (M / 64, N / 64)), item).expect("the kernel compiles");
    let (program, origins) = crate::lower::lower_with_origins(&compiled.kernel, &compiled.facts).expect("lowered");
    let mut ir = Vec::new();
    program.for_each_expr(&mut |e| ir.push(e.kind.clone()));
    assert_eq!(ir.len(), origins.exprs.len());
    for (kind, origin) in ir.iter().zip(&origins.exprs) {
        assert!(same_construct(kind, &origin.kind), "{kind:?} lowered from {:?}", origin.kind);
    }
}

/// Whether a program expression is the lowering of a syntax node (of the kinds the test uses).
fn same_construct(ir: &tessel_ir::program::ExprKind, ast: &crate::syntax::ast::ExprKind) -> bool {
    use crate::syntax::ast::ExprKind as A;
    use tessel_ir::program::ExprKind as I;
    matches!(
        (ir, ast),
        (I::Lit(_), A::Int(..) | A::Float(..) | A::Bool(_))
            | (I::Local(_) | I::Const(_) | I::Dim(_), A::Var(_))
            | (I::Tuple(_), A::Tuple(_))
            | (I::If { .. }, A::If { .. })
            | (I::Unary { .. }, A::Unary { .. })
            | (I::Binary { .. }, A::Binary { .. })
            | (I::ProgramId(_), A::ProgramId(_))
            | (I::Tile { .. }, A::Tile { .. })
            | (I::Load { .. }, A::Load { .. })
            | (I::Store { .. }, A::Store { .. })
            | (I::Wgmma { .. }, A::Wgmma { .. })
            | (I::WgmmaWait(_), A::WgmmaWait(_))
            | (I::CopyIn { .. }, A::CopyGmemToSmem { .. })
            | (I::Wait { .. }, A::BarrierWait(..))
            | (I::RunScoped { .. }, A::RunScoped { .. })
    )
}

#[test]
fn wait_smem_to_gmem_leaves_the_most_recent_stores_in_flight() {
    let rewrite = |which: TokenStream| {
        quote! {
            run_scoped(|y_s: Smem<f32, 2, 64, 64>| {
                y_s.at(0).store(splat::<f32>(0.0, [64, 64]));
                commit_smem();
                copy_smem_to_gmem(y_s.at(0), y.tile([i, j]));
                y_s.at(1).store(splat::<f32>(1.0, [64, 64]));
                commit_smem();
                copy_smem_to_gmem(y_s.at(1), y.tile([i, j + 1]));
                wait_smem_to_gmem(1);
                y_s.at(#which).store(splat::<f32>(2.0, [64, 64]));
                wait_smem_to_gmem(0);
            });
        }
    };
    assert_none(errors(one_wg(), rewrite(quote!(0))));
    assert_one(
        errors(one_wg(), rewrite(quote!(1))),
        "`y_s.at(1)` is overwritten here (a register store) while a TMA store",
    );
}

#[test]
fn a_semaphore_wait_orders_warpgroups() {
    let item = quote! {
        fn k(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>, sems: GmemMut<u32, 4>) {
            let (i, j) = (program_id(0), program_id(1));
            run_scoped(collective_axes = [wg], |buf: Smem<f32, 64, 64>| {
                if warpgroup_id() == 0 {
                    buf.store(x.tile([i, j], [64, 64]).load(Layout::Strided));
                    semaphore_signal(sems, 0);
                } else {
                    semaphore_wait(sems, 0);
                    y.tile([i, j], [64, 64]).store(buf.load(Layout::Strided));
                }
            });
        }
    };
    assert!(crate::compile(two_wg(), item).is_ok());
}

#[test]
fn loops_of_a_few_turns_are_walked_turn_by_turn() {
    let body = |wait_at: TokenStream| {
        quote! {
            run_scoped(|x_s: Smem<f32, 2, 64, 64>, bars: Barrier<1, 2>| {
                for s in 0..2 {
                    copy_gmem_to_smem(x.tile([i, 2 * j + s]), x_s.at(s), bars.at(s));
                }
                for s in 0..2 {
                    barrier_wait(bars.at(#wait_at));
                    y.tile([i, 2 * j + s], [64, 64]).store(x_s.at(s).load(Layout::Strided));
                }
            });
        }
    };
    assert_none(errors(one_wg(), body(quote!(s))));
    // Turn 1 waits on `bars.at(0)` again: a second phase that nothing arrives on, after a read
    // of `x_s.at(1)` before its wait.
    let wrong = errors(one_wg(), body(quote!(0)));
    assert!(wrong.iter().any(|e| e.contains("`x_s.at(1)` is read here")), "{wrong:#?}");
}

#[test]
fn a_buffer_handed_to_a_kernel_function_is_the_caller_s() {
    let module = quote! {
        mod m {
            use tessel::prelude::*;

            fn sum(buf: Smem<f32, 64, 64>) -> Regs<f32, 64, 64, Layout::Strided> {
                buf.load(Layout::Strided) * 2.0
            }

            #[kernel(grid = (M / 64, N / 64))]
            fn k(x: Gmem<f32, M, N>, y: GmemMut<f32, M, N>) {
                let (i, j) = (program_id(0), program_id(1));
                run_scoped(|x_s: Smem<f32, 64, 64>, bar: Barrier| {
                    copy_gmem_to_smem(x.tile([i, j]), x_s, bar);
                    let v = sum(x_s);
                    barrier_wait(bar);
                    y.tile([i, j], [64, 64]).store(v);
                });
            }
        }
    };
    let errors = match crate::module::compile(TokenStream::new(), module) {
        Ok(_) => Vec::new(),
        Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
    };
    assert!(errors.iter().any(|e| e.contains("`x_s` is read here (a register load)")), "{errors:#?}");
}

#[test]
fn a_group_in_flight_across_a_loop_settles() {
    // The wgmma before the loop stays in flight while the loop issues more: its count of younger
    // groups grows each turn until it is "many", and the walk ends.
    let body = gemm(
        quote!(2),
        quote! {
            copy_gmem_to_smem(a.tile([i, 0]), a_s, bar);
            copy_gmem_to_smem(b.tile([0, j]), b_s, bar);
            barrier_wait(bar);
            wgmma(acc, a_s, b_s);
            for k in 0..K / 64 {
                wgmma(acc, a_s, b_s);
            }
            wgmma_wait(0);
        },
    );
    assert_none(errors(one_wg(), body));
}

#[test]
fn deep_loop_nests_are_walked_quickly() {
    let body = quote! {
        run_scoped(|x_s: Smem<f32, 64, 64>, bar: Barrier| {
            for a in 0..M {
                for b in 0..N {
                    for c in 0..M {
                        for d in 0..N {
                            for e in 0..M {
                                if a + b + c + d + e > 3 {
                                    copy_gmem_to_smem(x.tile([i, j]), x_s, bar);
                                    barrier_wait(bar);
                                }
                            }
                        }
                    }
                }
            }
        });
    };
    let start = std::time::Instant::now();
    assert_none(errors(one_wg(), body));
    assert!(start.elapsed() < std::time::Duration::from_secs(5), "took {:?}", start.elapsed());
}

/// The errors of a kernel of two devices over `body`, with `x` to send, a `#[peers]` array `buf`
/// and `#[peers]` counters `ready` (and plain ones, `local`), the TMA store into the next device's
/// `buf` issued first from `t`.
fn peer_store(body: TokenStream) -> Vec<String> {
    let item = quote! {
        fn k(x: Gmem<f32, M, 64>, #[peers] buf: GmemMut<f32, M, 64>, #[peers] ready: GmemMut<u32, T>, local: GmemMut<u32, T>) {
            let i = program_id(0);
            let next = (device_id() + 1) % 2;
            run_scoped(|t: Smem<f32, 64, 64>, bar: Barrier| {
                copy_gmem_to_smem(x.tile([i, 0]), t, bar);
                barrier_wait(bar);
                copy_smem_to_gmem(t, remote(buf, next).tile([i, 0]));
                #body
            });
        }
    };
    match crate::compile(quote!(grid = (M / 64), devices = 2), item) {
        Ok(_) => Vec::new(),
        Err(e) => e.into_iter().map(|e| e.to_string().lines().next().unwrap_or_default().to_string()).collect(),
    }
}

const NOT_COMPLETE: &str =
    "this signal publishes a TMA store into another device's `buf` whose writes may not be complete";

#[test]
fn a_peer_store_is_complete_before_the_signal_that_publishes_it() {
    let read_only = quote!(wait_smem_to_gmem(0); semaphore_signal(remote(ready, next), i););
    assert_one(peer_store(read_only), NOT_COMPLETE);
    let none = quote!(semaphore_signal(remote(ready, next), i); wait_smem_to_gmem(0, complete = true););
    assert_one(peer_store(none), NOT_COMPLETE);
    let complete = quote!(wait_smem_to_gmem(0, complete = true); semaphore_signal(remote(ready, next), i););
    assert_none(peer_store(complete));
    // A signal of this device's own `#[peers]` counter is of system scope too.
    let own = quote!(wait_smem_to_gmem(0); semaphore_signal(ready, i););
    assert_one(peer_store(own), NOT_COMPLETE);
}

#[test]
fn a_wait_that_leaves_the_peer_store_in_flight_is_not_enough() {
    // A second (local) store after it: `wait_smem_to_gmem(1, ..)` completes only the first.
    let later = |n: u32| {
        quote! {
            copy_smem_to_gmem(t, buf.tile([i, 0]));
            wait_smem_to_gmem(#n, complete = true);
            semaphore_signal(remote(ready, next), i);
        }
    };
    assert_none(peer_store(later(1)));
    let reverse = quote! {
        wait_smem_to_gmem(0, complete = true);
        copy_smem_to_gmem(t, remote(buf, next).tile([i + 1, 0]));
        wait_smem_to_gmem(1, complete = true);
        semaphore_signal(remote(ready, next), i);
    };
    assert_one(peer_store(reverse), NOT_COMPLETE);
}

#[test]
fn what_the_peer_store_check_leaves_alone() {
    // A signal of a plain (GPU-scope) counter publishes nothing to another device.
    assert_none(peer_store(quote!(wait_smem_to_gmem(0); semaphore_signal(local, i);)));
    // A completing wait on one path only: the check does not guess.
    let branch = quote! {
        if i > 0 { wait_smem_to_gmem(0, complete = true); } else { wait_smem_to_gmem(0); }
        semaphore_signal(remote(ready, next), i);
    };
    assert_none(peer_store(branch));
    // Reported once, at the first signal after the store.
    let twice = quote! {
        wait_smem_to_gmem(0);
        semaphore_signal(remote(ready, next), i);
        semaphore_signal(remote(ready, next), i);
    };
    assert_one(peer_store(twice), NOT_COMPLETE);
}
