//! The interpreter's semaphore wait limit counts time in which the launch makes no progress, not
//! time spent waiting: a predecessor that computes for longer than the limit is waited for, and a
//! wait that nothing will end still fails. `TESSEL_SEMAPHORE_WAIT_MS` sets the limit.
//!
//! A file of its own, so a process of its own: the test sets the environment variable, which every
//! launch in the process reads.

use std::env;
use std::time::{Duration, Instant};
use tessel::prelude::*;

const LIMIT_VAR: &str = "TESSEL_SEMAPHORE_WAIT_MS";

/// Program 0 sums the 64-column tiles of `x` (a long loop), stores the sum and signals; program 1
/// waits for the signal, then copies the sum to `copy`.
#[kernel(grid = (2,))]
fn slow_then_signal(x: Gmem<f32, 64, C>, sum: GmemMut<f32, 64, 64>, copy: GmemMut<f32, 64, 64>, sems: GmemMut<u32, 1>) {
    if program_id(0) == 0 {
        let mut acc = x.tile([0, 0], [64, 64]).load(Layout::Wgmma);
        for k in 1..C / 64 {
            acc = acc + x.tile([0, k], [64, 64]).load(Layout::Wgmma);
        }
        sum.tile([0, 0]).store(acc);
        semaphore_signal(sems, 0);
    } else {
        semaphore_wait(sems, 0);
        copy.tile([0, 0]).store(sum.tile([0, 0], [64, 64]).load(Layout::Wgmma));
    }
}

/// A wait that nothing will signal.
#[kernel(grid = (1,))]
fn waits_alone(sems: GmemMut<u32, 1>) {
    semaphore_wait(sems, 0);
}

/// Two devices, each waiting for the other's signal before it sends its own: neither ever does.
#[kernel(grid = (1,), devices = 2)]
fn wait_for_each_other(#[peers] sems: GmemMut<u32, 1>) {
    semaphore_wait(sems, 0);
    semaphore_signal(remote(sems, 1 - device_id()), 0);
}

/// Runs `slow_then_signal` on `x` (64 x `cols`, every element 1), checks both outputs and the
/// semaphore, and returns how long it took.
fn run_slow(x: &HostTensor<f32>, cols: usize) -> Duration {
    let mut sum = HostTensor::new([64, 64], vec![f32::NAN; 64 * 64]).unwrap();
    let mut copy = HostTensor::new([64, 64], vec![f32::NAN; 64 * 64]).unwrap();
    let mut sems = HostTensor::<u32>::zeros([1]).unwrap();
    let start = Instant::now();
    slow_then_signal::interpret(x, &mut sum, &mut copy, &mut sems).unwrap();
    let took = start.elapsed();
    let tiles = (cols / 64) as f32;
    assert!(sum.data().iter().all(|&s| s == tiles), "the sum is not {tiles} everywhere");
    assert_eq!(sum.data(), copy.data(), "program 1 copied before program 0 stored");
    assert_eq!(sems.data(), &[0], "the signal and the wait do not balance");
    took
}

/// Sets the limit for the rest of the process.
fn set_limit(value: &str) {
    // SAFETY: this file's only test runs on one thread, and no other thread of the process reads
    // the environment while it changes.
    unsafe { env::set_var(LIMIT_VAR, value) };
}

#[test]
fn the_wait_limit_counts_time_without_progress() {
    let cols = 64 * 800;
    let x = HostTensor::new([64, cols], vec![1.0f32; 64 * cols]).unwrap();
    // With the default limit (10 s): how long program 0's loop takes here.
    let alone = run_slow(&x, cols);

    // A limit well under that (with room for the host to pause a thread now and then): program 1
    // waits about `alone`, several times the limit, but program 0 makes progress all along, so the
    // wait goes on.
    let limit = (alone / 5).max(Duration::from_millis(1));
    set_limit(&limit.as_millis().to_string());
    let waited = run_slow(&x, cols);
    assert!(waited > 2 * limit, "the launch took {waited:?}, not much longer than the {limit:?} limit");

    // Without progress, the same limit ends a wait nothing signals, long before the default.
    let mut sems = HostTensor::<u32>::zeros([1]).unwrap();
    let start = Instant::now();
    let msg = waits_alone::interpret(&mut sems).unwrap_err().to_string();
    assert!(start.elapsed() < Duration::from_secs(5), "took {:?}", start.elapsed());
    let after = format!("after {} ms in which no program of the launch made progress", limit.as_millis());
    assert!(msg.contains(&after), "{msg}");
    assert!(msg.contains("semaphore 0 of `sems`, which holds 0 of the 1 it waits for"), "{msg}");

    // Devices that wait for each other deadlock: reported the same way, naming the device.
    let mut pair = vec![HostTensor::<u32>::zeros([1]).unwrap(), HostTensor::<u32>::zeros([1]).unwrap()];
    let start = Instant::now();
    let msg = wait_for_each_other::interpret(&mut pair).unwrap_err().to_string();
    assert!(start.elapsed() < Duration::from_secs(5), "took {:?}", start.elapsed());
    assert!(msg.contains(&after), "{msg}");
    assert!(msg.contains("semaphore 0 of `sems` of device "), "{msg}");

    // A limit that is not a number of milliseconds is an error at launch.
    set_limit("ten seconds");
    let err = waits_alone::interpret(&mut sems).unwrap_err();
    assert!(matches!(err, Error::Interpreter(_)), "{err}");
    assert!(err.to_string().contains("TESSEL_SEMAPHORE_WAIT_MS=\"ten seconds\""), "{err}");
}
