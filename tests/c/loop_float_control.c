/* Floats steering loops: bisection to a tolerance, adaptive time stepping
 * whose step count depends on the values, and leaving three loop levels at
 * once. */
#include "jacobian.h"

/* the root of t^3 + a t - b on [0, 4] by bisection: its derivative wrt (a, b)
 * is zero almost everywhere (piecewise constant); checked as such below */
static double bisect(double a, double b) {
  double lo = 0, hi = 4;
  while (hi - lo > 1e-9) {
    double mid = 0.5 * (lo + hi);
    if (mid * mid * mid + a * mid - b > 0) hi = mid;
    else lo = mid;
  }
  return 0.5 * (lo + hi);
}

/* y' = -k y integrated with a step that grows while the change is small */
static void adaptive(const double *x, double *y) {
  double t = 0, u = x[0], h = 0.01;
  const double k = x[1];
  while (t < 1.0) {
    if (t + h > 1.0) h = 1.0 - t;
    double du = -k * u * h;
    u += du;
    t += h;
    if (fabs(du) < 0.01 * fabs(u)) h *= 1.5;
  }
  y[0] = u;
}

static void first_triple(const double *x, double *y) {
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      for (int k = 0; k < 4; k++)
        if (x[i] * x[j] * x[k] > 2.5 && i < j && j < k) {
          y[0] = x[i] * x[j] + x[k];
          return;
        }
  y[0] = 0;
}

int main(void) {
  double d = __enzyme_autodiff((void *)bisect, enzyme_const, 1.0, 3.0);
  CHECK("bisection: piecewise constant in b", d, 0.0, 0);
  CHECK_JACOBIAN(adaptive, 2, 1, 1.5, 0.8);
  CHECK_JACOBIAN(first_triple, 4, 1, 0.9, 1.2, 1.6, 1.4);
  return CHECK_DONE();
}
