/* Found by enzyme-fuzz (seed 30, function f4, failing at -O0, -O2 and -O3), reduced by hand.
 * The compiler crashed: split forward mode's tangent sweep reused a call of
 * sin (cos's partial, -sin x) from the function being differentiated instead
 * of a value of its own (an instruction in another function).
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int enzyme_dup, enzyme_const, enzyme_out, enzyme_width, enzyme_dupv, enzyme_dupnoneedv;
void __enzyme_autodiff(void *, ...);
void __enzyme_fwddiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);
void __enzyme_fwdsplit(void *, ...);

struct rec {
  double p;
  int k;
  double q[2];
};

/* Sizes known only at run time (0 to 3). */
int runtime_n;

static void copy_n(double *d, const double *s, int k) {
  if (k > 0)
    memcpy(d, s, k * sizeof(double));
}
static void scale_n(double *p, int k, double c) {
  for (int i = 0; i < k; i++) p[i] *= tanh(c);
}
static double sum_n(const double *p, int k) {
  double t = 0;
  for (int i = 0; i < k; i++) t += p[i];
  return tanh(t);
}
static double mix(double p, double q) { return sin(p) * tanh(q) + 0.5 * p * tanh(p); }

/* sqrt for x >= 1 from a first guess made of the float's bits and Newton
   steps (exact to rounding): the engine cannot follow the bits, so it has
   custom rules (forward, gradient, split forward), with its slope as the tape. */
__attribute__((noinline)) static double newton_sqrt(double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  bits = (bits >> 1) + (1023ULL << 51);
  double r;
  memcpy(&r, &bits, sizeof r);
  for (int k = 0; k < 6; k++) r = 0.5 * (r + x / r);
  return r;
}
typedef struct { void *tape; double y; double shadow; } newton_aug_t;
typedef struct { double y, dy; } newton_dual_t;
static newton_aug_t newton_sqrt_aug(double x) {
  double r = newton_sqrt(x);
  double *slope = (double *)malloc(sizeof(double));
  *slope = 0.5 / r;
  newton_aug_t a = {slope, r, 0};
  return a;
}
static double newton_sqrt_rev(double x, double dy, void *tape) {
  (void)x;
  double slope = *(double *)tape;
  free(tape);
  return slope * dy;
}
static double newton_sqrt_split(double x, double dx, void *tape) { return newton_sqrt_rev(x, dx, tape); }
static newton_dual_t newton_sqrt_fwd(double x, double dx) {
  double r = newton_sqrt(x);
  newton_dual_t d = {r, 0.5 / r * dx};
  return d;
}
void *__enzyme_register_gradient_newton_sqrt[3] = {(void *)newton_sqrt, (void *)newton_sqrt_aug, (void *)newton_sqrt_rev};
void *__enzyme_register_splitderivative_newton_sqrt[3] = {(void *)newton_sqrt, (void *)newton_sqrt_aug, (void *)newton_sqrt_split};
void *__enzyme_register_derivative_newton_sqrt[2] = {(void *)newton_sqrt, (void *)newton_sqrt_fwd};

/* Registered inactive: a log of values, no derivative. */
static int notes;
static double noted;
static void note_value(double x) { notes++; noted += x; }
void *__enzyme_inactivefn[1] = {(void *)note_value};
/* Differentiated as exp by exp's rule. */
static double like_exp(double x) { return exp(x); }
void *__enzyme_function_like[2] = {(void *)like_exp, (void *)"exp"};
/* A global registered inactive. */
double fuzz_log;
void *__enzyme_inactive_global[1] = {(void *)&fuzz_log};
#define NX 4
#define NY 4

double G[8], T[8];

