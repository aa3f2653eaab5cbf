/* Several active arguments: adjoints come back as a struct in argument
 * order, in registers (2 doubles, 2 floats) or through memory (3+ doubles). */
#include "check.h"

typedef struct {
  double a, b, c;
} grad3;
grad3 __enzyme_autodiff_3(void *, ...);
typedef struct {
  double a, b, c, d;
} grad4;
grad4 __enzyme_autodiff_4(void *, ...);
typedef struct {
  float a, b, c;
} grad3f;
grad3f __enzyme_autodiff_3f(void *, ...);

static double f3(double x, double y, double z) { return x * y * z + sin(z); }
static double f4(double x, double y, double z, double w) { return x * y + z * w * w; }
static float f3f(float x, float y, float z) { return x * y + z * z; }

int main(void) {
  double x = 0.5, y = -1.5, z = 2.0, w = 0.25;
  grad3 g = __enzyme_autodiff_3((void *)f3, x, y, z);
  CHECK("f3 d/dx", g.a, y * z, TOL_EXACT);
  CHECK("f3 d/dy", g.b, x * z, TOL_EXACT);
  CHECK("f3 d/dz", g.c, x * y + cos(z), TOL_EXACT);
  CHECK("f3 forward d/dz", __enzyme_fwddiff((void *)f3, x, 0.0, y, 0.0, z, 1.0), g.c, TOL_MODES);
  grad4 h = __enzyme_autodiff_4((void *)f4, x, y, z, w);
  CHECK("f4 d/dx", h.a, y, TOL_EXACT);
  CHECK("f4 d/dy", h.b, x, TOL_EXACT);
  CHECK("f4 d/dz", h.c, w * w, TOL_EXACT);
  CHECK("f4 d/dw", h.d, 2 * z * w, TOL_EXACT);
  grad3f k = __enzyme_autodiff_3f((void *)f3f, (float)x, (float)y, (float)z);
  CHECK("f3f d/dx", k.a, y, TOL_FLOAT);
  CHECK("f3f d/dy", k.b, x, TOL_FLOAT);
  CHECK("f3f d/dz", k.c, 2 * z, TOL_FLOAT);
  return CHECK_DONE();
}
