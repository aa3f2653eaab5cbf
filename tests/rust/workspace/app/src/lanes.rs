//! Vector forward mode: `#[autodiff_forward(NAME, WIDTH, ...)]` takes WIDTH
//! tangents (or shadows) per `Dual` parameter and returns `[R; WIDTH]`
//! (`DualOnly`) or `[R; WIDTH + 1]` with the primal first (`Dual`). Each lane
//! is checked against the width-1 derivative and against finite differences.
//! Reverse mode with a width takes WIDTH shadows per `Duplicated` parameter
//! and WIDTH seeds, and returns `[T; WIDTH]` per `Active` parameter.
use enzyme::{autodiff_forward, autodiff_reverse};

#[autodiff_reverse(g_rosen2, 2, Active, Active, Active)]
#[autodiff_forward(d_rosen, Dual, Dual, Dual)]
#[autodiff_forward(d_rosen2, 2, Dual, Dual, Dual)]
fn rosen(x: f64, y: f64) -> f64 {
    (1.0 - x).powi(2) + 100.0 * (y - x * x).powi(2)
}

const N: usize = 3;
const M: usize = 2;

// y = W tanh(x), a Jacobian by three lanes of unit tangents (two rows by
// two lanes of reverse mode).
#[autodiff_forward(jac3, 3, Dual, Dual)]
#[autodiff_reverse(rows2, 2, Duplicated, Duplicated)]
fn layer(x: &[f64], y: &mut [f64]) {
    const W: [[f64; N]; M] = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]];
    for i in 0..M {
        y[i] = (0..N).map(|j| W[i][j] * x[j].tanh()).sum();
    }
}

// An f32 result, four lanes, through a reference to an array.
#[autodiff_forward(d_poly4, 4, Dual, DualOnly)]
fn poly(v: &[f32; 4]) -> f32 {
    v[0] * v[1] + v[2].sin() * v[3] + v[0] * v[0] * v[3]
}

/// Checks all of them through `check(what, got, want, tolerance)`.
pub fn check_all(check: &mut dyn FnMut(&str, f64, f64, f64)) {
    let (x, y) = (0.8, -0.4);
    let [p, tx, ty] = d_rosen2(x, 1.0, 0.0, y, 0.0, 1.0);
    check("rosen width 2 primal", p, rosen(x, y), 0.0);
    check("rosen lane 0 vs width 1", tx, d_rosen(x, 1.0, y, 0.0).1, 1e-14);
    check("rosen lane 1 vs width 1", ty, d_rosen(x, 0.0, y, 1.0).1, 1e-14);
    check("rosen lane 0 analytic", tx, -2.0 * (1.0 - x) - 400.0 * x * (y - x * x), 1e-12);
    check("rosen lane 1 analytic", ty, 200.0 * (y - x * x), 1e-12);

    let x = [0.3, -0.7, 1.1];
    let mut y = [0.0; M];
    let e = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let mut cols = [[0.0; M]; N];
    let [c0, c1, c2] = &mut cols;
    jac3(&x, &e[0], &e[1], &e[2], &mut y, c0, c1, c2);
    for j in 0..N {
        let h = 1e-6;
        let (mut xp, mut xm, mut yp, mut ym) = (x, x, [0.0; M], [0.0; M]);
        xp[j] += h;
        xm[j] -= h;
        layer(&xp, &mut yp);
        layer(&xm, &mut ym);
        for i in 0..M {
            check("layer Jacobian lane vs finite difference", cols[j][i], (yp[i] - ym[i]) / (2.0 * h), 1e-6);
        }
    }

    let mut dx = [[0.0; N]; M];
    let mut dy = [[1.0, 0.0], [0.0, 1.0]];
    let ([dx0, dx1], [dy0, dy1]) = (&mut dx, &mut dy);
    rows2(&x, dx0, dx1, &mut y, dy0, dy1);
    for i in 0..M {
        for j in 0..N {
            check("layer Jacobian row (reverse lanes) vs forward lanes", dx[i][j], cols[j][i], 1e-12);
        }
    }

    let (x, y) = (0.8, -0.4);
    let (p, gx, gy) = g_rosen2(x, y, 1.0, -3.0);
    check("rosen reverse width 2 primal", p, rosen(x, y), 0.0);
    check("rosen reverse lane 0 d/dx", gx[0], d_rosen(x, 1.0, y, 0.0).1, 1e-12);
    check("rosen reverse lane 1 d/dx (seed -3)", gx[1], -3.0 * d_rosen(x, 1.0, y, 0.0).1, 1e-12);
    check("rosen reverse lane 0 d/dy", gy[0], d_rosen(x, 0.0, y, 1.0).1, 1e-12);
    check("rosen reverse lane 1 d/dy (seed -3)", gy[1], -3.0 * d_rosen(x, 0.0, y, 1.0).1, 1e-12);

    let v = [0.5f32, -1.25, 0.75, 2.0];
    let e: [[f32; 4]; 4] = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]];
    let g = d_poly4(&v, &e[0], &e[1], &e[2], &e[3]);
    let want = [v[1] + 2.0 * v[0] * v[3], v[0], v[2].cos() * v[3], v[2].sin() + v[0] * v[0]];
    for k in 0..4 {
        check("f32 lanes (DualOnly, width 4)", g[k] as f64, want[k] as f64, 1e-5);
    }
}
