/* Custom split forward-mode derivatives, as Enzyme spells them:
 * `__enzyme_register_splitderivative_f[3] = {f, augmented_f, split_f}`. The
 * augmented function runs in `__enzyme_augmentfwd` (it takes f's arguments,
 * each pointer followed by its shadow, and returns a tape, `{tape, primal}`
 * or `{tape, primal, shadow}` as Enzyme's do); `__enzyme_fwdsplit` later
 * calls split_f with the arguments, their tangents or shadows, and that tape.
 *
 * Every function below has a body whose own derivative is deliberately NOT
 * the one its rules give (a truncated series, a rounded gain), so a result
 * that ignored the rules would fail the closed-form checks. Rules are used
 * inside loops, with pointer arguments, with float and void and integer
 * results, and one function has a gradient and a split rule sharing one
 * augmented function (its tape then serves either sweep). Tangents are
 * checked against the rules' closed forms, against __enzyme_fwddiff with
 * the forward rules, against finite differences of the intended functions,
 * and the reverse sweep against __enzyme_autodiff. */
#include <string.h>
#include "check.h"

extern int enzyme_tape;
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_fwdsplit(void *, ...);
void __enzyme_fwdsplit_v(void *, ...);
double __enzyme_reverse(void *, ...);
void __enzyme_reverse_v(void *, ...);
void __enzyme_fwddiff_v(void *, ...);
void __enzyme_autodiff_v(void *, ...);

typedef struct {
  double y, dy;
} pair;

/* log1p by a short series (exact only near 0): the rules give 1/(1+x). */
__attribute__((noinline)) static double series_log1p(double x) {
  double s = 0, p = x;
  for (int k = 1; k <= 4; k++) {
    s += (k % 2 ? p : -p) / k;
    p *= x;
  }
  return s;
}

/* Enzyme's own shape: {tape, primal, shadow}; the tape is the slope. */
typedef struct {
  void *tape;
  double y;
  double shadow;
} aug3;

static aug3 series_log1p_aug(double x) {
  double *slope = malloc(sizeof(double));
  *slope = 1 / (1 + x);
  aug3 r = {slope, log1p(x), 0};
  return r;
}

static double series_log1p_split(double x, double dx, void *tape) {
  (void)x;
  double slope = *(double *)tape;
  free(tape);
  return slope * dx;
}

static double series_log1p_rev(double x, double dy, void *tape) {
  (void)x;
  double slope = *(double *)tape;
  free(tape);
  return slope * dy;
}

static pair series_log1p_fwd(double x, double dx) {
  pair p = {log1p(x), dx / (1 + x)};
  return p;
}

void *__enzyme_register_splitderivative_series_log1p[3] = {(void *)series_log1p, (void *)series_log1p_aug,
                                                           (void *)series_log1p_split};
void *__enzyme_register_gradient_series_log1p[3] = {(void *)series_log1p, (void *)series_log1p_aug,
                                                    (void *)series_log1p_rev};
void *__enzyme_register_derivative_series_log1p[2] = {(void *)series_log1p, (void *)series_log1p_fwd};

/* The intended function, for finite differences and closed forms. */
static double sum_model(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += log1p(x[i] * x[i]) * sin(x[i]);
  return s;
}

/* A rule inside a loop: one tape per iteration. */
static double loss(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += series_log1p(x[i] * x[i]) * sin(x[i]);
  return s;
}

static double dloss_closed(const double *x, const double *dx, int n) {
  double d = 0;
  for (int i = 0; i < n; i++) {
    double u = x[i] * x[i];
    d += (2 * x[i] / (1 + u) * sin(x[i]) + log1p(u) * cos(x[i])) * dx[i];
  }
  return d;
}

/* Pointer arguments, no result: y[i] = gain * x[i] where the body rounds the
 * gain and the rule uses the exact one; the tape keeps the gain. Its split
 * rule returns {primal, tangent} pairs nowhere (void), writes tangents
 * through the shadow and reads nothing through the primal pointers (which
 * __enzyme_fwdsplit callers may pass as NULL). */
