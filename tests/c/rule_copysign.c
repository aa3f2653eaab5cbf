/* Rule `copysign`: g(x, y) = copysign(x, y) + x * y, in double and float, both modes. */
#include "check.h"

static double g(double x, double y) { return copysign(x, y) + x * y; }
static float gf(float x, float y) { return copysignf(x, y) + x * y; }

int main(void) {
  { double x = 1.5, y = -2.0; CHECK_BINARY(g, x, y, (((x < 0) == (y < 0) ? 1.0 : -1.0)) + y, (0.0) + x); }
  { double x = 1.5, y = -2.0; CHECK_BINARY_F(gf, (float)x, (float)y, (((x < 0) == (y < 0) ? 1.0 : -1.0)) + y, (0.0) + x); }
  { double x = 1.5, y = 2.0; CHECK_BINARY(g, x, y, (((x < 0) == (y < 0) ? 1.0 : -1.0)) + y, (0.0) + x); }
  { double x = 1.5, y = 2.0; CHECK_BINARY_F(gf, (float)x, (float)y, (((x < 0) == (y < 0) ? 1.0 : -1.0)) + y, (0.0) + x); }
  { double x = -0.5, y = 3.0; CHECK_BINARY(g, x, y, (((x < 0) == (y < 0) ? 1.0 : -1.0)) + y, (0.0) + x); }
  { double x = -0.5, y = 3.0; CHECK_BINARY_F(gf, (float)x, (float)y, (((x < 0) == (y < 0) ? 1.0 : -1.0)) + y, (0.0) + x); }
  return CHECK_DONE();
}
