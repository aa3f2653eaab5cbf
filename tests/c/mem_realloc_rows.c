/* Blocks of pointers grown with realloc inside the differentiated code: a
 * table of rows whose array of row pointers doubles as rows are added (its
 * shadow carries the rows' shadows along), each row itself grown with
 * realloc while it is filled, then linked into the table (its shadow is
 * kept until the reverse sweep is done with it); a block of pointers into
 * the input grown one entry at a time; and a block of structs holding a
 * float and a pointer. */
#include <stdlib.h>
#include "jacobian.h"

struct row {
  double *v;
  int n, cap;
};

static void push(struct row *r, double v) {
  if (r->n == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 1;
    r->v = realloc(r->v, r->cap * sizeof(double));
  }
  r->v[r->n++] = v;
}

static void table(const double *x, double *y) {
  int rows = 0, cap = 0;
  double **row = NULL;
  int *len = NULL;
  for (int i = 0; i < 6; i++) {
    if (rows == cap) {
      cap = cap ? 2 * cap : 1;
      row = realloc(row, cap * sizeof *row);
      len = realloc(len, cap * sizeof *len);
    }
    struct row r = {NULL, 0, 0};
    for (int j = 0; j <= i; j++) push(&r, x[(i + j) % 4] * x[j % 4] + j);
    row[rows] = r.v;
    len[rows++] = r.n;
  }
  double s = 0, t = 0;
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < len[i]; j++) s += row[i][j] * sin(row[(i + 1) % rows][0] + j);
  for (int i = 0; i < rows; i++) t += row[i][len[i] - 1] * row[i][len[i] - 1], free(row[i]);
  free(row);
  free(len);
  y[0] = s;
  y[1] = t;
}

/* A block of pointers into the input, grown one entry at a time. */
static void pointers(const double *x, double *y) {
  const double **at = malloc(sizeof *at);
  double s = 0;
  for (int i = 0; i < 4; i++) {
    at = realloc(at, (i + 1) * sizeof *at);
    at[i] = x + (3 * i + 1) % 4;
    s += *at[i] * *at[i] * (i + 1);
  }
  for (int i = 0; i < 4; i++) s += *at[i] * *at[(i + 1) % 4];
  free(at);
  y[0] = s;
}

/* A block of structs holding a float beside a pointer into the input: only
 * the floats' adjoints move back when it grows. */
struct weighted {
  double w;
  const double *at;
  int k;
};

static void weighted(const double *x, double *y) {
  struct weighted *e = malloc(sizeof *e);
  double s = 0;
  for (int i = 0; i < 5; i++) {
    e = realloc(e, (i + 1) * sizeof *e);
    e[i].w = x[i % 4] * (i + 2);
    e[i].at = x + (i + 1) % 4;
    e[i].k = i;
  }
  for (int i = 0; i < 5; i++) s += e[i].w * *e[i].at * e[(i + 2) % 5].w + e[i].k;
  free(e);
  y[0] = s;
}

int main(void) {
  CHECK_JACOBIAN(table, 4, 2, 0.5, -1.0, 1.5, 0.25);
  CHECK_JACOBIAN(weighted, 4, 1, 0.5, -1.0, 1.5, 0.25);
  CHECK_JACOBIAN(pointers, 4, 1, 0.5, -1.0, 1.5, 0.25);
  return CHECK_DONE();
}