__attribute__((noinline)) static void apply_gain(double *y, const double *x, double g, int n) {
  double rounded = floor(g * 8) / 8;
  for (int i = 0; i < n; i++) y[i] = rounded * x[i];
}

typedef struct {
  double g;
  double x[4];
} gain_tape;

static void *apply_gain_aug(double *y, double *dy, const double *x, const double *dx, double g, int n) {
  (void)dy;
  (void)dx;
  gain_tape *t = malloc(sizeof *t);
  t->g = g;
  for (int i = 0; i < n && i < 4; i++) t->x[i] = x[i];
  for (int i = 0; i < n; i++) y[i] = g * x[i];
  return t;
}

static void apply_gain_split(double *y, double *dy, const double *x, const double *dx, double g, double dg, int n,
                             void *tape) {
  (void)y;
  (void)x;
  (void)g;
  gain_tape *t = tape;
  for (int i = 0; i < n; i++) dy[i] = t->g * dx[i] + dg * t->x[i];
  free(t);
}

void *__enzyme_register_splitderivative_apply_gain[3] = {(void *)apply_gain, (void *)apply_gain_aug,
                                                         (void *)apply_gain_split};

/* An integer result (a count) and a pair-returning rule, both with tapes. */
__attribute__((noinline)) static int clamp_count(double *v, int n) {
  int c = 0;
  for (int i = 0; i < n; i++)
    if (v[i] > 1) {
      v[i] = 1 + 0.5 * (v[i] - 1) + 1e-3 * sin(40 * v[i]); /* the rules leave out the wiggle */
      c++;
    }
  return c;
}

typedef struct {
  void *tape;
  int count;
} counted;

static counted clamp_count_aug(double *v, double *dv, int n) {
  (void)dv;
  unsigned char *above = malloc(n);
  int c = 0;
  for (int i = 0; i < n; i++) {
    above[i] = v[i] > 1;
    if (above[i]) v[i] = 1 + 0.5 * (v[i] - 1), c++;
  }
  counted r = {above, c};
  return r;
}

static int clamp_count_split(double *v, double *dv, int n, void *tape) {
  (void)v;
  unsigned char *above = tape;
  int c = 0;
  for (int i = 0; i < n; i++)
    if (above[i]) {
      dv[i] *= 0.5;
      c++;
    }
  free(above);
  return c;
}

void *__enzyme_register_splitderivative_clamp_count[3] = {(void *)clamp_count, (void *)clamp_count_aug,
                                                          (void *)clamp_count_split};

/* cube through a tape-less augmented function returning the primal. */
__attribute__((noinline)) static double cube(double x) { return x * x * x + 1e-3 * sin(50 * x); /* not in the rule */ }
static double cube_aug(double x) { return x * x * x; }
static pair cube_split(double x, double dx) {
  pair p = {x * x * x, 3 * x * x * dx};
  return p;
}
void *__enzyme_register_splitderivative_cube[3] = {(void *)cube, (void *)cube_aug, (void *)cube_split};

static void model(double *y, const double *x, double g, int n) {
  double t[4];
  for (int i = 0; i < n; i++) t[i] = sin(x[i]);
  apply_gain(y, t, g, n);
  int c = clamp_count(y, n);
  y[0] += c * cube(x[1]);
}

/* The intended model, for closed forms and finite differences. */
static void model_intended(double *y, const double *x, double g, int n) {
  int c = 0;
  for (int i = 0; i < n; i++) {
    y[i] = g * sin(x[i]);
    if (y[i] > 1) {
      y[i] = 1 + 0.5 * (y[i] - 1);
      c++;
    }
  }
  y[0] += c * x[1] * x[1] * x[1];
}