static void f0(const double *x, double *y) {
  int n = runtime_n;
  double v0 = x[0], v1 = x[1], v2 = x[2], v3 = x[3];
  double a[8];
  for (int j = 0; j < 8; j++) a[j] = x[j % 4] * (0.5 + 0.1 * j);
  double *h = (double *)malloc(8 * sizeof(double));
  for (int j = 0; j < 8; j++) h[j] = x[(j + 1) % 4] - 0.05 * j;
  struct rec s = {x[1] * x[2], 3, {x[2], x[3] * 0.5}};
  for (int j = 0; j < 8; j++) G[j] = x[(j + 2) % 4] * 0.25 + T[j];
  v3 = sin(cos(cbrt(3.0 + h[0])));
  memcpy(&v0, &h[0], sizeof v0);
  v3 = 0.5 * v3 + 0.5 * sum_n(a, n + 1);
  if (atan(expm1(tanh(T[5]))) > -1.071) {
    v1 = 0.5 * v1 + 0.5 * sum_n(a, n + 1);
  }
  for (int i0 = 0; i0 < n + 2; i0++) {
    v3 = 0.5 * v3 + 0.5 * sum_n(a, n + 1);
  }
  h[5] = sin(log(1.1 + (T[0] * h[5]) * (T[0] * h[5])));
  {
    double *t = (double *)malloc(4 * sizeof(double));
    for (int j = 0; j < 4; j++) t[j] = a[j] * (j + 1);
    t[3] = atan(sqrt(1.0 + (T[5] / (1.5 + T[2] * T[2])) * (T[5] / (1.5 + T[2] * T[2]))));
    v2 = 0.5 * (t[2] + t[2]);
    free(t);
  }
  y[0] = v0 + v1 * 0.5 + v2 * v3;
  y[1] = 0;
  for (int j = 0; j < 8; j++) y[1] += a[j] * (j + 1) * 0.1;
  y[2] = s.p + 2.0 * s.q[0] - s.q[1];
  for (int j = 0; j < 8; j++) y[2] += h[j] * (j % 3 + 1) * 0.1;
  y[3] = v0 * a[1] + h[2] * s.q[1] + sin(v3 + h[0]) + 0.5 * G[3] - 0.25 * G[6];
  free(h);
}

static void f1(const double *x, double *y) {
  int n = runtime_n;
  double v0 = x[0], v1 = x[1], v2 = x[2], v3 = x[3];
  double a[8];
  for (int j = 0; j < 8; j++) a[j] = x[j % 4] * (0.5 + 0.1 * j);
  double *h = (double *)malloc(8 * sizeof(double));
  for (int j = 0; j < 8; j++) h[j] = x[(j + 1) % 4] - 0.05 * j;
  struct rec s = {x[1] * x[2], 3, {x[2], x[3] * 0.5}};
  for (int j = 0; j < 8; j++) G[j] = x[(j + 2) % 4] * 0.25 + T[j];
  h[4] = erf(x[3]);
  h[(n + 5) % 8] = atan(tanh(fabs(log(1.1 + T[7] * T[7]))));
  v2 = mix((log(1.1 + (a[1] * (double)s.k * -0.251) * (a[1] * (double)s.k * -0.251)) * sqrt(1.0 + sqrt(1.0 + v0 * v0) * sqrt(1.0 + v0 * v0))), pow(1.2 + atan(a[4]) * atan(a[4]), tanh((T[6] + (double)s.k * -0.376))));
  v3 = mix(a[(n + 4) % 8], exp(tanh(v0)));
  v1 = atan(exp(tanh(((G[6] * s.p) - v0))));
  v3 = atan(erf(log1p(fabs(v2) * fabs(v2))));
  v0 = mix(v3, (log1p(x[3] * x[3]) * cbrt(3.0 + v3)));
  y[0] = v0 + v1 * 0.5 + v2 * v3;
  y[1] = 0;
  for (int j = 0; j < 8; j++) y[1] += a[j] * (j + 1) * 0.1;
  y[2] = s.p + 2.0 * s.q[0] - s.q[1];
  for (int j = 0; j < 8; j++) y[2] += h[j] * (j % 3 + 1) * 0.1;
  y[3] = v0 * a[1] + h[2] * s.q[1] + sin(v3 + h[0]) + 0.5 * G[3] - 0.25 * G[6];
  free(h);
}

