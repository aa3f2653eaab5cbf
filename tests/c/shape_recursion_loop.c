/* A recursive scalar function (not inlinable) called inside a loop, and a
 * loop inside a recursive function. */
#include "jacobian.h"

static double power_rec(double x, int n) { return n == 0 ? 1.0 : x * power_rec(x, n - 1); }

static double sum_then_recurse(double x, int depth) {
  double s = 0;
  for (int i = 1; i <= 3; i++) s += sin(x * i);
  return depth == 0 ? s : s * sum_then_recurse(x * 0.5, depth - 1);
}

static void poly_by_recursion(const double *x, double *y) {
  double s = 0;
  for (int k = 0; k < 5; k++) s += power_rec(x[0], k) * x[1 + (k % 2)];
  y[0] = s;
  y[1] = sum_then_recurse(x[0], 2) + x[1];
}

int main(void) {
  CHECK_JACOBIAN(poly_by_recursion, 3, 2, 0.7, 1.5, -0.5);
  return CHECK_DONE();
}
