//! The benchmarks' results: a table of strings (a header line, then one line per case), written
//! as CSV and printed after the verdict, last, so that a run's log ends with it.

use std::path::Path;

/// Writes `table` as CSV to `file` in `out_dir`, prints whether every case `passed` (each result
/// within `tolerance` of its reference), then the table, right-aligned, each column as wide as
/// its widest cell but for the last `free` columns, which are printed as they are.
pub fn report<const N: usize>(
    table: &[[String; N]],
    out_dir: &Path,
    file: &str,
    passed: bool,
    tolerance: f64,
    free: usize,
) {
    let csv: String = table.iter().map(|cells| cells.join(",") + "\n").collect();
    let path = out_dir.join(file);
    match std::fs::create_dir_all(out_dir).and_then(|()| std::fs::write(&path, csv)) {
        Ok(()) => println!("wrote {}", path.display()),
        Err(err) => println!("could not write {}: {err}", path.display()),
    }
    match passed {
        true => println!("all results within {tolerance:.0e} of the reference"),
        false => println!("FAILED: a run failed or a result is off by more than {tolerance:.0e} (lines above)"),
    }
    println!();
    let mut widths = [0; N];
    for cells in table {
        for (width, cell) in widths.iter_mut().zip(cells).take(N.saturating_sub(free)) {
            *width = (*width).max(cell.len());
        }
    }
    for cells in table {
        let padded: Vec<String> = cells.iter().zip(widths).map(|(cell, w)| format!("{cell:>w$}")).collect();
        println!("{}", padded.join("  "));
    }
}