static void f2(const double *x, double *y) {
  int n = runtime_n;
  double v0 = x[0], v1 = x[1], v2 = x[2], v3 = x[3];
  double a[8];
  for (int j = 0; j < 8; j++) a[j] = x[j % 4] * (0.5 + 0.1 * j);
  double *h = (double *)malloc(8 * sizeof(double));
  for (int j = 0; j < 8; j++) h[j] = x[(j + 1) % 4] - 0.05 * j;
  struct rec s = {x[1] * x[2], 3, {x[2], x[3] * 0.5}};
  for (int j = 0; j < 8; j++) G[j] = x[(j + 2) % 4] * 0.25 + T[j];
  if (n > 1) memcpy(&h[2], &s.p, sizeof s.p);
  {
    double *t = (double *)malloc(2 * sizeof(double));
    t[0] = t[1] = 0;
    t = (double *)realloc(t, 4 * sizeof(double));
    for (int j = 0; j < 4; j++) t[j] = a[j] * (j + 1);
    t[0] = tanh(s.q[0]);
    v3 = 0.5 * (t[2] + t[0]);
    free(t);
  }
  v2 = atan(erf(fmax(pow(1.2 + (double)s.k * -0.689 * (double)s.k * -0.689, tanh(T[7])), hypot(1.0 + s.p * s.p, h[(n + 2) % 8]))));
  for (int i0 = 0; i0 < 4; i0++) {
    for (int i1 = 0; i1 < n + 2; i1++) {
      v2 = erf(cbrt(3.0 + x[1]));
      v2 = (double)(int)(2.0 * h[(n + 2) % 8]) * 0.25 + v2 * 0.5;
      a[3] = 0.5 * a[3] + 0.25 * sin(h[i1]);
    }
    if (v0 < v2) {
      double t = v0;
      v0 = v2;
      v2 = v3;
      v3 = t;
    } else {
      double t = v2;
      v2 = v0;
      v0 = 0.9 * t;
    }
    v3 = 0.5 * v3 + 0.5 * erf(cbrt(3.0 + x[0]));
  }
  v0 = (double)(int)(2.0 * v1) * 0.25 + v0 * 0.5;
  y[0] = v0 + v1 * 0.5 + v2 * v3;
  y[1] = 0;
  for (int j = 0; j < 8; j++) y[1] += a[j] * (j + 1) * 0.1;
  y[2] = s.p + 2.0 * s.q[0] - s.q[1];
  for (int j = 0; j < 8; j++) y[2] += h[j] * (j % 3 + 1) * 0.1;
  y[3] = v0 * a[1] + h[2] * s.q[1] + sin(v3 + h[0]) + 0.5 * G[3] - 0.25 * G[6];
  free(h);
}

static void f3(const double *x, double *y) {
  int n = runtime_n;
  double v0 = x[0], v1 = x[1], v2 = x[2], v3 = x[3];
  double a[8];
  for (int j = 0; j < 8; j++) a[j] = x[j % 4] * (0.5 + 0.1 * j);
  double *h = (double *)malloc(8 * sizeof(double));
  for (int j = 0; j < 8; j++) h[j] = x[(j + 1) % 4] - 0.05 * j;
  struct rec s = {x[1] * x[2], 3, {x[2], x[3] * 0.5}};
  for (int j = 0; j < 8; j++) G[j] = x[(j + 2) % 4] * 0.25 + T[j];
  if (s.p > 0.355) {
    for (int i0 = 0; i0 < n + 2; i0++) {
      v1 = atan(v2);
    }
    if (pow(1.2 + cos((double)s.k * 0.868) * cos((double)s.k * 0.868), tanh(G[(n + 2) % 8])) > 0.973) {
      v0 = 0.5 * v0 + 0.25 * newton_sqrt(1.0 + tanh(erf((s.p * G[0]))) * tanh(erf((s.p * G[0]))));
      v2 = 0.5 * v2 + 0.5 * sum_n(a, n + 1);
    }
    a[(n + 6) % 8] = 0.5 * a[(n + 6) % 8] + 0.25 * atan(x[3]);
  } else {
    v3 = 0.5 * v3 + 0.5 * sum_n(a, n + 1);
    v2 = 0.5 * (v0 + erf(erf(fabs(T[0]))));
  }
  {
    double *t = (double *)aligned_alloc(32, 4 * sizeof(double));
    for (int j = 0; j < 4; j++) t[j] = a[j] * (j + 1);
    t[0] = sin(((x[0] * -0.283) * (0.836 * x[0])));
    v2 = 0.5 * (t[1] + t[0]);
    free(t);
  }
  v1 = mix((erf(0.510) * s.q[1]), floor(((double)s.k * 0.542 + h[3])));
  {
    struct rec t;
    memcpy(&t, &s, sizeof t);
    t.p = 0.5 * t.p + 0.5 * tanh(sin(log(1.1 + G[0] * G[0])));
    s = t;
  }
  v2 = (double)(int)(2.0 * log(1.1 + erf(s.p) * erf(s.p))) * 0.25 + v2 * 0.5;
  y[0] = v0 + v1 * 0.5 + v2 * v3;
  y[1] = 0;
  for (int j = 0; j < 8; j++) y[1] += a[j] * (j + 1) * 0.1;
  y[2] = s.p + 2.0 * s.q[0] - s.q[1];
  for (int j = 0; j < 8; j++) y[2] += h[j] * (j % 3 + 1) * 0.1;
  y[3] = v0 * a[1] + h[2] * s.q[1] + sin(v3 + h[0]) + 0.5 * G[3] - 0.25 * G[6];
  free(h);
}

