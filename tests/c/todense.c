/* `__enzyme_todense(load, store, args...)`: pointers whose memory is the
 * program's own functions (Enzyme's sparse-derivative building block).
 *  1. A sparse Hessian by forward over reverse: the tangent of x is the
 *     unit vector e_i, computed from the offset (never stored); the tangent
 *     of the gradient's buffer is a list of (row, column, value) triplets
 *     (a load gives the entry's value, zero if absent; a store sets it).
 *     The triplets must be the dense Hessian (forward over reverse with ordinary buffers, 1e-12) and
 *     central differences of the gradient (1e-6), and only the band's
 *     entries may appear.
 *  2. Reverse mode into a dense shadow backed by a small table of the
 *     program's own (load returns what was stored): the gradient against
 *     the ordinary one.
 *  3. The primal itself through a dense pointer: x read periodically
 *     (offset modulo n), forward mode with a dense unit tangent, against
 *     the same function written with `% n`.
 *  4. A function given a dense pointer making one of its own.
 * `(double *)0x1` as the primal of a `enzyme_dupnoneed` buffer is never
 * touched. */
#include <stdint.h>
#include <string.h>
#include "check.h"

extern double *__enzyme_todense(void *, ...);

#define N 6

/* A chain of springs with a nonlinear stiffness and an on-site term:
 * the Hessian is tridiagonal. */
static double energy(const double *x, int n) {
  double e = 0;
  for (int i = 0; i + 1 < n; i++) {
    double d = x[i + 1] - x[i];
    e += d * d * (1.0 + 0.25 * d * d);
  }
  for (int i = 0; i < n; i++)
    e += 0.3 * sin(x[i]) * x[i];
  return e;
}

static void gradient(const double *x, double *dx, int n) {
  __enzyme_autodiff((void *)energy, enzyme_dup, x, dx, enzyme_const, n);
}

/* The tangent of x: e_col, from the offset. */
static double unit_load(int64_t offset, int64_t col) {
  return offset / (int64_t)sizeof(double) == col ? 1.0 : 0.0;
}
static void never_store(double v, int64_t offset, int64_t col) {
  (void)v, (void)offset, (void)col;
  printf("FAIL: a store through the seed's pointer\n");
  exit(1);
}

/* The Hessian's entries as triplets: loads of an entry give what was last
 * stored there (zero before), as memory would; a store sets the entry. */
struct triplets {
  int count;
  int row[256], col[256];
  double val[256];
};
static double *entry(int64_t offset, int64_t row, struct triplets *t, int add) {
  int col = (int)(offset / (int64_t)sizeof(double));
  for (int k = 0; k < t->count; k++)
    if (t->row[k] == row && t->col[k] == col)
      return &t->val[k];
  if (!add)
    return NULL;
  if (t->count == 256) {
    printf("FAIL: too many triplets\n");
    exit(1);
  }
  t->row[t->count] = (int)row;
  t->col[t->count] = col;
  t->val[t->count] = 0;
  return &t->val[t->count++];
}
static double record_load(int64_t offset, int64_t row, struct triplets *t) {
  double *e = entry(offset, row, t, 0);
  return e ? *e : 0.0;
}
/* (Marked as Enzyme's sparse programs mark their store functions: for
 * Enzyme's automatic sparsification, which enzyme-rs does not do; the
 * attribute is accepted and changes nothing.) */
__attribute__((enzyme_sparse_accumulate)) static void record_store(double v, int64_t offset, int64_t row,
                                                                   struct triplets *t) {
  double *e = entry(offset, row, t, v != 0.0);
  if (e)
    *e = v;
}

/* Case 2's table: offsets to values, in the order first stored. */
struct table {
  int n, loads, stores;
  int64_t key[64];
  double val[64];
};
static double table_load(int64_t offset, struct table *t) {
  t->loads++;
  for (int k = 0; k < t->n; k++)
    if (t->key[k] == offset)
      return t->val[k];
  return 0.0;
}
static void table_store(double v, int64_t offset, struct table *t) {
  t->stores++;
  for (int k = 0; k < t->n; k++)
    if (t->key[k] == offset) {
      t->val[k] = v;
      return;
    }
  t->key[t->n] = offset;
  t->val[t->n] = v;
  t->n++;
}

/* Case 3: x read periodically through the pointer. */
static double periodic_load(int64_t offset, const double *x, int64_t n) {
  return x[(offset / (int64_t)sizeof(double)) % n];
}
static void periodic_store(double v, int64_t offset, const double *x, int64_t n) {
  (void)v, (void)offset, (void)x, (void)n;
  printf("FAIL: a store through the periodic pointer\n");
  exit(1);
}
/* Its tangent: e_col, periodic too. */
static double periodic_unit_load(int64_t offset, int64_t col, int64_t n) {
  return (offset / (int64_t)sizeof(double)) % n == col ? 1.0 : 0.0;
}
static void periodic_never_store(double v, int64_t offset, int64_t col, int64_t n) {
  (void)n;
  never_store(v, offset, col);
}
static double ring(const double *x, int n) {
  /* Reads x[0..n] (one past the end: the first again, through the pointer). */
  double e = 0;
  for (int i = 0; i < n; i++) {
    double d = x[i + 1] - x[i];
    e += d * d * d + cos(x[i]);
  }
  return e;
}
static double ring_plain(const double *x, int n) {
  double e = 0;
  for (int i = 0; i < n; i++) {
    double d = x[(i + 1) % n] - x[i];
    e += d * d * d + cos(x[i]);
  }
  return e;
}

