/* Copies: a struct with double, int, pointer and float fields copied whole
 * (memcpy with a field list at -O1+, a typed stack slot at -O0), and an
 * overlapping memmove of doubles. */
#include <string.h>
#include "check.h"

typedef struct {
  double a;
  int k;
  double *p;
  float f;
} rec;

void __enzyme_autodiff_v(void *, ...);
double __enzyme_fwddiff(void *, ...);

static double through_copy(const rec *in) {
  rec local;
  memcpy(&local, in, sizeof local); /* a struct copy through a stack slot */
  return local.a * local.p[0] * local.f + local.k;
}

static int shift;
static double shifted(double *v) {
  memmove(v + shift, v, 4 * sizeof(double)); /* overlapping */
  return v[0] * 1.0 + v[1] * 2.0 + v[2] * 3.0 + v[3] * 4.0 + v[4] * 5.0 + v[5] * 6.0;
}

int main(void) {
  double q = 3.0, dq = 0.0;
  rec r = {2.0, 7, &q, 0.5f}, dr = {0, 0, &dq, 0};
  __enzyme_autodiff_v((void *)through_copy, enzyme_dup, &r, &dr);
  CHECK("d/da", dr.a, 3.0 * 0.5, TOL_EXACT);
  CHECK("d/dp[0]", dq, 2.0 * 0.5, TOL_EXACT);
  CHECK("d/df", dr.f, 2.0 * 3.0, TOL_FLOAT);
  rec t = {1.0, 0, &q, 0}; /* tangent: along a, with the pointer's shadow */
  double tq = 0.0;
  t.p = &tq;
  CHECK("forward d/da", __enzyme_fwddiff((void *)through_copy, enzyme_dup, &r, &t), 3.0 * 0.5, TOL_EXACT);

  for (shift = 1; shift <= 2; shift++) {
    double v[6] = {1, 2, 3, 4, 5, 6}, dv[6] = {0};
    __enzyme_autodiff_v((void *)shifted, enzyme_dup, v, dv);
    /* after the move, v'[j] = v[j - shift] for shift <= j < shift + 4 */
    double w[6] = {1, 2, 3, 4, 5, 6}, want[6] = {0};
    for (int j = 0; j < 6; j++) {
      if (j >= shift && j < shift + 4)
        want[j - shift] += j + 1;
      else
        want[j] += j + 1;
    }
    for (int j = 0; j < 6; j++) CHECK("memmove adjoint", dv[j], want[j], TOL_EXACT);
    (void)w;
  }
  return CHECK_DONE();
}
