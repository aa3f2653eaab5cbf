/* Heap memory allocated in the differentiated code and kept where the
 * caller sees it: the block's shadow goes into the caller's shadow memory
 * and outlives the call too (the caller frees it, as the block). Forward
 * mode: the kept block's shadow holds its tangents; reverse mode: the result
 * computed from the block is differentiated, and the kept shadow comes back
 * zeroed. Both a C array and a linked list built by the function. */
#include <stdlib.h>
#include "check.h"

void __enzyme_fwddiff_v(void *, ...);

/* out: a new block of n values; returns their sum of squares. */
static double build(const double *x, int n, double **out) {
  double *b = malloc(n * sizeof(double));
  double s = 0;
  for (int i = 0; i < n; i++) {
    b[i] = sin(x[i]) * x[(i + 1) % n];
    s += b[i] * b[i];
  }
  *out = b;
  return s;
}

struct node {
  double v;
  struct node *next;
};
/* A list of n nodes built by the function, kept by the caller. */
static double make_list(const double *x, int n, struct node **head) {
  struct node *h = NULL;
  double s = 0;
  for (int i = 0; i < n; i++) {
    struct node *e = malloc(sizeof *e);
    e->v = x[i] * x[i];
    e->next = h;
    h = e;
    s += e->v * x[i];
  }
  *head = h;
  return s;
}

int main(void) {
  double x[3] = {0.3, 0.9, -0.4};
  const int n = 3;
  /* Forward: tangent along x[j]; the kept block's shadow holds d b / d x[j]. */
  for (int j = 0; j < n; j++) {
    double t[3] = {0}, *b = NULL, *db = NULL;
    t[j] = 1;
    double ds = __enzyme_fwddiff((void *)build, enzyme_dup, x, t, enzyme_const, n, enzyme_dup, &b, &db);
    double want_ds = 0;
    for (int i = 0; i < n; i++) {
      int k = (i + 1) % n;
      double dbi = (i == j ? cos(x[i]) * x[k] : 0) + (k == j ? sin(x[i]) : 0);
      CHECK("forward: tangent of the kept block", db[i], dbi, TOL_EXACT);
      CHECK("forward: primal of the kept block", b[i], sin(x[i]) * x[k], TOL_EXACT);
      want_ds += 2 * b[i] * dbi;
    }
    CHECK("forward: tangent of the result", ds, want_ds, TOL_EXACT);
    free(b);
    free(db);
  }
  /* Reverse: the gradient of the result; the kept shadow is a zeroed block. */
  double dx[3] = {0}, *b = NULL, *db = NULL;
  __enzyme_autodiff((void *)build, enzyme_dup, x, dx, enzyme_const, n, enzyme_dup, &b, &db);
  for (int j = 0; j < n; j++) {
    double want = 0;
    for (int i = 0; i < n; i++) {
      int k = (i + 1) % n;
      double dbi = (i == j ? cos(x[i]) * x[k] : 0) + (k == j ? sin(x[i]) : 0);
      want += 2 * b[i] * dbi;
    }
    CHECK("reverse: gradient of the result", dx[j], want, TOL_EXACT);
    CHECK("reverse: the kept shadow is zero", db[j], 0, 0);
  }
  free(b);
  free(db);
  /* A linked list: forward tangents in the shadow nodes. */
  for (int j = 0; j < n; j++) {
    double t[3] = {0};
    t[j] = 1;
    struct node *h = NULL, *dh = NULL;
    double ds = __enzyme_fwddiff((void *)make_list, enzyme_dup, x, t, enzyme_const, n, enzyme_dup, &h, &dh);
    CHECK("list: tangent of the result", ds, 3 * x[j] * x[j], TOL_EXACT);
    int i = n - 1;
    for (struct node *e = h, *de = dh; e; e = e->next, de = de->next, i--) {
      CHECK("list: tangent in the shadow node", de->v, i == j ? 2 * x[i] : 0, TOL_EXACT);
    }
    while (h) {
      struct node *a = h->next, *b2 = dh->next;
      free(h);
      free(dh);
      h = a;
      dh = b2;
    }
  }
  return CHECK_DONE();
}
