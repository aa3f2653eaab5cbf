/* Split reverse mode in Enzyme's conventions: __enzyme_augmentfwd runs the
 * function and returns a tape, __enzyme_reverse propagates adjoints later
 * with it, __enzyme_augmentsize gives the tape's size for
 * `enzyme_allocated, n, enzyme_tape, p`; with `enzyme_nofree` the caller
 * frees the tape. The two parts are separated by
 * work that overwrites the function's memory; tapes are kept for many calls
 * at once (N forwards, then N reverses in any order), inside loops, over
 * recursion, with a custom rule inside, with heap memory inside, and with
 * float results returned with the tape (both field orders), and with other
 * shadows in the reverse call than in the forward one. Every gradient
 * is checked against combined reverse mode (__enzyme_autodiff) and finite
 * differences. */
#include <string.h>
#include "check.h"

extern int enzyme_allocated, enzyme_tape, enzyme_nofree, enzyme_not_overwritten;
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
int __enzyme_augmentsize(void *, ...);
typedef struct {
  double y;
  void *tape;
} DoubleAndTape;
typedef struct {
  void *tape;
  double y;
} TapeAndDouble;
DoubleAndTape __enzyme_augmentfwd_dt(void *, ...);
TapeAndDouble __enzyme_augmentfwd_td(void *, ...);
double __enzyme_reverse_d(void *, ...);

/* In place: the primal overwrites its input. */
static void step(double *x) {
  double t = x[0] * x[1];
  x[0] = sin(t) + x[1];
  x[1] = t * t + exp(-x[0]);
}

/* A float result, a constant-size heap temporary, a loop. */
static double energy(double k, const double *p, int n) {
  double *tmp = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) tmp[i] = p[i] * p[i] * k;
  double s = 0;
  for (int i = 0; i < n; i++) s += sqrt(1 + tmp[i]) * (i + 1);
  free(tmp);
  return s;
}

/* Recursion: the inner calls are split too. */
static double power_sum(double x, int n) { return n == 0 ? 1 : 1 + x * power_sum(x, n - 1); }

/* A custom rule inside. */
static double cube(double x) { return x * x * x; }
static double cube_aug(double x) { return cube(x); }
static double cube_rev(double x, double d) { return 3 * x * x * d; }
void *__enzyme_register_gradient_cube[3] = {(void *)cube, (void *)cube_aug, (void *)cube_rev};
static double uses_rule(double x, const double *w) { return cube(x * w[0]) + w[1] * cube(x); }

static double step_sum(double *x) {
  step(x);
  return x[0] + 2 * x[1];
}

static void check_step(const double *x0, const double *seed, const double *got, const char *what) {
  double x[2] = {x0[0], x0[1]}, dx[2] = {seed[0], seed[1]};
  __enzyme_autodiff((void *)step, enzyme_dup, x, dx);
  for (int i = 0; i < 2; i++) CHECK(what, got[i], dx[i], TOL_MODES);
}

