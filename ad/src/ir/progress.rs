//! What the engine is working on, for a watchdog outside it: the driver
//! stops a build that runs far longer than a compile should and says where
//! (issue 39, item 6). A leaf: it imports nothing from the crate.

use std::sync::Mutex;

static WORKING_ON: Mutex<String> = Mutex::new(String::new());

/// Records what the engine starts on now (a step and the function).
pub(crate) fn working_on(what: impl FnOnce() -> String) {
    if let Ok(mut w) = WORKING_ON.lock() {
        *w = what();
    }
}

/// What the engine last said it was working on (empty before it starts).
pub fn current() -> String {
    WORKING_ON.lock().map(|w| w.clone()).unwrap_or_default()
}
