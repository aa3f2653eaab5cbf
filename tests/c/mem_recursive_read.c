/* Recursive functions that read memory through pointers (pairwise
 * summation, a divide-and-conquer product): their derivatives recompute
 * them, with the shadows passed down the recursion. */
#include "jacobian.h"

static double pairwise_sum(const double *x, int n) {
  if (n == 1) return x[0] * x[0];
  if (n == 2) return x[0] * x[0] + x[1] * x[1];
  int h = n / 2;
  return pairwise_sum(x, h) + pairwise_sum(x + h, n - h);
}

static double split_product(const double *x, const double *w, int lo, int hi) {
  if (hi - lo == 1) return 1.0 + w[lo] * sin(x[lo]);
  int mid = (lo + hi) / 2;
  return split_product(x, w, lo, mid) * split_product(x, w, mid, hi);
}

static const double weights[7] = {0.5, 1.0, -0.25, 2.0, 0.75, -1.0, 0.125};

static void both(const double *x, double *y) {
  y[0] = pairwise_sum(x, 7);
  y[1] = split_product(x, weights, 0, 7);
}

int main(void) {
  CHECK_JACOBIAN(both, 7, 2, 0.5, -1, 2, 0.25, 1.5, 3, -0.75);
  return CHECK_DONE();
}
