/* Indices computed from floats: a histogram whose bin comes from the value
 * (piecewise constant in the bin choice, smooth in the weights), a table
 * lookup with linear interpolation inside a loop, and a gather through an
 * index array. */
#include "jacobian.h"

#define N 10

static void weighted_histogram(const double *x, double *y) {
  double bins[4] = {0};
  for (int i = 0; i < N; i++) {
    double v = x[i];
    int b = (int)(v * 4);
    if (b < 0) b = 0;
    if (b > 3) b = 3;
    bins[b] += v * v;
  }
  y[0] = bins[0] + 2 * bins[1] + 3 * bins[2] + 4 * bins[3];
  y[1] = bins[1] * bins[2];
}

static void interp_loop(const double *x, double *y) {
  static const double table[5] = {0.0, 0.8, 1.5, 1.9, 2.1};
  double s = 0;
  for (int i = 0; i < N; i++) {
    double t = x[i] * 4;
    int k = (int)floor(t);
    if (k < 0) k = 0;
    if (k > 3) k = 3;
    double f = t - k;
    s += (1 - f) * table[k] + f * table[k + 1];
  }
  y[0] = s;
}

static const int perm[N] = {3, 7, 1, 9, 0, 4, 8, 2, 6, 5};

static void gather(const double *x, double *y) {
  double acc = 0;
  for (int i = 0; i < N; i++) acc = acc * 0.5 + x[perm[i]] * x[perm[(i + 3) % N]];
  y[0] = acc;
}

int main(void) {
  CHECK_JACOBIAN(weighted_histogram, N, 2, 0.05, 0.33, 0.61, 0.12, 0.88, 0.47, 0.29, 0.71, 0.93, 0.56);
  CHECK_JACOBIAN(interp_loop, N, 1, 0.05, 0.33, 0.61, 0.12, 0.88, 0.47, 0.29, 0.71, 0.93, 0.56);
  CHECK_JACOBIAN(gather, N, 1, 0.05, 0.33, 0.61, 0.12, 0.88, 0.47, 0.29, 0.71, 0.93, 0.56);
  return CHECK_DONE();
}