int main(void) {
  /* Other work overwrites the memory between the parts. */
  double x[2] = {0.9, 0.7}, xb[2] = {1, 2};
  const double x0[2] = {0.9, 0.7}, s0[2] = {1, 2};
  void *tape = __enzyme_augmentfwd((void *)step, x, xb);
  double after[2] = {x[0], x[1]};
  x[0] = 100, x[1] = -100;
  __enzyme_reverse((void *)step, x, xb, tape);
  check_step(x0, s0, xb, "overwritten between the parts: against combined mode");
  double y[2] = {0.9, 0.7};
  step(y);
  CHECK("the forward part ran the primal", after[0], y[0], TOL_EXACT);
  /* Finite differences of <seed, step(x)>. */
  for (int i = 0; i < 2; i++) {
    double h = 1e-6, p[2] = {x0[0], x0[1]}, m[2] = {x0[0], x0[1]};
    p[i] += h, m[i] -= h;
    step(p), step(m);
    CHECK("split: finite differences", xb[i], (s0[0] * (p[0] - m[0]) + s0[1] * (p[1] - m[1])) / (2 * h), TOL_FD);
  }

  /* The tape in the caller's buffer. */
  int size = __enzyme_augmentsize((void *)step, enzyme_dup);
  CHECK("augmentsize is positive", size > 0, 1, 0);
  void *buf = malloc(size);
  double x2[2] = {0.9, 0.7}, xb2[2] = {1, 2};
  __enzyme_augmentfwd((void *)step, enzyme_allocated, size, enzyme_tape, buf, x2, xb2);
  __enzyme_reverse((void *)step, enzyme_allocated, size, enzyme_tape, buf, x2, xb2);
  free(buf);
  check_step(x0, s0, xb2, "enzyme_allocated/enzyme_tape: against combined mode");

  /* enzyme_nofree: the caller frees the tape; enzyme_not_overwritten (a
   * promise that only permits keeping less) changes nothing. */
  double x3[2] = {0.9, 0.7}, xb3[2] = {1, 2};
  void *t3 = __enzyme_augmentfwd((void *)step, enzyme_not_overwritten, x3, xb3);
  __enzyme_reverse((void *)step, enzyme_nofree, x3, xb3, t3);
  free(t3);
  check_step(x0, s0, xb3, "enzyme_nofree: against combined mode");

  /* An optimiser: N forwards, then N reverses (in reverse order), tapes in an array. */
  enum { N = 6 };
  void *tapes[N];
  double xs[N][2], xbs[N][2];
  for (int k = 0; k < N; k++) {
    xs[k][0] = 0.1 * k, xs[k][1] = 0.5 + 0.05 * k, xbs[k][0] = 1, xbs[k][1] = -1;
    tapes[k] = __enzyme_augmentfwd((void *)step, xs[k], xbs[k]);
  }
  for (int k = N - 1; k >= 0; k--) __enzyme_reverse((void *)step, xs[k], xbs[k], tapes[k]);
  for (int k = 0; k < N; k++) {
    double xk[2] = {0.1 * k, 0.5 + 0.05 * k}, sk[2] = {1, -1};
    check_step(xk, sk, xbs[k], "many tapes: against combined mode");
  }

  /* A float result: returned with the tape, the reverse takes its seed. */
  double p[4] = {0.3, -1.2, 0.8, 2.0}, dp[4] = {0}, dp_ref[4] = {0};
  DoubleAndTape r = __enzyme_augmentfwd_dt((void *)energy, 1.5, enzyme_dup, p, dp, enzyme_const, 4);
  CHECK("float result: the primal", r.y, energy(1.5, p, 4), TOL_EXACT);
  double dk = __enzyme_reverse_d((void *)energy, 1.5, enzyme_dup, p, dp, enzyme_const, 4, 2.0, r.tape);
  double dk_ref = __enzyme_autodiff((void *)energy, 1.5, enzyme_dup, p, dp_ref, enzyme_const, 4, 2.0);
  CHECK("float result: adjoint of k", dk, dk_ref, TOL_MODES);
  for (int i = 0; i < 4; i++) CHECK("float result: adjoints of p", dp[i], dp_ref[i], TOL_MODES);
  double h = 1e-6;
  CHECK("float result: finite differences",
        dk, 2 * (energy(1.5 + h, p, 4) - energy(1.5 - h, p, 4)) / (2 * h), TOL_FD);
  TapeAndDouble r2 = __enzyme_augmentfwd_td((void *)power_sum, 0.6, enzyme_const, 5);
  CHECK("tape first: the primal", r2.y, power_sum(0.6, 5), TOL_EXACT);
  double dpow = __enzyme_reverse_d((void *)power_sum, 0.6, enzyme_const, 5, 1.0, r2.tape);
  CHECK("recursion: d/dx", dpow, __enzyme_autodiff((void *)power_sum, 0.6, enzyme_const, 5), TOL_MODES);
  CHECK("recursion: closed form", dpow, 1 + 2 * 0.6 + 3 * 0.36 + 4 * 0.216 + 5 * 0.1296, TOL_EXACT);

  /* Inside a loop, with a custom rule in the function. */
  double w[2] = {0.5, 1.5};
  for (int it = 0; it < 3; it++) {
    double dw[2] = {0}, dw_ref[2] = {0}, xv = 0.4 + 0.3 * it;
    DoubleAndTape t = __enzyme_augmentfwd_dt((void *)uses_rule, xv, enzyme_dup, w, dw);
    w[0] += 10; /* overwritten, then restored before checking */
    double dx = __enzyme_reverse_d((void *)uses_rule, xv, enzyme_dup, w, dw, 1.0, t.tape);
    w[0] -= 10;
    double dx_ref = __enzyme_autodiff((void *)uses_rule, xv, enzyme_dup, w, dw_ref);
    CHECK("custom rule in a loop: d/dx", dx, dx_ref, TOL_MODES);
    CHECK("custom rule in a loop: closed form", dx, 3 * xv * xv * (w[0] * w[0] * w[0] + w[1]), TOL_EXACT);
    for (int i = 0; i < 2; i++) CHECK("custom rule in a loop: d/dw", dw[i], dw_ref[i], TOL_MODES);
  }

  /* A caller of the split parts inside combined mode's own reach is not
   * needed here; the function with a result used by a sum: */
  double z[2] = {0.9, 0.7}, zb[2] = {0, 0};
  DoubleAndTape rs = __enzyme_augmentfwd_dt((void *)step_sum, enzyme_dup, z, zb);
  __enzyme_reverse((void *)step_sum, enzyme_dup, z, zb, 1.0, rs.tape);
  check_step(x0, s0, zb, "result seeded: against combined mode");

  /* Other shadows in the reverse call than in the forward one (Enzyme's
   * idiom: none in the forward call, the gradient's buffer in the reverse
   * one; or a fresh buffer per reverse call): the reverse sweep adds into
   * the ones it is given. */
  double u[2] = {0.9, 0.7}, ub[2] = {1, 2}, unused[2] = {5, 6};
  void *tu = __enzyme_augmentfwd((void *)step, u, (double *)0);
  __enzyme_reverse((void *)step, u, ub, tu);
  check_step(x0, s0, ub, "no shadow in the forward call: against combined mode");
  double v[2] = {0.9, 0.7}, vb[2] = {1, 2};
  void *tv = __enzyme_augmentfwd((void *)step, v, unused);
  __enzyme_reverse((void *)step, v, vb, tv);
  check_step(x0, s0, vb, "another shadow in the reverse call: against combined mode");
  CHECK("the forward call's shadow is left alone", unused[0] + unused[1], 11, 0);
  for (int it = 0; it < 3; it++) {
    double p[4] = {0.3, -0.2, 0.5, 0.1 * it}, dp[4] = {0}, dp_ref[4] = {0};
    DoubleAndTape te = __enzyme_augmentfwd_dt((void *)energy, 1.5, enzyme_dup, p, (double *)0, enzyme_const, 4);
    double dk = __enzyme_reverse_d((void *)energy, 1.5, enzyme_dup, p, dp, enzyme_const, 4, 2.0, te.tape);
    double dk_ref = __enzyme_autodiff((void *)energy, 1.5, enzyme_dup, p, dp_ref, enzyme_const, 4);
    CHECK("no shadow in the forward call, heap and loops: d/dk", dk, 2 * dk_ref, TOL_MODES);
    for (int i = 0; i < 4; i++)
      CHECK("no shadow in the forward call, heap and loops: d/dp", dp[i], 2 * dp_ref[i], TOL_MODES);
  }
  printf("%d checks, %d failures\n", check_count, check_failures);
  return check_failures != 0;
}