static void f4(const double *x, double *y) {
  int n = runtime_n;
  double v0 = x[0], v1 = x[1], v2 = x[2], v3 = x[3];
  double a[8];
  for (int j = 0; j < 8; j++) a[j] = x[j % 4] * (0.5 + 0.1 * j);
  double *h = (double *)malloc(8 * sizeof(double));
  for (int j = 0; j < 8; j++) h[j] = x[(j + 1) % 4] - 0.05 * j;
  struct rec s = {x[1] * x[2], 3, {x[2], x[3] * 0.5}};
  for (int j = 0; j < 8; j++) G[j] = x[(j + 2) % 4] * 0.25 + T[j];
  v3 = erf(v3);
  if (sqrt(1.0 + floor(v1) * floor(v1)) > -1.390) {
    v3 = mix(cos(T[(n + 6) % 8]), G[2]);
  }
  v3 = sin(v1);
  a[(n + 0) % 8] = 0.5 * a[(n + 0) % 8] + 0.25 * tanh(sin(pow(1.2 + atan(G[3]) * atan(G[3]), tanh(cos(v1)))));
  y[0] = v0 + v1 * 0.5 + v2 * v3;
  y[1] = 0;
  for (int j = 0; j < 8; j++) y[1] += a[j] * (j + 1) * 0.1;
  y[2] = s.p + 2.0 * s.q[0] - s.q[1];
  for (int j = 0; j < 8; j++) y[2] += h[j] * (j % 3 + 1) * 0.1;
  y[3] = v0 * a[1] + h[2] * s.q[1] + sin(v3 + h[0]) + 0.5 * G[3] - 0.25 * G[6];
  free(h);
}

static void f5(const double *x, double *y) {
  int n = runtime_n;
  double v0 = x[0], v1 = x[1], v2 = x[2], v3 = x[3];
  double a[8];
  for (int j = 0; j < 8; j++) a[j] = x[j % 4] * (0.5 + 0.1 * j);
  double *h = (double *)malloc(8 * sizeof(double));
  for (int j = 0; j < 8; j++) h[j] = x[(j + 1) % 4] - 0.05 * j;
  struct rec s = {x[1] * x[2], 3, {x[2], x[3] * 0.5}};
  for (int j = 0; j < 8; j++) G[j] = x[(j + 2) % 4] * 0.25 + T[j];
  v0 = (double)(int)(2.0 * (0.388 / (1.5 + floor(v3) * floor(v3)))) * 0.25 + v0 * 0.5;
  memmove(a + 1, a, 3 * sizeof(double));
  for (int i0 = 0; i0 < n + 2; i0++) {
    memcpy(G + 3, a + 3, n * sizeof(double));
    for (int i1 = 0; i1 < n + 2; i1++) {
      v2 = tanh(v3);
      v2 = erf(sqrt(1.0 + v2 * v2));
    }
    if (s.q[0] > 0.725) {
      G[(n + 6) % 8] = atan(cos(erf(sqrt(1.0 + a[0] * a[0]))));
      {
        struct rec t;
        memcpy(&t, &s, sizeof t);
        t.p = 0.5 * t.p + 0.5 * tanh((atan(log1p(a[(i0 + 4) % 8] * a[(i0 + 4) % 8])) * ((v2 * s.p) + sin((double)s.k * -0.631))));
        s = t;
      }
    }
  }
  copy_n(a + 4, G + 5, n);
  v0 = tanh(erf((-0.772 / (1.5 + pow(1.2 + h[5] * h[5], tanh(s.p)) * pow(1.2 + h[5] * h[5], tanh(s.p))))));
  memcpy(h + 2, a + 1, n * sizeof(double));
  v3 = mix((cos((v1 * x[2])) + fabs(fabs(0.950))), T[6]);
  memcpy(&v0, &a[3], sizeof v0);
  if ((double)s.k * -0.740 > -0.104) {
    v3 = atan(hypot(1.0 + floor(v0) * floor(v0), erf(sqrt(1.0 + s.p * s.p))));
  }
  scale_n(h + 0, n, v0);
  y[0] = v0 + v1 * 0.5 + v2 * v3;
  y[1] = 0;
  for (int j = 0; j < 8; j++) y[1] += a[j] * (j + 1) * 0.1;
  y[2] = s.p + 2.0 * s.q[0] - s.q[1];
  for (int j = 0; j < 8; j++) y[2] += h[j] * (j % 3 + 1) * 0.1;
  y[3] = v0 * a[1] + h[2] * s.q[1] + sin(v3 + h[0]) + 0.5 * G[3] - 0.25 * G[6];
  free(h);
}

