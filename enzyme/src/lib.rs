//! The user crate of enzyme-rs for Rust programs.
//!
//! Not functional yet: the `#[autodiff_reverse]` / `#[autodiff_forward]`
//! macros and `cargo enzyme build` arrive with Rust support. Until then this
//! crate only exposes the version, so that depending on it fails loudly at
//! the first use of an item that does not exist rather than computing anything.

/// The version of enzyme-rs this crate belongs to.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
