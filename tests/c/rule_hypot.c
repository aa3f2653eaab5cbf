/* Rule `hypot`: g(x, y) = hypot(x, y) + x * y, in double and float, both modes. */
#include "check.h"

static double g(double x, double y) { return hypot(x, y) + x * y; }
static float gf(float x, float y) { return hypotf(x, y) + x * y; }

int main(void) {
  { double x = 0.7, y = -1.2; CHECK_BINARY(g, x, y, (x/hypot(x, y)) + y, (y/hypot(x, y)) + x); }
  { double x = 0.7, y = -1.2; CHECK_BINARY_F(gf, (float)x, (float)y, (x/hypot(x, y)) + y, (y/hypot(x, y)) + x); }
  { double x = 3.0, y = 4.0; CHECK_BINARY(g, x, y, (x/hypot(x, y)) + y, (y/hypot(x, y)) + x); }
  { double x = 3.0, y = 4.0; CHECK_BINARY_F(gf, (float)x, (float)y, (x/hypot(x, y)) + y, (y/hypot(x, y)) + x); }
  return CHECK_DONE();
}