static void f6(const double *x, double *y) {
  int n = runtime_n;
  double v0 = x[0], v1 = x[1], v2 = x[2], v3 = x[3];
  double a[8];
  for (int j = 0; j < 8; j++) a[j] = x[j % 4] * (0.5 + 0.1 * j);
  double *h = (double *)malloc(8 * sizeof(double));
  for (int j = 0; j < 8; j++) h[j] = x[(j + 1) % 4] - 0.05 * j;
  struct rec s = {x[1] * x[2], 3, {x[2], x[3] * 0.5}};
  for (int j = 0; j < 8; j++) G[j] = x[(j + 2) % 4] * 0.25 + T[j];
  v3 = erf(v2);
  v3 = 0.5 * (v1 + erf(log(1.1 + sin(v2) * sin(v2))));
  s.q[1] = 0.5 * s.q[0] + 0.5 * tanh(cbrt(3.0 + floor(expm1(tanh(h[3])))));
  memcpy(G + 4, a + 5, n * sizeof(double));
  v0 = (double)(int)(2.0 * expm1(tanh(h[0]))) * 0.25 + v0 * 0.5;
  v3 = mix(sqrt(1.0 + tanh((v0 + a[3])) * tanh((v0 + a[3]))), exp(tanh(atan(v3))));
  for (int i0 = 0; i0 < n + 2; i0++) {
    v0 = 0.5 * (v2 + tanh(log(1.1 + sqrt(1.0 + atan(a[(n + 4) % 8]) * atan(a[(n + 4) % 8])) * sqrt(1.0 + atan(a[(n + 4) % 8]) * atan(a[(n + 4) % 8])))));
    h[(i0 + 6) % 8] = tanh(cos(hypot(1.0 + v2 * v2, expm1(tanh(v2)))));
    for (int i1 = 0; i1 < 2; i1++) {
      if (v1 < v3) {
        double t = v1;
        v1 = v3;
        v3 = v0;
        v0 = t;
      } else {
        double t = v3;
        v3 = v1;
        v1 = 0.9 * t;
      }
      v0 = 0.5 * v0 + 0.5 * tanh(v2);
      {
        double *t = (double *)aligned_alloc(32, 4 * sizeof(double));
        for (int j = 0; j < 4; j++) t[j] = a[j] * (j + 1);
        t[1] = atan(fabs(floor(-1.365)));
        v3 = 0.5 * (t[1] + t[2]);
        free(t);
      }
    }
  }
  v2 = 0.5 * v2 + 0.5 * sum_n(a, n + 1);
  if (cos(exp(tanh((double)s.k * -0.430))) > -1.426) {
    G[7] = erf((sqrt(1.0 + (T[(n + 6) % 8] * v2) * (T[(n + 6) % 8] * v2)) / (1.5 + atan((double)s.k * 0.960) * atan((double)s.k * 0.960))));
    v1 = 0.5 * v1 + 0.25 * newton_sqrt(1.0 + tanh(fabs(fabs(-0.015))) * tanh(fabs(fabs(-0.015))));
    {
      struct rec t;
      memcpy(&t, &s, sizeof t);
      t.p = 0.5 * t.p + 0.5 * sin(((((double)s.k * 0.163 * v3) + h[1]) - (s.p / (1.5 + hypot(1.0 + x[2] * x[2], v3) * hypot(1.0 + x[2] * x[2], v3)))));
      s = t;
    }
  }
  y[0] = v0 + v1 * 0.5 + v2 * v3;
  y[1] = 0;
  for (int j = 0; j < 8; j++) y[1] += a[j] * (j + 1) * 0.1;
  y[2] = s.p + 2.0 * s.q[0] - s.q[1];
  for (int j = 0; j < 8; j++) y[2] += h[j] * (j % 3 + 1) * 0.1;
  y[3] = v0 * a[1] + h[2] * s.q[1] + sin(v3 + h[0]) + 0.5 * G[3] - 0.25 * G[6];
  free(h);
}

