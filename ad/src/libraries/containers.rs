//! Growing containers whose buffers the function allocates itself: a
//! `std::vector`'s old and new buffers (libstdc++'s `memmove(new, old, n)`)
//! and Rust's `VecDeque`, also a container the caller owns and the function
//! grows; what a copy between such buffers moves.

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

use crate::ir::kind::Elem;
use crate::ir::layout::is_int_constant;
use crate::ir::{self, Value};

/// A copy between heap blocks the function allocates itself (a growing
/// `std::vector`'s old and new buffers: `memmove(new, old, n)` inside
/// libstdc++), whose addresses go nowhere the function cannot see (never
/// stored, passed only to deallocation and copies among themselves): every
/// access to them is in the function, and if those agree on one float type
/// and none moves a pointer, that is what the blocks hold.
///
/// Also a container the caller owns (a `std::vector` passed by reference
/// and grown): the old block is loaded from a slot of the caller's object
/// into which the function stores its new block (see [`ContainerSlot`]).
/// The new block's accesses then type the copy, provided the container's
/// elements are exactly one float wide (every step the function takes
/// through its blocks is one float), so a struct element with fields the
/// function does not touch is never taken for floats.
pub(crate) fn grown_container_elem(copy: Value) -> Option<Elem> {
    let mut blocks = allocations_reached(ir::operand(copy, 0))?;
    let slot = match allocations_reached(ir::operand(copy, 1)) {
        Some(sources) => {
            blocks.extend(sources.into_iter().filter(|b| !blocks.contains(b)).collect::<Vec<_>>());
            None
        }
        None => Some(ContainerSlot::of(ir::operand(copy, 1), &blocks)?),
    };
    // Everything derived from the blocks' addresses, and how it is used.
    let mut derived: Vec<Value> = blocks.clone();
    let mut seen: Option<Elem> = None;
    let mut steps: Vec<Value> = Vec::new();
    let mut k = 0;
    while k < derived.len() {
        let p = derived[k];
        k += 1;
        for u in ir::users(p) {
            let elem = match ir::opcode(u) {
                LLVMOpcode::LLVMGetElementPtr
                | LLVMOpcode::LLVMBitCast
                | LLVMOpcode::LLVMPHI
                | LLVMOpcode::LLVMSelect => {
                    if ir::opcode(u) == LLVMOpcode::LLVMGetElementPtr {
                        steps.push(u);
                    }
                    if !derived.contains(&u) {
                        derived.push(u);
                    }
                    continue;
                }
                LLVMOpcode::LLVMICmp | LLVMOpcode::LLVMPtrToInt => continue,
                LLVMOpcode::LLVMLoad => ir::type_of(u),
                LLVMOpcode::LLVMStore if ir::operand(u, 1) == p && ir::operand(u, 0) != p => {
                    if is_int_constant(ir::operand(u, 0)) {
                        continue;
                    }
                    ir::type_of(ir::operand(u, 0))
                }
                // The new block (or a position in it) kept in the caller's container.
                LLVMOpcode::LLVMStore if slot.as_ref().is_some_and(|s| s.holds(ir::operand(u, 1))) => continue,
                LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke => {
                    let name = ir::called_function(u).map(ir::name).unwrap_or_default();
                    let is_copy = name.starts_with("llvm.memcpy") || name.starts_with("llvm.memmove");
                    if is_copy && ir::operand(u, 0) == p {
                        // A copy into the blocks comes from blocks the function
                        // allocates (which join the set: their accesses are
                        // checked too), or from the container's old block.
                        if let Some(from) = allocations_reached(ir::operand(u, 1)) {
                            for b in from {
                                join(&mut blocks, &mut derived, b);
                            }
                            continue;
                        }
                        let from_slot = slot
                            .as_ref()
                            .is_some_and(|s| ContainerSlot::of(ir::operand(u, 1), &blocks).as_ref() == Some(s));
                        if !from_slot {
                            return None;
                        }
                        continue;
                    }
                    if is_copy || name.starts_with("llvm.memset") || name.starts_with("llvm.lifetime.") {
                        continue;
                    }
                    if crate::ir::kind::DEALLOCATORS.contains(&name.as_str()) && ir::operand(u, 0) == p {
                        continue;
                    }
                    // A block grown in place or moved (a Rust `Vec` or
                    // `VecDeque` growing): the new block is one of the blocks.
                    if name == "realloc"
                        && ir::operand(u, 0) == p
                        && ir::called_function(u).is_some_and(ir::is_declaration)
                    {
                        join(&mut blocks, &mut derived, u);
                        continue;
                    }
                    return None;
                }
                _ => return None, // stored as a value, returned, passed on: it escapes
            };
            let e = Elem::float_of(elem)?;
            match seen {
                None => seen = Some(e),
                Some(s) if s == e => {}
                Some(_) => return None,
            }
        }
    }
    let elem = seen?;
    if slot.is_some() && !steps.iter().all(|g| is_one_element_step(*g, elem)) {
        return None;
    }
    Some(elem)
}

