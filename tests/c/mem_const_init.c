/* Local arrays initialised from constant data inside a loop: each
 * iteration's initialisation must drop the adjoints that accumulated in the
 * slot (the reverse of copying constants in). */
#include "jacobian.h"

static void reinit_each_iteration(const double *x, double *y) {
  double s = 0;
  for (int it = 0; it < 4; it++) {
    double w[3] = {0.5, -1.25, 2.0}; /* copied from a constant table every iteration */
    w[it % 3] = w[it % 3] * x[it];
    w[(it + 1) % 3] += x[(it + 1) % 4] * w[it % 3];
    s += w[0] * w[1] + w[2] * x[0];
  }
  y[0] = s;
}

int main(void) {
  CHECK_JACOBIAN(reinit_each_iteration, 4, 1, 0.7, -1.1, 1.3, 0.4);
  return CHECK_DONE();
}