static void f7(const double *x, double *y) {
  int n = runtime_n;
  double v0 = x[0], v1 = x[1], v2 = x[2], v3 = x[3];
  double a[8];
  for (int j = 0; j < 8; j++) a[j] = x[j % 4] * (0.5 + 0.1 * j);
  double *h = (double *)malloc(8 * sizeof(double));
  for (int j = 0; j < 8; j++) h[j] = x[(j + 1) % 4] - 0.05 * j;
  struct rec s = {x[1] * x[2], 3, {x[2], x[3] * 0.5}};
  for (int j = 0; j < 8; j++) G[j] = x[(j + 2) % 4] * 0.25 + T[j];
  a[4] = 0.5 * a[4] + 0.25 * sin(sqrt(1.0 + cbrt(3.0 + x[1]) * cbrt(3.0 + x[1])));
  for (int i0 = 0; i0 < n; i0++) {
    if (fabs(hypot(1.0 + (double)s.k * -0.787 * (double)s.k * -0.787, h[(i0 + 7) % 8])) > 0.826) {
      v2 = sin(erf(atan(expm1(tanh(T[i0])))));
      {
        double t = v2;
        v2 = v0;
        v0 = t;
      }
      v2 = 0.5 * v2 + 0.5 * atan((G[4] / (1.5 + hypot(1.0 + G[1] * G[1], x[2]) * hypot(1.0 + G[1] * G[1], x[2]))));
    }
    copy_n(a + 0, G + 4, n);
  }
  v3 = (double)(int)(2.0 * a[7]) * 0.25 + v3 * 0.5;
  for (int i0 = 0; i0 < n + 2; i0++) {
    {
      struct rec t;
      memcpy(&t, &s, sizeof t);
      t.p = 0.5 * t.p + 0.5 * atan(sqrt(1.0 + h[(i0 + 7) % 8] * h[(i0 + 7) % 8]));
      s = t;
    }
    v2 = mix(fmax((fmax(v2, T[2]) * (double)s.k * -0.860), tanh(v0)), atan(((double)s.k * -1.137 - v3)));
  }
  memmove(h, h + 1, 5 * sizeof(double));
  {
    double *t = NULL;
    if (posix_memalign((void **)&t, 32, 4 * sizeof(double)) != 0) abort();
    for (int j = 0; j < 4; j++) t[j] = a[j] * (j + 1);
    t[2] = atan((exp(tanh(s.p)) - (a[6] * v3)));
    v3 = 0.5 * (t[3] + t[1]);
    free(t);
  }
  memcpy(a + 2, h + 0, n * sizeof(double));
  memcpy(&v0, &a[3], sizeof v0);
  h[7] = erf(cos(x[1]));
  scale_n(h + 2, n, v0);
  y[0] = v0 + v1 * 0.5 + v2 * v3;
  y[1] = 0;
  for (int j = 0; j < 8; j++) y[1] += a[j] * (j + 1) * 0.1;
  y[2] = s.p + 2.0 * s.q[0] - s.q[1];
  for (int j = 0; j < 8; j++) y[2] += h[j] * (j % 3 + 1) * 0.1;
  y[3] = v0 * a[1] + h[2] * s.q[1] + sin(v3 + h[0]) + 0.5 * G[3] - 0.25 * G[6];
  free(h);
}

static void f8(const double *x, double *y) {
  int n = runtime_n;
  double v0 = x[0], v1 = x[1], v2 = x[2], v3 = x[3];
  double a[8];
  for (int j = 0; j < 8; j++) a[j] = x[j % 4] * (0.5 + 0.1 * j);
  double *h = (double *)malloc(8 * sizeof(double));
  for (int j = 0; j < 8; j++) h[j] = x[(j + 1) % 4] - 0.05 * j;
  struct rec s = {x[1] * x[2], 3, {x[2], x[3] * 0.5}};
  for (int j = 0; j < 8; j++) G[j] = x[(j + 2) % 4] * 0.25 + T[j];
  if ((cos(s.q[1]) + erf(x[2])) > 0.071) {
    if (n > 1) memcpy(&h[3], &s.p, sizeof s.p);
  }
  v2 = mix(1.422, a[6]);
  a[1] = 0.5 * a[1] + 0.25 * atan(log1p(floor(exp(tanh(s.p))) * floor(exp(tanh(s.p)))));
  if (n > 1) memcpy(&h[5], &s.p, sizeof s.p);
  v3 = erf((expm1(tanh((-0.406 + (double)s.k * -0.608))) - (v1 * s.p)));
  {
    double *t = (double *)calloc(4, sizeof(double));
    for (int j = 0; j < 4; j++) t[j] = a[j] * (j + 1);
    t[2] = sin((v3 + exp(tanh(s.p))));
    v3 = 0.5 * (t[2] + t[3]);
    free(t);
  }
  v2 = tanh((atan(log1p(0.636 * 0.636)) * T[4]));
  y[0] = v0 + v1 * 0.5 + v2 * v3;
  y[1] = 0;
  for (int j = 0; j < 8; j++) y[1] += a[j] * (j + 1) * 0.1;
  y[2] = s.p + 2.0 * s.q[0] - s.q[1];
  for (int j = 0; j < 8; j++) y[2] += h[j] * (j % 3 + 1) * 0.1;
  y[3] = v0 * a[1] + h[2] * s.q[1] + sin(v3 + h[0]) + 0.5 * G[3] - 0.25 * G[6];
  free(h);
}

