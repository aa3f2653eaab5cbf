//! Debug information read from instructions: where an instruction comes
//! from in the user's source (its `!dbg` location and the call sites it was
//! inlined through).

use llvm_sys::core::*;

use crate::ir::diag::SourceLocation;
use llvm_sys::prelude::LLVMValueRef as Value;

/// Source position of an instruction, global variable or function from its
/// `!dbg` attachment, if any.
pub(crate) fn location(i: Value) -> Option<SourceLocation> {
    unsafe {
        if LLVMIsAInstruction(i).is_null() && LLVMIsAGlobalVariable(i).is_null() && LLVMIsAFunction(i).is_null() {
            return None;
        }
        let line = LLVMGetDebugLocLine(i);
        if line == 0 {
            return None;
        }
        let mut len = 0u32;
        let file = lossy_text(LLVMGetDebugLocFilename(i, &mut len), len);
        let directory = lossy_text(LLVMGetDebugLocDirectory(i, &mut len), len);
        let column = LLVMGetDebugLocColumn(i);
        Some(SourceLocation { directory, file, line, column })
    }
}

/// The call sites instruction `i`'s code was inlined through, innermost
/// first (the `inlinedAt` chain of its `!dbg` location): the last is in the
/// function the instruction now belongs to.
pub(crate) fn inlined_through(i: Value) -> Vec<SourceLocation> {
    let mut out = Vec::new();
    unsafe {
        if LLVMIsAInstruction(i).is_null() {
            return out;
        }
        let loc = llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(i);
        let mut at = if loc.is_null() { loc } else { llvm_sys::debuginfo::LLVMDILocationGetInlinedAt(loc) };
        while !at.is_null() {
            let file = llvm_sys::debuginfo::LLVMDIScopeGetFile(llvm_sys::debuginfo::LLVMDILocationGetScope(at));
            let (mut n, mut m) = (0u32, 0u32);
            let (name, dir) = if file.is_null() {
                (String::new(), String::new())
            } else {
                (
                    lossy_text(llvm_sys::debuginfo::LLVMDIFileGetFilename(file, &mut n), n),
                    lossy_text(llvm_sys::debuginfo::LLVMDIFileGetDirectory(file, &mut m), m),
                )
            };
            out.push(SourceLocation {
                directory: dir,
                file: name,
                line: llvm_sys::debuginfo::LLVMDILocationGetLine(at),
                column: llvm_sys::debuginfo::LLVMDILocationGetColumn(at),
            });
            at = llvm_sys::debuginfo::LLVMDILocationGetInlinedAt(at);
        }
    }
    out
}

/// The name and linkage name of the function whose code instruction `i`
/// is, by its `!dbg` location (the innermost function inlined into where it
/// now is): `("copy_nonoverlapping<u8>", "_ZN4core3ptr19copy_nonoverlapping...")`.
pub(crate) fn debug_function_name(i: Value) -> Option<(String, String)> {
    debug_function_names(i).into_iter().next()
}

/// The names and linkage names of the functions instruction `i`'s code was
/// inlined through, innermost first (see [`debug_function_name`]); the
/// chain stops at a scope that is not a function's.
pub(crate) fn debug_function_names(i: Value) -> Vec<(String, String)> {
    use llvm_sys::debuginfo::*;
    let mut out = Vec::new();
    unsafe {
        if LLVMIsAInstruction(i).is_null() {
            return out;
        }
        let mut loc = LLVMInstructionGetDebugLoc(i);
        let ctx = LLVMGetTypeContext(LLVMTypeOf(i));
        while !loc.is_null() && out.len() < 64 {
            match subprogram_names(ctx, LLVMDILocationGetScope(loc)) {
                Some(names) => out.push(names),
                None => break,
            }
            loc = LLVMDILocationGetInlinedAt(loc);
        }
    }
    out
}

/// The name and linkage name of the function scope `scope` is in (out
/// through lexical blocks).
unsafe fn subprogram_names(
    ctx: llvm_sys::prelude::LLVMContextRef,
    mut scope: llvm_sys::prelude::LLVMMetadataRef,
) -> Option<(String, String)> {
    use llvm_sys::debuginfo::*;
    for _ in 0..64 {
        if scope.is_null() {
            return None;
        }
        let node = LLVMMetadataAsValue(ctx, scope);
        let n = LLVMGetMDNodeNumOperands(node) as usize;
        let mut ops = vec![std::ptr::null_mut(); n];
        LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
        match LLVMGetMetadataKind(scope) {
            LLVMMetadataKind::LLVMDISubprogramMetadataKind if n > 3 => {
                let text = |v: Value| {
                    let mut len = 0u32;
                    let p = if v.is_null() { std::ptr::null() } else { LLVMGetMDString(v, &mut len) };
                    lossy_text(p, len)
                };
                return Some((text(ops[2]), text(ops[3])));
            }
            LLVMMetadataKind::LLVMDILexicalBlockMetadataKind | LLVMMetadataKind::LLVMDILexicalBlockFileMetadataKind
                if n > 1 && !ops[1].is_null() =>
            {
                scope = LLVMValueAsMetadata(ops[1]);
            }
            _ => return None,
        }
    }
    None
}

/// The `n` bytes at `p` (a string LLVM lends), empty when `p` is null.
fn lossy_text(p: *const std::ffi::c_char, n: u32) -> String {
    if p.is_null() {
        String::new()
    } else {
        unsafe { String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, n as usize)).into_owned() }
    }
}

/// Gives `to` the debug location of `from`, if it has one.
pub(crate) fn copy_debug_location(from: Value, to: Value) {
    unsafe {
        let loc = llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(from);
        if !loc.is_null() {
            llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(to, loc);
        }
    }
}
