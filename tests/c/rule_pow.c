/* Rule `pow`: g(x, y) = pow(x, y) + x * y, in double and float, both modes. */
#include "check.h"

static double g(double x, double y) { return pow(x, y) + x * y; }
static float gf(float x, float y) { return powf(x, y) + x * y; }

int main(void) {
  { double x = 1.3, y = 2.2; CHECK_BINARY(g, x, y, (y*pow(x, y-1.0)) + y, (pow(x, y)*log(x)) + x); }
  { double x = 1.3, y = 2.2; CHECK_BINARY_F(gf, (float)x, (float)y, (y*pow(x, y-1.0)) + y, (pow(x, y)*log(x)) + x); }
  { double x = 0.7, y = -1.5; CHECK_BINARY(g, x, y, (y*pow(x, y-1.0)) + y, (pow(x, y)*log(x)) + x); }
  { double x = 0.7, y = -1.5; CHECK_BINARY_F(gf, (float)x, (float)y, (y*pow(x, y-1.0)) + y, (pow(x, y)*log(x)) + x); }
  return CHECK_DONE();
}
