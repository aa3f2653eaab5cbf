//! Swiss tables: open-addressing hash tables (Rust's `HashMap` and
//! `HashSet`, hashbrown's `RawTable`) that keep one allocation around a
//! *control pointer*: control bytes (integers) at and above it, slots of one
//! type below it, slot `i` at `ctrl - size * (i + 1)`. Growing or rehashing
//! a table moves slots and control bytes with untyped `memcpy`s and
//! `memmove`s and through integer halves, which say nothing of what they
//! move; the code that inserts and reads entries does. This module types
//! those moves from it.
//!
//! An address is taken apart into a base pointer and an affine offset (a
//! constant plus multiples of integer values). A base is a control pointer
//! when some address is `base - S * x + c` with every variable term a
//! negative multiple of `S` and `c < 0`: field `c mod S` of a slot `S`
//! bytes wide. Control pointers joined by phis and selects (the pointer
//! before and after a resize) are one table; its accesses type its slots'
//! fields (loads and stores of floats and pointers; integers computed or
//! used as integers, not only moved), conflicting evidence types nothing,
//! and everything addressed at or above its control pointers must be
//! integers. Assumed, as such code means: the variable terms are indices,
//! never negative.

use std::collections::{HashMap, HashSet};

use llvm_sys::core::*;
use llvm_sys::target::LLVMTargetDataRef;
use llvm_sys::LLVMOpcode;

use crate::ir::affine::{chain, gep_affine, Affine};
use crate::ir::kind::Elem;
use crate::ir::layout::{data_layout, read_only_constant, CopyLayout};
use crate::ir::{self, Value};

/// Where an address lies relative to a control pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    /// At or above it: control bytes.
    Above,
    /// In a slot of `size` bytes below it, at byte `field` of the slot.
    Slot { size: u64, field: u64 },
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

fn place(off: &Affine, nuw: bool) -> Option<Place> {
    if off.terms.iter().all(|(c, _)| *c < 0) && !off.terms.is_empty() && off.constant < 0 {
        let size = off.terms.iter().fold(0, |g, (c, _)| gcd(g, c.unsigned_abs()));
        if size >= 2 {
            return Some(Place::Slot { size, field: off.constant.rem_euclid(size as i64) as u64 });
        }
    }
    (nuw || off.terms.iter().all(|(c, _)| *c > 0) && off.constant >= 0).then_some(Place::Above)
}

/// A table: its slot size, what its slots' fields hold, and whether its
/// accesses contradict each other (then it types nothing).
#[derive(Default)]
struct Table {
    slot: u64,
    fields: Vec<(u64, u64, Elem)>,
    broken: bool,
    /// Its memory is the function's own and nothing outside sees it (see
    /// [`Tables::is_local`]): bytes of a slot no access types (padding
    /// after an `f32` value or a `u8` key) are never read as floats, here
    /// or anywhere, so moving them carries no derivative.
    local: bool,
}

impl Table {
    fn learn(&mut self, field: u64, size: u64, e: Elem) {
        for &(o, s, f) in &self.fields {
            if o < field + size && field < o + s {
                if (o, s, f) != (field, size, e) {
                    self.broken = true;
                }
                return;
            }
        }
        self.fields.push((field, size, e));
    }

    /// The fields covering bytes `field..field + len` of a slot, as offsets
    /// from `field`, if every byte is known.
    fn covering(&self, field: u64, len: u64) -> Option<Vec<(u64, u64, Elem)>> {
        if self.broken || field + len > self.slot {
            return None;
        }
        let mut out: Vec<(u64, u64, Elem)> = Vec::new();
        let mut at = field;
        while at < field + len {
            let Some(&(o, s, e)) = self.fields.iter().find(|(o, s, _)| *o <= at && at < o + s) else {
                // Untyped bytes: padding of a table nothing outside sees.
                if !self.local {
                    return None;
                }
                let next = self.fields.iter().map(|f| f.0).filter(|o| *o > at).min().unwrap_or(self.slot);
                let end = next.min(field + len);
                out.push((at - field, end - at, Elem::Int));
                at = end;
                continue;
            };
            if o < field || o + s > field + len {
                return None;
            }
            out.push((o - field, s, e));
            at = o + s;
        }
        Some(out)
    }
}

/// The Swiss tables of one function.
struct Tables {
    td: LLVMTargetDataRef,
    /// Control pointers (and what phis and selects join to them) -> table.
    member: HashMap<Value, usize>,
    tables: Vec<Table>,
}