static void f9(const double *x, double *y) {
  int n = runtime_n;
  double v0 = x[0], v1 = x[1], v2 = x[2], v3 = x[3];
  double a[8];
  for (int j = 0; j < 8; j++) a[j] = x[j % 4] * (0.5 + 0.1 * j);
  double *h = (double *)malloc(8 * sizeof(double));
  for (int j = 0; j < 8; j++) h[j] = x[(j + 1) % 4] - 0.05 * j;
  struct rec s = {x[1] * x[2], 3, {x[2], x[3] * 0.5}};
  for (int j = 0; j < 8; j++) G[j] = x[(j + 2) % 4] * 0.25 + T[j];
  v3 = 0.5 * (v3 + erf(exp(tanh(-0.902))));
  v2 = tanh(fmax((double)s.k * -0.697, log1p((x[3] - s.q[1]) * (x[3] - s.q[1]))));
  v1 = 0.5 * (v2 + sin(floor(floor(fmax(a[4], a[1])))));
  memcpy(G + 3, a + 2, n * sizeof(double));
  memmove(h + 1, h, 5 * sizeof(double));
  G[1] = 0.5 * G[1] + 0.25 * sin(T[3]);
  y[0] = v0 + v1 * 0.5 + v2 * v3;
  y[1] = 0;
  for (int j = 0; j < 8; j++) y[1] += a[j] * (j + 1) * 0.1;
  y[2] = s.p + 2.0 * s.q[0] - s.q[1];
  for (int j = 0; j < 8; j++) y[2] += h[j] * (j % 3 + 1) * 0.1;
  y[3] = v0 * a[1] + h[2] * s.q[1] + sin(v3 + h[0]) + 0.5 * G[3] - 0.25 * G[6];
  free(h);
}

