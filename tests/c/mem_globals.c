/* Globals written and read by differentiated code get shadow globals
 * (zeroed at each derivative call); constant globals and globals that are
 * only read are constant data. */
#include "jacobian.h"

static double work[4];          /* scratch written, then read back */
double accumulated;             /* external, written and read */
static const double weights[4] = {1.0, 0.5, 0.25, 2.0};
double scale = 3.0;             /* only read: a constant for the derivative */

static void via_globals(const double *x, double *y) {
  accumulated = 0;
  for (int i = 0; i < 4; i++) work[i] = x[i] * x[i] * weights[i];
  for (int i = 0; i < 4; i++) accumulated += work[3 - i] * x[i];
  y[0] = accumulated * scale;
  y[1] = work[1] + sin(accumulated);
}

int main(void) {
  CHECK_JACOBIAN(via_globals, 4, 2, 0.5, -1.0, 1.5, 2.0);
  /* a second round: the shadow globals must start from zero again */
  CHECK_JACOBIAN(via_globals, 4, 2, 0.25, 1.0, -0.5, 1.0);
  return CHECK_DONE();
}
