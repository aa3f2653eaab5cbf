/* Selections by comparison inside loops: argmax (the derivative goes to
 * the winner), a running minimum with fmin, clamping each element. */
#include "jacobian.h"

static void argmax_value(const double *x, double *y) {
  int best = 0;
  for (int i = 1; i < 5; i++)
    if (x[i] * x[i] > x[best] * x[best]) best = i;
  y[0] = x[best] * 2.0 + x[0];
}

static void running_min(const double *x, double *y) {
  double m = x[0];
  for (int i = 1; i < 5; i++) {
    m = fmin(m, x[i]);
    y[i - 1] = m * x[i];
  }
}

static void clamp_all(const double *x, double *y) {
  for (int i = 0; i < 5; i++) y[i] = x[i] < -1 ? -1 : (x[i] > 1 ? 1 : x[i] * x[i]);
}

int main(void) {
  CHECK_JACOBIAN(argmax_value, 5, 1, 0.5, -2.0, 1.5, 0.25, 1.0);
  CHECK_JACOBIAN(running_min, 5, 4, 2.0, 1.5, 3.0, 0.5, 0.75);
  CHECK_JACOBIAN(clamp_all, 5, 5, -2.0, -0.5, 0.25, 0.75, 1.5);
  return CHECK_DONE();
}
