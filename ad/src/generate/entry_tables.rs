//! Entry tables: integer values of a loop that repeat from one entry of the
//! loop to the next, kept once per iteration number instead of once per
//! instance.
//!
//! A loop nested in others is entered many times per call (GMM's column
//! loop of the triangular product, once per point and component). When
//! every branch in it, and every integer value it computes, follows from
//! constants, from values fixed for the whole call and from the loop's own
//! counters (no load, no call), iteration `k` computes the same values on
//! every entry: the running offset into the packed triangle, which way each
//! branch went. Such a value goes to a table of the loop's iterations,
//! written again (with the same values) on each entry and read in the
//! reverse sweep at the iteration number it reverses, instead of to the
//! loop's tape, which holds a record per instance of the whole call. The
//! table's size is the loop's proven bound of header visits per entry.

use std::collections::HashSet;

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

use crate::generate::reverse::state::LoopTape;
use crate::generate::reverse::Reverse;
use crate::ir::{self, Block, Value};

/// Tables of loops with more iterations per entry than this are not made.
const MOST_ROWS: u64 = 1 << 16;

impl Reverse<'_> {
    /// Whether forward value `n`, computed in loop `l` (its innermost),
    /// goes to `l`'s entry table (see the module's comment).
    pub(super) fn in_entry_table(&mut self, n: Value, l: usize) -> bool {
        if self.split.is_some() || self.g.ablation().no_entry_tables || !ir::is_int(ir::type_of(n)) {
            return false;
        }
        if !self.entry_invariants.contains_key(&l) {
            let found = self.entry_invariant_values(l);
            self.entry_invariants.insert(l, found);
        }
        self.entry_invariants[&l].as_ref().is_some_and(|s| s.contains(&n))
    }

    /// The forward values of loop `l` that are the same in iteration `k`
    /// of every entry, or `None` when the loop's branches or trip count may
    /// differ between entries (or its table would be unbounded).
    fn entry_invariant_values(&self, l: usize) -> Option<HashSet<Value>> {
        if !self.entry_instance.contains_key(&l) || self.cfg.loops[l].parent.is_none() {
            return None;
        }
        let rows = crate::ir::trip::visits_per_entry(&self.cfg, &self.cfg.loops[l])?;
        if rows > MOST_ROWS {
            return None;
        }
        let inside: &HashSet<Block> = &self.cfg.loops[l].blocks;
        // Blocks of the loops around `l`: what they compute changes between entries.
        let mut around: HashSet<Block> = HashSet::new();
        let mut at = self.cfg.loops[l].parent;
        while let Some(p) = at {
            around.extend(self.cfg.loops[p].blocks.iter().copied());
            at = self.cfg.loops[p].parent;
        }
        let forward_blocks: Vec<Block> = inside.iter().map(|b| self.fwd[b]).collect();
        // Whether an operand is the same on every entry, given `invariant`.
        let fixed_outside = |v: Value| -> bool {
            if !ir::is_instruction(v) {
                return true;
            }
            match self.prep_block.get(&ir::parent_block(v)) {
                Some(b) if inside.contains(b) => false,
                Some(b) => !around.contains(b),
                None => self.available_as_is(v),
            }
        };
        let invariant = ir::integers_made_of(forward_blocks.iter().flat_map(|b| ir::instructions(*b)), fixed_outside);
        let fixed = |v: Value, invariant: &HashSet<Value>| invariant.contains(&v) || fixed_outside(v);
        // Every branch the same way on every entry (so are phis' choices):
        // the primal's branches, whose conditions the forward sweep computes.
        for b in inside {
            let t = ir::terminator(*b);
            let image = |v: Value| self.map.get(&v).copied().unwrap_or(v);
            let ok = match ir::opcode(t) {
                LLVMOpcode::LLVMBr if ir::operand_count(t) == 1 => true,
                LLVMOpcode::LLVMBr | LLVMOpcode::LLVMSwitch => fixed(image(ir::operand(t, 0)), &invariant),
                LLVMOpcode::LLVMUnreachable => true,
                _ => false,
            };
            if !ok {
                return None;
            }
        }
        Some(invariant)
    }

    /// Reverse sweep: value `n` of loop `l` read from `l`'s entry table at
    /// the iteration being reversed (written there in the forward sweep the
    /// first time it is asked for).
    pub(super) fn fetch_from_entry_table(&mut self, n: Value, l: usize) -> Value {
        let t = ir::type_of(n);
        let offset = match self.entry_table_fields.get(&n) {
            Some(o) => *o,
            None => self.write_to_entry_table(n, l, t),
        };
        let table = self.entry_tables[&l];
        let k = self.iteration(l).expect("an entry table's loop records its entries");
        let record = table.record(self.e.ctx, self.e.b, k);
        let p = crate::generate::reverse::tape::field(self.e.ctx, self.e.b, record, offset);
        let x = self.e.load(t, p);
        self.tape_accesses.push(x);
        x
    }

    /// Forward sweep: `n` stored in row `instance - first instance of the
    /// entry` of `l`'s table, at the end of its block.
    fn write_to_entry_table(&mut self, n: Value, l: usize, t: ir::Type) -> u64 {
        let mut table = match self.entry_tables.get(&l) {
            Some(table) => *table,
            None => {
                let rows = crate::ir::trip::visits_per_entry(&self.cfg, &self.cfg.loops[l]).expect("checked");
                LoopTape::table(self.e.ctx, self.slots, rows)
            }
        };
        let size = unsafe {
            let layout = llvm_sys::target::LLVMGetModuleDataLayout(self.g.module());
            llvm_sys::target::LLVMABISizeOfType(layout, t)
        };
        let offset = table.place(size, size.clamp(1, 8));
        self.entry_tables.insert(l, table);
        unsafe {
            let tmp = LLVMCreateBuilderInContext(self.e.ctx);
            LLVMPositionBuilderBefore(tmp, ir::terminator(ir::parent_block(n)));
            let row = LLVMBuildSub(tmp, self.instance[&l], self.entry_instance[&l], c"row".as_ptr());
            let record = table.record(self.e.ctx, tmp, row);
            let p = crate::generate::reverse::tape::field(self.e.ctx, tmp, record, offset);
            let s = LLVMBuildStore(tmp, n, p);
            self.tape_accesses.push(s);
            LLVMDisposeBuilder(tmp);
        }
        self.entry_table_fields.insert(n, offset);
        offset
    }
}
