/* Every C allocation function in differentiated code, both modes: each
 * block gets a shadow of its size, zeroed, and freed where the primal frees
 * it (issue 39, item 2: a block from posix_memalign had no shadow, and the
 * derivative wrote through a null one). Blocks from calloc, aligned_alloc,
 * memalign, valloc, posix_memalign (freed, and leaked as in the issue),
 * reallocarray, and a string from strdup beside the floats. Jacobians
 * checked against central differences, forward against reverse; valgrind
 * (the -O2 -g run) checks that every shadow is freed. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include "jacobian.h"

/* The issue's program: a float block never freed. */
static float issue(float inp) {
  float *x;
  posix_memalign((void **)&x, 8, 8);
  *x = inp;
  return *x;
}

static void with_calloc(const double *x, double *y) {
  double *b = calloc(4, sizeof(double));
  for (int k = 0; k < 3; k++) b[k + 1] = b[k] * 0.5 + x[k];
  y[0] = b[3] * b[2];
  y[1] = b[1];
  free(b);
}

static void with_aligned_alloc(const double *x, double *y) {
  double *b = aligned_alloc(64, 8 * sizeof(double));
  for (int k = 0; k < 8; k++) b[k] = x[k % 3] * (k + 1);
  double s = 0;
  for (int k = 0; k < 8; k++) s += sin(b[k]);
  y[0] = s;
  free(b);
}

static void with_memalign(const double *x, double *y) {
  double *b = memalign(32, 3 * sizeof(double));
  memcpy(b, x, 3 * sizeof(double));
  y[0] = b[0] * b[1] * b[2];
  free(b);
}

static void with_valloc(const double *x, double *y) {
  double *b = valloc(2 * sizeof(double));
  b[0] = exp(x[0]);
  b[1] = b[0] * x[1];
  y[0] = b[1] + b[0];
  free(b);
}

static void with_posix_memalign(const double *x, double *y) {
  double *b = NULL;
  if (posix_memalign((void **)&b, 64, 4 * sizeof(double)) != 0) {
    y[0] = 0;
    return;
  }
  for (int k = 0; k < 4; k++) b[k] = x[k % 2] * x[(k + 1) % 2] + k;
  y[0] = b[0] * b[3] - b[1] * b[2];
  free(b);
}

static void with_reallocarray(const double *x, double *y) {
  double *b = reallocarray(NULL, 2, sizeof(double));
  b[0] = x[0];
  b[1] = x[1] * x[0];
  b = reallocarray(b, 4, sizeof(double));
  b[2] = b[1] * b[0];
  b[3] = cos(b[2]);
  y[0] = b[3] + b[1];
  free(b);
}

struct labelled {
  char *name;
  double value;
};

/* A string copied with strdup beside the floats: bytes, no derivative. */
static void with_strdup(const double *x, double *y) {
  struct labelled l = {strdup("weight"), x[0] * x[1]};
  y[0] = l.value * (double)strlen(l.name);
  free(l.name);
}

int main(void) {
  for (float v = 0.5f; v < 2; v += 0.5f) {
    double d = __enzyme_autodiff((void *)issue, v);
    double t = __enzyme_fwddiff((void *)issue, enzyme_dup, v, 1.0f);
    CHECK("posix_memalign, leaked: reverse", d, 1.0, TOL_EXACT);
    CHECK("posix_memalign, leaked: forward", t, 1.0, TOL_EXACT);
  }
  CHECK_JACOBIAN(with_calloc, 3, 2, 0.5, -0.25, 1.5);
  CHECK_JACOBIAN(with_aligned_alloc, 3, 1, 0.5, -0.25, 1.5);
  CHECK_JACOBIAN(with_memalign, 3, 1, 0.5, -0.25, 1.5);
  CHECK_JACOBIAN(with_valloc, 2, 1, 0.5, -0.25);
  CHECK_JACOBIAN(with_posix_memalign, 2, 1, 0.5, -0.25);
  CHECK_JACOBIAN(with_reallocarray, 2, 1, 0.5, -0.25);
  CHECK_JACOBIAN(with_strdup, 2, 1, 0.5, -0.25);
  return CHECK_DONE();
}
