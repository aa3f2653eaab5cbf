//! What a block grown with `realloc` holds, followed through every value
//! that is the block: floats of one type (their adjoints move back to the
//! old block's shadow in the reverse sweep), or no floats at all (a
//! `Vec<Vec<f64>>`'s outer buffer: capacities, pointers and lengths; its
//! shadow needs only the old shadow's contents copied along, as the primal's
//! are).

use std::collections::HashSet;

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

use crate::analysis::typed_copies::copy_layout_by_types;
use crate::calls::classify::{classify, Kind};
use crate::ir::kind::{contains_float, Elem};
use crate::ir::layout::{data_layout, moves_pointers_through_memory, read_only_constant, CopyLayout};
use crate::ir::{self, Type, Value};

/// What a block grown with `realloc` holds, as the sweeps need it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Grown {
    /// No floats (integers and pointers): the shadow's bytes go along whole.
    NoFloats,
    /// Floats of one type (and perhaps integers): every element's adjoint moves.
    Floats(Elem),
    /// Elements of `stride` bytes with floats at these offsets beside
    /// pointers (a `Vec` of structs holding a `Vec`): the shadow's bytes go
    /// along whole in the forward sweep, and only the floats' adjoints move
    /// back in the reverse sweep.
    Fields { stride: u64, floats: Vec<(u64, Elem)> },
}

/// What the block reallocated by `i` holds; `None`: cannot tell.
///
/// In a function that moves no pointers through memory, the evidence is
/// function-wide (the block may be reached through phis and selects): its
/// floats are of the one float type the function loads and stores. In one
/// that does, the block's own accesses are followed (see [`Family`]).
pub(crate) fn grown_contents(i: Value) -> Option<Grown> {
    let f = ir::parent_function(i);
    if moves_pointers_through_memory(f) {
        let family = Family::of(i)?;
        return match family.floats {
            Floats::None => Some(Grown::NoFloats),
            Floats::One(e) if !family.pointers => Some(Grown::Floats(e)),
            _ if family.copies => None,
            _ => crate::analysis::grown_fields::fields(&family.accesses, &family.members, data_layout(f))
                .map(|(stride, floats)| Grown::Fields { stride, floats }),
        };
    }
    let mut seen: Option<Elem> = None;
    for l in ir::blocks(f).into_iter().flat_map(ir::instructions) {
        let t = match ir::opcode(l) {
            LLVMOpcode::LLVMLoad => ir::type_of(l),
            LLVMOpcode::LLVMStore => ir::type_of(ir::operand(l, 0)),
            _ => continue,
        };
        let e = match Elem::float_of(t) {
            Some(e) => e,
            None if ir::is_real(t) => return None,
            None => continue,
        };
        match seen {
            None => seen = Some(e),
            Some(s) if s == e => {}
            Some(_) => return None,
        }
    }
    Some(seen.map_or(Grown::NoFloats, Grown::Floats))
}

/// What a copy between blocks of the function's own moves, by how the
/// blocks are accessed (see [`Family`]; the two sides of a copy of unknown
/// type are one family): the floats of one type and no pointers, or no
/// floats (`Elem::Ptr`: the shadow's bytes go along whole, and no adjoint
/// moves).
pub(crate) fn copied_elem(copy: Value) -> Option<Elem> {
    let family = Family::of(ir::operand(copy, 0))?;
    match family.floats {
        Floats::None => Some(Elem::Ptr),
        Floats::One(e) if !family.pointers => Some(e),
        _ => None,
    }
}

/// Whether pointer `p` is into a block the function itself allocated (and
/// perhaps grew), whose address goes nowhere its uses cannot be followed.
pub(crate) fn is_own_block(p: Value) -> bool {
    // (Not through blocks it is stored into: what is read back from those
    // may be other blocks too.)
    Family::nested(p, 0).is_some()
}

/// The floats a block's accesses read or write.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Floats {
    None,
    One(Elem),
    /// Of two types, in aggregates, or as integers' bits.
    Mixed,
}

impl Floats {
    fn add(self, e: Elem) -> Floats {
        match self {
            Floats::None => Floats::One(e),
            Floats::One(s) if s == e => self,
            _ => Floats::Mixed,
        }
    }
}

