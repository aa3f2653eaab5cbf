//! The state of one reverse derivative while it is generated: `Reverse`,
//! and the parts' records it holds (loop tapes, forwarded stores, the
//! replay's blocks, parallel regions' and checkpoints' calls). The parts'
//! code (`tape`, `stored_values`, `replay`, `parallel`, `checkpoint`,
//! `sum_loops`) and the sweeps (`mod.rs`) are methods on it; the records
//! are here so that those files need only this one, not each other.

use std::collections::HashMap;

use llvm_sys::prelude::LLVMBuilderRef;

use crate::analysis::memory::Memory;
use crate::build::emit::Emitter;
use crate::generate::body::{Shadows, SplitIo};
use crate::ir::cfg::Cfg;
use crate::ir::{self, Block, Type, Value};
use crate::surface::request::Derivatives;

/// State of one reverse-mode function being built.
pub(crate) struct Reverse<'g> {
    pub(in crate::generate) g: &'g mut dyn Derivatives,
    pub(in crate::generate) e: Emitter,
    pub(in crate::generate) cfg: Cfg,
    pub(in crate::generate) mem: Memory,
    /// Builder parked before the terminator of the slot block.
    pub(in crate::generate) slots: LLVMBuilderRef,
    /// The slot block (first block; it dominates everything).
    pub(in crate::generate) slot_block: Block,
    /// Primal value in the function being built, per preprocessed value.
    pub(in crate::generate) map: HashMap<Value, Value>,
    pub(in crate::generate) sh: Shadows,
    pub(in crate::generate) fwd: HashMap<Block, Block>,
    pub(in crate::generate) rev: HashMap<Block, Block>,
    /// Adjoint slot of each value that received a contribution.
    pub(in crate::generate) adj: HashMap<Value, Value>,
    /// Adjoints of block-local values (see `is_block_local`) while their
    /// block is being reversed.
    pub(in crate::generate) local_adj: HashMap<Value, Value>,
    /// Slot caching a forward-sweep value for the reverse sweep.
    pub(in crate::generate) cache: HashMap<Value, Value>,
    /// Cached values already loaded in a reverse block.
    pub(in crate::generate) loaded: HashMap<(Block, Value), Value>,
    /// Which predecessor a block was entered from (a phi in the forward
    /// sweep), for blocks with several.
    pub(in crate::generate) selector: HashMap<Block, Value>,
    /// The primal block of each forward-sweep block.
    pub(in crate::generate) prep_block: HashMap<Block, Block>,
    /// Per loop: a slot counting header executions in the forward sweep,
    /// counted back down in the reverse sweep.
    pub(in crate::generate) count: Vec<Value>,
    /// Per loop: the instance (header execution) whose reverse is running.
    pub(in crate::generate) rev_instance: Vec<Value>,
    /// Per loop: the instance number in the forward sweep (in the header).
    pub(in crate::generate) instance: HashMap<usize, Value>,
    /// Per loop: the first instance number of the current entry into the
    /// loop, read in its preheader (saved per entry, not per iteration).
    pub(in crate::generate) entry_instance: HashMap<usize, Value>,
    /// Per loop: the tape length its entry needs, when its trip count is
    /// known in the preheader (computed there on first use).
    pub(in crate::generate) reserved: HashMap<usize, Option<Value>>,
    /// Every load and store of a loop tape's records (see `mark_tape_scope`).
    pub(in crate::generate) tape_accesses: Vec<Value>,
    /// Slot of the list of shadows freed at the end (see `freed_shadows`).
    pub(crate) freed_shadows: Option<Value>,
    /// The function's allocations whose addresses are put in memory (see
    /// `freed_shadows`), found on first use.
    pub(crate) linked_blocks: Option<std::collections::HashSet<Value>>,
    /// Per loop: its tape of per-instance records.
    pub(in crate::generate) loop_tapes: HashMap<usize, LoopTape>,
    /// The seed of the result, where it is known from the start (see
    /// `sum_loops`).
    pub(in crate::generate) sum_seed: Option<Value>,
    /// Whether the function is a sum loop's step (see `sum_loops`).
    pub(in crate::generate) in_sum_step: bool,
    /// Per call of a sum loop's step: per float argument, its operand
    /// number and the slot summing its adjoints (see `sum_loops`).
    pub(in crate::generate) sum_step_calls: HashMap<Value, Vec<(u32, Value)>>,
    /// Per loop: the values the same on every entry (see `entry_tables`),
    /// found on first use; `None` when its entries may differ.
    pub(in crate::generate) entry_invariants: HashMap<usize, Option<std::collections::HashSet<Value>>>,
    /// Per loop: its entry table, one row per iteration of an entry.
    pub(in crate::generate) entry_tables: HashMap<usize, LoopTape>,
    /// Per value in an entry table: its field's offset in the row.
    pub(in crate::generate) entry_table_fields: HashMap<Value, u64>,
    /// Per taped value: its loop and its field's offset in the record.
    pub(in crate::generate) tape_fields: HashMap<Value, (usize, u64)>,
    /// Instance numbers already loaded in a reverse block.
    pub(in crate::generate) loaded_instance: HashMap<(Block, usize), Value>,
    /// The address of the record of loop `l`'s tape that a block reads
    /// (reverse sweep) or writes (forward sweep), computed once per block:
    /// a function of thousands of statements tapes thousands of values per
    /// record, and one address each would be most of the code handed to the
    /// post-AD pipeline.
    pub(in crate::generate) records: HashMap<(Block, usize), Value>,
    /// Forward blocks found large enough to write taped values where they
    /// are computed, counted once each.
    pub(in crate::generate) large_blocks: HashMap<Block, bool>,
    /// While a stored value is computed again for a load (see
    /// `stored_values`): what it is, and the reading loop's counter now.
    pub(in crate::generate) forwarding: Option<(Forwarding, Value)>,
    /// The function writes no memory its caller can see.
    pub(in crate::generate) inputs_unchanged: bool,
    /// Arguments whose memory nothing writes while the derivative runs
    /// (`noalias` and only read, see `reread`): loads from them are read again.
    pub(in crate::generate) unwritten_arguments: std::collections::HashSet<Value>,
    /// Stack slots of the function with the blocks from which a write of
    /// them can be reached (see `reread::settled_slots`): a load elsewhere
    /// is read again.
    pub(in crate::generate) settled_slots: HashMap<Value, std::collections::HashSet<Block>>,
    /// For loops whose entries' visits are known exactly (see
    /// `trip::exact_visits`): a slot the reverse sweep sets, on entering
    /// the reverse of an entry, to the entry's first instance, computed
    /// instead of taped.
    pub(in crate::generate) rev_entry: HashMap<usize, (Value, crate::ir::trip::ExactVisits)>,
    /// For a split derivative: its coroutine.
    pub(in crate::generate) split: Option<Split>,
    /// For a split derivative: its shadow parameters, each with a slot holding
    /// the shadow its reverse sweep uses (see `split::rebase_shadows`).
    pub(in crate::generate) shadow_slots: Vec<(Value, Value)>,
    /// For a split derivative: where its reverse sweep starts (one block per
    /// `ret`), and the run-time checks there that the shadows were not
    /// changed, removed when the reverse sweep can take other ones.
    pub(in crate::generate) resumptions: Vec<Block>,
    pub(in crate::generate) shadow_checks: Vec<Value>,
    /// Where the forward sweep leaves the primal result, when the
    /// derivative returns it too (`enzyme_primal_return`).
    pub(in crate::generate) primal_result: Option<Value>,
    /// Per call of a split derivative: its handle (forward sweep) and buffer.
    pub(in crate::generate) split_calls: HashMap<Value, (Value, Value, SplitIo)>,
    /// Per call with a custom gradient: its tape (forward sweep), if any.
    pub(in crate::generate) custom_calls: HashMap<Value, Option<Value>>,
    /// Split forward mode: the blocks of the tangent sweep (see `replay`).
    pub(in crate::generate) replay: Option<ReplayBlocks>,
    /// Inside a parallel region: adjoints go into shadow memory atomically.
    pub(in crate::generate) atomic: bool,
    /// Per parallel region's call: what its reverse needs (see `parallel_reverse`).
    pub(in crate::generate) region_calls: HashMap<Value, RegionCall>,
    /// Per checkpointed loop's call: what its reverse needs (see `checkpoint_reverse`).
    pub(in crate::generate) checkpoint_calls: HashMap<Value, CheckpointCall>,
    /// Per exit of an ordered critical section in a region's derivative:
    /// the ticket its thread took there (see `parallel::ORDERED`).
    pub(in crate::generate) tickets: HashMap<Value, Value>,
    /// In a region: adjoints of shared scalars summed privately (see
    /// `parallel_reverse`), per parameter and type.
    pub(in crate::generate) private_sums: Vec<(Value, ir::Type, Value)>,
    /// In a region: the parameters something writes through, found on first use.
    pub(in crate::generate) written_parameters: Option<std::collections::HashSet<Value>>,
    /// In a region: how many loads' adjoints are added atomically.
    pub(in crate::generate) atomic_adds: usize,
    /// Every lane's shadows and adjoints; the current lane's entry holds
    /// placeholders while its maps are in `sh`, `adj` and `local_adj`.
    pub(in crate::generate) lanes: Vec<Lane>,
    pub(in crate::generate) lane: usize,
}