static void check_loss(void) {
  enum { N = 5 };
  double x[N] = {0.3, -0.7, 0.45, 0.2, -0.15}, dx[N] = {1.0, 0.5, -0.25, 2.0, -1.5};
  double fwd = __enzyme_fwddiff((void *)loss, enzyme_dup, x, dx, enzyme_const, N);
  CHECK("loss: forward rule vs closed form", fwd, dloss_closed(x, dx, N), TOL_EXACT);
  /* Augmented call, inputs overwritten, tangent call given NULL primals. */
  void *tape = __enzyme_augmentfwd((void *)loss, enzyme_dup, x, (double *)NULL, enzyme_const, N);
  double saved[N];
  memcpy(saved, x, sizeof x);
  for (int i = 0; i < N; i++) x[i] = 100 + i;
  double split = __enzyme_fwdsplit((void *)loss, enzyme_dup, (double *)NULL, dx, enzyme_const, N, tape);
  CHECK("loss: split forward vs forward", split, fwd, TOL_EXACT);
  memcpy(x, saved, sizeof x);
  double h = 1e-6, xp[N], xm[N];
  for (int i = 0; i < N; i++) xp[i] = x[i] + h * dx[i], xm[i] = x[i] - h * dx[i];
  CHECK("loss: split forward vs finite difference", split, (sum_model(xp, N) - sum_model(xm, N)) / (2 * h), TOL_FD);
  /* The same augmented function's tape serves a reverse sweep. */
  double g[N] = {0};
  tape = __enzyme_augmentfwd((void *)loss, enzyme_dup, x, g, enzyme_const, N);
  __enzyme_reverse_v((void *)loss, enzyme_dup, x, g, enzyme_const, N, 1.0, tape);
  double g2[N] = {0};
  __enzyme_autodiff_v((void *)loss, enzyme_dup, x, g2, enzyme_const, N);
  double dot = 0;
  for (int i = 0; i < N; i++) {
    CHECK("loss: split reverse vs combined reverse", g[i], g2[i], TOL_EXACT);
    dot += g[i] * dx[i];
  }
  CHECK("loss: reverse dot direction vs split forward", dot, split, TOL_EXACT);
}

static void check_model(void) {
  enum { N = 4 };
  double x[N] = {1.2, 0.4, 1.4, -0.3}, dx[N] = {0.7, -1.1, 0.4, 0.9};
  double g = 1.31, dg = 0.6;
  /* Several tapes alive at once, tangent calls in the other order. */
  double xs[3][N], ys[3][N], dys[3][N];
  void *tapes[3];
  for (int k = 0; k < 3; k++) {
    for (int i = 0; i < N; i++) xs[k][i] = x[i] + 0.05 * k;
    tapes[k] = __enzyme_augmentfwd((void *)model, enzyme_dup, ys[k], (double *)NULL, enzyme_dup, xs[k],
                                   (double *)NULL, g, enzyme_const, N);
  }
  for (int k = 2; k >= 0; k--) {
    memset(ys[k], 0, sizeof ys[k]);
    __enzyme_fwdsplit_v((void *)model, enzyme_dup, (double *)NULL, dys[k], enzyme_dup, (double *)NULL, dx, g, dg,
                        enzyme_const, N, tapes[k]);
  }
  for (int k = 0; k < 3; k++) {
    double h = 1e-6, xp[N], xm[N], yp[N], ym[N];
    for (int i = 0; i < N; i++) xp[i] = xs[k][i] + h * dx[i], xm[i] = xs[k][i] - h * dx[i];
    model_intended(yp, xp, g + h * dg, N);
    model_intended(ym, xm, g - h * dg, N);
    /* Closed form of the intended model's tangent. */
    int c = 0;
    double want[N];
    for (int i = 0; i < N; i++) {
      double u = g * sin(xs[k][i]), du = dg * sin(xs[k][i]) + g * cos(xs[k][i]) * dx[i];
      want[i] = u > 1 ? (c++, 0.5 * du) : du;
    }
    want[0] += c * 3 * xs[k][1] * xs[k][1] * dx[1];
    for (int i = 0; i < N; i++) {
      CHECK("model: split forward vs closed form", dys[k][i], want[i], TOL_EXACT);
      CHECK("model: split forward vs finite difference", dys[k][i], (yp[i] - ym[i]) / (2 * h), TOL_FD);
    }
  }
}

int main(void) {
  check_loss();
  check_model();
  if (check_failures) {
    printf("%d of %d checks failed\n", check_failures, check_count);
    return 1;
  }
  printf("custom_split: %d checks passed\n", check_count);
  return 0;
}
