/* Split forward mode: __enzyme_augmentfwd runs the function and returns a
 * tape; __enzyme_fwdsplit later computes tangents with it, from the primal
 * values the forward part kept, without running the function again. As in
 * the material models written for Enzyme, the forward part may be given
 * null shadows and the tangent part null primals (only the tape and the
 * shadows matter then). The two parts are separated by work that overwrites
 * the function's memory; tapes are kept for many calls at once, in the
 * caller's buffer (`enzyme_allocated`, `enzyme_tape`) or returned; loops with
 * data-dependent branches and switches, heap memory inside, float arguments
 * and results. Every tangent is checked against __enzyme_fwddiff on the same
 * inputs and against finite differences; one function is also used with
 * __enzyme_reverse (its tape then serves the reverse sweep). */
#include <string.h>
#include "check.h"

extern int enzyme_allocated, enzyme_tape, enzyme_nofree;
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_fwdsplit(void *, ...);
double __enzyme_fwdsplit_d(void *, ...);
void __enzyme_reverse(void *, ...);
int __enzyme_augmentsize(void *, ...);

/* A hyperelastic-like stress: strain E (6 components, Voigt order) to
 * stress S, through the inverse of C = I + 2E and log(det C). */
static void stress(double *S, const double *E, double lambda, double mu) {
  double C[3][3] = {{1 + 2 * E[0], 2 * E[5], 2 * E[4]},
                    {2 * E[5], 1 + 2 * E[1], 2 * E[3]},
                    {2 * E[4], 2 * E[3], 1 + 2 * E[2]}};
  double cof[6] = {C[1][1] * C[2][2] - C[1][2] * C[2][1], C[0][0] * C[2][2] - C[0][2] * C[2][0],
                   C[0][0] * C[1][1] - C[0][1] * C[1][0], C[0][2] * C[1][0] - C[0][0] * C[1][2],
                   C[0][1] * C[1][2] - C[0][2] * C[1][1], C[0][2] * C[2][1] - C[0][1] * C[2][2]};
  double det = C[0][0] * cof[0] + C[0][1] * cof[5] + C[0][2] * cof[4];
  double logJ = 0.5 * log(det);
  static const int diag[6] = {1, 1, 1, 0, 0, 0};
  for (int m = 0; m < 6; m++)
    S[m] = lambda * logJ * cof[m] / det + mu * (diag[m] - cof[m] / det);
}

/* In place, with branches that depend on the data and a switch. */
static void relax(double *x, int n, double w) {
  for (int sweep = 0; sweep < 3; sweep++) {
    for (int i = 1; i < n - 1; i++) {
      double avg = 0.5 * (x[i - 1] + x[i + 1]);
      if (x[i] > avg)
        x[i] = (1 - w) * x[i] + w * sqrt(avg * avg + 1);
      else
        x[i] = (1 - w) * x[i] + w * avg * avg;
      switch (i % 3) {
      case 0: x[i] = sin(x[i]); break;
      case 1: x[i] *= 1.01; break;
      default: break;
      }
    }
  }
}

/* Float arguments and a float result, a heap temporary. */
static double energy(double a, double b, const double *p, int n) {
  double *t = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) t[i] = a * p[i] + b * p[i] * p[i];
  double s = 0;
  for (int i = 0; i < n; i++) s += t[i] > 0 ? exp(-t[i]) : t[i] * t[i];
  free(t);
  return s;
}

/* A scalar loss over an array, for split forward and split reverse mode. */
static double loss(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += cos(x[i]) * x[(i + 1) % n];
  return s;
}

static void check_stress(void) {
  const double lambda = 0.52, mu = 0.23;
  double E[6] = {0.31, 0.12, 0.45, 0.08, 0.02, 0.27};
  double dE[6] = {0.9, -0.4, 0.3, 0.65, 0.05, -0.6};
  /* The caller's buffer, sized by __enzyme_augmentsize. */
  int size = __enzyme_augmentsize((void *)stress, enzyme_dup, enzyme_dup, enzyme_const, enzyme_const);
  void *tape = malloc(size);
  double S[6];
  __enzyme_augmentfwd((void *)stress, enzyme_allocated, size, enzyme_tape, tape, enzyme_nofree, S, (double *)NULL,
                      E, (double *)NULL, enzyme_const, lambda, enzyme_const, mu);
  double S_want[6];
  stress(S_want, E, lambda, mu);
  for (int m = 0; m < 6; m++) CHECK("stress primal", S[m], S_want[m], TOL_EXACT);
  /* The inputs change before the tangents are asked for. */
  double E_saved[6];
  memcpy(E_saved, E, sizeof E);
  for (int m = 0; m < 6; m++) E[m] = -1;
  double dS[6];
  __enzyme_fwdsplit((void *)stress, enzyme_allocated, size, enzyme_tape, tape, (double *)NULL, dS, (double *)NULL, dE,
                    enzyme_const, lambda, enzyme_const, mu);
  double S2[6], dS_fwd[6];
  __enzyme_fwddiff((void *)stress, S2, dS_fwd, E_saved, dE, enzyme_const, lambda, enzyme_const, mu);
  for (int m = 0; m < 6; m++) {
    CHECK("stress: fwdsplit against fwddiff", dS[m], dS_fwd[m], TOL_MODES);
    double Ep[6], Em[6], Sp[6], Sm[6], h = 1e-6;
    for (int k = 0; k < 6; k++) {
      Ep[k] = E_saved[k] + h * dE[k];
      Em[k] = E_saved[k] - h * dE[k];
    }
    stress(Sp, Ep, lambda, mu);
    stress(Sm, Em, lambda, mu);
    CHECK("stress: fwdsplit against finite differences", dS[m], (Sp[m] - Sm[m]) / (2 * h), TOL_FD);
  }
  free(tape);
}

