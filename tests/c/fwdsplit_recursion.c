/* Split forward mode through recursion: __enzyme_augmentfwd runs a
 * recursive function once; each recursive call's split derivative keeps its
 * own tape, and __enzyme_fwdsplit resumes them one inside the other for
 * their tangent sweeps, without running the function again. Float
 * arguments and results, pointers with shadows (an in-place recursive
 * update of an array), a loop inside the recursion, and a custom split
 * forward rule called at every level. Memory is overwritten between the two
 * calls and the tangent call gets NULL primals. Every tangent is checked
 * against __enzyme_fwddiff and against finite differences. */
#include <string.h>
#include "check.h"

void *__enzyme_augmentfwd(void *, ...);
double __enzyme_fwdsplit(void *, ...);
void __enzyme_fwdsplit_v(void *, ...);
void __enzyme_fwddiff_v(void *, ...);

/* x^n * (1 + 0.1 n) by recursion on n. */
__attribute__((noinline)) static double power_rec(double x, int n) {
  return n == 0 ? 1.0 : x * power_rec(x, n - 1) * (1 + 0.1 * n) / (1 + 0.1 * (n - 1) + 0.1);
}

static double uses_rec(double x) { return power_rec(x, 5) + sin(x); }

/* A divide-and-conquer sum of sin(v[i]) * w over a range, recursing on halves. */
__attribute__((noinline)) static double tree_sum(const double *v, int lo, int hi, double w) {
  if (hi - lo <= 2) {
    double s = 0;
    for (int i = lo; i < hi; i++) s += sin(v[i]) * w;
    return s;
  }
  int mid = (lo + hi) / 2;
  return tree_sum(v, lo, mid, w * 1.1) + tree_sum(v, mid, hi, w * 0.9);
}

static double tree_model(const double *v, int n, double w) { return tree_sum(v, 0, n, w); }

/* In place, recursively: smooth v[1..n-1] from the back. */
__attribute__((noinline)) static void smooth_rec(double *v, int n) {
  if (n < 2) return;
  v[n - 1] = 0.5 * v[n - 1] + 0.25 * v[n - 2] * v[n - 2];
  smooth_rec(v, n - 1);
  v[n - 1] += cos(v[n - 2]) * 0.1;
}

/* A custom split rule called at every level of a recursion. */
__attribute__((noinline)) static double soft(double x) { return x > 0 ? x : 0; /* the rules: log(1 + e^x) */ }
static double soft_aug(double x) { return log1p(exp(x)); }
static double soft_split(double x, double dx) { return dx / (1 + exp(-x)); }
void *__enzyme_register_splitderivative_soft[3] = {(void *)soft, (void *)soft_aug, (void *)soft_split};

__attribute__((noinline)) static double nest(double x, int n) { return n == 0 ? x : soft(nest(x, n - 1) - 0.3); }

static double nest_intended(double x, int n) { return n == 0 ? x : log1p(exp(nest_intended(x, n - 1) - 0.3)); }

static void check_scalars(void) {
  const double xs[3] = {0.7, 1.3, -0.4};
  for (int i = 0; i < 3; i++) {
    double x = xs[i];
    void *tape = __enzyme_augmentfwd((void *)uses_rec, x);
    double t = __enzyme_fwdsplit((void *)uses_rec, x, 1.0, tape);
    double want = __enzyme_fwddiff((void *)uses_rec, x, 1.0);
    CHECK("power_rec: fwdsplit vs fwddiff", t, want, TOL_MODES);
    CHECK("power_rec: fwdsplit vs finite difference", t, central_diff(uses_rec, x), TOL_FD);

    tape = __enzyme_augmentfwd((void *)nest, x, enzyme_const, 4);
    t = __enzyme_fwdsplit((void *)nest, x, 1.0, enzyme_const, 4, tape);
    double h = 1e-6;
    double fd = (nest_intended(x + h, 4) - nest_intended(x - h, 4)) / (2 * h);
    CHECK("custom rule in recursion: fwdsplit vs finite difference of the intended function", t, fd, TOL_FD);
  }
}

static void check_memory(void) {
  enum { N = 11 };
  double v[N], dv[N], saved[N];
  for (int i = 0; i < N; i++) v[i] = 0.1 * i - 0.4 + 0.03 * i * i, dv[i] = cos(1.0 + i);
  memcpy(saved, v, sizeof v);
  /* Several tapes at once, tangent calls in the other order. */
  void *tapes[3];
  double ws[3] = {0.5, 1.0, 1.7};
  for (int k = 0; k < 3; k++) tapes[k] = __enzyme_augmentfwd((void *)tree_model, enzyme_dup, v, (double *)NULL, enzyme_const, N, ws[k]);
  for (int i = 0; i < N; i++) v[i] = 1e3;
  double got[3];
  for (int k = 2; k >= 0; k--)
    got[k] = __enzyme_fwdsplit((void *)tree_model, enzyme_dup, (double *)NULL, dv, enzyme_const, N, ws[k], 0.3, tapes[k]);
  memcpy(v, saved, sizeof v);
  for (int k = 0; k < 3; k++) {
    double want = __enzyme_fwddiff((void *)tree_model, enzyme_dup, v, dv, enzyme_const, N, ws[k], 0.3);
    CHECK("tree_sum: fwdsplit vs fwddiff", got[k], want, TOL_MODES);
    double h = 1e-6, vp[N], vm[N];
    for (int i = 0; i < N; i++) vp[i] = v[i] + h * dv[i], vm[i] = v[i] - h * dv[i];
    double fd = (tree_model(vp, N, ws[k] + h * 0.3) - tree_model(vm, N, ws[k] - h * 0.3)) / (2 * h);
    CHECK("tree_sum: fwdsplit vs finite difference", got[k], fd, TOL_FD);
  }

  /* In place: the tangent of the updated array lands in the shadow. */
  double w[N], tw[N], tw_fwd[N];
  memcpy(w, saved, sizeof w);
  void *tape = __enzyme_augmentfwd((void *)smooth_rec, enzyme_dup, w, (double *)NULL, enzyme_const, N);
  for (int i = 0; i < N; i++) tw[i] = dv[i];
  __enzyme_fwdsplit_v((void *)smooth_rec, enzyme_dup, (double *)NULL, tw, enzyme_const, N, tape);
  double w2[N];
  memcpy(w2, saved, sizeof w2);
  for (int i = 0; i < N; i++) tw_fwd[i] = dv[i];
  __enzyme_fwddiff_v((void *)smooth_rec, enzyme_dup, w2, tw_fwd, enzyme_const, N);
  double h = 1e-6, wp[N], wm[N];
  for (int i = 0; i < N; i++) wp[i] = saved[i] + h * dv[i], wm[i] = saved[i] - h * dv[i];
  smooth_rec(wp, N);
  smooth_rec(wm, N);
  for (int i = 0; i < N; i++) {
    CHECK("smooth_rec: fwdsplit vs fwddiff", tw[i], tw_fwd[i], TOL_MODES);
    CHECK("smooth_rec: fwdsplit vs finite difference", tw[i], (wp[i] - wm[i]) / (2 * h), TOL_FD);
  }
}

int main(void) {
  check_scalars();
  check_memory();
  if (check_failures) {
    printf("%d of %d checks failed\n", check_failures, check_count);
    return 1;
  }
  printf("fwdsplit_recursion: %d checks passed\n", check_count);
  return 0;
}
