//! Bytes a function only ever handles as integers: the characters of a
//! `std::string` built in a stack slot or heap block of its own, moved by
//! `memcpy`s that carry no type metadata (libstdc++ copies characters with
//! `__builtin_memcpy`). A copy from or to such bytes moves neither floats
//! nor pointers, so it carries no derivative, in either mode.
//!
//! The question is asked of one copy at a time: is the memory on one side
//! of it a block of the function's own (whose every access is in the
//! function) that, wherever it may overlap the copied bytes, is only loaded
//! and stored as integers, filled from integer constants (string literals)
//! or by other copies of integer bytes? Addresses of the block may be
//! stored in the block itself (a short string's pointer to its own buffer);
//! accesses through a pointer loaded back from it have no known offset and
//! must then be integers wherever they are.

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

use crate::calls::classify::classify;
use crate::ir::layout::{constant_offset, data_layout, holds_integer_data, root_of};
use crate::ir::{self, Value};

/// How many copies deep the question may follow integer bytes.
const MOST_HOPS: u32 = 3;

/// Whether `copy` (a `memcpy`/`memmove`) moves bytes that one of its sides
/// only ever holds as integers.
pub(crate) fn copies_integer_bytes(copy: Value) -> bool {
    copies_integer_bytes_within(copy, MOST_HOPS)
}

fn copies_integer_bytes_within(copy: Value, hops: u32) -> bool {
    let f = ir::parent_function(copy);
    let td = data_layout(f);
    let len = constant_length(copy);
    let integers_at = |k: u32| {
        let p = ir::operand(copy, k);
        if constant_root_of(p).is_some_and(holds_integer_data) || points_to_integer_constants(p) {
            return true;
        }
        let Some((root, at)) = constant_offset(p, td) else { return false };
        let root = root_of(root);
        crate::ir::roots::is_local(root, &classify) && only_integers(f, root, at, len, copy, hops)
    };
    // Integers copied over bytes the function then reads as floats (type
    // punning) would leave those floats' adjoints to whatever the bytes
    // held before: then only the destination's own evidence counts.
    integers_at(0) || integers_at(1) && !read_as_floats(f, ir::operand(copy, 0), len)
}

/// Whether `f` loads floats from memory of `p`'s base that may overlap
/// `p..p + len` (all of it when `len` is unknown).
fn read_as_floats(f: Value, p: Value, len: Option<u64>) -> bool {
    let td = data_layout(f);
    let Some((base, at)) = constant_offset(p, td) else { return true };
    let root = root_of(base);
    ir::blocks(f).into_iter().flat_map(ir::instructions).any(|i| {
        if ir::opcode(i) != LLVMOpcode::LLVMLoad || !ir::is_real(ir::type_of(i)) {
            return false;
        }
        let q = ir::operand(i, 0);
        if root_of(q) != root {
            return false;
        }
        let Some((_, o)) = constant_offset(q, td) else { return true };
        let size = unsafe { llvm_sys::target::LLVMABISizeOfType(td, ir::type_of(i)) };
        len.is_none_or(|n| o < at + n) && o + size > at
    })
}

fn constant_root_of(p: Value) -> Option<Value> {
    let r = root_of(p);
    unsafe { (!LLVMIsAGlobalVariable(r).is_null()).then_some(r) }.or_else(|| ir::constant_root(p))
}

/// A pointer loaded from a constant table of pointers to integer data (an
/// array of string literals: `static const char *names[] = {"a", "b"}`).
fn points_to_integer_constants(p: Value) -> bool {
    crate::ir::layout::constant_table_elements(root_of(p))
        .is_some_and(|elems| elems.into_iter().all(|e| constant_root_of(e).is_some_and(holds_integer_data)))
}

fn constant_length(copy: Value) -> Option<u64> {
    let n = ir::operand(copy, 2);
    unsafe { (!LLVMIsAConstantInt(n).is_null()).then(|| LLVMConstIntGetZExtValue(n)) }
}

