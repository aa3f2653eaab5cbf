/* Loops whose tapes are sized on entry from their trip count, and loops
 * where that count is only an upper bound or unknown: unsigned and
 * narrow counters, steps of 3 counting down, early breaks, a bound that
 * moves inside the loop, triangular nests re-entered per outer iteration. */
#include "jacobian.h"

#define N 7

/* An unsigned counter and a char counter. */
static void counters(const double *x, double *y) {
  double s = 1;
  for (unsigned i = 0; i < N; i++) s = s * 0.9 + sin(x[i] * s);
  for (unsigned char c = 1; c < N; c++) s += x[c] * x[c - 1] / (1 + s * s);
  y[0] = s;
}

/* Counting down by three from the top, and a 64-bit counter. */
static void strides(const double *x, double *y) {
  double s = 0;
  for (int i = N - 1; i >= 0; i -= 3) s = s * x[i] + cos(s + x[i]);
  for (long k = 2; k < 2 + 2 * N; k += 2) s += exp(-x[(k / 2 - 1)] * s) / k;
  y[0] = s;
}

/* A counted loop left early: fewer iterations than reserved. */
static void early(const double *x, double *y) {
  double s = 0;
  for (int i = 0; i < 1000; i++) {
    s += x[i % N] * (1 + 0.1 * s);
    if (s > 6) break;
  }
  y[0] = s;
}

/* The bound grows inside the loop: not known on entry. */
static void moving_bound(const double *x, double *y) {
  double s = 0;
  int n = 2;
  for (int i = 0; i < n; i++) {
    s = sin(s + x[i % N]);
    if (n < 40 && i % 2 == 0) n += 3;
  }
  y[0] = s;
}

/* A triangular nest: the inner loop is re-entered with a new bound each time. */
static void triangle(const double *x, double *y) {
  double t[N] = {0};
  for (int i = 0; i < N; i++) {
    double acc = x[i];
    for (int j = i; j < N; j++) acc = acc * 0.8 + x[j] * tanh(acc);
    for (int j = 0; j <= i; j++) t[j] += acc * x[j];
  }
  for (int i = 0; i < N; i++) y[i] = t[i];
}

int main(void) {
  CHECK_JACOBIAN(counters, N, 1, 0.3, -0.2, 0.5, 0.7, -0.4, 0.1, 0.9);
  CHECK_JACOBIAN(strides, N, 1, 0.3, -0.2, 0.5, 0.7, -0.4, 0.1, 0.9);
  CHECK_JACOBIAN(early, N, 1, 0.3, -0.2, 0.5, 0.7, -0.4, 0.1, 0.9);
  CHECK_JACOBIAN(moving_bound, N, 1, 0.3, -0.2, 0.5, 0.7, -0.4, 0.1, 0.9);
  CHECK_JACOBIAN(triangle, N, N, 0.3, -0.2, 0.5, 0.7, -0.4, 0.1, 0.9);
  return CHECK_DONE();
}
