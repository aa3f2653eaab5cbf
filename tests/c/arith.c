/* The arithmetic instructions: fadd, fsub, fmul, fdiv, frem, fneg. */
#include "check.h"

static double f_add(double x) { return x + 2.5 + x; }
static double f_sub(double x) { return 3.0 - x * 0.5 - x; }
static double f_mul(double x) { return x * x * x; }
static double f_div(double x) { return 1.0 / x + x / 3.0 + (x * x) / (x + 1.0); }
static double f_rem(double x) { return fmod(x * 3.0, 2.0) + x; }
static double f_neg(double x) { return -(x * x) - (-x); }

static double g_all(double x, double y) { return (x + y) * (x - y) / (1.0 + y * y) - -x; }

int main(void) {
  double x = 1.7;
  CHECK_UNARY(f_add, x, 2.0);
  CHECK_UNARY(f_sub, x, -1.5);
  CHECK_UNARY(f_mul, x, 3 * x * x);
  CHECK_UNARY(f_div, x, -1.0 / (x * x) + 1.0 / 3.0 + (2 * x * (x + 1) - x * x) / ((x + 1) * (x + 1)));
  CHECK_UNARY(f_rem, x, 4.0);
  CHECK_UNARY(f_neg, x, -2 * x + 1);
  double y = -0.6;
  double q = 1.0 + y * y;
  CHECK_BINARY(g_all, x, y, 2 * x / q + 1.0, (-2 * y * q - (x * x - y * y) * 2 * y) / (q * q));
  return CHECK_DONE();
}
