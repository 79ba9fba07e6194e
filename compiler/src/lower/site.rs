//! The program's source-location table: where each memory and synchronization operation is
//! written (`Program::sites`), so that the interpreter's messages (a data race names both
//! accesses) point at the kernel's source. The program itself stays span-free: an operation holds
//! an index into the table, and the table holds each distinct `file:line:column` once.

use std::collections::HashMap;

use crate::syntax::ast;
use tessel_ir::program::{ExprKind, SourceLoc};

/// The table as the lowering fills it.
#[derive(Default)]
pub(super) struct Sites {
    files: Vec<String>,
    locs: Vec<SourceLoc>,
    index: HashMap<SourceLoc, u32>,
}

/// Whether the interpreter may name an operation in a message: it reads or writes memory, or
/// orders such accesses.
fn has_site(kind: &ExprKind) -> bool {
    use ExprKind as K;
    match kind {
        K::Load { .. }
        | K::Store { .. }
        | K::AtomicAdd { .. }
        | K::Wgmma { .. }
        | K::WgmmaWait(_)
        | K::CopyIn { .. }
        | K::CopyOut { .. }
        | K::CopyToPeer { .. }
        | K::CommitSmem
        | K::WaitSmemToGmem { .. }
        | K::Arrive { .. }
        | K::Wait { .. }
        | K::Semaphore { .. }
        | K::RunScoped { .. } => true,
        K::Lit(_)
        | K::Local(_)
        | K::Const(_)
        | K::Dim(_)
        | K::Tuple(_)
        | K::If { .. }
        | K::Unary { .. }
        | K::Binary { .. }
        | K::ScalarCast { .. }
        | K::ProgramId(_)
        | K::NumPrograms(_)
        | K::WarpgroupId
        | K::ClusterRank
        | K::DeviceId
        | K::GlobalTimer
        | K::Remote { .. }
        | K::Tile { .. }
        | K::At { .. }
        | K::Slice { .. }
        | K::Transpose { .. }
        | K::Splat { .. }
        | K::Iota { .. }
        | K::Mma { .. }
        | K::SetMaxRegisters(_)
        | K::RunState { .. }
        | K::Math { .. }
        | K::Math2 { .. }
        | K::Fma(_)
        | K::Cast { .. }
        | K::Bitcast { .. }
        | K::Reduce { .. }
        | K::Broadcast { .. }
        | K::ToLayout(_)
        | K::LayoutCast(_) => false,
    }
}

impl Sites {
    /// The site of `e` (lowered to `kind`): its first token's place, for the operations the
    /// interpreter names.
    pub(super) fn of(&mut self, e: &ast::Expr, kind: &ExprKind) -> Option<u32> {
        if !has_site(kind) {
            return None;
        }
        // `file()` and `start()` read the compiler's span (Rust 1.88 and later); an older compiler
        // gives a placeholder file and line 0. Columns count from 0 there, from 1 in messages.
        let file = e.span.file();
        let start = e.span.start();
        let file = match self.files.iter().position(|f| *f == file) {
            Some(i) => i,
            None => {
                self.files.push(file);
                self.files.len() - 1
            }
        };
        let loc = SourceLoc { file: file as u32, line: start.line as u32, column: start.column as u32 + 1 };
        let next = self.locs.len() as u32;
        let id = *self.index.entry(loc).or_insert(next);
        if id == next {
            self.locs.push(loc);
        }
        Some(id)
    }

    /// The files and the locations, for `Program::files` and `Program::sites`.
    pub(super) fn finish(&mut self) -> (Vec<String>, Vec<SourceLoc>) {
        (std::mem::take(&mut self.files), std::mem::take(&mut self.locs))
    }
}

#[cfg(test)]
mod tests {
    use tessel_ir::program::ExprKind;

    #[test]
    fn memory_operations_get_the_place_of_their_first_token() {
        let attr = "grid = (1)".parse().unwrap();
        let item = "fn k(x: Gmem<f32, 64, 32>, y: GmemMut<f32, 64, 32>) {\n    \
                    let v = x.tile([0, 0], [64, 32]).load(Layout::Strided);\n    \
                    y.tile([0, 0], [64, 32]).store(v + 1.0);\n}"
            .parse()
            .unwrap();
        let prog = crate::compile(attr, item).unwrap().program().unwrap();
        let mut seen = Vec::new();
        prog.for_each_expr(&mut |e| {
            if let Some(site) = e.site {
                let loc = prog.sites[site as usize];
                seen.push((matches!(e.kind, ExprKind::Load { .. }), loc.line, loc.column));
            }
        });
        // The load (`x.tile(..).load(..)`) and the store (`y.tile(..).store(..)`); nothing else.
        assert_eq!(seen, [(true, 2, 13), (false, 3, 5)]);
        assert_eq!(prog.files.len(), 1);
    }
}
