/* Explicit Euler and RK4 over 10^4 steps on a predator-prey model, the
 * state array the caller passes updated in place at every step (each step
 * overwrites the values the reverse sweep needs), with a model parameter. */
#include "jacobian.h"

enum { STEPS = 10000 };
static const double H = 1e-3;

static void rhs(const double *s, double a, double *ds) {
  ds[0] = a * s[0] - 0.4 * s[0] * s[1];
  ds[1] = -0.8 * s[1] + 0.3 * s[0] * s[1];
}

/* x = (prey, predator, a): the state is stepped in place inside `s`. */
static void euler_in_place(double *s, double a) {
  double d[2];
  for (int k = 0; k < STEPS; k++) {
    rhs(s, a, d);
    s[0] += H * d[0];
    s[1] += H * d[1];
  }
}

static void rk4_in_place(double *s, double a) {
  double k1[2], k2[2], k3[2], k4[2], t[2];
  for (int k = 0; k < STEPS; k++) {
    rhs(s, a, k1);
    for (int i = 0; i < 2; i++) t[i] = s[i] + 0.5 * H * k1[i];
    rhs(t, a, k2);
    for (int i = 0; i < 2; i++) t[i] = s[i] + 0.5 * H * k2[i];
    rhs(t, a, k3);
    for (int i = 0; i < 2; i++) t[i] = s[i] + H * k3[i];
    rhs(t, a, k4);
    for (int i = 0; i < 2; i++) s[i] += H / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
}

static void euler(const double *x, double *y) {
  y[0] = x[0];
  y[1] = x[1];
  euler_in_place(y, x[2]);
}

static void rk4(const double *x, double *y) {
  y[0] = x[0];
  y[1] = x[1];
  rk4_in_place(y, x[2]);
}

/* The in-place entry point itself: reverse mode with the state as an
 * `enzyme_dup` argument (its shadow holds the output adjoint on entry and
 * the input adjoint on return), against the Jacobian of the copying form. */
static void check_in_place(void) {
  const double x0[3] = {1.2, 0.7, 0.9};
  double y[2];
  for (int j = 0; j < 2; j++) {
    double J[3];
    for (int i = 0; i < 3; i++) {
      double xp[3] = {x0[0], x0[1], x0[2]}, xm[3] = {x0[0], x0[1], x0[2]}, yp[2], ym[2];
      double h = 1e-6;
      xp[i] += h;
      xm[i] -= h;
      rk4(xp, yp);
      rk4(xm, ym);
      J[i] = (yp[j] - ym[j]) / (2 * h);
    }
    double s[2] = {x0[0], x0[1]}, ds[2] = {j == 0, j == 1};
    double da = __enzyme_autodiff((void *)rk4_in_place, enzyme_dup, s, ds, x0[2]);
    CHECK("rk4 in place: d/d prey", ds[0], J[0], TOL_FD);
    CHECK("rk4 in place: d/d predator", ds[1], J[1], TOL_FD);
    CHECK("rk4 in place: d/da", da, J[2], TOL_FD);
    double t[2] = {x0[0], x0[1]}, tt[2] = {0, 0};
    rk4(x0, y);
    __enzyme_fwddiff((void *)rk4_in_place, enzyme_dup, t, tt, x0[2], 1.0);
    CHECK("rk4 in place: forward d/da vs reverse", tt[j], da, TOL_MODES * 100);
    CHECK("rk4 in place: state stepped", t[j], y[j], 0);
  }
}

int main(void) {
  CHECK_JACOBIAN(euler, 3, 2, 1.2, 0.7, 0.9);
  CHECK_JACOBIAN(rk4, 3, 2, 1.2, 0.7, 0.9);
  check_in_place();
  return CHECK_DONE();
}