/// The values that are one block at some point (the block a pointer points
/// into, the blocks it was grown from and grows into, fresh blocks it starts
/// as), through address arithmetic, casts, phis, selects, reallocations,
/// copies of unknown type and private stack slots, and what their uses
/// read and write. Made only where every use can be followed: none lets the
/// address go to memory the caller sees, an unknown call, or an integer made
/// a pointer again, and the block comes from no parameter or global.
struct Family {
    members: HashSet<Value>,
    floats: Floats,
    /// Whether pointers are loaded from or stored into the block.
    pointers: bool,
    /// The loads and stores through the block: address, bytes, what.
    accesses: Vec<(Value, u64, Elem)>,
    /// Whether bytes are copied or filled in, or typed by a hint (places not
    /// seen as accesses).
    copies: bool,
}

impl Family {
    /// How deep [`Family::of`] follows blocks stored into blocks.
    const NESTING: u32 = 3;

    fn of(start: Value) -> Option<Family> {
        Family::nested(start, Family::NESTING)
    }

    /// The family of `start`, following a block stored into other blocks
    /// (a row stored into a `Vec<Vec<f64>>`) at most `depth` levels deep.
    fn nested(start: Value, depth: u32) -> Option<Family> {
        if !ir::is_instruction(start) {
            // A parameter or a global: memory the caller sees.
            return None;
        }
        let mut family = Family {
            members: HashSet::new(),
            floats: Floats::None,
            pointers: false,
            accesses: Vec::new(),
            copies: false,
        };
        let mut work = vec![start];
        // Pointers read from other blocks of the function's own: where they come from is known.
        let mut read_back: HashSet<Value> = HashSet::new();
        while let Some(v) = work.pop() {
            if !family.members.insert(v) {
                continue;
            }
            if !read_back.contains(&v) {
                let from = match sources(v) {
                    Some(from) => from,
                    None => stored_into_own_block(v, depth)?,
                };
                join(&mut work, from)?;
            }
            for u in ir::users(v) {
                match family.uses(u, v, depth) {
                    Use::Member => work.push(u),
                    Use::Members(vs) => join(&mut work, vs)?,
                    Use::ReadBack(loads) => {
                        read_back.extend(loads.iter().copied());
                        work.extend(loads);
                    }
                    Use::Slot(slot) => work.extend(pointer_loads_of(slot)),
                    Use::Harmless => {}
                    Use::Unknown => return None,
                }
            }
        }
        Some(family)
    }

    /// The pointers read back from the block: where a block stored into it
    /// goes. Only where pointers leave it by no other way (as integers, or
    /// copied out to memory outside the family).
    fn pointer_loads(&self) -> Option<Vec<Value>> {
        let mut out = Vec::new();
        for m in &self.members {
            for u in ir::users(*m) {
                if ir::opcode(u) != LLVMOpcode::LLVMLoad || ir::operand(u, 0) != *m {
                    continue;
                }
                if ir::is_pointer(ir::type_of(u)) {
                    out.push(u);
                } else if !contains_float(ir::type_of(u)) && !integer_stays_integer(u, &self.members) {
                    return None;
                }
            }
        }
        Some(out)
    }

    /// Records an access of type `t` at address `at`.
    fn access(&mut self, at: Value, t: Type, float_bits: bool) {
        let bytes = ir::store_size(ir::parent_function(at), t);
        if float_bits || (contains_float(t) && Elem::float_of(t).is_none()) {
            self.floats = Floats::Mixed;
        } else if let Some(e) = Elem::float_of(t) {
            self.floats = self.floats.add(e);
            self.accesses.push((at, bytes, e));
        } else if ir::is_pointer(ir::scalar_of(t)) {
            self.pointers = true;
            self.accesses.push((at, bytes, Elem::Ptr));
        } else {
            self.accesses.push((at, bytes, Elem::Int));
        }
    }