/// The blocks of `f` reachable from its entry when a comparison of two
/// different functions' addresses is taken to be unequal. Unoptimised Rust
/// inlines generic code with such tests (is this closure that one?), whose
/// other branch works on another table type.
fn live_blocks(f: Value) -> HashSet<ir::Block> {
    let distinct_functions = |c: Value| {
        if !ir::is_instruction(c) || ir::opcode(c) != LLVMOpcode::LLVMICmp {
            return None;
        }
        let (a, b) = (ir::operand(c, 0), ir::operand(c, 1));
        let defined = |v: Value| unsafe { !LLVMIsAFunction(v).is_null() } && !ir::is_declaration(v);
        if a == b || !defined(a) || !defined(b) {
            return None;
        }
        match unsafe { LLVMGetICmpPredicate(c) } {
            llvm_sys::LLVMIntPredicate::LLVMIntEQ => Some(false),
            llvm_sys::LLVMIntPredicate::LLVMIntNE => Some(true),
            _ => None,
        }
    };
    let entry = ir::blocks(f)[0];
    let mut live = HashSet::from([entry]);
    let mut work = vec![entry];
    while let Some(b) = work.pop() {
        let term = ir::terminator(b);
        let mut next = ir::successors(term);
        if ir::opcode(term) == LLVMOpcode::LLVMBr && next.len() == 2 {
            if let Some(taken) = distinct_functions(ir::operand(term, 0)) {
                // Successor 0 is the `true` destination.
                next = vec![next[if taken { 0 } else { 1 }]];
            }
        }
        for s in next {
            if live.insert(s) {
                work.push(s);
            }
        }
    }
    live
}

