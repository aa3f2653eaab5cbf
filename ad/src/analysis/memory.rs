//! Which pointers have shadows, and which floats vary with the inputs.
//!
//! A pointer is *shadowed* when the derivative code has a shadow pointer for
//! it (a duplicated argument, a stack slot of the function, anything derived
//! from those by address arithmetic or loaded from shadowed memory),
//! *constant* when derivatives never flow through the memory it points to (a
//! `enzyme_const` argument, a global, anything derived from those), and
//! *unknown* otherwise (made from an integer, returned by a call). Memory is
//! only differentiated through shadowed pointers; everything this analysis
//! cannot vouch for becomes an error, never a silently dropped derivative.
//!
//! With run-time activity (`enzyme_runtime_activity`), a pointer chosen
//! between a shadowed and a constant one is shadowed too: the constant
//! choices are their own shadows, and every derivative load or store through
//! such a *mixed* pointer tests at run time whether its shadow is the primal
//! (then it carries no derivative: tangents read zero, nothing is written).
//! Other uses of a mixed pointer (copies, calls, frees) are errors.

use std::collections::{HashMap, HashSet};

use llvm_sys::core::*;
use llvm_sys::target::LLVMGetModuleDataLayout;
use llvm_sys::LLVMOpcode;

use crate::analysis::copies::copies_only_integers;
pub(crate) use crate::analysis::copies::copy_layout;
pub(crate) use crate::analysis::copies::{copies_inert_constant, copies_no_pointers};
pub(crate) use crate::analysis::grown_blocks::{grown_contents, Grown};
use crate::ir::cfg::Cfg;
pub(crate) use crate::ir::constant_root;
pub(crate) use crate::ir::kind::type_hint;
pub(crate) use crate::ir::kind::Elem;
use crate::ir::kind::{contains_float, Kind};
use crate::ir::layout::flatten;
pub(crate) use crate::ir::layout::{data_layout, root_of, CopyLayout};
pub(crate) use crate::ir::roots::{is_inert_constant, is_local};
use crate::ir::{self, Value};
use crate::surface::request::Mode;

/// Where a pointer may point, from the derivative's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PtrStatus {
    /// Has a shadow pointer.
    Shadowed,
    /// Points to memory derivatives do not flow through.
    Constant,
    /// Unknown: using it for floating-point memory is an error.
    Unknown(&'static str),
}

/// The analysis of one function under one activity pattern.
#[derive(Default)]
pub(crate) struct Memory {
    ptr: HashMap<Value, PtrStatus>,
    /// Float values that depend on the inputs.
    pub varied: HashSet<Value>,
    /// Constructs the engine cannot differentiate here: (instruction, what, help).
    pub problems: Vec<(Value, String, &'static str)>,
    /// Integer stores into shadowed memory that may hold floats: they set
    /// the derivative of the bytes they write to zero.
    pub int_stores_clearing: HashSet<Value>,
    /// Integer stores into integer fields of shadowed memory: the shadow
    /// gets the same integer, so a shadow data structure keeps the primal's
    /// sizes and keys (the caller's shadow `std::map` filled by the function
    /// can be searched and iterated like the primal).
    pub int_stores_mirrored: HashSet<Value>,
    /// Heap allocations whose pointer is stored where the caller sees it:
    /// their shadows are the caller's to free (as the blocks are).
    pub escaping: HashSet<Value>,
    /// Run-time activity: pointers whose shadow may be the primal itself.
    pub mixed: HashSet<Value>,
    /// Run-time activity: constant pointers chosen alongside shadowed ones,
    /// which are their own shadows.
    pub self_shadowed: HashSet<Value>,
}

/// Why a choice between pointers has no single status.
const MIXED_WHY: &str = "may or may not point to differentiated memory";

fn is_null_like(v: Value) -> bool {
    ir::is_no_address(v) || is_null_offset(v)
}

/// An in-bounds offset from null (`getelementptr inbounds i8, ptr null, i64
/// %n`): what the optimiser makes of an empty container's `start + size` on
/// the path where the block is null. It is null or poison (an in-bounds
/// offset from null points to no object), so, like null, it fits any status
/// and is its own shadow (the same offset, made again). (clang makes
/// `(char *)0 + n` an `inttoptr`, not such an offset.)
pub(crate) fn is_null_offset(v: Value) -> bool {
    let mut p = v;
    for _ in 0..4 {
        if !ir::is_instruction(p) || ir::opcode(p) != LLVMOpcode::LLVMGetElementPtr || unsafe { LLVMIsInBounds(p) } == 0
        {
            return false;
        }
        p = ir::operand(p, 0);
        if unsafe { !LLVMIsAConstantPointerNull(p).is_null() } {
            return true;
        }
    }
    false
}

impl Memory {
    /// The status of a pointer operand.
    pub fn status(&self, v: Value) -> PtrStatus {
        if let Some(s) = self.ptr.get(&v) {
            return *s;
        }
        if ir::is_instruction(v) || ir::is_argument(v) {
            // Not analysed (defined in a block reached only through a loop back edge).
            return PtrStatus::Unknown("defined later in a loop");
        }
        // Globals and constant address arithmetic on them; functions, null.
        match constant_root(v) {
            Some(g) if shadowable_global(g) => PtrStatus::Shadowed,
            _ => PtrStatus::Constant,
        }
    }