    /// The pointers stored into the block (where a pointer read from it
    /// comes from); `None` if pointers may get in another way (integers of
    /// unknown origin stored, bytes copied in).
    fn pointer_stores(&self) -> Option<Vec<Value>> {
        if self.copies {
            return None;
        }
        let mut out = Vec::new();
        for m in &self.members {
            for u in ir::users(*m) {
                if ir::opcode(u) != LLVMOpcode::LLVMStore || ir::operand(u, 1) != *m {
                    continue;
                }
                let x = ir::operand(u, 0);
                if ir::is_pointer(ir::type_of(x)) {
                    out.push(x);
                } else if !crate::analysis::grown_fields::no_pointer_bits(x, &self.members) {
                    return None;
                }
            }
        }
        Some(out)
    }

    /// What use `u` of member `v` means, recording what it reads or writes;
    /// blocks `v` is stored into are followed `depth` levels deep.
    fn uses(&mut self, u: Value, v: Value, depth: u32) -> Use {
        match ir::opcode(u) {
            LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast => {
                if ir::operand(u, 0) == v {
                    Use::Member
                } else {
                    Use::Harmless
                }
            }
            LLVMOpcode::LLVMPHI => Use::Member,
            LLVMOpcode::LLVMSelect if ir::operand(u, 0) != v => Use::Member,
            LLVMOpcode::LLVMICmp => Use::Harmless,
            LLVMOpcode::LLVMLoad => {
                self.access(v, ir::type_of(u), reinterpreted_as_float(u));
                Use::Harmless
            }
            LLVMOpcode::LLVMStore if ir::operand(u, 1) == v => {
                let x = ir::operand(u, 0);
                self.access(v, ir::type_of(x), is_float_bits(x));
                Use::Harmless
            }
            LLVMOpcode::LLVMStore => {
                let slot = ir::operand(u, 1);
                if ir::is_private_slot(slot) {
                    return Use::Slot(slot);
                }
                // Into another block of the function's own: the pointers read back from it.
                let outer = (depth > 0).then(|| Family::nested(ir::operand(u, 1), depth - 1)).flatten();
                match outer.and_then(|o| o.pointer_loads()) {
                    Some(loads) => Use::ReadBack(loads),
                    None => Use::Unknown,
                }
            }
            LLVMOpcode::LLVMPtrToInt if integer_stays_integer(u, &HashSet::new()) => Use::Harmless,
            LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke => match classify(u) {
                Kind::Free => Use::Harmless,
                Kind::Realloc if ir::operand(u, 0) == v => Use::Member,
                Kind::MemSet if ir::operand(u, 0) == v => {
                    self.copies = true;
                    Use::Harmless
                }
                Kind::MemCpy => {
                    self.copies = true;
                    let elems = match copy_layout_by_types(u, data_layout(ir::parent_function(u))) {
                        Some(CopyLayout::Uniform(e)) => vec![e],
                        Some(CopyLayout::Fields(fs)) => fs.iter().map(|(_, _, e)| *e).collect(),
                        None => Vec::new(),
                    };
                    elems.iter().for_each(|e| self.copied(*e));
                    if elems.is_empty() || elems.contains(&Elem::Ptr) {
                        // Bytes of no known type, or pointers: the other side
                        // holds what the block does.
                        Use::Members((0..2).map(|k| ir::operand(u, k)).collect())
                    } else {
                        Use::Harmless
                    }
                }
                _ => match ir::called_function(u).and_then(|c| crate::ir::kind::type_hint(&ir::name(c))) {
                    Some(e) => {
                        self.copied(e);
                        Use::Harmless
                    }
                    None if ir::is_lifetime_marker(u) => Use::Harmless,
                    // Reads the bytes to compare them (a `String` key with a table's).
                    None if compares_bytes(u) => Use::Harmless,
                    None => Use::Unknown,
                },
            },
            _ => Use::Unknown,
        }
    }

    /// Records a copy (or a type hint) of elements `e`.
    fn copied(&mut self, e: Elem) {
        self.copies = true;
        match e {
            Elem::F32 | Elem::F64 => self.floats = self.floats.add(e),
            Elem::Ptr => self.pointers = true,
            Elem::Int => {}
        }
    }
}

/// Whether call `u` only reads memory to compare it (`bcmp`, `memcmp`,
/// `strlen`, ...): the address goes nowhere, nothing is written.
fn compares_bytes(u: Value) -> bool {
    ir::called_function(u).is_some_and(|c| {
        matches!(ir::name(c).as_str(), "bcmp" | "memcmp" | "strlen" | "strnlen" | "strcmp" | "strncmp")
    })
}

