/* A binary tree walked recursively (read-only): the shadow tree mirrors it
 * and receives the adjoints of every node's value. */
#include "check.h"

typedef struct tree {
  double value;
  struct tree *left, *right;
} tree;

void __enzyme_autodiff_v(void *, ...);

static double weighted_depth_sum(const tree *t, double scale) {
  if (!t) return 0;
  return scale * t->value * t->value + weighted_depth_sum(t->left, scale * 0.5) +
         weighted_depth_sum(t->right, scale * 0.25);
}

static double root_energy(const tree *t) { return weighted_depth_sum(t, 1.0); }

int main(void) {
  tree d = {0.5, NULL, NULL}, e = {-1.0, NULL, NULL}, b = {2.0, &d, NULL}, c = {1.5, NULL, &e}, a = {1.0, &b, &c};
  tree sd = {0, NULL, NULL}, se = {0, NULL, NULL}, sb = {0, &sd, NULL}, sc = {0, NULL, &se}, sa = {0, &sb, &sc};
  __enzyme_autodiff_v((void *)root_energy, enzyme_dup, &a, &sa);
  /* scales: a 1, b 0.5, c 0.25, d 0.25 (b's left), e 0.0625 (c's right) */
  CHECK("d/da", sa.value, 2 * 1.0 * 1.0, TOL_EXACT);
  CHECK("d/db", sb.value, 2 * 0.5 * 2.0, TOL_EXACT);
  CHECK("d/dc", sc.value, 2 * 0.25 * 1.5, TOL_EXACT);
  CHECK("d/dd", sd.value, 2 * 0.25 * 0.5, TOL_EXACT);
  CHECK("d/de", se.value, 2 * 0.0625 * -1.0, TOL_EXACT);
  tree td = {0, NULL, NULL}, te = {1, NULL, NULL}, tb = {0, &td, NULL}, tc = {0, NULL, &te}, ta = {0, &tb, &tc};
  CHECK("forward d/de", __enzyme_fwddiff((void *)root_energy, enzyme_dup, &a, &ta), se.value, TOL_MODES);
  return CHECK_DONE();
}
