//! Rust kernels with a C ABI.

/// The energy of a chain: squared gaps plus a sine of each position.
///
/// # Safety
/// `x` points to `n` readable doubles.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn rust_chain_energy(x: *const f64, n: usize) -> f64 {
    let x = unsafe { std::slice::from_raw_parts(x, n) };
    x.windows(2).map(|w| (w[1] - w[0]).powi(2) + w[0].sin()).sum::<f64>() + x[n - 1].cos()
}