/* Case 4: a function given a dense pointer that makes one of its own (both
 * lowered once it is inlined where the first was made). */
__attribute__((noinline)) static double pick(const double *w, int64_t col) {
  const double *u = __enzyme_todense((void *)unit_load, (void *)never_store, col);
  double s = 0;
  for (int i = 0; i < N + 2; i++)
    s += w[i] * u[i];
  return s;
}

int main(void) {
  double x[N] = {0.3, -0.2, 0.9, 0.1, -0.7, 0.5};

  /* 1. The sparse Hessian. */
  struct triplets t = {0};
  for (int64_t i = 0; i < N; i++) {
    double *seed = __enzyme_todense((void *)unit_load, (void *)never_store, i);
    double *record = __enzyme_todense((void *)record_load, (void *)record_store, i, &t);
    /* The gradient's own values are not wanted: Enzyme's programs pass an
     * address that must never be touched. */
    __enzyme_fwddiff((void *)gradient, enzyme_dup, x, seed, enzyme_dupnoneed, (double *)0x1, record,
                     enzyme_const, N);
  }
  double sparse[N][N] = {{0}};
  for (int k = 0; k < t.count; k++) {
    CHECK("triplet inside the band", fabs((double)(t.row[k] - t.col[k])) <= 1 ? 1 : 0, 1, 0);
    if (t.row[k] >= 0 && t.row[k] < N && t.col[k] >= 0 && t.col[k] < N)
      sparse[t.row[k]][t.col[k]] = t.val[k];
  }
  CHECK("one triplet per entry of the band", t.count, 3 * N - 2, 0);
  for (int i = 0; i < N; i++) {
    double e[N] = {0}, dx[N] = {0}, h[N] = {0};
    e[i] = 1;
    __enzyme_fwddiff((void *)gradient, enzyme_dup, x, e, enzyme_dup, dx, h, enzyme_const, N);
    double step = 1e-5, xp[N], xm[N], gp[N] = {0}, gm[N] = {0};
    memcpy(xp, x, sizeof x);
    memcpy(xm, x, sizeof x);
    xp[i] += step;
    xm[i] -= step;
    gradient(xp, gp, N);
    gradient(xm, gm, N);
    for (int j = 0; j < N; j++) {
      CHECK("sparse Hessian against dense", sparse[i][j], h[j], TOL_EXACT);
      CHECK("sparse Hessian against differences", sparse[i][j], (gp[j] - gm[j]) / (2 * step), TOL_FD);
    }
  }

  /* 2. Reverse mode into a table. */
  struct table tab = {0};
  double *dense = __enzyme_todense((void *)table_load, (void *)table_store, &tab);
  __enzyme_autodiff((void *)energy, enzyme_dup, x, dense, enzyme_const, N);
  double g[N] = {0};
  gradient(x, g, N);
  for (int j = 0; j < N; j++)
    CHECK("gradient through a table", table_load(j * (int64_t)sizeof(double), &tab), g[j], TOL_EXACT);
  CHECK("the table holds the gradient's entries", tab.n, N, 0);
  CHECK("every store came with a load", tab.stores > 0 && tab.loads >= tab.stores ? 1 : 0, 1, 0);

  /* 3. The primal through a dense pointer. */
  for (int64_t i = 0; i < N; i++) {
    const double *xs = __enzyme_todense((void *)periodic_load, (void *)periodic_store, (const double *)x, (int64_t)N);
    double *seed = __enzyme_todense((void *)periodic_unit_load, (void *)periodic_never_store, i, (int64_t)N);
    double got = __enzyme_fwddiff((void *)ring, enzyme_dup, xs, seed, enzyme_const, N);
    double e[N] = {0}, dx[N] = {0};
    e[i] = 1;
    double want = __enzyme_fwddiff((void *)ring_plain, enzyme_dup, x, e, enzyme_const, N);
    __enzyme_autodiff((void *)ring_plain, enzyme_dup, x, dx, enzyme_const, N);
    double step = 1e-6, xp[N], xm[N];
    memcpy(xp, x, sizeof x);
    memcpy(xm, x, sizeof x);
    xp[i] += step;
    xm[i] -= step;
    CHECK("periodic tangent against the plain function", got, want, TOL_EXACT);
    CHECK("periodic tangent against reverse", got, dx[i], TOL_MODES);
    CHECK("periodic tangent against differences", got, (ring_plain(xp, N) - ring_plain(xm, N)) / (2 * step), TOL_FD);
  }

  /* 4. Dense pointers through a function of the program's. */
  const double *w = __enzyme_todense((void *)periodic_load, (void *)periodic_store, (const double *)x, (int64_t)N);
  for (int64_t c = 0; c < N + 2; c++)
    CHECK("a dense pointer read through another", pick(w, c), x[c % N], 0);
  return CHECK_DONE();
}