/// A loop's tape: slots holding its buffer, its capacity in records and the
/// record size, and the layout of the record so far.
#[derive(Clone, Copy)]
pub(in crate::generate) struct LoopTape {
    pub(in crate::generate) buf: Value,
    pub(in crate::generate) cap: Value,
    pub(in crate::generate) stride: Value,
    /// The global keeping the capacity from one call to the next.
    pub(in crate::generate) hint: Value,
    /// The records a call needs at most, when proven (then the whole buffer
    /// is made at the start).
    pub(in crate::generate) fixed: Option<u64>,
    /// Bytes of the record used so far.
    pub(in crate::generate) size: u64,
    /// The record's alignment (its largest field's, at most 16).
    pub(in crate::generate) align: u64,
    /// Padding left between fields (offset, bytes), for a later small field.
    pub(in crate::generate) hole: (u64, u64),
    /// The call growing the tape in the loop's header (none for a tape made
    /// whole at the start).
    pub(in crate::generate) grown_at: Option<Value>,
}

/// A load whose value is recomputed from a store (see the module's comment).
#[derive(Clone, Copy)]
pub(crate) struct Forwarding {
    /// The value the store wrote.
    pub value: Value,
    /// The writing loop's counter, replaced by `to`.
    pub from: Value,
    /// The reading loop's counter.
    pub to: Value,
    /// What to add to `to` for `from`'s value in the same iteration.
    pub delta: i64,
    /// The reading loop.
    pub reader: usize,
}

