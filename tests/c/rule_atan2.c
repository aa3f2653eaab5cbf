/* Rule `atan2`: g(x, y) = atan2(x, y) + x * y, in double and float, both modes. */
#include "check.h"

static double g(double x, double y) { return atan2(x, y) + x * y; }
static float gf(float x, float y) { return atan2f(x, y) + x * y; }

int main(void) {
  { double x = 0.7, y = -1.2; CHECK_BINARY(g, x, y, (y/(x*x+y*y)) + y, (-x/(x*x+y*y)) + x); }
  { double x = 0.7, y = -1.2; CHECK_BINARY_F(gf, (float)x, (float)y, (y/(x*x+y*y)) + y, (-x/(x*x+y*y)) + x); }
  { double x = -2.0, y = 0.5; CHECK_BINARY(g, x, y, (y/(x*x+y*y)) + y, (-x/(x*x+y*y)) + x); }
  { double x = -2.0, y = 0.5; CHECK_BINARY_F(gf, (float)x, (float)y, (y/(x*x+y*y)) + y, (-x/(x*x+y*y)) + x); }
  return CHECK_DONE();
}
