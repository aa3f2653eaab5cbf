/* Split mode over a function that reads and writes a global: the global's
 * derivative starts at zero at each augmented call (as at each combined
 * call; in split forward mode, at each tangent call), so one call's
 * adjoint or tangent does not leak into the next pair's; and
 * with N augmented calls first and their reverses after, in the opposite
 * order, the adjoint of the state a call wrote flows into the reverse of
 * the call that wrote it. Checked against closed forms, and forward mode
 * against reverse. */
#include "check.h"

void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
void __enzyme_fwdsplit(void *, ...);

double g;

/* Stores the global on some calls only: a call that only reads it leaves an
 * adjoint for it behind. */
static void maybe_store(const double *x, double *y, int store) {
  if (store)
    g = x[0] * x[0];
  *y = g * x[0];
}

/* A step of a recurrence kept in a global. */
double state;
static void step(const double *a, double *out) {
  state = state * a[0] + sin(a[0]);
  *out = state;
}

int main(void) {
  double x = 1.5, split[4];
  /* The split pairs one after another (no combined call in between to zero
   * the global's derivative). */
  for (int k = 0; k < 4; k++) {
    int store = k % 2;
    double y, yb = 1;
    split[k] = 0;
    g = 2.0;
    void *tape = __enzyme_augmentfwd((void *)maybe_store, &x, &split[k], &y, &yb, enzyme_const, store);
    __enzyme_reverse((void *)maybe_store, &x, &split[k], &y, &yb, enzyme_const, store, tape);
  }
  /* Split forward mode likewise, a call that stores the global first (its
   * tangent must not reach the next call, which only reads it). */
  double tangent[4];
  for (int k = 0; k < 4; k++) {
    int store = (k + 1) % 2;
    double y, dx = 1;
    g = 2.0;
    void *tape = __enzyme_augmentfwd((void *)maybe_store, &x, &dx, &y, &tangent[k], enzyme_const, store);
    __enzyme_fwdsplit((void *)maybe_store, &x, &dx, &y, &tangent[k], enzyme_const, store, tape);
  }
  for (int k = 0; k < 4; k++)
    CHECK("split forward: d/dx", tangent[k], (k + 1) % 2 ? 3 * x * x : 2.0, TOL_EXACT);
  for (int k = 0; k < 4; k++) {
    int store = k % 2;
    double want = store ? 3 * x * x : 2.0;
    CHECK("split: d/dx", split[k], want, TOL_EXACT);
    double xb = 0, y, yb = 1;
    g = 2.0;
    __enzyme_autodiff((void *)maybe_store, &x, &xb, &y, &yb, enzyme_const, store);
    CHECK("combined: d/dx", xb, want, TOL_EXACT);
    double dx = 1, dy = 0;
    g = 2.0;
    __enzyme_fwddiff((void *)maybe_store, &x, &dx, &y, &dy, enzyme_const, store);
    CHECK("forward against reverse", dy, xb, TOL_MODES);
  }

  /* Three steps forward, then their reverses from the last: the derivative of
   * the last output with respect to each step's parameter. */
  enum { N = 3 };
  double a[N] = {0.7, 1.3, -0.4}, ab[N] = {0}, out[N], outb[N] = {0, 0, 1}, s[N + 1];
  void *tapes[N];
  state = 0.25;
  s[0] = state;
  for (int k = 0; k < N; k++) {
    tapes[k] = __enzyme_augmentfwd((void *)step, &a[k], &ab[k], &out[k], &outb[k]);
    s[k + 1] = state;
  }
  for (int k = N - 1; k >= 0; k--)
    __enzyme_reverse((void *)step, &a[k], &ab[k], &out[k], &outb[k], tapes[k]);
  double scale = 1;
  for (int k = N - 1; k >= 0; k--) {
    CHECK("chained steps: d out[N-1] / d a[k]", ab[k], scale * (s[k] + cos(a[k])), TOL_EXACT);
    scale *= a[k];
  }
  return CHECK_DONE();
}