static void check_relax(void) {
  enum { N = 9, CALLS = 4 };
  double x0[CALLS][N], x[CALLS][N], dx[CALLS][N];
  void *tapes[CALLS];
  for (int c = 0; c < CALLS; c++)
    for (int i = 0; i < N; i++) x0[c][i] = x[c][i] = 0.3 + 0.7 * sin(1.3 * i + c) * (i % 2 ? 1 : -0.5);
  /* Every forward part first, each with its own tape, shadows given. */
  double unused[N];
  for (int c = 0; c < CALLS; c++) tapes[c] = __enzyme_augmentfwd((void *)relax, x[c], unused, N, 0.6);
  for (int c = 0; c < CALLS; c++) memset(x[c], 0, sizeof x[c]); /* overwritten in between */
  /* Then the tangent parts, last first, with other shadows. */
  for (int c = CALLS - 1; c >= 0; c--) {
    for (int i = 0; i < N; i++) dx[c][i] = 1.0 / (1 + i + c);
    __enzyme_fwdsplit((void *)relax, x[c], dx[c], N, enzyme_const, 0.6, tapes[c]);
  }
  for (int c = 0; c < CALLS; c++) {
    double y[N], dy[N], yp[N], ym[N], h = 1e-6;
    for (int i = 0; i < N; i++) {
      y[i] = x0[c][i];
      dy[i] = 1.0 / (1 + i + c);
      yp[i] = x0[c][i] + h * dy[i];
      ym[i] = x0[c][i] - h * dy[i];
    }
    __enzyme_fwddiff((void *)relax, y, dy, N, enzyme_const, 0.6);
    relax(yp, N, 0.6);
    relax(ym, N, 0.6);
    for (int i = 0; i < N; i++) {
      CHECK("relax: fwdsplit against fwddiff", dx[c][i], dy[i], TOL_MODES);
      CHECK("relax: fwdsplit against finite differences", dx[c][i], (yp[i] - ym[i]) / (2 * h), TOL_FD);
    }
  }
}

static void check_energy(void) {
  enum { N = 7 };
  double p[N];
  for (int i = 0; i < N; i++) p[i] = 0.4 * cos(0.9 * i) - 0.1;
  double a = 0.8, b = -1.3, da = 0.7, db = 0.25;
  void *tape = __enzyme_augmentfwd((void *)energy, a, b, enzyme_const, p, N);
  double p_saved[N];
  memcpy(p_saved, p, sizeof p);
  for (int i = 0; i < N; i++) p[i] = 100;
  double de = __enzyme_fwdsplit_d((void *)energy, a, da, b, db, enzyme_const, (double *)NULL, N, tape);
  double de_fwd = __enzyme_fwddiff((void *)energy, a, da, b, db, enzyme_const, p_saved, N);
  double h = 1e-6;
  double fd = (energy(a + h * da, b + h * db, p_saved, N) - energy(a - h * da, b - h * db, p_saved, N)) / (2 * h);
  CHECK("energy: fwdsplit against fwddiff", de, de_fwd, TOL_MODES);
  CHECK("energy: fwdsplit against finite differences", de, fd, TOL_FD);
}

static void check_loss_both_ways(void) {
  enum { N = 6 };
  double x[N], dx[N], gx[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.2 * i - 0.4;
    dx[i] = 1 + 0.5 * i;
    gx[i] = 0;
  }
  /* The same split derivative, resumed once for tangents, once for adjoints. */
  void *t1 = __enzyme_augmentfwd((void *)loss, x, dx, N);
  void *t2 = __enzyme_augmentfwd((void *)loss, x, gx, N);
  double dl = __enzyme_fwdsplit_d((void *)loss, x, dx, N, t1);
  __enzyme_reverse((void *)loss, x, gx, N, 1.0, t2);
  double dl_fwd = __enzyme_fwddiff((void *)loss, x, dx, N);
  double dot = 0;
  for (int i = 0; i < N; i++) dot += gx[i] * dx[i];
  CHECK("loss: fwdsplit against fwddiff", dl, dl_fwd, TOL_MODES);
  CHECK("loss: fwdsplit against the reverse gradient", dl, dot, 1e-12);
}

int main(void) {
  check_stress();
  check_relax();
  check_energy();
  check_loss_both_ways();
  return check_done("fwdsplit");
}
