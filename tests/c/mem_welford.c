/* Results through out-pointers from a single pass: Welford's running mean
 * and variance (in-place updates of the outputs inside the loop). */
#include "jacobian.h"

static void mean_var(const double *x, int n, double *mean, double *var) {
  *mean = 0;
  *var = 0;
  for (int i = 0; i < n; i++) {
    double delta = x[i] - *mean;
    *mean += delta / (i + 1);
    *var += delta * (x[i] - *mean);
  }
  *var /= n - 1;
}

static void stats(const double *x, double *y) { mean_var(x, 6, &y[0], &y[1]); }

int main(void) {
  CHECK_JACOBIAN(stats, 6, 2, 0.5, 1.5, -1.0, 2.0, 0.25, 3.0);
  return CHECK_DONE();
}