/// Whether bytes `at..at + len` (to the end when `len` is unknown) of the
/// function's own block `root` are only ever integers; `skip`: the copy
/// asked about.
fn only_integers(f: Value, root: Value, at: u64, len: Option<u64>, skip: Value, hops: u32) -> bool {
    let td = data_layout(f);
    // Pointers into the block: (pointer, whether its offset from `root` is known).
    let mut derived: Vec<(Value, bool)> = vec![(root, true)];
    let mut k = 0;
    let overlaps = |p: Value, known: bool, size: Option<u64>| {
        if !known {
            return true;
        }
        let Some((_, o)) = constant_offset(p, td) else { return true };
        let starts_before_end = len.is_none_or(|n| o < at + n);
        let ends_after_start = size.is_none_or(|s| o + s > at);
        starts_before_end && ends_after_start
    };
    while k < derived.len() {
        let (p, known) = derived[k];
        k += 1;
        for u in ir::users(p) {
            let ok = match ir::opcode(u) {
                LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast => {
                    let still_known = known && constant_offset(u, td).is_some();
                    if !derived.iter().any(|(v, _)| *v == u) {
                        derived.push((u, still_known));
                    }
                    true
                }
                LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMSelect => {
                    if !derived.iter().any(|(v, _)| *v == u) {
                        derived.push((u, false));
                    }
                    true
                }
                LLVMOpcode::LLVMICmp => true,
                LLVMOpcode::LLVMLoad => {
                    let t = ir::type_of(u);
                    if ir::is_pointer(t) {
                        // A pointer the block holds (maybe its own address): what it
                        // addresses is checked with no known offset.
                        if !derived.iter().any(|(v, _)| *v == u) {
                            derived.push((u, false));
                        }
                    }
                    let size = unsafe { llvm_sys::target::LLVMABISizeOfType(td, t) };
                    ir::is_int(t) || !overlaps(p, known, Some(size))
                }
                LLVMOpcode::LLVMStore if ir::operand(u, 0) == p => {
                    // Its address stored: only into the block itself.
                    root_of(ir::operand(u, 1)) == root
                }
                LLVMOpcode::LLVMStore => {
                    let t = ir::type_of(ir::operand(u, 0));
                    let size = unsafe { llvm_sys::target::LLVMABISizeOfType(td, t) };
                    ir::is_int(t) || !overlaps(p, known, Some(size))
                }
                LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke => match classify(u) {
                    crate::ir::kind::Kind::Free | crate::ir::kind::Kind::Inactive | crate::ir::kind::Kind::LibCall => {
                        true
                    }
                    crate::ir::kind::Kind::MemCpy if u == skip => true,
                    crate::ir::kind::Kind::MemCpy => {
                        !overlaps(p, known, constant_length(u)) || hops > 0 && copies_integer_bytes_within(u, hops - 1)
                    }
                    _ => false,
                },
                _ => false,
            };
            if !ok {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::test_ir::{calls, with_function};

    /// Whether each `memcpy` of `@f`, in order, is found to copy integers.
    fn verdicts(body: &str) -> Vec<bool> {
        let ir = format!(
            "@lit = private unnamed_addr constant [6 x i8] c\"alpha\\00\"\n\
             declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)\n\
             define void @f(ptr %out, double %x) {{\n{body}\n  ret void\n}}\n"
        );
        with_function(&ir, |f| calls(f).into_iter().map(copies_integer_bytes).collect())
    }

    #[test]
    fn characters_from_a_literal_are_integers_wherever_they_are_copied() {
        // A short string's buffer (at 16 in its object) filled from a literal,
        // its terminator stored, then copied on into the caller's memory.
        let v = verdicts(
            "  %s = alloca [32 x i8]\n  %b = getelementptr i8, ptr %s, i64 16\n  store ptr %b, ptr %s\n  \
             call void @llvm.memcpy.p0.p0.i64(ptr %b, ptr @lit, i64 5, i1 false)\n  \
             %t = getelementptr i8, ptr %s, i64 21\n  store i8 0, ptr %t\n  \
             call void @llvm.memcpy.p0.p0.i64(ptr %out, ptr %b, i64 6, i1 false)",
        );
        assert_eq!(v, vec![true, true]);
    }

    #[test]
    fn a_buffer_that_also_holds_a_double_is_not() {
        let v = verdicts(
            "  %s = alloca [32 x i8]\n  %b = getelementptr i8, ptr %s, i64 16\n  store double %x, ptr %b\n  \
             call void @llvm.memcpy.p0.p0.i64(ptr %out, ptr %b, i64 8, i1 false)",
        );
        assert_eq!(v, vec![false]);
        // Bytes outside the copied range may hold anything.
        let v = verdicts(
            "  %s = alloca [32 x i8]\n  store double %x, ptr %s\n  %b = getelementptr i8, ptr %s, i64 16\n  \
             call void @llvm.memcpy.p0.p0.i64(ptr %b, ptr @lit, i64 6, i1 false)\n  \
             call void @llvm.memcpy.p0.p0.i64(ptr %out, ptr %b, i64 6, i1 false)",
        );
        assert_eq!(v, vec![true, true]);
    }

    #[test]
    fn characters_copied_over_a_double_that_is_read_again_are_not_trusted() {
        // `memcpy(&y, s, 8); return y;` with y an active double before.
        let v = verdicts(
            "  %s = alloca [8 x i8]\n  %y = alloca double\n  store double %x, ptr %y\n  \
             call void @llvm.memcpy.p0.p0.i64(ptr %s, ptr @lit, i64 6, i1 false)\n  \
             call void @llvm.memcpy.p0.p0.i64(ptr %y, ptr %s, i64 8, i1 false)\n  \
             %r = load double, ptr %y\n  store double %r, ptr %out",
        );
        assert_eq!(v, vec![true, false]);
    }

    #[test]
    fn an_address_that_escapes_makes_the_bytes_unknown() {
        let v = verdicts(
            "  %s = alloca [32 x i8]\n  store ptr %s, ptr %out\n  \
             call void @llvm.memcpy.p0.p0.i64(ptr %s, ptr @lit, i64 6, i1 false)\n  \
             %o = getelementptr i8, ptr %out, i64 8\n  call void @llvm.memcpy.p0.p0.i64(ptr %o, ptr %s, i64 6, i1 false)",
        );
        assert_eq!(v, vec![true, false]);
    }
}
