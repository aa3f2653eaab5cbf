/* Structs through pointers: mixed int/double/pointer fields, an array of
 * structs, a double** matrix and constant data behind enzyme_const. */
#include "check.h"

typedef struct {
  int id;
  double mass;
  double *vel; /* points to two doubles */
  double height;
} body;

double __enzyme_autodiff(void *, ...);

static double energy(const body *b, const double *gravity) {
  double v2 = b->vel[0] * b->vel[0] + b->vel[1] * b->vel[1];
  return 0.5 * b->mass * v2 + b->mass * gravity[b->id] * b->height;
}

static double pair_energy(const body *bs) { return energy(&bs[0], &bs[1].height) * bs[1].mass; }

static double det2(double **m) { return m[0][0] * m[1][1] - m[0][1] * m[1][0]; }

int main(void) {
  double g[2] = {9.81, 1.62};
  double v[2] = {3.0, -4.0}, dv[2] = {0, 0};
  body b = {1, 2.0, v, 10.0}, db = {1, 0.0, dv, 0.0};
  double e = __enzyme_autodiff((void *)energy, enzyme_dup, &b, &db, enzyme_const, g);
  (void)e;
  CHECK("dE/dmass", db.mass, 0.5 * 25.0 + g[1] * 10.0, TOL_EXACT);
  CHECK("dE/dheight", db.height, 2.0 * g[1], TOL_EXACT);
  CHECK("dE/dvx", dv[0], 2.0 * 3.0, TOL_EXACT);
  CHECK("dE/dvy", dv[1], 2.0 * -4.0, TOL_EXACT);

  double v2[2] = {1.0, 2.0}, dv2a[2] = {0, 0}, dv2b[2] = {0, 0};
  body bs[2] = {{0, 3.0, v2, 1.5}, {1, 0.5, v2, 2.0}};
  body dbs[2] = {{0, 0, dv2a, 0}, {1, 0, dv2b, 0}};
  /* E = [0.5 m0 |v|^2 + m0 * h1 * h0] * m1 where g[id0] is bs[1].height (h1) */
  __enzyme_autodiff((void *)pair_energy, enzyme_dup, bs, dbs);
  double m0 = 3.0, h0 = 1.5, h1 = 2.0, m1 = 0.5, vv = 5.0;
  CHECK("pair dE/dm0", dbs[0].mass, (0.5 * vv + h1 * h0) * m1, TOL_EXACT);
  CHECK("pair dE/dh0", dbs[0].height, m0 * h1 * m1, TOL_EXACT);
  CHECK("pair dE/dh1", dbs[1].height, m0 * h0 * m1, TOL_EXACT);
  CHECK("pair dE/dm1", dbs[1].mass, 0.5 * m0 * vv + m0 * h1 * h0, TOL_EXACT);
  CHECK("pair dE/dvx", dv2a[0], m0 * 1.0 * m1, TOL_EXACT);

  double r0[2] = {2.0, 1.0}, r1[2] = {0.5, 3.0}, d0[2] = {0, 0}, d1[2] = {0, 0};
  double *m[2] = {r0, r1}, *dm[2] = {d0, d1};
  __enzyme_autodiff((void *)det2, enzyme_dup, m, dm);
  CHECK("ddet/dm00", d0[0], 3.0, TOL_EXACT);
  CHECK("ddet/dm01", d0[1], -0.5, TOL_EXACT);
  CHECK("ddet/dm10", d1[0], -1.0, TOL_EXACT);
  CHECK("ddet/dm11", d1[1], 2.0, TOL_EXACT);
  double t0[2] = {1, 0}, t1[2] = {0, 0}, *tm[2] = {t0, t1};
  double fwd = __enzyme_fwddiff((void *)det2, enzyme_dup, m, tm);
  CHECK("forward ddet along m00 vs reverse", fwd, d0[0], TOL_MODES);
  return CHECK_DONE();
}
