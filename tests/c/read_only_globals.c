/* Mutable globals the differentiated code only reads (tables the program
 * fills in first) are constant data for the derivatives; globals it writes,
 * directly or through a helper handed their address, keep their
 * derivatives. (One written through a pointer the program keeps elsewhere
 * is refused at build time, as any store of a derivative through a pointer
 * without a shadow is.) Every Jacobian is checked three ways (reverse,
 * forward, central differences), and forward vector mode against width 1. */
#include "jacobian.h"

extern int enzyme_width, enzyme_dupv, enzyme_dupnoneedv;

/* Filled in by main, read by `rates`: no derivative. */
static double coeff[8];
static struct {
  double scale;
  int order[4];
} setup;

static void rates(const double *x, double *y) {
  for (int i = 0; i < 4; i++) {
    int j = setup.order[i];
    y[i] = setup.scale * exp(coeff[2 * i] * x[j]) + coeff[2 * i + 1] * x[i] * x[(i + 1) % 4];
  }
}

/* Written by the differentiated code, then read back. */
static double partial;
static void stash(double *where, double v) { *where = v; }

static void through_helper(const double *x, double *y) {
  stash(&partial, x[0] * x[1]);
  y[0] = partial * x[2] + coeff[0];
  partial += sin(x[2]);
  y[1] = partial * partial;
}

static void fill(double base) {
  for (int i = 0; i < 8; i++)
    coeff[i] = base + 0.1 * i;
  setup.scale = 1.5 + base;
  for (int i = 0; i < 4; i++)
    setup.order[i] = (3 * i + 1) % 4;
}

int main(void) {
  fill(0.2);
  CHECK_JACOBIAN(rates, 4, 4, 0.5, -1.0, 0.25, 0.75);
  /* New values of the table between calls: read as they are now. */
  fill(-0.3);
  CHECK_JACOBIAN(rates, 4, 4, 0.5, -1.0, 0.25, 0.75);

  /* Vector mode: four tangents in one call, against width 1. */
  double x[4] = {0.1, 0.2, -0.4, 0.3}, seeds[4][4] = {{0}}, outs[4][4], y[4];
  for (int l = 0; l < 4; l++)
    seeds[l][l] = 1;
  __enzyme_fwddiff_v((void *)rates, enzyme_width, 4, enzyme_dupv, sizeof seeds[0], x, &seeds[0][0],
                     enzyme_dupnoneedv, sizeof outs[0], y, &outs[0][0]);
  for (int l = 0; l < 4; l++) {
    double one[4], t[4];
    __enzyme_fwddiff_v((void *)rates, enzyme_dup, x, seeds[l], enzyme_dupnoneed, one, t);
    for (int r = 0; r < 4; r++)
      CHECK("width 4 against width 1", outs[l][r], t[r], TOL_MODES);
  }

  CHECK_JACOBIAN(through_helper, 3, 2, 0.5, -1.0, 0.25);
  return CHECK_DONE();
}
