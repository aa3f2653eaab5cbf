/* Functions registered inactive that fill memory (issue 39, item 5, in C):
 * a local array only such a function writes carries no derivative (its
 * values are data), a struct it returns through memory too (a pointer in it
 * points to a buffer the function allocated, which has no shadow), and one
 * that only reads active memory (a log of it) changes nothing. Both modes,
 * against closed forms. (Writing over memory that carries derivatives is
 * refused: tests/errors/inactive_overwrite.c.) */
#include <stdlib.h>
#include "check.h"

__attribute__((noinline)) static void fill(double *b, int n) {
  for (int k = 0; k < n; k++) b[k] = 0.5 * k;
}

struct samples {
  double *data;
  int n;
  double scale;
};

/* Returned through memory (a hidden pointer to the caller's slot). */
__attribute__((noinline)) static struct samples draw(int n) {
  struct samples s = {malloc(n * sizeof(double)), n, 2.0};
  for (int k = 0; k < n; k++) s.data[k] = 1.0 / (k + 1);
  return s;
}

static double logged;
__attribute__((noinline)) static void show(const double *b, int n) { logged = b[n - 1]; }

void *__enzyme_inactivefn[3] = {(void *)fill, (void *)draw, (void *)show};

/* d/dx = b[1] + 2 x b[2] c... with b = {0, 0.5, 1}: 0.5 + 2x. */
static double filled(double x) {
  double b[3], c[2] = {x, x * x};
  fill(b, 3);
  show(c, 2);
  return b[0] + b[1] * x + b[2] * c[1];
}

/* sum_k data[k] * x^(k+1) * scale, three times over fresh samples. */
static double drawn(double x) {
  double s = 0;
  for (int r = 0; r < 3; r++) {
    struct samples d = draw(4);
    double p = x;
    for (int k = 0; k < d.n; k++) {
      s += d.data[k] * p * d.scale;
      p *= x;
    }
    free(d.data);
  }
  return s;
}

static double d_drawn(double x) {
  double s = 0, p = 1;
  for (int k = 0; k < 4; k++) {
    s += 1.0 / (k + 1) * (k + 1) * p * 2.0;
    p *= x;
  }
  return 3 * s;
}

int main(void) {
  for (double x = -0.5; x < 1.6; x += 0.5) {
    double r = __enzyme_autodiff((void *)filled, x);
    double t = __enzyme_fwddiff((void *)filled, enzyme_dup, x, 1.0);
    CHECK("filled by an inactive function: reverse", r, 0.5 + 2 * x, TOL_EXACT);
    CHECK("filled by an inactive function: forward", t, r, TOL_MODES);
    CHECK("the inactive log ran", logged, x * x, TOL_EXACT);
    r = __enzyme_autodiff((void *)drawn, x);
    t = __enzyme_fwddiff((void *)drawn, enzyme_dup, x, 1.0);
    CHECK("samples returned through memory: reverse", r, d_drawn(x), TOL_EXACT);
    CHECK("samples returned through memory: forward", t, r, TOL_MODES);
  }
  return CHECK_DONE();
}