/// Adds values that are the block to `work`; `None` if one is a parameter
/// or a global (memory the caller sees). Constants (Rust's dangling pointer
/// of an empty `Vec`, null) are no block, and their uses are all over the
/// module: they are left out.
fn join(work: &mut Vec<Value>, values: Vec<Value>) -> Option<()> {
    for x in values {
        if ir::is_instruction(x) {
            work.push(x);
        } else if !read_only_constant(x) {
            return None;
        }
    }
    Some(())
}

/// Where pointer `v`, loaded from another block of the function's own
/// (followed `depth` levels deep), comes from: the pointers stored into that
/// block (a row's buffer read from a `Vec` of structs holding it).
fn stored_into_own_block(v: Value, depth: u32) -> Option<Vec<Value>> {
    if ir::opcode(v) != LLVMOpcode::LLVMLoad || !ir::is_pointer(ir::type_of(v)) || depth == 0 {
        return None;
    }
    Family::nested(ir::operand(v, 0), depth - 1)?.pointer_stores()
}

/// The values block member `v` is made from that are the block too; `None`
/// where it comes from somewhere the block cannot be followed (a parameter,
/// a pointer loaded from memory the function does not own).
fn sources(v: Value) -> Option<Vec<Value>> {
    match ir::opcode(v) {
        LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast => {
            Some(vec![ir::operand(v, 0)])
        }
        LLVMOpcode::LLVMPHI => Some(ir::incoming(v).into_iter().map(|(x, _)| x).collect()),
        LLVMOpcode::LLVMSelect => Some(vec![ir::operand(v, 1), ir::operand(v, 2)]),
        // What was stored there (at the same place, where known).
        LLVMOpcode::LLVMLoad if ir::is_private_slot(ir::operand(v, 0)) => Some(pointer_stores_to(ir::operand(v, 0))),
        // A fresh block (Rust's allocator for large alignments).
        LLVMOpcode::LLVMLoad if crate::libraries::from_posix_memalign(v) => Some(Vec::new()),
        _ => match classify(v) {
            Kind::Realloc => Some(vec![ir::operand(v, 0)]),
            Kind::Alloc(_) | Kind::Alloca => Some(Vec::new()),
            _ => None,
        },
    }
}

/// What a use of a block's member means.
enum Use {
    /// The use is the block too.
    Member,
    /// These are the block too (the two sides of a copy whose types are unknown).
    Members(Vec<Value>),
    /// The member is stored into this private stack slot: pointers loaded
    /// from it are the block.
    Slot(Value),
    /// The member is stored into another block of the function's own: the
    /// pointers loaded from that block are the block.
    ReadBack(Vec<Value>),
    /// Lets the address go nowhere.
    Harmless,
    /// The address goes where it cannot be followed.
    Unknown,
}

/// The loads of pointers from private stack slot `slot` (its users are its
/// loads and stores themselves).
fn pointer_loads_of(slot: Value) -> Vec<Value> {
    ir::users(slot)
        .into_iter()
        .filter(|l| ir::opcode(*l) == LLVMOpcode::LLVMLoad && ir::is_pointer(ir::type_of(*l)))
        .collect()
}

/// The pointers stored into private stack slot `slot`.
fn pointer_stores_to(slot: Value) -> Vec<Value> {
    ir::users(slot)
        .into_iter()
        .filter(|st| ir::opcode(*st) == LLVMOpcode::LLVMStore && ir::is_pointer(ir::type_of(ir::operand(*st, 0))))
        .map(|st| ir::operand(st, 0))
        .collect()
}

/// Whether integer load `l` is taken for a float's bits (`f64::from_bits`).
fn reinterpreted_as_float(l: Value) -> bool {
    ir::users(l).into_iter().any(|u| ir::opcode(u) == LLVMOpcode::LLVMBitCast && contains_float(ir::type_of(u)))
}

/// Whether `x` is a float's bits taken as an integer.
fn is_float_bits(x: Value) -> bool {
    ir::is_instruction(x) && ir::opcode(x) == LLVMOpcode::LLVMBitCast && contains_float(ir::type_of(ir::operand(x, 0)))
}

