/* In-place updates: values the reverse pass needs are overwritten later
 * (x = g(x) on the same memory, a helper called twice on a state array). */
#include "jacobian.h"

static void step(double *s, double h) {
  s[0] = s[0] + h * s[1];
  s[1] = s[1] - h * sin(s[0]);
}

static void two_steps(const double *x, double *y) {
  y[0] = x[0];
  y[1] = x[1];
  step(y, 0.1);
  step(y, 0.1);
}

static void chain_in_place(const double *x, double *y) {
  y[0] = x[0];
  y[0] = sin(y[0]);
  y[0] = y[0] * y[0] + x[1];
  y[1] = y[0] * x[1];
  y[0] = exp(y[0] / 4);
}

int main(void) {
  CHECK_JACOBIAN(two_steps, 2, 2, 0.3, -1.2);
  CHECK_JACOBIAN(chain_in_place, 2, 2, 0.8, 1.7);
  return CHECK_DONE();
}
