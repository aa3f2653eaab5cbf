//! String attributes of functions: the marks the engine leaves on them and
//! reads back.

use llvm_sys::core::*;
use llvm_sys::prelude::*;

use crate::ir::Value;

pub(crate) fn string_attr(ctx: LLVMContextRef, k: &str, v: &str) -> LLVMAttributeRef {
    unsafe {
        LLVMCreateStringAttribute(ctx, k.as_ptr() as *const _, k.len() as u32, v.as_ptr() as *const _, v.len() as u32)
    }
}

pub(crate) fn set_fn_attr(f: Value, k: &str, v: &str) {
    unsafe {
        let ctx = LLVMGetTypeContext(LLVMTypeOf(f));
        LLVMAddAttributeAtIndex(f, llvm_sys::LLVMAttributeFunctionIndex, string_attr(ctx, k, v));
    }
}

pub(crate) fn has_fn_attr(f: Value, k: &str) -> bool {
    fn_attr_value(f, k).is_some()
}

pub(crate) fn fn_attr_value(f: Value, k: &str) -> Option<String> {
    unsafe {
        if LLVMIsAFunction(f).is_null() {
            return None;
        }
        let a = LLVMGetStringAttributeAtIndex(
            f,
            llvm_sys::LLVMAttributeFunctionIndex,
            k.as_ptr() as *const _,
            k.len() as u32,
        );
        if a.is_null() {
            return None;
        }
        let mut len = 0u32;
        let p = LLVMGetStringAttributeValue(a, &mut len);
        Some(if p.is_null() {
            String::new()
        } else {
            String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len as usize)).into_owned()
        })
    }
}

/// The string attribute kinds on a function.
pub(crate) fn string_attrs(f: Value) -> Vec<String> {
    unsafe {
        let idx = llvm_sys::LLVMAttributeFunctionIndex;
        let n = LLVMGetAttributeCountAtIndex(f, idx);
        let mut attrs: Vec<LLVMAttributeRef> = vec![std::ptr::null_mut(); n as usize];
        LLVMGetAttributesAtIndex(f, idx, attrs.as_mut_ptr());
        attrs
            .into_iter()
            .filter(|a| LLVMIsStringAttribute(*a) != 0)
            .map(|a| {
                let mut len = 0u32;
                let p = LLVMGetStringAttributeKind(a, &mut len);
                String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len as usize)).into_owned()
            })
            .collect()
    }
}
