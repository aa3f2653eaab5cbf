/* Whole-struct copies between duplicated arguments in reverse mode, typed
 * field by field from TBAA (-O1 and up) or the stack slot (-O0): double,
 * int and float fields, and a pointer field whose shadow travels along. */
#include "check.h"

typedef struct {
  double x, y;
  int id;
  float scale;
  double *extra;
} item;

void __enzyme_autodiff_v(void *, ...);

static double copy_then_use(item *dst, const item *src) {
  item local = *src; /* through a stack slot */
  local.x *= 2;
  *dst = local;      /* and into the destination */
  return dst->x * dst->y * dst->scale + dst->extra[0] * dst->extra[0] + dst->id;
}

int main(void) {
  double e = 1.5, de = 0, de2 = 0;
  item src = {0.5, 3.0, 4, 2.0f, &e}, dsrc = {0, 0, 0, 0, &de};
  item dst, ddst = {0, 0, 0, 0, &de2};
  __enzyme_autodiff_v((void *)copy_then_use, enzyme_dup, &dst, &ddst, enzyme_dup, &src, &dsrc);
  /* value = 2 x y s + e^2 + id */
  CHECK("d/dx", dsrc.x, 2 * 3.0 * 2.0, TOL_EXACT);
  CHECK("d/dy", dsrc.y, 2 * 0.5 * 2.0, TOL_EXACT);
  CHECK("d/dscale", dsrc.scale, 2 * 0.5 * 3.0, TOL_FLOAT);
  CHECK("d/dextra[0] through the copied pointer's shadow", de, 2 * 1.5, TOL_EXACT);
  return CHECK_DONE();
}
