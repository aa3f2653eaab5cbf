/* Pointer-walking loops: p++ until an end pointer, a stride of two, and a
 * linked list whose shadow list mirrors it. */
#include "jacobian.h"

static void walk(const double *x, double *y) {
  const double *p = x, *end = x + 6;
  double s = 0, q = 1;
  while (p != end) {
    s += *p * *p;
    q *= 1 + 0.1 * *p++;
  }
  y[0] = s;
  y[1] = q;
}

static void stride2(const double *x, double *y) {
  double s = 0;
  for (const double *p = x + 1; p < x + 6; p += 2) s += p[0] * p[-1];
  y[0] = s;
}

typedef struct node {
  double value;
  struct node *next;
} node;

void __enzyme_autodiff_v(void *, ...);

static double list_energy(const node *n) {
  double e = 0, prev = 0;
  for (; n; n = n->next) {
    e += (n->value - prev) * (n->value - prev);
    prev = n->value;
  }
  return e;
}

int main(void) {
  CHECK_JACOBIAN(walk, 6, 2, 0.5, -1, 2, 0.25, 1.5, 3);
  CHECK_JACOBIAN(stride2, 6, 1, 0.5, -1, 2, 0.25, 1.5, 3);
  node c = {3.0, NULL}, b = {1.0, &c}, a = {0.5, &b};
  node dc = {0, NULL}, db = {0, &dc}, da = {0, &db};
  __enzyme_autodiff_v((void *)list_energy, enzyme_dup, &a, &da);
  /* e = a^2 + (b-a)^2 + (c-b)^2 */
  CHECK("list d/da", da.value, 2 * 0.5 - 2 * (1.0 - 0.5), TOL_EXACT);
  CHECK("list d/db", db.value, 2 * (1.0 - 0.5) - 2 * (3.0 - 1.0), TOL_EXACT);
  CHECK("list d/dc", dc.value, 2 * (3.0 - 1.0), TOL_EXACT);
  node tc = {1, NULL}, tb = {0, &tc}, ta = {0, &tb};
  CHECK("list forward d/dc", __enzyme_fwddiff((void *)list_energy, enzyme_dup, &a, &ta), dc.value, TOL_MODES);
  return CHECK_DONE();
}