/// Whether integer `x` (an address taken as an integer, or an integer read
/// from a block) is never made a pointer again: computed with, compared,
/// converted to a float, used as an index, stored into a stack slot whose
/// loads are followed the same way, or handed to an intrinsic or to a call
/// that does not return (Rust's allocation error report), or stored into
/// the block `within` (a hash table moving its slots a word at a time). At
/// most `INTEGER_USES` values are followed; past that, the answer is no.
fn integer_stays_integer(x: Value, within: &HashSet<Value>) -> bool {
    const INTEGER_USES: usize = 512;
    let (mut seen, mut work) = (HashSet::new(), vec![x]);
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        if seen.len() > INTEGER_USES {
            return false;
        }
        for u in ir::users(v) {
            match ir::opcode(u) {
                LLVMOpcode::LLVMICmp
                | LLVMOpcode::LLVMUIToFP
                | LLVMOpcode::LLVMSIToFP
                | LLVMOpcode::LLVMBr
                | LLVMOpcode::LLVMSwitch
                | LLVMOpcode::LLVMGetElementPtr => {}
                LLVMOpcode::LLVMExtractElement | LLVMOpcode::LLVMInsertElement | LLVMOpcode::LLVMShuffleVector => {
                    work.push(u)
                }
                op if crate::analysis::grown_fields::integer_arithmetic(op) => work.push(u),
                LLVMOpcode::LLVMBitCast if !contains_float(ir::type_of(u)) && !ir::is_pointer(ir::type_of(u)) => {
                    work.push(u)
                }
                LLVMOpcode::LLVMStore if ir::operand(u, 0) == v && within.contains(&ir::operand(u, 1)) => {}
                LLVMOpcode::LLVMStore if ir::operand(u, 0) == v => {
                    let slots = ir::pointer_bases(ir::operand(u, 1)).into_iter().map(stack_slot_loads);
                    match slots.collect::<Option<Vec<_>>>() {
                        Some(loads) => work.extend(loads.into_iter().flatten()),
                        None => return false,
                    }
                }
                LLVMOpcode::LLVMCall if ends_in_unreachable(u) => {}
                // A size (of a block, a copy, a fill, a sized `delete`).
                LLVMOpcode::LLVMCall
                    if matches!(
                        classify(u),
                        Kind::Alloc(_) | Kind::Realloc | Kind::MemCpy | Kind::MemSet | Kind::Free
                    ) || ir::called_function(u).is_some_and(|c| ir::name(c) == "posix_memalign") => {}
                // (`umin`, `assume` and the like; none makes a pointer.)
                LLVMOpcode::LLVMCall
                    if ir::called_function(u).is_some_and(|c| ir::name(c).starts_with("llvm."))
                        && !ir::is_pointer(ir::type_of(u)) =>
                {
                    work.push(u)
                }
                _ => return false,
            }
        }
    }
    true
}

/// The loads from stack slot `slot`, also through addresses chosen between
/// it and other slots (what SROA leaves of an enum's payload); `None` where
/// the slot's address goes anywhere else.
fn stack_slot_loads(slot: Value) -> Option<Vec<Value>> {
    if !ir::is_instruction(slot) || ir::opcode(slot) != LLVMOpcode::LLVMAlloca {
        return None;
    }
    let (mut loads, mut seen, mut work) = (Vec::new(), HashSet::new(), vec![slot]);
    while let Some(p) = work.pop() {
        if !seen.insert(p) {
            continue;
        }
        for u in ir::users(p) {
            match ir::opcode(u) {
                LLVMOpcode::LLVMLoad => loads.push(u),
                LLVMOpcode::LLVMStore if ir::operand(u, 1) == p && ir::operand(u, 0) != p => {}
                LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMSelect => work.push(u),
                _ if ir::is_lifetime_marker(u) => {}
                _ => return None,
            }
        }
    }
    Some(loads)
}

