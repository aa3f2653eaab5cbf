//! Rust → C → Fortran: one gradient through three languages, checked
//! against finite differences, forward mode against reverse.
use enzyme::{autodiff_forward, autodiff_reverse};

unsafe extern "C" {
    fn chain_energy(x: *const f64, n: i32) -> f64;
}

#[autodiff_reverse(d_energy, Duplicated, Active)]
#[autodiff_forward(t_energy, Dual, Dual)]
fn energy(x: &[f64]) -> f64 {
    // Rust's own part: a quadratic pull towards the origin.
    let pull: f64 = x.iter().map(|v| 0.05 * v * v).sum();
    let chain = unsafe { chain_energy(x.as_ptr(), x.len() as i32) };
    chain + pull
}

fn main() {
    let x: [f64; 5] = [0.0, 1.1, 2.05, 3.2, 4.1];
    let mut dx = [0.0; 5];
    let e = d_energy(&x, &mut dx, 1.0);
    let mut failures = 0;
    if !((e - energy(&x)).abs() <= 1e-12) {
        failures += 1;
    }
    for i in 0..5 {
        let (mut xp, mut xm) = (x, x);
        xp[i] += 1e-6;
        xm[i] -= 1e-6;
        let fd: f64 = (energy(&xp) - energy(&xm)) / 2e-6;
        let mut tx = [0.0; 5];
        tx[i] = 1.0;
        let (_, t) = t_energy(&x, &tx);
        if !((dx[i] - fd).abs() <= 1e-6 * (1.0 + fd.abs())) || !((t - dx[i]).abs() <= 1e-12 * (1.0 + t.abs())) {
            println!("FAIL d/dx{i}: reverse {}, forward {t}, finite difference {fd}", dx[i]);
            failures += 1;
        }
    }
    println!("Rust -> C -> Fortran gradient: {failures} failures");
    std::process::exit(if failures == 0 { 0 } else { 1 });
}
