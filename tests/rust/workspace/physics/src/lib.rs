//! A path dependency: plain Rust with no knowledge of AD.

/// A particle: position and velocity.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct State {
    pub x: f64,
    pub v: f64,
}

use num_traits::Float;

/// Energy of a damped oscillator with a soft nonlinearity after `steps`
/// explicit Euler steps (generic over `num_traits::Float`, a crates.io
/// dependency, so its code is differentiated too).
pub fn simulate(s: &State, k: f64, steps: usize) -> f64 {
    let (mut x, mut v) = (s.x, s.v);
    let h = 0.01;
    for _ in 0..steps {
        let a = -k * soft(x) - 0.1 * v;
        x += h * v;
        v += h * a;
    }
    0.5 * v * v + 0.5 * k * x * x
}

fn soft<T: Float>(x: T) -> T {
    x.tanh() + x.powi(3) * T::from(0.01).unwrap()
}