/// Adds block `b` to the blocks, and to what is derived from them (its uses
/// are then checked too).
fn join(blocks: &mut Vec<Value>, derived: &mut Vec<Value>, b: Value) {
    if !blocks.contains(&b) {
        blocks.push(b);
    }
    if !derived.contains(&b) {
        derived.push(b);
    }
}

/// The slot of a caller's object a container keeps its block in (a
/// `std::vector`'s start pointer), known by the function loading the old
/// block from it and storing its new one there.
#[derive(PartialEq, Eq)]
struct ContainerSlot {
    /// The address loaded from and stored to.
    slot: Value,
    /// The object it is a field of (the slot less constant offsets).
    object: Value,
}

impl ContainerSlot {
    /// The slot `old` (through address arithmetic and phis) was loaded from,
    /// if the function also stores a pointer into `blocks` there.
    fn of(old: Value, blocks: &[Value]) -> Option<ContainerSlot> {
        let loads = loads_reached(old)?;
        let slot = ir::operand(*loads.first()?, 0);
        if !loads.iter().all(|l| ir::operand(*l, 0) == slot) {
            return None;
        }
        let stores_new = ir::users(slot).into_iter().any(|u| {
            ir::opcode(u) == LLVMOpcode::LLVMStore
                && ir::operand(u, 1) == slot
                && allocations_reached(ir::operand(u, 0))
                    .is_some_and(|to| !to.is_empty() && to.iter().all(|b| blocks.contains(b)))
        });
        stores_new.then(|| ContainerSlot { slot, object: object_of(slot) })
    }

    /// Whether `p` is a field of the same object (the container's other
    /// pointers: its end, its capacity).
    fn holds(&self, p: Value) -> bool {
        p == self.slot || object_of(p) == self.object
    }
}

/// `p` less constant-offset address arithmetic.
fn object_of(mut p: Value) -> Value {
    while ir::is_instruction(p)
        && ir::opcode(p) == LLVMOpcode::LLVMGetElementPtr
        && (1..ir::operand_count(p)).all(|k| is_int_constant(ir::operand(p, k)))
    {
        p = ir::operand(p, 0);
    }
    p
}

/// The pointer loads `p` may come from, through address arithmetic, phis
/// and selects (nulls aside); `None` if anything else.
fn loads_reached(p: Value) -> Option<Vec<Value>> {
    bases_all(p, |b| ir::is_instruction(b) && ir::opcode(b) == LLVMOpcode::LLVMLoad)
}

/// Whether address arithmetic steps by whole elements of one float: indexes
/// of that float type, or byte offsets of exactly its size (or of a
/// run-time amount, such as the old block's length in bytes).
fn is_one_element_step(gep: Value, elem: Elem) -> bool {
    let size = elem.size();
    unsafe {
        let source = LLVMGetGEPSourceElementType(gep);
        if ir::scalar_of(source) == source && Elem::float_of(source) == Some(elem) {
            return true;
        }
        if ir::operand_count(gep) != 2 || !ir::is_int(source) || LLVMGetIntTypeWidth(source) != 8 {
            return false;
        }
        let offset = ir::operand(gep, 1);
        LLVMIsAConstantInt(offset).is_null() || LLVMConstIntGetSExtValue(offset) == size as i64
    }
}

/// The allocation calls (C and C++ allocators) `p` may point into, through
/// address arithmetic, phis and selects, nulls aside; `None` if it may point
/// anywhere else.
fn allocations_reached(p: Value) -> Option<Vec<Value>> {
    bases_all(p, |b| {
        ir::is_instruction(b)
            && ir::is_call_or_invoke(b)
            && ir::called_function(b).is_some_and(|callee| {
                let name = ir::name(callee);
                ir::is_declaration(callee)
                    && (name == "realloc" || crate::ir::kind::ALLOCATORS.iter().any(|a| a.name == name))
            })
    })
}

/// `p`'s bases (see [`ir::pointer_bases`]) other than nulls, if every one is `wanted`.
fn bases_all(p: Value, wanted: impl Fn(Value) -> bool) -> Option<Vec<Value>> {
    let bases: Vec<Value> = ir::pointer_bases(p)
        .into_iter()
        .filter(|b| unsafe { LLVMIsAConstantPointerNull(*b).is_null() } && !ir::is_unmapped_address(*b))
        .collect();
    bases.iter().all(|b| wanted(*b)).then_some(bases)
}
