//! Automatic differentiation for Rust on stable Rust, with std::autodiff's
//! attribute macros: code written for `std::autodiff` moves over by changing
//! the import.
//!
//! ```ignore
//! use enzyme::autodiff_reverse;
//!
//! #[autodiff_reverse(d_f, Active, Active)]
//! fn f(x: f64) -> f64 { x.sin() * x }
//!
//! let (y, dx) = d_f(0.5, 1.0); // the value and d f / d x
//! ```
//!
//! Activities: `Const`, `Active`, `ActiveOnly`, `Duplicated`,
//! `DuplicatedOnly` (reverse mode), `Dual`, `DualOnly`, `Const` (forward
//! mode), with std::autodiff's meaning of the generated function's arguments
//! and result. Parameters may be `f32`/`f64`, integers (`Const`), references
//! `&T`, `&mut T`, `&[T]`, `&mut [T]` (to floats, arrays, structs of floats,
//! `Vec<f64>`), raw pointers (the derivative is then `unsafe`), and plain
//! data by value (structs, tuples, arrays, generic parameters): a
//! `Duplicated` or `Dual` reference is followed by its shadow, whose
//! derivatives are added to (reverse) or written (forward); an `Active` value's
//! adjoint is returned as a value of its type. Generic functions, methods
//! (`&self`, `&mut self`, `self`) and functions nested in functions work; a
//! width after the name (`#[autodiff_forward(jac, 4, Dual, Dual)]`) is vector
//! mode.
//!
//! `#[inactive]` marks a function whose calls carry no derivative;
//! `#[custom_forward(f_fwd)]` and `#[custom_reverse(f_aug, f_rev)]` give a
//! function derivatives of its own, in Enzyme's conventions (see the
//! attributes' documentation).
//!
//! Derivatives are made at link time by enzyme-rs: build with `cargo enzyme
//! build` (or `run`, `test`). A plain `cargo build` fails to link, with an
//! undefined symbol whose name says `build_with_cargo_enzyme`, never with a
//! wrong result.

pub use enzyme_macros::{autodiff_forward, autodiff_reverse, custom_forward, custom_reverse, inactive};

/// The functions a registration names (`{f, rules...}`), as Enzyme's
/// `void *__enzyme_register_…[N]` arrays; made by `#[inactive]`,
/// `#[custom_forward]` and `#[custom_reverse]`, read by the engine.
#[repr(transparent)]
pub struct Registration<const N: usize>(pub [*const (); N]);

// Only addresses of functions, never dereferenced from Rust.
unsafe impl<const N: usize> Sync for Registration<N> {}

#[cfg(feature = "libm")]
mod libm_calls;

/// The version of enzyme-rs this crate belongs to.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
