/* Leapfrog for the 1-D wave equation with three buffers rotated by
 * swapping pointers each step, and a spline evaluated after a binary
 * search for the interval. */
#include "jacobian.h"

#define M 16

static void wave(const double *x, double *y) {
  double a[M], b[M], c[M];
  double *prev = a, *cur = b, *next = c;
  const double r2 = 0.25 * x[1];
  for (int i = 0; i < M; i++) {
    double s = sin(3.14159 * i / (M - 1));
    prev[i] = x[0] * s;
    cur[i] = x[0] * s;
  }
  for (int t = 0; t < 200; t++) {
    next[0] = next[M - 1] = 0;
    for (int i = 1; i < M - 1; i++)
      next[i] = 2 * cur[i] - prev[i] + r2 * (cur[i + 1] - 2 * cur[i] + cur[i - 1]);
    double *tmp = prev;
    prev = cur;
    cur = next;
    next = tmp;
  }
  y[0] = cur[M / 2];
  y[1] = cur[M / 4] * prev[M / 3];
}

static const double knots[6] = {0, 0.5, 1.2, 2.0, 2.5, 3.5};

/* piecewise cubic Hermite interpolation through values x[0..5] with
 * finite-difference slopes, evaluated at x[6] */
static void spline(const double *x, double *y) {
  double t = x[6];
  int lo = 0, hi = 5;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (knots[mid] > t) hi = mid;
    else lo = mid;
  }
  double h = knots[hi] - knots[lo];
  double m0 = lo > 0 ? (x[hi] - x[lo - 1]) / (knots[hi] - knots[lo - 1]) : (x[hi] - x[lo]) / h;
  double m1 = hi < 5 ? (x[hi + 1] - x[lo]) / (knots[hi + 1] - knots[lo]) : (x[hi] - x[lo]) / h;
  double s = (t - knots[lo]) / h;
  double h00 = (1 + 2 * s) * (1 - s) * (1 - s), h10 = s * (1 - s) * (1 - s);
  double h01 = s * s * (3 - 2 * s), h11 = s * s * (s - 1);
  y[0] = h00 * x[lo] + h10 * h * m0 + h01 * x[hi] + h11 * h * m1;
}

int main(void) {
  CHECK_JACOBIAN(wave, 2, 2, 0.8, 0.9);
  CHECK_JACOBIAN(spline, 7, 1, 1.0, 0.4, -0.3, 0.8, 1.5, 0.2, 1.7);
  CHECK_JACOBIAN(spline, 7, 1, 1.0, 0.4, -0.3, 0.8, 1.5, 0.2, 0.3);
  CHECK_JACOBIAN(spline, 7, 1, 1.0, 0.4, -0.3, 0.8, 1.5, 0.2, 3.1);
  return CHECK_DONE();
}
