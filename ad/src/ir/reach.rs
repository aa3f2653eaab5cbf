//! What a function reaches through calls.

use crate::ir::{self, Value};

/// `f` and the functions with bodies it calls, directly or not.
pub(crate) fn called_from(f: Value) -> Vec<Value> {
    let mut seen = vec![f];
    let mut k = 0;
    while k < seen.len() {
        for i in ir::blocks(seen[k]).into_iter().flat_map(ir::instructions) {
            if ir::opcode(i) == llvm_sys::LLVMOpcode::LLVMCall {
                if let Some(c) = ir::called_function(i).filter(|c| !ir::is_declaration(*c)) {
                    if !seen.contains(&c) {
                        seen.push(c);
                    }
                }
            }
        }
        k += 1;
    }
    seen
}