/// The blocks of a tangent sweep, made before the forward sweep (whose
/// resumption branches to `start`).
pub(crate) struct ReplayBlocks {
    /// Reads the tangents and shadows given, then enters the function's entry.
    pub(crate) start: Block,
    /// The sweep's block of each block of the function.
    pub(in crate::generate) blocks: HashMap<Block, Block>,
}

/// What the forward sweep of a region's call leaves for its reverse: the
/// per-thread arrays (handles, buffers, lists of kept shadows) and the
/// team's size.
#[derive(Clone, Copy)]
pub(crate) struct RegionCall {
    pub(in crate::generate) handles: Value,
    pub(in crate::generate) buffers: Value,
    pub(in crate::generate) lists: Value,
    pub(in crate::generate) threads: Value,
    /// The ticket counter after the region, when it has ordered critical
    /// sections (see `parallel::ORDERED`).
    pub(in crate::generate) tickets: Option<Value>,
}

/// What the forward sweep of a checkpointed loop leaves for its reverse.
#[derive(Clone)]
pub(crate) struct CheckpointCall {
    pub(in crate::generate) run: Value,
    pub(in crate::generate) env: Value,
    pub(in crate::generate) env_ty: Type,
    pub(in crate::generate) primal: Value,
    pub(in crate::generate) gradient: Value,
    /// Per float argument of the call: its operand number and its sum's field.
    pub(in crate::generate) sums: Vec<(u32, u32)>,
}

/// The coroutine of a split derivative being built.
#[derive(Clone, Copy)]
pub(in crate::generate) struct Split {
    /// The [`SplitIo`] buffer parameter and its layout.
    pub(in crate::generate) io: Value,
    pub(in crate::generate) layout: SplitIo,
    /// Frees the frame, then ends the coroutine.
    pub(in crate::generate) cleanup: Block,
    /// Ends the coroutine: returns the handle from the forward part, or
    /// returns from the resumed reverse part.
    pub(in crate::generate) end: Block,
    /// Where the resumed part ends: frees the tapes, then `cleanup`.
    pub(in crate::generate) release: Block,
}

/// What differs between the lanes of vector mode.
pub(in crate::generate) struct Lane {
    pub(in crate::generate) sh: Shadows,
    pub(in crate::generate) adj: HashMap<Value, Value>,
    pub(in crate::generate) local_adj: HashMap<Value, Value>,
}