    /// The status of an operand, or `None` while it is an instruction not
    /// analysed yet (fed back by a loop).
    fn known(&self, v: Value) -> Option<PtrStatus> {
        if (ir::is_instruction(v) || ir::is_argument(v)) && !self.ptr.contains_key(&v) {
            return None;
        }
        Some(self.status(v))
    }

    /// The status of a phi or select: `None` while it depends only on nulls
    /// and values not analysed yet (the fixpoint settles it later).
    fn merge(&self, vals: impl Iterator<Item = Value>) -> Option<PtrStatus> {
        let mut out: Option<PtrStatus> = None;
        let mut pending = false;
        for v in vals {
            if is_null_like(v) || (!ir::is_instruction(v) && is_inert_constant(v)) {
                // Null fits anything; so does read-only memory without floats
                // (a shared empty table beside heap tables), its own shadow.
                continue;
            }
            if (ir::is_instruction(v) || ir::is_argument(v)) && !self.ptr.contains_key(&v) {
                // Not analysed yet (fed back by a loop): settled by the fixpoint.
                pending = true;
                continue;
            }
            let s = self.status(v);
            out = match (out, s) {
                (None, s) => Some(s),
                (Some(a), b) if a == b => Some(a),
                (Some(PtrStatus::Unknown(r)), _) | (_, PtrStatus::Unknown(r)) => Some(PtrStatus::Unknown(r)),
                _ => Some(PtrStatus::Unknown(MIXED_WHY)),
            };
        }
        match (out, pending) {
            (Some(s), _) => Some(s),
            (None, false) => Some(PtrStatus::Constant),
            (None, true) => None,
        }
    }

    fn problem(&mut self, i: Value, what: String, help: &'static str) {
        self.problems.push((i, what, help));
    }

