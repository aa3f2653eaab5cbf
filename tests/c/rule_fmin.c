/* Rule `fmin`: g(x, y) = fmin(x, y) + x * y, in double and float, both modes. */
#include "check.h"

static double g(double x, double y) { return fmin(x, y) + x * y; }
static float gf(float x, float y) { return fminf(x, y) + x * y; }

int main(void) {
  { double x = 1.2, y = 3.4; CHECK_BINARY(g, x, y, ((x <= y ? 1.0 : 0.0)) + y, ((x <= y ? 0.0 : 1.0)) + x); }
  { double x = 1.2, y = 3.4; CHECK_BINARY_F(gf, (float)x, (float)y, ((x <= y ? 1.0 : 0.0)) + y, ((x <= y ? 0.0 : 1.0)) + x); }
  { double x = 3.4, y = 1.2; CHECK_BINARY(g, x, y, ((x <= y ? 1.0 : 0.0)) + y, ((x <= y ? 0.0 : 1.0)) + x); }
  { double x = 3.4, y = 1.2; CHECK_BINARY_F(gf, (float)x, (float)y, ((x <= y ? 1.0 : 0.0)) + y, ((x <= y ? 0.0 : 1.0)) + x); }
  return CHECK_DONE();
}
