/* Integer values of a loop that repeat from one entry to the next (the
 * running offset into a packed triangle, the way a branch on the column
 * goes) are kept once per iteration number instead of once per instance
 * (`entry_tables`). Checked where they repeat (GMM's triangular product
 * in loops over points and components), and where they must not be
 * shared: an offset whose start or step depends on the outer loop or on
 * the data, a column skipped when the data says. Reverse against forward and central differences. */
#include <string.h>
#include "check.h"

enum { D = 6, K = 3, P = 40, TRI = D * (D - 1) / 2 };
extern int enzyme_dup, enzyme_const;

/* sum over points and components of |L x|^2, L packed below the diagonal. */
static double packed(const double *x, const double *q) {
  double s = 0, lx[D];
  for (int p = 0; p < P; p++)
    for (int k = 0; k < K; k++) {
      for (int i = 0; i < D; i++) lx[i] = x[(p * D + i) % (P * D)] * (1 + 0.1 * k);
      int off = 0;
      for (int j = 0; j < D; j++)
        for (int i = j + 1; i < D; i++) lx[i] += q[k * TRI + off++] * x[(p * D + j) % (P * D)];
      for (int i = 0; i < D; i++) s += lx[i] * lx[i];
    }
  return s;
}

/* The same, the offset starting where the point says (not shared). */
static double shifted(const double *x, const double *q) {
  double s = 0, lx[D];
  for (int p = 0; p < P; p++) {
    for (int i = 0; i < D; i++) lx[i] = x[p * D + i];
    int off = p % 4;
    for (int j = 0; j < D; j++)
      for (int i = j + 1; i < D; i++) lx[i] += q[off++ % (K * TRI)] * x[p * D + j];
    for (int i = 0; i < D; i++) s += lx[i] * lx[i];
  }
  return s;
}

/* The same, the offset's step chosen by the data (not shared). */
static double chosen(const double *x, const double *q) {
  double s = 0, lx[D];
  for (int p = 0; p < P; p++) {
    for (int i = 0; i < D; i++) lx[i] = x[p * D + i];
    int off = 0;
    for (int j = 0; j < D; j++) {
      for (int i = j + 1; i < D; i++) lx[i] += q[off % (K * TRI)] * x[p * D + j];
      off += x[p * D + j] > 0 ? 2 : 1;
    }
    for (int i = 0; i < D; i++) s += lx[i] * lx[i];
  }
  return s;
}

/* The same, a column skipped when the data says (branches not shared). */
static double branching(const double *x, const double *q) {
  double s = 0, lx[D];
  for (int p = 0; p < P; p++) {
    for (int i = 0; i < D; i++) lx[i] = x[p * D + i];
    int off = 0;
    for (int j = 0; j < D; j++) {
      if (x[p * D + j] > 0.5) {
        off += 3;
        continue;
      }
      for (int i = j + 1; i < D; i++) lx[i] += sin(q[off++ % (K * TRI)]) * x[p * D + j];
    }
    for (int i = 0; i < D; i++) s += lx[i] * lx[i];
  }
  return s;
}

typedef double (*objective)(const double *, const double *);

static void check_one(const char *name, objective f, const double *x, const double *q) {
  static double dx[P * D], dq[K * TRI];
  memset(dx, 0, sizeof dx), memset(dq, 0, sizeof dq);
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_dup, q, dq);
  static double tx[P * D], tq[K * TRI], xp[P * D], xm[P * D], qp[K * TRI], qm[K * TRI];
  for (int d = 0; d < 5; d++) {
    /* A direction: every input, scaled differently. */
    for (int i = 0; i < P * D; i++) tx[i] = sin(1.3 * i + d);
    for (int i = 0; i < K * TRI; i++) tq[i] = cos(0.7 * i + 2 * d);
    double rev = 0;
    for (int i = 0; i < P * D; i++) rev += dx[i] * tx[i];
    for (int i = 0; i < K * TRI; i++) rev += dq[i] * tq[i];
    double fwd = __enzyme_fwddiff((void *)f, enzyme_dup, x, tx, enzyme_dup, q, tq);
    CHECK(name, rev, fwd, TOL_MODES);
    double h = 1e-6;
    for (int i = 0; i < P * D; i++) xp[i] = x[i] + h * tx[i], xm[i] = x[i] - h * tx[i];
    for (int i = 0; i < K * TRI; i++) qp[i] = q[i] + h * tq[i], qm[i] = q[i] - h * tq[i];
    CHECK(name, rev, (f(xp, qp) - f(xm, qm)) / (2 * h), TOL_FD);
  }
}

int main(void) {
  static double x[P * D], q[K * TRI];
  for (int i = 0; i < P * D; i++) x[i] = sin(0.37 * i) + 0.1;
  for (int i = 0; i < K * TRI; i++) q[i] = 0.2 * cos(0.53 * i);
  check_one("packed", packed, x, q);
  check_one("shifted", shifted, x, q);
  check_one("chosen", chosen, x, q);
  check_one("branching", branching, x, q);
  printf("%d checks, %d failed\n", check_count, check_failures);
  return check_failures != 0;
}
