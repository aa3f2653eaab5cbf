/* Series summed until the next term is below a tolerance: the number of
 * iterations depends on the input, and the derivative of the truncated sum
 * is compared with that of the function it approximates. */
#include "jacobian.h"

static double exp_series(double x) {
  double term = 1, sum = 1;
  int k = 1;
  while (fabs(term) > 1e-15 * fabs(sum)) {
    term *= x / k;
    sum += term;
    k++;
  }
  return sum;
}

static double atan_series(double x) { /* |x| < 1 */
  double p = x, sum = 0;
  for (int k = 0; k < 200; k++) {
    double t = p / (2 * k + 1);
    sum += (k % 2 ? -t : t);
    if (fabs(t) < 1e-17) break;
    p *= x * x;
  }
  return sum;
}

/* continued fraction for tanh, evaluated backward from a depth that
 * depends on x */
static double tanh_cf(double x) {
  int depth = 10 + (int)(4 * fabs(x));
  double f = 2 * depth + 1;
  for (int k = depth; k >= 1; k--) f = (2 * k - 1) + x * x / f;
  return x / f;
}

static void all(const double *x, double *y) {
  y[0] = exp_series(x[0]) * atan_series(x[1]);
  y[1] = tanh_cf(x[0] * x[1]);
}

int main(void) {
  CHECK_UNARY(exp_series, 1.3, exp(1.3));
  CHECK_UNARY(exp_series, -2.1, exp(-2.1));
  CHECK_UNARY(atan_series, 0.4, 1 / (1 + 0.16));
  CHECK_UNARY(tanh_cf, 0.8, 1 - tanh(0.8) * tanh(0.8));
  CHECK_JACOBIAN(all, 2, 2, 0.9, 0.5);
  return CHECK_DONE();
}