int main(void) {
  const double base[NX] = {-0.128723, 0.654602, 0.600838, -0.118604};
  int checks = 0, failures = 0, skipped = 0;
  for (int j = 0; j < 8; j++) T[j] = 0.3 + 0.1 * j;
  for (int nn = 0; nn < 3; nn++) {
    runtime_n = nn == 2 ? 3 : nn;
    double x0[NX], y0[NY];
    for (int i = 0; i < NX; i++) x0[i] = base[i];
    f4(x0, y0);
    int finite = 1;
    for (int j = 0; j < NY; j++) finite &= isfinite(y0[j]);
    if (!finite) { printf("skip %s n=%d: non-finite primal\n", "f4", runtime_n); skipped++; continue; }
    double rev[NY][NX], fwd[NY][NX], fd[NY][NX], fd2[NY][NX];
    for (int i = 0; i < NX; i++) {
      double xp[NX], xm[NX], yp[NY], ym[NY];
      for (int hs = 0; hs < 2; hs++) {
        double hh = hs ? 5e-7 : 1e-6;
        for (int k = 0; k < NX; k++) xp[k] = xm[k] = x0[k];
        xp[i] += hh; xm[i] -= hh;
        f4(xp, yp); f4(xm, ym);
        for (int j = 0; j < NY; j++) (hs ? fd2 : fd)[j][i] = (yp[j] - ym[j]) / (2 * hh);
      }
    }
    for (int j = 0; j < NY; j++) {
      double x[NX], dx[NX] = {0}, y[NY], dy[NY] = {0};
      for (int k = 0; k < NX; k++) x[k] = x0[k];
      dy[j] = 1;
      __enzyme_autodiff((void *)f4, enzyme_dup, x, dx, enzyme_dup, y, dy);
      for (int k = 0; k < NY; k++) if (!(fabs(y[k] - y0[k]) <= 1e-13 * (1 + fabs(y0[k])))) { printf("FAIL %s n=%d: primal y[%d] from reverse mode %.17g != %.17g\n", "f4", runtime_n, k, y[k], y0[k]); failures++; }
      for (int i = 0; i < NX; i++) rev[j][i] = dx[i];
    }
    for (int i = 0; i < NX; i++) {
      double x[NX], tx[NX] = {0}, y[NY], ty[NY] = {0};
      for (int k = 0; k < NX; k++) x[k] = x0[k];
      tx[i] = 1;
      __enzyme_fwddiff((void *)f4, enzyme_dup, x, tx, enzyme_dup, y, ty);
      for (int k = 0; k < NY; k++) if (!(fabs(y[k] - y0[k]) <= 1e-13 * (1 + fabs(y0[k])))) { printf("FAIL %s n=%d: primal y[%d] from forward mode %.17g != %.17g\n", "f4", runtime_n, k, y[k], y0[k]); failures++; }
      for (int j = 0; j < NY; j++) fwd[j][i] = ty[j];
    }
    for (int i = 0; i < NX; i++) {
      /* Split forward mode: the forward part, then the tangents from its
         tape after the inputs are overwritten, given no primals. */
      double x[NX], y[NY], sx[NX] = {0}, sy[NY] = {0}, tx[NX] = {0}, ty[NY] = {0};
      for (int k = 0; k < NX; k++) x[k] = x0[k];
      void *tape = __enzyme_augmentfwd((void *)f4, enzyme_dup, x, sx, enzyme_dup, y, sy);
      for (int k = 0; k < NX; k++) x[k] = -7;
      tx[i] = 1;
      __enzyme_fwdsplit((void *)f4, enzyme_dup, (double *)0, tx, enzyme_dup, (double *)0, ty, tape);
      for (int j = 0; j < NY; j++) if (!(fabs(ty[j] - fwd[j][i]) <= 1e-10 * (1 + fabs(fwd[j][i])))) { printf("FAIL %s n=%d J[%d][%d]: split forward %.17g, forward %.17g\n", "f4", runtime_n, j, i, ty[j], fwd[j][i]); failures++; }
    }
    {
      /* Vector mode: the whole Jacobian in one forward call (a lane per
         input) and one reverse call (a lane per output), against width 1. */
      double x[NX], e[NX][NX] = {{0}}, y[NY], t[NX][NY];
      double xr[NX], dxr[NY][NX] = {{0}}, yr[NY], dyr[NY][NY] = {{0}};
      for (int k = 0; k < NX; k++) x[k] = xr[k] = x0[k], e[k][k] = 1;
      for (int k = 0; k < NY; k++) dyr[k][k] = 1;
      __enzyme_fwddiff((void *)f4, enzyme_width, NX, enzyme_dupv, sizeof e[0], x, &e[0][0], enzyme_dupnoneedv, sizeof t[0], y, &t[0][0]);
      __enzyme_autodiff((void *)f4, enzyme_width, NY, enzyme_dupv, sizeof dxr[0], xr, &dxr[0][0], enzyme_dupnoneedv, sizeof dyr[0], yr, &dyr[0][0]);
      for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
          if (!(fabs(t[i][j] - fwd[j][i]) <= 1e-10 * (1 + fabs(fwd[j][i])))) { printf("FAIL %s n=%d J[%d][%d]: forward width %d %.17g, width 1 %.17g\n", "f4", runtime_n, j, i, NX, t[i][j], fwd[j][i]); failures++; }
          if (!(fabs(dxr[j][i] - rev[j][i]) <= 1e-10 * (1 + fabs(rev[j][i])))) { printf("FAIL %s n=%d J[%d][%d]: reverse width %d %.17g, width 1 %.17g\n", "f4", runtime_n, j, i, NY, dxr[j][i], rev[j][i]); failures++; }
        }
    }
    for (int j = 0; j < NY; j++)
      for (int i = 0; i < NX; i++) {
        double r = rev[j][i], f = fwd[j][i], d = fd[j][i], d2 = fd2[j][i];
        checks++;
        if (!(fabs(f - r) <= 1e-9 * (1 + fabs(r)))) {
          printf("FAIL %s n=%d J[%d][%d]: forward %.17g, reverse %.17g, finite difference %.10g\n", "f4", runtime_n, j, i, f, r, d);
          failures++;
        } else if (fabs(d - d2) > 1e-6 * (1 + fabs(d))) {
          skipped++;
        } else if (!(fabs(r - d) <= 1e-5 * (1 + fabs(d)))) {
          printf("FAIL %s n=%d J[%d][%d]: reverse %.17g and forward %.17g, finite difference %.10g\n", "f4", runtime_n, j, i, r, f, d);
          failures++;
        }
      }
  }
  printf("entries checked %d, failed %d, not smooth enough to check against differences %d\n", checks, failures, skipped);
  return failures != 0;
}
