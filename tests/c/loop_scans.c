/* Scans and in-place array passes: prefix sums and products, a running
 * maximum that selects, a backward recurrence, and a cumulative trapezoid
 * rule over a caller's array. */
#include "jacobian.h"

#define N 8

static void prefix_ops(const double *x, double *y) {
  double s[N], p[N];
  s[0] = x[0];
  p[0] = x[0];
  for (int i = 1; i < N; i++) {
    s[i] = s[i - 1] + x[i];
    p[i] = p[i - 1] * x[i];
  }
  double m = s[0];
  for (int i = 1; i < N; i++)
    if (s[i] * p[i] > m) m = s[i] * p[i];
  y[0] = m;
  y[1] = s[N - 1] * p[N / 2];
}

/* exponential smoothing forward, then backward, in place */
static void smooth_in_place(double *x, double *y) {
  const double a = 0.3;
  for (int i = 1; i < N; i++) x[i] = a * x[i] + (1 - a) * x[i - 1];
  for (int i = N - 2; i >= 0; i--) x[i] = a * x[i] + (1 - a) * x[i + 1] * x[i + 1];
  for (int i = 0; i < 3; i++) y[i] = x[3 * i % N];
}

static void smooth(const double *x, double *y) {
  double t[N];
  for (int i = 0; i < N; i++) t[i] = x[i];
  smooth_in_place(t, y);
}

static void trapezoid(const double *x, double *y) {
  double c = 0, area = 0;
  for (int i = 1; i < N; i++) {
    double h = 0.1 * i;
    c += 0.5 * h * (exp(x[i - 1]) + exp(x[i]));
    area += c * c;
  }
  y[0] = area;
}

int main(void) {
  CHECK_JACOBIAN(prefix_ops, N, 2, 1.1, 0.9, 1.2, 1.05, 0.8, 1.3, 0.95, 1.15);
  CHECK_JACOBIAN(smooth, N, 3, 0.2, 0.5, 0.1, 0.7, 0.3, 0.6, 0.4, 0.9);
  CHECK_JACOBIAN(trapezoid, N, 1, 0.1, -0.2, 0.3, 0.0, 0.5, -0.1, 0.2, 0.4);
  return CHECK_DONE();
}
