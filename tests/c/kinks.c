/* Where a rule must pick a side, Enzyme's choice, in both modes (issue 39,
 * item 8): copysign's slope is the product of the sign bits (signed zeros
 * included); fmin's ties go to its second argument, fmax's to its first;
 * floor, ceil, round and trunc have slope 0 everywhere, integers included;
 * sqrt at 0 has slope 0; fabs is +1 at +0.0 and at -0.0 (Enzyme's rule:
 * x < 0 ? -1 : 1). Each against the value Enzyme's rule gives.
 * pow at a zero base or exponent is where we part from Enzyme on purpose:
 * its rule multiplies 0 by an infinity there (y * pow(x, y - 1) at x = y = 0,
 * pow(x, y) * log(x) at x = 0) and answers NaN, which poisons a whole
 * gradient; ours answers the one-sided limit, 0 (as JAX does). */
#include "check.h"

static double f_copysign(double x, double y) { return copysign(x, y); }
static double f_fmin(double x, double y) { return fmin(x, y); }
static double f_fmax(double x, double y) { return fmax(x, y); }
static double f_floor(double x) { return floor(x) + x; }
static double f_ceil(double x) { return ceil(x) + x; }
static double f_round(double x) { return round(x) + x; }
static double f_trunc(double x) { return trunc(x) + x; }
static double f_sqrt(double x) { return sqrt(x); }
static double f_fabs(double x) { return fabs(x); }
static double f_pow(double x, double y) { return pow(x, y); }

/* Both modes of a binary function at (x, y), against (dx, dy). */
static void both(const char *what, double (*f)(double, double), double x, double y, double dx, double dy) {
  grad2 g = __enzyme_autodiff_2((void *)f, x, y);
  double fx = __enzyme_fwddiff((void *)f, enzyme_dup, x, 1.0, enzyme_dup, y, 0.0);
  double fy = __enzyme_fwddiff((void *)f, enzyme_dup, x, 0.0, enzyme_dup, y, 1.0);
  char name[96];
  snprintf(name, sizeof name, "%s reverse d/dx", what);
  CHECK(name, g.dx, dx, 0);
  snprintf(name, sizeof name, "%s reverse d/dy", what);
  CHECK(name, g.dy, dy, 0);
  snprintf(name, sizeof name, "%s forward d/dx", what);
  CHECK(name, fx, dx, 0);
  snprintf(name, sizeof name, "%s forward d/dy", what);
  CHECK(name, fy, dy, 0);
}

static void unary(const char *what, double (*f)(double), double x, double d) {
  double r = __enzyme_autodiff((void *)f, x);
  double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, 1.0);
  char name[96];
  snprintf(name, sizeof name, "%s at %g: reverse", what, x);
  CHECK(name, r, d, 0);
  snprintf(name, sizeof name, "%s at %g: forward", what, x);
  CHECK(name, t, d, 0);
}

int main(void) {
  both("copysign(2, 3)", f_copysign, 2, 3, 1, 0);
  both("copysign(2, -3)", f_copysign, 2, -3, -1, 0);
  both("copysign(-0.0, 1)", f_copysign, -0.0, 1, -1, 0);
  both("copysign(0.0, -0.0)", f_copysign, 0.0, -0.0, -1, 0);
  both("copysign(-0.0, -0.0)", f_copysign, -0.0, -0.0, 1, 0);
  both("fmin tie", f_fmin, 1.5, 1.5, 0, 1);
  both("fmin(1, 2)", f_fmin, 1, 2, 1, 0);
  both("fmin(2, 1)", f_fmin, 2, 1, 0, 1);
  both("fmax tie", f_fmax, 1.5, 1.5, 1, 0);
  both("fmax(1, 2)", f_fmax, 1, 2, 0, 1);
  both("fmax(2, 1)", f_fmax, 2, 1, 1, 0);
  for (double x = -2; x <= 2; x += 0.5) {
    unary("floor(x) + x", f_floor, x, 1);
    unary("ceil(x) + x", f_ceil, x, 1);
    unary("round(x) + x", f_round, x, 1);
    unary("trunc(x) + x", f_trunc, x, 1);
  }
  both("pow(0, 2)", f_pow, 0, 2, 0, 0);
  both("pow(0, 0)", f_pow, 0, 0, 0, 0);
  both("pow(2, 0)", f_pow, 2, 0, 0, log(2.0));
  both("pow(3, 2)", f_pow, 3, 2, 6, 9 * log(3.0));
  unary("sqrt", f_sqrt, 0.0, 0);
  unary("sqrt", f_sqrt, -0.0, 0);
  unary("sqrt", f_sqrt, 4.0, 0.25);
  unary("fabs", f_fabs, 0.0, 1);
  unary("fabs", f_fabs, -0.0, 1);
  unary("fabs", f_fabs, -2.0, -1);
  return CHECK_DONE();
}
