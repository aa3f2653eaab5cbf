/* Scalars in, results through an out-pointer: the output's adjoint is
 * seeded in its shadow (reverse) or read from it (forward). */
#include "check.h"

typedef struct {
  double dx, dy;
} grad2v;
grad2v __enzyme_autodiff_out(void *, ...);
void __enzyme_fwddiff_out(void *, ...);

static void polar_out(double r, double t, double *xy) {
  xy[0] = r * cos(t);
  xy[1] = r * sin(t);
}

int main(void) {
  double r = 2.0, t = 0.6, xy[2], dxy[2] = {1.0, 0.0};
  grad2v g = __enzyme_autodiff_out((void *)polar_out, r, t, enzyme_dup, xy, dxy);
  CHECK("dx/dr", g.dx, cos(t), TOL_EXACT);
  CHECK("dx/dt", g.dy, -r * sin(t), TOL_EXACT);
  CHECK("output seed consumed", dxy[0], 0.0, 0);
  CHECK("primal written", xy[1], r * sin(t), TOL_EXACT);
  double txy[2];
  __enzyme_fwddiff_out((void *)polar_out, r, 0.0, t, 1.0, enzyme_dup, xy, txy);
  CHECK("forward dx/dt vs reverse", txy[0], g.dy, TOL_MODES);
  CHECK("forward dy/dt", txy[1], r * cos(t), TOL_EXACT);
  return CHECK_DONE();
}
