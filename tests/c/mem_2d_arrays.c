/* Two-dimensional arrays passed as pointers to rows (double (*)[4]), a
 * parameter struct passed enzyme_const next to a duplicated state. */
#include "check.h"

typedef struct {
  double damping;
  int steps;
  double coupling[4];
} params;

void __enzyme_autodiff_v(void *, ...);

static double grid_energy(double (*g)[4], int rows, const params *p) {
  double e = 0;
  for (int s = 0; s < p->steps; s++)
    for (int r = 0; r < rows; r++)
      for (int c = 0; c < 4; c++) {
        double nb = (c > 0 ? g[r][c - 1] : 0) + (r > 0 ? g[r - 1][c] : 0);
        e += p->damping * g[r][c] * g[r][c] + p->coupling[c] * g[r][c] * nb;
      }
  return e;
}

int main(void) {
  double g[3][4] = {{1, 2, 0.5, -1}, {0.25, 1.5, 2, 0.75}, {-0.5, 1, 0.5, 2}}, dg[3][4] = {{0}};
  params p = {0.5, 2, {0.1, 0.2, 0.3, 0.4}};
  __enzyme_autodiff_v((void *)grid_energy, enzyme_dup, g, dg, 3, enzyme_const, &p);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 4; c++) {
      double h = 1e-6, keep = g[r][c];
      g[r][c] = keep + h;
      double ep = grid_energy(g, 3, &p);
      g[r][c] = keep - h;
      double em = grid_energy(g, 3, &p);
      g[r][c] = keep;
      CHECK("grid gradient vs finite difference", dg[r][c], (ep - em) / (2 * h), TOL_FD);
    }
  return CHECK_DONE();
}