/// Memory accesses of `f`: (instruction, pointer).
fn accesses(f: Value) -> Vec<(Value, Value)> {
    let mut out = Vec::new();
    let live = live_blocks(f);
    for i in ir::blocks(f).into_iter().filter(|b| live.contains(b)).flat_map(ir::instructions) {
        match ir::opcode(i) {
            LLVMOpcode::LLVMLoad => out.push((i, ir::operand(i, 0))),
            LLVMOpcode::LLVMStore => out.push((i, ir::operand(i, 1))),
            LLVMOpcode::LLVMCall => {
                if let Some(c) = ir::called_function(i) {
                    let n = ir::name(c);
                    if n.starts_with("llvm.memcpy") || n.starts_with("llvm.memmove") {
                        out.push((i, ir::operand(i, 0)));
                        out.push((i, ir::operand(i, 1)));
                    } else if n.starts_with("llvm.memset") {
                        out.push((i, ir::operand(i, 0)));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether any address computed from `base` (through address arithmetic)
/// lies in a slot below it: a cheap test before the whole function is read.
fn has_slots(base: Value, td: LLVMTargetDataRef) -> bool {
    // Breadth first: a slot's address is usually computed from the base itself.
    let mut work = std::collections::VecDeque::from([(base, Affine::default())]);
    let mut seen = 0;
    while let Some((p, off)) = work.pop_front() {
        for u in ir::users(p) {
            seen += 1;
            if seen > 2000 {
                return false;
            }
            if unsafe { LLVMIsAGetElementPtrInst(u).is_null() } || ir::operand(u, 0) != p {
                continue;
            }
            let Some(step) = gep_affine(u, td) else { continue };
            let off = off.clone().add(step, 1);
            if matches!(place(&off, false), Some(Place::Slot { .. })) {
                return true;
            }
            work.push_back((u, off));
        }
    }
    false
}

/// Whether `v` only ever moves bits: a load, or phis, selects and `freeze`s
/// of loads (an integer half of a slot being moved).
fn moved_bits(v: Value) -> bool {
    let mut work = vec![v];
    let mut seen = HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        if !ir::is_instruction(v) {
            return false;
        }
        match ir::opcode(v) {
            LLVMOpcode::LLVMLoad => {}
            LLVMOpcode::LLVMPHI => work.extend(ir::incoming(v).into_iter().map(|(x, _)| x)),
            LLVMOpcode::LLVMSelect => work.extend([ir::operand(v, 1), ir::operand(v, 2)]),
            LLVMOpcode::LLVMFreeze => work.push(ir::operand(v, 0)),
            _ => return false,
        }
    }
    true
}

/// What an access says of the bytes it touches: `None` when it only moves
/// them (or says nothing).
fn evidence(i: Value) -> Option<Elem> {
    // An integer stored as a pointer is evidence of an integer.
    let stored = (ir::opcode(i) == LLVMOpcode::LLVMStore).then(|| ir::stored_value(i));
    let t = match ir::opcode(i) {
        LLVMOpcode::LLVMLoad => ir::type_of(i),
        LLVMOpcode::LLVMStore => ir::type_of(stored.expect("a store")),
        _ => return None,
    };
    if ir::is_pointer(t) {
        // A slot an enum's variants share (an integer in one, a pointer in
        // another) says nothing of the field it is stored to.
        if stored.is_some_and(ir::chooses_integer) {
            return None;
        }
        return Some(Elem::Ptr);
    }
    if ir::is_float(t) {
        return Elem::float_of(t);
    }
    if !ir::is_int(t) {
        return None;
    }
    if let Some(v) = stored {
        return (ir::is_instruction(v) && ir::is_integer_arithmetic(v) && !moved_bits(v)).then_some(Elem::Int);
    }
    // A load used as an integer (hashed, compared), not only moved on.
    let mut work = vec![i];
    let mut seen = HashSet::new();
    let mut used = false;
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in ir::users(v) {
            match ir::opcode(u) {
                LLVMOpcode::LLVMStore if ir::operand(u, 0) == v => {}
                LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMSelect | LLVMOpcode::LLVMFreeze => work.push(u),
                LLVMOpcode::LLVMBitCast => {
                    return if ir::is_float(ir::type_of(u)) { Elem::float_of(ir::type_of(u)) } else { None }
                }
                _ => used = true,
            }
        }
    }
    used.then_some(Elem::Int)
}

impl Tables {
    /// Reads `f`'s Swiss tables, if it has any.
    fn of(f: Value) -> Option<Tables> {
        let td = data_layout(f);
        let accesses = accesses(f);
        // Control pointers with their slot sizes.
        let mut slot_of: HashMap<Value, u64> = HashMap::new();
        for &(_, p) in &accesses {
            for (base, off, nuw) in chain(p, td) {
                if let Some(Place::Slot { size, .. }) = place(&off, nuw) {
                    let s = slot_of.entry(base).or_insert(size);
                    *s = gcd(*s, size);
                    break;
                }
            }
        }
        if slot_of.is_empty() {
            return None;
        }
        let mut t = Tables { td, member: HashMap::new(), tables: Vec::new() };
        // Tables: control pointers joined by phis and selects (not through
        // constants, whose other uses are unrelated: the shared empty group).
        let mut anchors: Vec<Value> = slot_of.keys().copied().collect();
        anchors.sort_by_key(|v| ir::name(*v));
        for a in anchors {
            if t.member.contains_key(&a) {
                continue;
            }
            let k = t.tables.len();
            let mut table = Table { slot: slot_of[&a], ..Table::default() };
            let mut work = vec![a];
            while let Some(v) = work.pop() {
                if t.member.insert(v, k).is_some() {
                    continue;
                }
                if let Some(&s) = slot_of.get(&v) {
                    if s != table.slot {
                        table.broken = true;
                    }
                }
                if !ir::is_instruction(v) && !ir::is_argument(v) {
                    continue;
                }
                if ir::is_instruction(v) {
                    match ir::opcode(v) {
                        LLVMOpcode::LLVMPHI => work.extend(ir::incoming(v).into_iter().map(|(x, _)| x)),
                        LLVMOpcode::LLVMSelect => work.extend([ir::operand(v, 1), ir::operand(v, 2)]),
                        _ => {}
                    }
                }
                work.extend(
                    ir::users(v)
                        .into_iter()
                        .filter(|u| matches!(ir::opcode(*u), LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMSelect)),
                );
            }
            t.tables.push(table);
        }
        for k in 0..t.tables.len() {
            t.tables[k].local = t.is_local(k);
        }
        // What the accesses say.
        for &(i, p) in &accesses {
            for (k, place) in t.locate(p).unwrap_or_default() {
                t.learn(f, i, p, k, place);
            }
        }
        Some(t)
    }

    /// Whether table `k`'s memory is the function's own and stays in it:
    /// its control pointers are made from allocations of the function (or
    /// are the shared empty group, a constant), and they and the addresses
    /// made from them are only used to address memory, compared, freed or
    /// joined to each other, never stored, passed to a call or returned.
    fn is_local(&self, k: usize) -> bool {
        let members: Vec<Value> = self.member.iter().filter(|(_, t)| **t == k).map(|(m, _)| *m).collect();
        // Allocated here, or a constant (the shared empty group of control
        // bytes, a dangling address for an empty table); one of those.
        let own_block = |v: Value| {
            ir::pointer_bases(v).into_iter().all(|b| {
                read_only_constant(b)
                    || ir::is_instruction(b)
                        && matches!(crate::calls::classify::classify(b), crate::ir::kind::Kind::Alloc(_))
                    || from_posix_memalign(b)
            })
        };
        // Made from the table's own pointers: through address arithmetic,
        // or kept as an integer for a while (a struct's field in registers).
        let from_table = |v: Value| {
            let mut base = v;
            while unsafe { !LLVMIsAGetElementPtrInst(base).is_null() } {
                base = ir::operand(base, 0);
                if self.member.get(&base) == Some(&k) {
                    return true;
                }
            }
            false
        };
        let pointer_ok =
            |q: Value| read_only_constant(q) || self.member.get(&q) == Some(&k) || own_block(q) || from_table(q);
        let integer_ok = |x: Value| {
            ir::chosen_values(x).into_iter().all(|c| {
                let is_cast = ir::is_instruction(c) && ir::opcode(c) == LLVMOpcode::LLVMPtrToInt
                    || unsafe { !LLVMIsAConstantExpr(c).is_null() }
                        && unsafe { LLVMGetConstOpcode(c) } == LLVMOpcode::LLVMPtrToInt;
                is_cast && pointer_ok(ir::operand(c, 0))
            })
        };
        for &m in &members {
            let chosen = ir::is_instruction(m) && matches!(ir::opcode(m), LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMSelect);
            let cast =
                ir::is_instruction(m) && ir::opcode(m) == LLVMOpcode::LLVMIntToPtr && integer_ok(ir::operand(m, 0));
            let origin_known = chosen || cast || read_only_constant(m) || own_block(m) || from_table(m);
            if !origin_known {
                return false;
            }
        }
        let mut work: Vec<Value> = members.iter().copied().filter(|m| ir::is_instruction(*m)).collect();
        let mut seen: HashSet<Value> = HashSet::new();
        while let Some(p) = work.pop() {
            if !seen.insert(p) {
                continue;
            }
            if seen.len() > 20_000 {
                return false;
            }
            for u in ir::users(p) {
                let fine = match ir::opcode(u) {
                    LLVMOpcode::LLVMGetElementPtr => {
                        work.push(u);
                        true
                    }
                    LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMSelect => {
                        if self.member.get(&u) != Some(&k) {
                            work.push(u);
                        }
                        true
                    }
                    LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMICmp => true,
                    // An address as an integer: compared, masked (alignment),
                    // or kept so for a while and made a pointer again.
                    LLVMOpcode::LLVMPtrToInt | LLVMOpcode::LLVMPtrToAddr => {
                        let mut ints = vec![u];
                        let mut seen_ints = HashSet::new();
                        let mut ok = true;
                        while let Some(x) = ints.pop() {
                            if !seen_ints.insert(x) {
                                continue;
                            }
                            for w in ir::users(x) {
                                match ir::opcode(w) {
                                    LLVMOpcode::LLVMICmp | LLVMOpcode::LLVMAnd | LLVMOpcode::LLVMSub => {}
                                    LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMSelect => ints.push(w),
                                    LLVMOpcode::LLVMIntToPtr => work.push(w),
                                    _ => ok = false,
                                }
                            }
                        }
                        ok
                    }
                    LLVMOpcode::LLVMStore => ir::operand(u, 0) != p,
                    LLVMOpcode::LLVMCall => match crate::calls::classify::classify(u) {
                        crate::ir::kind::Kind::Free | crate::ir::kind::Kind::MemCpy | crate::ir::kind::Kind::MemSet => {
                            true
                        }
                        _ => ir::called_function(u).is_some_and(|c| {
                            let n = ir::name(c);
                            n.starts_with("llvm.lifetime") || n.starts_with("llvm.assume")
                        }),
                    },
                    _ => false,
                };
                if !fine {
                    return false;
                }
            }
        }
        true
    }

    /// Takes in what access `i` through `p`, in table `k` at `place`, says.
    fn learn(&mut self, f: Value, i: Value, p: Value, k: usize, place: Place) {
        let size = match ir::opcode(i) {
            LLVMOpcode::LLVMLoad => ir::store_size(f, ir::type_of(i)),
            LLVMOpcode::LLVMStore => ir::store_size(f, ir::type_of(ir::operand(i, 0))),
            _ => 0,
        };
        match place {
            Place::Above => {
                let fine = match ir::opcode(i) {
                    LLVMOpcode::LLVMLoad => ir::int_lanes(ir::type_of(i)).is_some(),
                    LLVMOpcode::LLVMStore => ir::int_lanes(ir::type_of(ir::operand(i, 0))).is_some(),
                    // A fill, control bytes copied out (a group read through
                    // a stack slot), or copied in from control bytes.
                    _ => {
                        let src = ir::operand(i, 1);
                        ir::called_function(i).is_some_and(|c| ir::name(c).starts_with("llvm.memset"))
                            || ir::operand(i, 0) != p
                            || self.locate(src).is_some_and(|at| at.iter().all(|(_, p)| *p == Place::Above))
                            || ir::constant_root(src).is_some_and(crate::ir::layout::holds_integer_data)
                    }
                };
                if !fine {
                    self.tables[k].broken = true;
                }
            }
            Place::Slot { size: slot, field } => {
                if slot != self.tables[k].slot {
                    self.tables[k].broken = true;
                } else if let Some(e) = evidence(i) {
                    self.tables[k].learn(field, size, e);
                }
            }
        }
    }

    /// The tables and places address `p` may have: from the nearest base
    /// that is a table's control pointer, or from each value a phi or
    /// select it is based on may be.
    fn locate(&self, p: Value) -> Option<Vec<(usize, Place)>> {
        self.locate_from(p, &Affine::default(), true, 4)
    }

    fn locate_from(&self, p: Value, extra: &Affine, nuw: bool, depth: u32) -> Option<Vec<(usize, Place)>> {
        let links = chain(p, self.td);
        for (base, off, n) in &links {
            if let Some(&k) = self.member.get(base) {
                let off = off.clone().add(extra.clone(), 1);
                // A constant offset below: slot 0 and the ones after it.
                let slot = self.tables[k].slot;
                if off.terms.is_empty() && off.constant < 0 {
                    return Some(vec![(
                        k,
                        Place::Slot { size: slot, field: off.constant.rem_euclid(slot as i64) as u64 },
                    )]);
                }
                return Some(vec![(k, place(&off, *n && nuw)?)]);
            }
        }
        let (last, off, n) = links.last()?;
        let chosen = unsafe { !LLVMIsAPHINode(*last).is_null() || !LLVMIsASelectInst(*last).is_null() };
        if depth == 0 || !chosen {
            return None;
        }
        let off = off.clone().add(extra.clone(), 1);
        let mut out = Vec::new();
        for c in ir::chosen_values(*last) {
            out.extend(self.locate_from(c, &off, *n && nuw, depth - 1)?);
        }
        Some(out)
    }

    /// The fields of `len` bytes at `p` (all of them at or above a control
    /// pointer when `len` is unknown), if this says what they hold.
    fn fields_at(&self, p: Value, len: Option<u64>) -> Option<Vec<(u64, u64, Elem)>> {
        let places = self.locate(p)?;
        let mut found: Option<Vec<(u64, u64, Elem)>> = None;
        for (k, place) in places {
            let fields = self.fields_in(k, place, len)?;
            if found.as_ref().is_some_and(|f| *f != fields) {
                return None;
            }
            found = Some(fields);
        }
        found
    }

    fn fields_in(&self, k: usize, place: Place, len: Option<u64>) -> Option<Vec<(u64, u64, Elem)>> {
        let table = &self.tables[k];
        if table.broken {
            return None;
        }
        match place {
            Place::Above => Some(vec![(0, len.unwrap_or(u64::MAX), Elem::Int)]),
            Place::Slot { field, .. } => {
                let len = len?;
                // Whole slots, one after another (a copy of several).
                if field == 0 && len > table.slot && len % table.slot == 0 {
                    let one = table.covering(0, table.slot)?;
                    return Some(
                        (0..len / table.slot)
                            .flat_map(|n| one.iter().map(move |&(o, s, e)| (o + n * table.slot, s, e)))
                            .collect(),
                    );
                }
                table.covering(field, len)
            }
        }
    }
}

/// A block `posix_memalign` allocated (Rust's allocator for alignments
/// `malloc` does not promise): `v` is loaded from a stack slot of the
/// function that only `posix_memalign` writes (after a null, maybe).
pub(crate) fn from_posix_memalign(v: Value) -> bool {
    if !ir::is_instruction(v) || ir::opcode(v) != LLVMOpcode::LLVMLoad {
        return false;
    }
    let slot = ir::operand(v, 0);
    if unsafe { LLVMIsAAllocaInst(slot).is_null() } {
        return false;
    }
    let mut written = false;
    for u in ir::users(slot) {
        match ir::opcode(u) {
            LLVMOpcode::LLVMLoad => {}
            // Cleared before the call.
            LLVMOpcode::LLVMStore if ir::operand(u, 1) == slot && unsafe { LLVMIsNull(ir::operand(u, 0)) } != 0 => {}
            LLVMOpcode::LLVMCall => {
                let name = ir::called_function(u).map(ir::name).unwrap_or_default();
                if name == "posix_memalign" && ir::operand(u, 0) == slot {
                    written = true;
                } else if !name.starts_with("llvm.lifetime") {
                    return false;
                }
            }
            _ => return false,
        }
    }
    written
}

/// Whether `p` may address a Swiss table's memory: a cheap test.
fn may_be_in_table(p: Value) -> bool {
    let td = data_layout(ir::parent_function(p));
    may_be_in_table_within(p, td, 4)
}

fn may_be_in_table_within(p: Value, td: LLVMTargetDataRef, depth: u32) -> bool {
    chain(p, td).into_iter().any(|(base, off, nuw)| {
        matches!(place(&off, nuw), Some(Place::Slot { .. }))
            || has_slots(base, td)
            || depth > 0
                && unsafe { !LLVMIsAPHINode(base).is_null() || !LLVMIsASelectInst(base).is_null() }
                && ir::chosen_values(base).into_iter().any(|c| may_be_in_table_within(c, td, depth - 1))
    })
}

/// The layout of a `memcpy`/`memmove` between Swiss tables' memory, from
/// whichever side says it (both must agree).
pub(crate) fn copy_layout(copy: Value) -> Option<CopyLayout> {
    if !(0..2).any(|k| ir::is_instruction(ir::operand(copy, k)) && may_be_in_table(ir::operand(copy, k))) {
        return None;
    }
    let tables = Tables::of(ir::parent_function(copy))?;
    let len = ir::const_int_value(ir::operand(copy, 2)).map(|n| n as u64);
    let sides: Vec<Vec<(u64, u64, Elem)>> =
        (0..2).filter_map(|k| tables.fields_at(ir::operand(copy, k), len)).collect();
    let fields = sides.first()?.clone();
    if sides.iter().any(|s| *s != fields) {
        return None;
    }
    let first = fields.first()?.2;
    if fields.iter().all(|f| f.2 == first) {
        Some(CopyLayout::Uniform(first))
    } else {
        Some(CopyLayout::Fields(fields))
    }
}

/// What the `size` bytes at `p` hold, if `p` addresses a Swiss table and
/// its accesses say: one element type for all of them.
pub(crate) fn elem_at(p: Value, size: u64) -> Option<Elem> {
    let fields = fields_near(p, size)?;
    let first = fields.first()?.2;
    fields.iter().all(|f| f.2 == first).then_some(first)
}

/// Whether the `size` bytes at `p` are fields of a Swiss table's slots that
/// are not all integers (a key and a float value moved together, a float
/// value or a `String`'s pointer moved alone).
pub(crate) fn holds_non_integer_fields(p: Value, size: u64) -> bool {
    fields_near(p, size).is_some_and(|fields| fields.iter().any(|f| f.2 != Elem::Int))
}

/// The fields of the `size` bytes at instruction `p`, if it addresses a
/// Swiss table (the cheap test first) whose accesses say what they hold.
fn fields_near(p: Value, size: u64) -> Option<Vec<(u64, u64, Elem)>> {
    if !ir::is_instruction(p) || !may_be_in_table(p) {
        return None;
    }
    Tables::of(ir::parent_function(p))?.fields_at(p, Some(size))
}

/// Whether `p` addresses a slot of one of its function's Swiss tables.
pub(crate) fn addresses_slot(p: Value) -> bool {
    ir::is_instruction(p)
        && may_be_in_table(p)
        && Tables::of(ir::parent_function(p))
            .and_then(|t| t.locate(p))
            .is_some_and(|places| places.iter().any(|(_, place)| matches!(place, Place::Slot { .. })))
}

/// Whether `f` moves parts of a Swiss table's slots at offsets that vary
/// within a slot (a word-by-word swap loop): such a loop, unrolled, moves
/// each field on its own.
pub(crate) fn moves_parts_of_slots(f: Value) -> bool {
    let Some(tables) = Tables::of(f) else { return false };
    accesses(f).into_iter().any(|(_, p)| {
        chain(p, tables.td).into_iter().any(|(base, off, _)| {
            let Some(&k) = tables.member.get(&base) else { return false };
            let slot = tables.tables[k].slot as i64;
            let (down, up): (Vec<i64>, Vec<i64>) = off.terms.iter().map(|t| t.0).partition(|c| *c < 0);
            !down.is_empty() && !up.is_empty() && down.iter().all(|c| c % slot == 0) && up.iter().all(|c| *c <= slot)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::test_ir::{calls, with_function};

    /// The layout found for each `memcpy`/`memmove` of `@f`, in order.
    fn layouts(body: &str) -> Vec<Option<CopyLayout>> {
        let ir = format!(
            "target datalayout = \"e-m:e-i64:64-n8:16:32:64-S128\"\n\
             declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n\
             declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)\n\
             define void @f(ptr %ctrl, ptr %new, i64 %i, i64 %j, i64 %k, i64 %n, double %x) {{\n{body}\n  ret void\n}}\n"
        );
        with_function(&ir, |f| calls(f).into_iter().map(copy_layout).collect())
    }

    /// A `HashMap<u64, f64>`: a key and a value stored in slot `i` below the
    /// control pointer (as hashbrown addresses it: `!i << 4`), the value read
    /// back through a typed step, control bytes written above it.
    const FILLED: &str = "  %key = add i64 %k, 1\n  %not = xor i64 %i, -1\n  %off = shl i64 %not, 4\n  \
         %slot = getelementptr inbounds i8, ptr %ctrl, i64 %off\n  store i64 %key, ptr %slot\n  \
         %v = getelementptr inbounds i8, ptr %slot, i64 8\n  store double %x, ptr %v\n  \
         %neg = sub i64 0, %j\n  %e = getelementptr inbounds { i64, double }, ptr %ctrl, i64 %neg\n  \
         %ev = getelementptr inbounds i8, ptr %e, i64 -8\n  %r = load double, ptr %ev\n  \
         %g = getelementptr inbounds nuw i8, ptr %ctrl, i64 %j\n  store i8 0, ptr %g\n";

    #[test]
    fn slots_moved_whole_or_by_field_and_control_bytes_moved_are_typed() {
        let body = format!(
            "{FILLED}  %dnot = xor i64 %j, -1\n  %doff = mul i64 %dnot, 16\n  \
             %dst = getelementptr inbounds i8, ptr %ctrl, i64 %doff\n  \
             call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %slot, i64 16, i1 false)\n  \
             %dv = getelementptr inbounds i8, ptr %dst, i64 8\n  \
             call void @llvm.memcpy.p0.p0.i64(ptr %dv, ptr %v, i64 8, i1 false)\n  \
             %tail = getelementptr inbounds nuw i8, ptr %ctrl, i64 16\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %tail, ptr %ctrl, i64 %n, i1 false)"
        );
        assert_eq!(
            layouts(&body),
            vec![
                Some(CopyLayout::Fields(vec![(0, 8, Elem::Int), (8, 8, Elem::F64)])),
                Some(CopyLayout::Uniform(Elem::F64)),
                Some(CopyLayout::Uniform(Elem::Int)),
            ]
        );
    }

    #[test]
    fn slot_addresses_are_told_from_control_bytes_and_other_memory() {
        let ir = format!(
            "target datalayout = \"e-m:e-i64:64-n8:16:32:64-S128\"\n\
             define void @f(ptr %ctrl, ptr %new, i64 %i, i64 %j, i64 %k, i64 %n, double %x) {{\n{FILLED}  \
             %other = getelementptr inbounds i8, ptr %new, i64 8\n  store double %x, ptr %other\n  ret void\n}}\n"
        );
        let found = with_function(&ir, |f| {
            ir::blocks(f)
                .into_iter()
                .flat_map(ir::instructions)
                .filter(|i| ir::opcode(*i) == LLVMOpcode::LLVMGetElementPtr)
                .map(|i| (ir::name(i), addresses_slot(i)))
                .collect::<Vec<_>>()
        });
        let slot_named = |n: &str| found.iter().find(|(m, _)| m == n).expect("named").1;
        assert!(slot_named("slot") && slot_named("v") && slot_named("ev"));
        assert!(!slot_named("g") && !slot_named("other"));
    }

    /// Unoptimised Rust keeps an enum's variants in shared slots: the key
    /// stored is an integer made a pointer on one path and a reference on
    /// the other, while every read of the field uses it as an integer.
    #[test]
    fn a_shared_slot_choosing_an_integer_says_nothing_of_the_field() {
        let layout_with = |other: &str| {
            let ir = format!(
                "target datalayout = \"e-m:e-i64:64-n8:16:32:64-S128\"\n\
                 declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n\
                 define void @f(ptr %ctrl, ptr %r, i1 %c, i64 %i, i64 %j, i64 %k, double %x) {{\n\
                 entry:\n  %made = inttoptr i64 %k to ptr\n  br i1 %c, label %a, label %b\n\
                 a:\n  br label %b\n\
                 b:\n  %key = phi ptr [ {other}, %entry ], [ %r, %a ]\n  %not = xor i64 %i, -1\n  \
                 %off = shl i64 %not, 4\n  %slot = getelementptr inbounds i8, ptr %ctrl, i64 %off\n  \
                 store ptr %key, ptr %slot\n  %v = getelementptr inbounds i8, ptr %slot, i64 8\n  \
                 store double %x, ptr %v\n  %neg = sub i64 0, %j\n  \
                 %e = getelementptr inbounds {{ i64, double }}, ptr %ctrl, i64 %neg\n  \
                 %ek = getelementptr inbounds i8, ptr %e, i64 -16\n  %rk = load i64, ptr %ek\n  \
                 %same = icmp eq i64 %rk, %k\n  %g = getelementptr inbounds nuw i8, ptr %ctrl, i64 %j\n  \
                 %z = zext i1 %same to i8\n  store i8 %z, ptr %g\n  \
                 %dnot = xor i64 %j, -1\n  %doff = shl i64 %dnot, 4\n  \
                 %dst = getelementptr inbounds i8, ptr %ctrl, i64 %doff\n  \
                 call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %slot, i64 16, i1 false)\n  ret void\n}}\n"
            );
            with_function(&ir, |f| calls(f).into_iter().map(copy_layout).collect::<Vec<_>>())
        };
        assert_eq!(layout_with("%made"), vec![Some(CopyLayout::Fields(vec![(0, 8, Elem::Int), (8, 8, Elem::F64)]))]);
        // A phi of pointers only is a pointer stored: the field contradicts itself.
        assert_eq!(layout_with("null"), vec![None]);
    }

    #[test]
    fn contradicting_accesses_type_nothing() {
        // The value field also written as a computed integer.
        let body = format!(
            "{FILLED}  %w = getelementptr inbounds i8, ptr %ctrl, i64 -8\n  store i64 %key, ptr %w\n  \
             %dnot = xor i64 %j, -1\n  %doff = shl i64 %dnot, 4\n  \
             %dst = getelementptr inbounds i8, ptr %ctrl, i64 %doff\n  \
             call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %slot, i64 16, i1 false)"
        );
        assert_eq!(layouts(&body), vec![None]);
        // A float stored among the control bytes.
        let body = format!(
            "{FILLED}  %h = getelementptr inbounds nuw i8, ptr %ctrl, i64 %k\n  store double %x, ptr %h\n  \
             %tail = getelementptr inbounds nuw i8, ptr %ctrl, i64 16\n  \
             call void @llvm.memmove.p0.p0.i64(ptr %tail, ptr %ctrl, i64 %n, i1 false)"
        );
        assert_eq!(layouts(&body), vec![None]);
    }

    /// A `HashMap<u64, f32>`'s slot: key, value, and four bytes of padding
    /// no access types. `@malloc` makes the table the function's own.
    fn padded_layouts(ctrl: &str) -> Vec<Option<CopyLayout>> {
        let ir = format!(
            "target datalayout = \"e-m:e-i64:64-n8:16:32:64-S128\"\n\
             declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n\
             declare ptr @malloc(i64)\n\
             define void @f(ptr %arg, i64 %i, i64 %j, i64 %k, float %x) {{\n  %block = call ptr @malloc(i64 4096)\n  \
             %ctrl = {ctrl}\n  %key = add i64 %k, 1\n  %not = xor i64 %i, -1\n  %off = shl i64 %not, 4\n  \
             %slot = getelementptr inbounds i8, ptr %ctrl, i64 %off\n  store i64 %key, ptr %slot\n  \
             %v = getelementptr inbounds i8, ptr %slot, i64 8\n  store float %x, ptr %v\n  \
             %dnot = xor i64 %j, -1\n  %doff = shl i64 %dnot, 4\n  %dst = getelementptr inbounds i8, ptr %ctrl, i64 %doff\n  \
             call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %slot, i64 16, i1 false)\n  ret void\n}}\n"
        );
        with_function(&ir, |f| calls(f).into_iter().skip(1).map(copy_layout).collect())
    }

    #[test]
    fn padding_moves_nothing_only_in_a_table_of_the_function_own() {
        assert_eq!(
            padded_layouts("getelementptr inbounds nuw i8, ptr %block, i64 2048"),
            vec![Some(CopyLayout::Fields(vec![(0, 8, Elem::Int), (8, 4, Elem::F32), (12, 4, Elem::Int)]))]
        );
        // The caller's table: its padding might be a field only the caller types.
        assert_eq!(padded_layouts("getelementptr inbounds nuw i8, ptr %arg, i64 2048"), vec![None]);
    }

    #[test]
    fn a_copy_of_a_field_nothing_typed_is_refused() {
        // Only the key is known: half of a slot's bytes have no type.
        let body = "  %key = add i64 %k, 1\n  %not = xor i64 %i, -1\n  %off = shl i64 %not, 4\n  \
             %slot = getelementptr inbounds i8, ptr %ctrl, i64 %off\n  store i64 %key, ptr %slot\n  \
             %dnot = xor i64 %j, -1\n  %doff = shl i64 %dnot, 4\n  \
             %dst = getelementptr inbounds i8, ptr %ctrl, i64 %doff\n  \
             call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %slot, i64 16, i1 false)";
        assert_eq!(layouts(body), vec![None]);
    }
}
