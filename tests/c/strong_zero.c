/* enzyme_strong_zero: a zero tangent or adjoint times an infinite partial
 * (asin at 1, where 1/sqrt(1 - x^2) is infinite) contributes zero, as
 * Enzyme's checkedMul does; without the marker IEEE arithmetic gives NaN,
 * which the test checks too. Straight-line code, a loop, a recursive callee
 * (a call that stays a call gets its caller's option), both modes. Where the
 * partials are finite the marker changes nothing: checked against the
 * analytic derivative. */
#include "check.h"

extern int enzyme_strong_zero; /* also in <enzyme/enzyme.h> */

static double arc_times(double x, double y) { return asin(x) * y + log(y + x * x + 1.0); }

static double looped(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += asin(x[i]) * x[(i + 1) % n];
  return s;
}

static double chain(double x, double y, int n) {
  if (n == 0) return asin(x) * y;
  return 2.0 * chain(x, y, n - 1) + y;
}

int main(void) {
  const double pi = 3.14159265358979323846;
  /* At x = 1, y = 0: d/dx asin(x)*y = y/sqrt(1 - x^2) is 0 * inf. */
  double dx = __enzyme_autodiff((void *)arc_times, enzyme_strong_zero, 1.0, enzyme_const, 0.0);
  CHECK("reverse: strong zero at asin(1)", dx, 1.0, TOL_EXACT);
  dx = __enzyme_autodiff((void *)arc_times, 1.0, enzyme_const, 0.0);
  CHECK("reverse: without strong zero, NaN", isnan(dx) != 0, 1, 0);
  /* Forward, tangent only in y: asin sees a zero tangent. */
  double t = __enzyme_fwddiff((void *)arc_times, enzyme_dup, 1.0, 0.0, enzyme_dup, 2.0, 1.0, enzyme_strong_zero);
  CHECK("forward: strong zero at asin(1)", t, pi / 2 + 0.25, TOL_EXACT);
  t = __enzyme_fwddiff((void *)arc_times, enzyme_dup, 1.0, 0.0, enzyme_dup, 2.0, 1.0);
  CHECK("forward: without strong zero, NaN", isnan(t) != 0, 1, 0);
  /* Finite partials: unchanged. */
  double x = 0.3, y = 1.3;
  dx = __enzyme_autodiff((void *)arc_times, enzyme_strong_zero, x, enzyme_const, y);
  CHECK("reverse: finite partials unchanged", dx, y / sqrt(1 - x * x) + 2 * x / (y + x * x + 1), TOL_EXACT);
  t = __enzyme_fwddiff((void *)arc_times, enzyme_strong_zero, enzyme_dup, x, 1.0, enzyme_dup, y, 0.0);
  CHECK("forward: finite partials unchanged", t, dx, TOL_MODES);

  /* A loop over asin(v[i]) * v[i+1] with v[0] = 1, v[1] = 0: asin(v[0])
   * gets a zero adjoint. */
  double v[3] = {1.0, 0.0, 0.5}, dv[3] = {0, 0, 0};
  __enzyme_autodiff((void *)looped, enzyme_strong_zero, enzyme_dup, v, dv, enzyme_const, 3);
  CHECK("loop: d/dv0 (strong zero)", dv[0], asin(v[2]), TOL_EXACT);
  CHECK("loop: d/dv1", dv[1], asin(v[0]) + v[2] / sqrt(1 - v[1] * v[1]), TOL_EXACT);
  CHECK("loop: d/dv2", dv[2], asin(v[1]) + v[0] / sqrt(1 - v[2] * v[2]), TOL_EXACT);
  for (int i = 1; i < 3; i++) {
    double tv[3] = {0, 0, 0};
    tv[i] = 1;
    t = __enzyme_fwddiff((void *)looped, enzyme_strong_zero, enzyme_dup, v, tv, enzyme_const, 3);
    CHECK("loop: forward against reverse", t, dv[i], TOL_MODES);
  }
  double dw[3] = {0, 0, 0};
  __enzyme_autodiff((void *)looped, enzyme_dup, v, dw, enzyme_const, 3);
  CHECK("loop: without strong zero, NaN", isnan(dw[0]) != 0, 1, 0);

  /* Recursion: the callee's derivative gets the option too. chain(x, y, 3)
   * is 8 asin(x) y + 7 y. */
  dx = __enzyme_autodiff((void *)chain, enzyme_strong_zero, 1.0, enzyme_const, 0.0, enzyme_const, 3);
  CHECK("recursion: strong zero", dx, 0.0, 0);
  dx = __enzyme_autodiff((void *)chain, 1.0, enzyme_const, 0.0, enzyme_const, 3);
  CHECK("recursion: without strong zero, NaN", isnan(dx) != 0, 1, 0);
  t = __enzyme_fwddiff((void *)chain, enzyme_strong_zero, enzyme_dup, 1.0, 0.0, enzyme_dup, 0.5, 1.0, enzyme_const, 3);
  CHECK("recursion forward: strong zero", t, 4 * pi + 7, TOL_EXACT);
  t = __enzyme_fwddiff((void *)chain, enzyme_dup, 1.0, 0.0, enzyme_dup, 0.5, 1.0, enzyme_const, 3);
  CHECK("recursion forward: without strong zero, NaN", isnan(t) != 0, 1, 0);
  printf("%d checks, %d failures\n", check_count, check_failures);
  return check_failures != 0;
}