    /// A float `v` written through `p` by `i` (a store, an atomic addition):
    /// the memory needs a shadow if `v` varies.
    fn check_float_write(&mut self, i: Value, v: Value, p: Value, what: &str) {
        match self.status(p) {
            PtrStatus::Shadowed => {}
            PtrStatus::Constant if !self.varied.contains(&v) => {}
            // The user said derivatives do not flow through it.
            PtrStatus::Constant if into_inactive_global(p) => {}
            PtrStatus::Constant => {
                self.problem(i, format!("{what} of a differentiated value into memory that has no shadow"), DUP_HELP)
            }
            PtrStatus::Unknown(why) => self.problem(
                i,
                format!("{what} of a floating-point value through a pointer that {why}"),
                "the engine cannot tell whether this memory carries derivatives",
            ),
        }
    }
}

/// The hint when such a pointer goes into a hash table's slot.
const TABLE_POINTER_HELP: &str = "the pointer goes into a hash table's slot, and nothing shows that it points to \
     bytes without derivatives: `&str` keys work when they are read from a `&str` parameter or (in an optimised \
     build) from a `&[&str]`, and `String` keys work; otherwise key the table by an integer (an index per name, a \
     `u64` id)";

const DUP_HELP: &str = "pass the pointer with `enzyme_dup` (value, then shadow) so its memory is differentiated, \
                        or keep active values out of memory without a shadow";

/// Analyses `f` (preprocessed) when pointer parameter `k` is duplicated iff `dup[k]`.
pub(crate) fn analyze(
    f: Value,
    cfg: &Cfg,
    dup: &[bool],
    mode: Mode,
    runtime_activity: bool,
    kind_of: impl Fn(Value) -> Kind,
) -> Memory {
    // Loop-carried values (phis fed by a latch) need a fixpoint: iterate until
    // nothing changes; only the last pass's problems count.
    let mut prev: Option<Memory> = None;
    for _ in 0..16 {
        let m = analyze_once(f, cfg, dup, mode, runtime_activity, &kind_of, prev.as_ref());
        let stable = prev.as_ref().is_some_and(|p| p.ptr == m.ptr && p.varied == m.varied && p.mixed == m.mixed);
        prev = Some(m);
        if stable {
            break;
        }
    }
    let mut m = prev.expect("ran at least once");
    // Pointers still pending are fed by no shadowed or unknown source (a cycle
    // starting from null): constant. One more pass with them settled.
    let mut settled = false;
    for b in &cfg.order {
        if !cfg.live.contains(b) {
            continue;
        }
        for i in ir::instructions(*b) {
            if ir::is_pointer(ir::type_of(i)) && !m.ptr.contains_key(&i) {
                m.ptr.insert(i, PtrStatus::Constant);
                settled = true;
            }
        }
    }
    if settled {
        m = analyze_once(f, cfg, dup, mode, runtime_activity, &kind_of, Some(&m));
    }
    if !m.mixed.is_empty() {
        check_mixed_uses(&mut m, cfg, &kind_of);
    }
    m
}

/// Run-time activity: a mixed pointer may be used for loads, stores,
/// address arithmetic and choices, which are guarded; anything else that
/// would read or write its shadow is refused.
fn check_mixed_uses(m: &mut Memory, cfg: &Cfg, kind_of: &impl Fn(Value) -> Kind) {
    for b in &cfg.order {
        if !cfg.live.contains(b) {
            continue;
        }
        for i in ir::instructions(*b) {
            let ops: Vec<Value> = (0..ir::operand_count(i)).map(|k| ir::operand(i, k)).collect();
            if !ops.iter().any(|o| m.mixed.contains(o)) {
                continue;
            }
            let what = match kind_of(i) {
                Kind::Load | Kind::Store | Kind::Gep | Kind::PtrCast | Kind::Phi | Kind::Select => continue,
                // Comparisons and calls that carry no derivative.
                Kind::Inactive | Kind::LibCall if ir::opcode(i) != LLVMOpcode::LLVMCall => continue,
                Kind::Inactive => continue,
                Kind::MemSet | Kind::MemCpy => "memory operation (`memset`, `memcpy`)",
                Kind::Free | Kind::Realloc | Kind::Alloc(_) => "allocation or free",
                Kind::Return => "return",
                _ => "call",
            };
            m.problem(
                i,
                format!("{what} through a pointer whose activity is decided at run time"),
                "with `enzyme_runtime_activity`, a pointer chosen between one with a shadow and one without may only \
                 be loaded from, stored to and offset; copy the values one by one, or choose between pointers of \
                 the same activity",
            );
        }
    }
}

fn analyze_once(
    f: Value,
    cfg: &Cfg,
    dup: &[bool],
    mode: Mode,
    runtime_activity: bool,
    kind_of: &impl Fn(Value) -> Kind,
    prev: Option<&Memory>,
) -> Memory {
    let mut m = Memory::default();
    if let Some(p) = prev {
        // Start from the previous pass so loop-carried values are known.
        m.ptr = p.ptr.clone();
        m.varied = p.varied.clone();
        m.mixed = p.mixed.clone();
        m.self_shadowed = p.self_shadowed.clone();
    }
    for (k, p) in ir::params(f).into_iter().enumerate() {
        let t = ir::type_of(p);
        if ir::is_pointer(t) {
            let s = if dup.get(k).copied().unwrap_or(false) { PtrStatus::Shadowed } else { PtrStatus::Constant };
            m.ptr.insert(p, s);
        } else if ir::is_float(t) {
            m.varied.insert(p);
        }
    }
    for b in &cfg.order {
        if !cfg.live.contains(b) {
            // No derivative flows through paths that never return.
            continue;
        }
        for i in ir::instructions(*b) {
            let t = ir::type_of(i);
            let kind = kind_of(i);
            let ops: Vec<Value> = (0..ir::operand_count(i)).map(|k| ir::operand(i, k)).collect();
            let any_varied = ops.iter().any(|o| m.varied.contains(o));
            match kind {
                Kind::Load => {
                    let p = ops[0];
                    let s = m.status(p);
                    if ir::is_real(t) {
                        match s {
                            PtrStatus::Shadowed => {
                                m.varied.insert(i);
                            }
                            PtrStatus::Constant => {}
                            // Only compared (a sort's pivot found through a pointer a
                            // recursive call returns): no derivative is read.
                            PtrStatus::Unknown(_) if crate::ir::compared_reads::only_compared(i) => {}
                            PtrStatus::Unknown(why) => m.problem(
                                i,
                                format!("load of a floating-point value through a pointer that {why}"),
                                "the engine cannot tell whether this memory carries derivatives",
                            ),
                        }
                    } else if ir::is_pointer(t) {
                        if m.known(p).is_some() {
                            m.ptr.insert(i, s);
                        }
                        // Through a mixed pointer, the shadow loaded may be the primal.
                        if m.mixed.contains(&p) {
                            m.mixed.insert(i);
                        }
                    } else if contains_float(t) {
                        m.problem(
                            i,
                            "load of a floating-point vector or aggregate".into(),
                            "vector and struct floating-point values are not supported yet",
                        );
                    }
                }
                Kind::AtomicAdd => m.check_float_write(i, ops[1], ops[0], "atomic addition"),
                Kind::Store => {
                    // An integer stored as a pointer is stored as an integer.
                    let (v, p) = (ir::stored_value(i), ops[1]);
                    let vt = ir::type_of(v);
                    let s = m.status(p);
                    if ir::is_real(vt) {
                        m.check_float_write(i, v, p, "store");
                    } else if ir::is_pointer(vt)
                        && s == PtrStatus::Shadowed
                        && ir::chooses_integer(v)
                        && crate::libraries::table_elem_at(p, ir::store_size(f, vt)) == Some(Elem::Int)
                    {
                        // Into a hash table's integer field (every other access
                        // says so), a value that is an integer on some path: the
                        // field's bits, whatever the path, are an integer's.
                        m.int_stores_mirrored.insert(i);
                    } else if ir::is_pointer(vt) {
                        // (A block the function grows is its own, though
                        // phis choose between its allocations.)
                        if !is_local(root_of(p), &kind_of) && !crate::analysis::grown_blocks::is_own_block(p) {
                            // The blocks outlive the function: their shadows go
                            // where the caller's shadow memory says, and stay.
                            for r in heap_roots(v, &kind_of) {
                                if matches!(kind_of(r), Kind::Alloc(_)) {
                                    m.escaping.insert(r);
                                } else {
                                    m.problem(
                                        i,
                                        "store of a pointer to memory reallocated in the differentiated code into \
                                         memory the caller can see"
                                            .into(),
                                        "a block grown with `realloc` that outlives the differentiated function is \
                                         not supported yet; allocate it with its final size",
                                    );
                                }
                            }
                        }
                        let sv = if is_null_like(v) { PtrStatus::Constant } else { m.status(v) };
                        match (s, sv) {
                            (PtrStatus::Shadowed, PtrStatus::Shadowed) => {}
                            (PtrStatus::Shadowed, _) if is_null_like(v) || is_inert_constant(v) => {}
                            (PtrStatus::Shadowed, PtrStatus::Constant) if crate::libraries::points_to_bytes(v) => {
                                // A string's bytes without derivatives (a `&str`
                                // key) are their own shadow, as integers are: a
                                // shadow table keeps the primal's keys (searched,
                                // copied), and no float is read through them.
                                m.int_stores_mirrored.insert(i);
                            }
                            (PtrStatus::Constant, PtrStatus::Constant) => {}
                            (PtrStatus::Unknown(_), PtrStatus::Constant) => {}
                            (PtrStatus::Shadowed, _) => m.problem(
                                i,
                                "store of a pointer without shadow into differentiated memory".into(),
                                if crate::libraries::addresses_slot(p) {
                                    TABLE_POINTER_HELP
                                } else {
                                    "mixing shadowed and unshadowed pointers in one data structure is not supported yet"
                                },
                            ),
                            _ => m.problem(
                                i,
                                "store of a pointer to differentiated memory into memory that has no shadow".into(),
                                DUP_HELP,
                            ),
                        }
                    } else if ir::int_lanes(vt).is_some()
                        && s == PtrStatus::Shadowed
                        && !crate::analysis::int_accesses::surely_integer_access(i, p, kind_of)
                    {
                        // Integers written over memory that may hold floats:
                        // the derivative there becomes zero. Bits loaded from
                        // memory (or a pointer's bits) are a copy, whose
                        // derivative or shadow would be lost.
                        let shadowed = |q: Value| m.status(q) == PtrStatus::Shadowed;
                        if crate::analysis::int_accesses::moves_untyped_bits(v, &shadowed, kind_of) {
                            m.problem(
                                i,
                                crate::analysis::int_accesses::INT_ACCESS_WHAT.into(),
                                crate::analysis::int_accesses::INT_ACCESS_HELP,
                            );
                        } else {
                            m.int_stores_clearing.insert(i);
                        }
                    } else if ir::int_lanes(vt).is_some() && s == PtrStatus::Shadowed {
                        m.int_stores_mirrored.insert(i);
                    } else if contains_float(vt) {
                        m.problem(
                            i,
                            "store of a floating-point vector or aggregate".into(),
                            "vector and struct floating-point values are not supported yet",
                        );
                    } else if s == PtrStatus::Shadowed {
                        // Pointers (or integers beside them) grouped in one value:
                        // their shadows, or the bits of floats, would not follow.
                        m.problem(
                            i,
                            format!(
                                "store of `{}`, pointers or integers grouped in a vector or aggregate, into \
                                 differentiated memory",
                                ir::print_type(vt)
                            ),
                            "store the pointers one by one (their shadows are stored beside them); this is what \
                             a vectoriser makes of copies of pointers, so building without vectorisation may help",
                        );
                    }
                }
                Kind::Gep | Kind::PtrCast => {
                    // From a pointer not analysed yet: pending, like it.
                    if let Some(s) = m.known(ops[0]) {
                        m.ptr.insert(i, s);
                    }
                    if m.mixed.contains(&ops[0]) {
                        m.mixed.insert(i);
                    }
                }
                Kind::Alloca => {
                    // Fixed or run-time size (VLAs, Fortran automatic arrays); a
                    // slot that only hands constant pointers to a parallel region
                    // has nothing to shadow.
                    // Nor has one that only calls without a derivative write.
                    let s = if crate::calls::parallel::captures_constant_pointers(i, &|v| {
                        m.known(v) == Some(PtrStatus::Constant)
                    }) || crate::analysis::inactive_results::written_only_by_inactive_calls(i)
                    {
                        PtrStatus::Constant
                    } else {
                        PtrStatus::Shadowed
                    };
                    m.ptr.insert(i, s);
                }
                Kind::MemSet => {
                    if let PtrStatus::Unknown(why) = m.status(ops[0]) {
                        m.problem(
                            i,
                            format!("memset through a pointer that {why}"),
                            "the engine cannot tell whether this memory carries derivatives",
                        );
                    }
                }
                Kind::MemCpy => {
                    let (d, s) = (m.status(ops[0]), m.status(ops[1]));
                    match (d, s, mode) {
                        (PtrStatus::Constant, PtrStatus::Constant, _) => {}
                        (PtrStatus::Shadowed, PtrStatus::Shadowed, Mode::Forward) => {}
                        (PtrStatus::Shadowed, PtrStatus::Shadowed, Mode::Reverse) => {
                            if copy_layout(i, data_layout(f)).is_none() {
                                m.problem(
                                    i,
                                    "memory copy (`memcpy`/`memmove`) whose contents have no known type".into(),
                                    "reverse mode must know which copied bytes are floats; say what the memory holds \
                                     with `__enzyme_double(ptr)` (or `__enzyme_float`, `__enzyme_integer`, \
                                     `__enzyme_pointer`) before the copy",
                                );
                            }
                        }
                        (PtrStatus::Shadowed, PtrStatus::Constant, _)
                            if copies_no_pointers(i) || copies_inert_constant(i) =>
                        {
                            // Constant data into differentiated memory: like storing constants.
                        }
                        (PtrStatus::Constant, PtrStatus::Shadowed, _) if copies_only_integers(i) => {
                            // Integers out of differentiated memory: like loading them.
                        }
                        _ => m.problem(i, "memory copy between memory with and without a shadow".into(), DUP_HELP),
                    }
                }
                Kind::Phi | Kind::Select if ir::is_pointer(t) => {
                    let vals: Vec<Value> = if ir::opcode(i) == LLVMOpcode::LLVMPHI {
                        ir::incoming(i).into_iter().filter(|(_, b)| cfg.reachable(*b)).map(|(v, _)| v).collect()
                    } else {
                        vec![ops[1], ops[2]]
                    };
                    let Some(s) = m.merge(vals.iter().copied()) else { continue };
                    let mixed_choice = s == PtrStatus::Unknown(MIXED_WHY)
                        && vals
                            .iter()
                            .all(|v| is_null_like(*v) || !matches!(m.known(*v), Some(PtrStatus::Unknown(_)) | None));
                    if mixed_choice && runtime_activity {
                        // The constant choices are their own shadows; which one
                        // was taken is told at run time.
                        for v in &vals {
                            if !is_null_like(*v) && m.status(*v) == PtrStatus::Constant {
                                m.self_shadowed.insert(*v);
                            }
                        }
                        m.mixed.insert(i);
                        m.ptr.insert(i, PtrStatus::Shadowed);
                        continue;
                    }
                    if s == PtrStatus::Unknown(MIXED_WHY) && crate::ir::compared_reads::reads_only_compared(i) {
                        // Only read to compare: no derivative through it, no shadow.
                        m.ptr.insert(i, PtrStatus::Constant);
                        continue;
                    }
                    if s == PtrStatus::Unknown(MIXED_WHY) {
                        m.problem(
                            i,
                            "pointer that may or may not point to differentiated memory".into(),
                            "choose between pointers of the same activity (both `enzyme_dup` or both `enzyme_const`), \
                             or let the activity be decided at run time with `enzyme_runtime_activity`",
                        );
                    }
                    if s == PtrStatus::Shadowed && vals.iter().any(|v| m.mixed.contains(v)) {
                        m.mixed.insert(i);
                    }
                    m.ptr.insert(i, s);
                }
                Kind::Alloc(_) => {
                    m.ptr.insert(i, PtrStatus::Shadowed);
                }
                Kind::Return if ops.first().is_some_and(|v| ir::is_pointer(ir::type_of(*v))) => {
                    // A block handed back to the caller outlives the function:
                    // so does its shadow.
                    for r in heap_roots(ops[0], &kind_of) {
                        if matches!(kind_of(r), Kind::Alloc(_)) {
                            m.escaping.insert(r);
                        }
                    }
                }
                Kind::Realloc => {
                    // The new block is what the old one was (null: a fresh block).
                    // An old block not analysed yet is fed back by a loop (a
                    // buffer grown in place, as a tape is): taken as the
                    // function's own heap until the fixpoint knows better.
                    let s = if is_null_like(ops[0]) {
                        Some(PtrStatus::Shadowed)
                    } else {
                        m.known(ops[0]).or(Some(PtrStatus::Shadowed))
                    };
                    if let Some(s) = s {
                        m.ptr.insert(i, s);
                    }
                    if s == Some(PtrStatus::Shadowed) && grown_contents(i).is_none() {
                        m.problem(
                            i,
                            "`realloc` of a block whose contents are not plain floats or integers".into(),
                            "a block grown with `realloc` is understood when every access to it can be followed and its \
                             floats keep their places in its elements (not read as bytes or integers); this one is not \
                             supported yet",
                        );
                    }
                }
                Kind::Free => {
                    if let PtrStatus::Unknown(why) = m.status(ops[0]) {
                        m.problem(
                            i,
                            format!("freeing memory through a pointer that {why}"),
                            "the engine cannot tell which shadow to free",
                        );
                    }
                }
                Kind::LibCall | Kind::Inactive if ir::opcode(i) == LLVMOpcode::LLVMCall => {
                    // Code outside the program reached through a pointer: it must
                    // not be handed memory that carries derivatives.
                    if ir::called_function(i).is_none() {
                        for o in ops.iter().take(ir::call_arg_count(i) as usize) {
                            // Constant memory, or what a library call returned (a stream).
                            let outside = matches!(
                                m.status(*o),
                                PtrStatus::Constant | PtrStatus::Unknown("is returned by a call")
                            );
                            if ir::is_pointer(ir::type_of(*o)) && !outside {
                                m.problem(
                                    i,
                                    "indirect call of code outside the program, passing memory that may carry \
                                     derivatives"
                                        .into(),
                                    "the target is in a shared library and has no derivative here; call a function \
                                     compiled with enzyme-cc",
                                );
                            }
                        }
                    }
                    // A function registered inactive must not overwrite derivatives.
                    for (k, callee) in crate::analysis::inactive_results::overwrites_derivatives(i, &|p| {
                        m.status(p) == PtrStatus::Shadowed
                    }) {
                        m.problem(
                            i,
                            format!(
                                "call of `{callee}`, registered inactive, which may write memory that carries \
                                 derivatives (argument {})",
                                k + 1
                            ),
                            "what it writes would keep the derivatives of the values it overwrites; let it fill \
                             memory that only it writes (a local array it fills, read afterwards), or give it a \
                             custom derivative",
                        );
                    }
                    // Inactive calls: their results carry no derivative.
                    if ir::is_pointer(t) {
                        m.ptr.insert(i, PtrStatus::Unknown("is returned by a call"));
                    }
                }
                Kind::Custom(_) => {
                    // The user's rules read and write shadows as they say.
                    for o in ops.iter().take(ir::call_arg_count(i) as usize) {
                        if let (true, PtrStatus::Unknown(why)) = (ir::is_pointer(ir::type_of(*o)), m.status(*o)) {
                            m.problem(
                                i,
                                format!("call with a custom derivative, passing a pointer that {why}"),
                                "the rule needs the pointer's shadow; pass pointers from the arguments or local memory",
                            );
                        }
                    }
                    if ir::is_float(t) {
                        m.varied.insert(i);
                    }
                    if ir::is_pointer(t) {
                        m.ptr.insert(i, PtrStatus::Unknown("is returned by a call"));
                    }
                }
                Kind::Call(_) => {
                    if ir::is_float(t) && (any_varied || ops.iter().any(|o| m.ptr.get(o) == Some(&PtrStatus::Shadowed)))
                    {
                        m.varied.insert(i);
                    }
                    if ir::is_pointer(t) {
                        m.ptr.insert(i, PtrStatus::Unknown("is returned by a call"));
                    }
                }
                _ => {
                    if ir::is_pointer(t) {
                        let why = if ir::opcode(i) == LLVMOpcode::LLVMIntToPtr {
                            "is made from an integer"
                        } else {
                            "comes from an operation the engine does not track"
                        };
                        m.ptr.insert(i, PtrStatus::Unknown(why));
                    } else if ir::is_real(t) && any_varied {
                        m.varied.insert(i);
                    }
                }
            }
        }
    }
    m
}

/// Whether a pointer base is a heap allocation of the differentiated code.
fn is_heap(root: Value, kind_of: &impl Fn(Value) -> Kind) -> bool {
    ir::is_instruction(root) && matches!(kind_of(root), Kind::Alloc(_) | Kind::Realloc)
}

/// The heap allocations of the function a pointer may point into, through
/// address arithmetic, phis and selects (a block or null, as
/// `std::vector`'s `_M_allocate` returns at -O0).
fn heap_roots(v: Value, kind_of: &impl Fn(Value) -> Kind) -> Vec<Value> {
    ir::pointer_bases(v).into_iter().filter(|b| is_heap(*b, kind_of)).collect()
}

/// A mutable global that holds floats (and possibly integers) but no
/// pointers gets a shadow global; others are constant memory.
pub(crate) fn shadowable_global(g: Value) -> bool {
    unsafe {
        if crate::surface::registry::user_shadow(g).is_some() {
            return true;
        }
        if LLVMIsGlobalConstant(g) != 0
            || LLVMIsDeclaration(g) != 0
            || crate::surface::registry::is_inactive_global(g)
            || crate::analysis::read_only_globals::is_read_only(g)
        {
            return false;
        }
        let mut fields = Vec::new();
        let td = LLVMGetModuleDataLayout(LLVMGetGlobalParent(g));
        flatten(LLVMGlobalGetValueType(g), 0, td, &mut fields)
            && fields.iter().any(|(_, _, e)| matches!(e, Elem::F32 | Elem::F64))
            && fields.iter().all(|(_, _, e)| *e != Elem::Ptr)
    }
}

/// Whether a pointer points into a global registered inactive.
fn into_inactive_global(p: Value) -> bool {
    let root = root_of(p);
    let g = constant_root(root).or_else(|| unsafe { (!LLVMIsAGlobalVariable(root).is_null()).then_some(root) });
    g.is_some_and(crate::surface::registry::is_inactive_global)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_from_null_are_null_like() {
        let ir = "define void @f(ptr %p, i64 %n) {
          %a = getelementptr inbounds i8, ptr null, i64 %n
          %b = getelementptr inbounds double, ptr %a, i64 2
          %c = getelementptr inbounds i8, ptr %p, i64 %n
          %d = getelementptr i8, ptr null, i64 %n
          ret void
        }";
        crate::ir::test_ir::with_function(ir, |f| {
            let named: HashMap<String, Value> =
                ir::blocks(f).into_iter().flat_map(ir::instructions).map(|i| (ir::name(i), i)).collect();
            assert!(is_null_offset(named["a"]) && is_null_like(named["a"]));
            assert!(is_null_offset(named["b"]), "an offset from an offset from null");
            assert!(!is_null_offset(named["c"]) && !is_null_like(named["c"]), "an offset from a parameter");
            assert!(!is_null_offset(named["d"]), "not in bounds: an integer in a pointer's clothes");
        });
    }
}
