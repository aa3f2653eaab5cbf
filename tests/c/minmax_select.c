/* min/max written as comparisons (selects or branches) and via fmin/fmax. */
#include "check.h"

static double clamp(double x) { return x < -1.0 ? -1.0 : (x > 1.0 ? 1.0 : x); }
static double softish(double x, double y) { return fmax(x, y) * fmin(x, 2.0 * y); }
static double absdiff(double x, double y) { return x > y ? x - y : y - x; }

int main(void) {
  CHECK_UNARY(clamp, 0.3, 1.0);
  CHECK_UNARY(clamp, 1.3, 0.0);
  CHECK_UNARY(clamp, -1.3, 0.0);
  /* x = 1.5, y = 1: max = x, min(x, 2y) = x: f = x^2 */
  CHECK_BINARY(softish, 1.5, 1.0, 3.0, 0.0);
  /* x = 0.5, y = 1: max = y, min(x, 2y) = x: f = xy */
  CHECK_BINARY(softish, 0.5, 1.0, 1.0, 0.5);
  CHECK_BINARY(absdiff, 2.0, 0.5, 1.0, -1.0);
  CHECK_BINARY(absdiff, -2.0, 0.5, -1.0, 1.0);
  return CHECK_DONE();
}
