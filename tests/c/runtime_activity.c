/* Run-time activity (enzyme_runtime_activity, or -mllvm
 * -enzyme-runtime-activity for every derivative): a pointer chosen between
 * a duplicated argument and a constant one carries derivatives only when it
 * is the duplicated one, decided at run time. Both modes, both choices,
 * against closed forms and finite differences. */
#include "check.h"

extern int enzyme_runtime_activity;

enum { N = 4 };

/* Sums squares through the chosen array, writes the sum into its first
 * element, and adds an element of `a` read afterwards. */
__attribute__((noinline)) double pick(double *a, double *b, int which) {
  double *p = which ? a : b;
  double s = 0;
  for (int i = 0; i < N; i++)
    s += p[i] * p[i] * a[i];
  p[0] = s;
  return s + a[0] * a[1];
}

/* A choice made anew in each iteration (a phi in the loop). */
__attribute__((noinline)) double alternate(const double *x, const double *c, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    const double *p = (i % 2) ? c : x;
    s += sin(p[i]) * x[i];
  }
  return s;
}

static double a0[N] = {0.5, -1.5, 2.0, 0.25}, b0[N] = {1.0, 2.0, 3.0, 4.0};

static double pick_at(int which, int k, double h) {
  double a[N], b[N];
  for (int i = 0; i < N; i++)
    a[i] = a0[i], b[i] = b0[i];
  a[k] += h;
  return pick(a, b, which);
}

int main(void) {
  for (int which = 0; which < 2; which++) {
    double a[N], b[N], da[N] = {0};
    for (int i = 0; i < N; i++)
      a[i] = a0[i], b[i] = b0[i];
    __enzyme_autodiff((void *)pick, enzyme_dup, a, da, enzyme_const, b, enzyme_const, which,
                      enzyme_runtime_activity);
    for (int k = 0; k < N; k++) {
      double h = 1e-6, fd = (pick_at(which, k, h) - pick_at(which, k, -h)) / (2 * h);
      CHECK(which ? "reverse, active choice, vs finite difference" : "reverse, constant choice, vs finite difference",
            da[k], fd, 1e-6);
      double a2[N], b2[N], ta[N] = {0};
      for (int i = 0; i < N; i++)
        a2[i] = a0[i], b2[i] = b0[i];
      ta[k] = 1.0;
      double t = __enzyme_fwddiff((void *)pick, enzyme_dup, a2, ta, enzyme_const, b2, enzyme_const, which,
                                  enzyme_runtime_activity);
      CHECK("forward vs reverse", t, da[k], 1e-12);
    }
    /* The constant array is written by the primal only. */
    CHECK("constant memory holds the primal's value", b[0], which ? b0[0] : pick_at(0, 0, 0) - a0[0] * a0[1], 1e-12);
  }

  double x[6] = {0.1, 0.7, -0.4, 1.2, 0.9, -0.3}, c[6] = {2, 2, 2, 2, 2, 2}, dx[6] = {0};
  __enzyme_autodiff((void *)alternate, enzyme_dup, x, dx, enzyme_const, c, enzyme_const, 6, enzyme_runtime_activity);
  for (int i = 0; i < 6; i++) {
    double want = (i % 2) ? sin(c[i]) : cos(x[i]) * x[i] + sin(x[i]);
    CHECK("alternating choice, reverse", dx[i], want, 1e-12);
    double t[6] = {0};
    t[i] = 1.0;
    double fwd = __enzyme_fwddiff((void *)alternate, enzyme_dup, x, t, enzyme_const, c, enzyme_const, 6,
                                  enzyme_runtime_activity);
    CHECK("alternating choice, forward vs reverse", fwd, dx[i], 1e-12);
  }
  return CHECK_DONE();
}
