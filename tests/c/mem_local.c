/* Local arrays on the stack (their shadows are zeroed stack slots), indexed
 * by run-time values so they stay in memory even at -O3, and memset. */
#include <string.h>
#include "jacobian.h"

static int pick;

static void table(const double *x, double *y) {
  double t[4];
  t[0] = x[0];
  t[1] = x[0] * x[1];
  t[2] = sin(x[1]);
  t[3] = t[1] + t[2];
  y[0] = t[pick] * t[pick + 1];
  y[1] = t[3 - pick] + x[1];
}

static void cleared(const double *x, double *y) {
  double acc[3];
  memset(acc, 0, sizeof acc);
  acc[pick] = x[0] * 2.0;
  acc[pick + 1] = acc[pick] * x[1];
  y[0] = acc[1] + acc[2];
}

int main(void) {
  for (pick = 0; pick < 3; pick++)
    CHECK_JACOBIAN(table, 2, 2, 0.7, 1.1);
  for (pick = 0; pick < 2; pick++)
    CHECK_JACOBIAN(cleared, 2, 1, 0.7, 1.1);
  return CHECK_DONE();
}