/// Whether call `c` is followed by `unreachable` (it does not return).
fn ends_in_unreachable(c: Value) -> bool {
    unsafe {
        let next = LLVMGetNextInstruction(c);
        !next.is_null() && ir::opcode(next) == LLVMOpcode::LLVMUnreachable
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::test_ir::with_function;

    /// `grown_contents` of the first `realloc` in `@f` of `body` (after the
    /// declarations every case needs).
    fn contents_of_first_realloc(body: &str) -> Option<Grown> {
        let ir = format!(
            "declare ptr @malloc(i64)\ndeclare ptr @realloc(ptr, i64)\ndeclare void @free(ptr)\n\
             declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n{body}"
        );
        with_function(&ir, |f| {
            let r =
                ir::blocks(f).into_iter().flat_map(ir::instructions).find(|i| is_realloc_call(*i)).expect("a realloc");
            grown_contents(r)
        })
    }

    fn is_realloc_call(i: Value) -> bool {
        ir::opcode(i) == LLVMOpcode::LLVMCall && ir::called_function(i).is_some_and(|c| ir::name(c) == "realloc")
    }

    /// An outer block of row headers `{ i64, ptr, i64 }` grown with
    /// `realloc`, a fresh row stored into it and read back; `extra` is
    /// added before the return, and `row_use` uses the row read back.
    fn rows(extra: &str, row_use: &str) -> String {
        format!(
            "define double @f(ptr %old, i64 %n, i64 %k, double %x, ptr %out) {{\n\
             entry:\n  %fresh = call ptr @malloc(i64 24)\n  br label %grow\n\
             grow:\n  %outer = call ptr @realloc(ptr %fresh, i64 %n)\n  %row = call ptr @malloc(i64 64)\n  \
             store double %x, ptr %row\n  %slot = getelementptr {{ i64, ptr, i64 }}, ptr %outer, i64 %k\n  \
             store i64 8, ptr %slot\n  %field = getelementptr i8, ptr %slot, i64 8\n  store ptr %row, ptr %field\n  \
             %back = load ptr, ptr %field\n  {row_use}\n  {extra}\n  call void @free(ptr %outer)\n  ret double 0.0\n}}\n"
        )
    }

    #[test]
    fn a_block_of_row_headers_holds_no_floats() {
        assert_eq!(contents_of_first_realloc(&rows("", "%v = load double, ptr %back")), Some(Grown::NoFloats));
    }

    #[test]
    fn a_float_stored_over_a_header_pointer_is_not_understood() {
        let extra = "%f = getelementptr i8, ptr %outer, i64 8\n  store double %x, ptr %f";
        assert_eq!(contents_of_first_realloc(&rows(extra, "")), None);
    }

    #[test]
    fn a_block_whose_address_escapes_is_not_understood() {
        // Into the caller's memory, or made an integer and a pointer again.
        assert_eq!(contents_of_first_realloc(&rows("store ptr %outer, ptr %out", "")), None);
        let extra = "%a = ptrtoint ptr %outer to i64\n  %p = inttoptr i64 %a to ptr\n  store double %x, ptr %p";
        assert_eq!(contents_of_first_realloc(&rows(extra, "")), None);
    }

    #[test]
    fn a_row_grown_and_stored_into_headers_holds_what_is_read_back_through_them() {
        // The row is reallocated; its accesses are those through the header read back.
        let ir = "define double @f(i64 %n, double %x) {\n\
                  entry:\n  %outer = call ptr @malloc(i64 24)\n  %row0 = call ptr @malloc(i64 32)\n  \
                  %row = call ptr @realloc(ptr %row0, i64 %n)\n  store double %x, ptr %row\n  \
                  %field = getelementptr i8, ptr %outer, i64 8\n  store ptr %row, ptr %field\n  \
                  %back = load ptr, ptr %field\n  %at = getelementptr double, ptr %back, i64 1\n  \
                  %v = load double, ptr %at\n  ret double %v\n}\n";
        assert_eq!(contents_of_first_realloc(ir), Some(Grown::Floats(Elem::F64)));
        // A header read back as a float's bits: the row holds something else too.
        let ir = ir.replace(
            "%v = load double, ptr %at",
            "%v = load double, ptr %at\n  %bits = load i64, ptr %back\n  %w = bitcast i64 %bits to double",
        );
        assert_eq!(contents_of_first_realloc(&ir), None);
    }

    #[test]
    fn a_copy_between_rows_moves_what_the_rows_hold() {
        // `vec![vec![0.0; n]; n]`: a row cloned by a copy of unknown type.
        let ir = "declare ptr @malloc(i64)\ndeclare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n\
                  define double @f(i64 %n, double %x) {\n\
                  entry:\n  %outer = call ptr @malloc(i64 48)\n  %first = call ptr @malloc(i64 %n)\n  \
                  %clone = call ptr @malloc(i64 %n)\n  \
                  call void @llvm.memcpy.p0.p0.i64(ptr %clone, ptr %first, i64 %n, i1 false)\n  \
                  store ptr %first, ptr %outer\n  %second = getelementptr i8, ptr %outer, i64 24\n  \
                  store ptr %clone, ptr %second\n  %back = load ptr, ptr %second\n  \
                  store double %x, ptr %back\n  ret double 0.0\n}\n";
        with_function(ir, |f| {
            let copy = crate::ir::test_ir::calls(f)
                .into_iter()
                .find(|c| matches!(classify(*c), Kind::MemCpy))
                .expect("a copy");
            assert_eq!(copied_elem(copy), Some(Elem::F64));
        });
    }

    // Floats beside pointers in each element (`grown_fields`).

    /// `grown_contents` of the `realloc` in `@f`: a block of `{ double, ptr }`
    /// grown, filled through an index and walked by a pointer; `extra` added
    /// in the walk.
    fn contents(extra: &str) -> Option<Grown> {
        contents_walked_by(extra, "16")
    }

    /// As [`contents`], the walk advancing by `step` bytes.
    fn contents_walked_by(extra: &str, step: &str) -> Option<Grown> {
        let ir = format!(
            "declare ptr @malloc(i64)\ndeclare ptr @realloc(ptr, i64)\ndeclare void @free(ptr)\n\
             define double @f(ptr %x, i64 %n, i64 %i) {{\n\
             entry:\n  %fresh = call ptr @malloc(i64 16)\n  %b = call ptr @realloc(ptr %fresh, i64 %n)\n  \
             %e = getelementptr {{ double, ptr }}, ptr %b, i64 %i\n  store double 1.0, ptr %e\n  \
             %at = getelementptr i8, ptr %e, i64 8\n  store ptr %x, ptr %at\n  br label %walk\n\
             walk:\n  %p = phi ptr [ %b, %entry ], [ %next, %walk ]\n  %w = load double, ptr %p\n  \
             %q = getelementptr i8, ptr %p, i64 8\n  %xp = load ptr, ptr %q\n  {extra}\n  \
             %next = getelementptr i8, ptr %p, i64 {step}\n  %done = icmp eq ptr %next, %e\n  \
             br i1 %done, label %out, label %walk\n\
             out:\n  call void @free(ptr %b)\n  ret double %w\n}}\n"
        );
        with_function(&ir, |f| {
            let r = ir::blocks(f)
                .into_iter()
                .flat_map(ir::instructions)
                .find(|i| ir::name(*i) == "b")
                .expect("the realloc");
            grown_contents(r)
        })
    }

    #[test]
    fn floats_beside_pointers_keep_their_place_in_each_element() {
        assert_eq!(contents(""), Some(Grown::Fields { stride: 16, floats: vec![(0, Elem::F64)] }));
    }

    #[test]
    fn a_walk_that_may_stay_in_place_steps_by_whole_elements() {
        // An iterator's `next`: one element on, or none at the end.
        let stay = "%end = icmp eq ptr %xp, null\n  %by = select i1 %end, i64 0, i64 16";
        assert_eq!(contents_walked_by(stay, "%by"), Some(Grown::Fields { stride: 16, floats: vec![(0, Elem::F64)] }));
        let half = "%end = icmp eq ptr %xp, null\n  %by = select i1 %end, i64 8, i64 16";
        assert_eq!(contents_walked_by(half, "%by"), None, "half an element on: the float meets the pointer");
    }

    #[test]
    fn a_float_read_where_a_pointer_lies_is_not_understood() {
        // The pointer's bytes read as a double, or the block walked a byte at a time.
        assert_eq!(contents("%bad = load double, ptr %q"), None);
        assert_eq!(contents("%byte = getelementptr i8, ptr %p, i64 1\n  %c = load i8, ptr %byte"), None);
    }
}
