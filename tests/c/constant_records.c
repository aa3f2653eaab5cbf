/* A record reset from a constant template before each use: the template
 * holds a name (a pointer to a string), integer counters and a zero weight,
 * and is copied whole (`*r = template`, a memcpy from constant memory) into
 * a record the caller passes with a shadow. The pointer and the integers are
 * their own shadow; the copied zero starts the weight's derivative at zero. */
#include "check.h"

struct record {
  const char *name;
  long counts[8];
  double weight;
};

static const struct record template_record = {"sample", {1, 2, 3, 4, 5, 6, 7, 8}, 0.0};

__attribute__((noinline)) static double score(const double *x, struct record *r, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    *r = template_record;
    r->weight += x[i] * x[i];
    s += r->weight * r->counts[i % 8] + (r->name[0] == 's' ? x[i] : 0.0);
  }
  return s;
}

int main(void) {
  enum { N = 5 };
  double x[N] = {0.3, -0.7, 1.1, 0.25, -1.4}, dx2[N] = {0}, tx[N];
  struct record r, r2, dr2 = {0};
  __enzyme_autodiff((void *)score, enzyme_dup, x, dx2, enzyme_dup, &r2, &dr2, enzyme_const, N);
  for (int i = 0; i < N; i++) {
    double want = 2 * x[i] * (i % 8 + 1) + 1.0;
    CHECK("constant record copied in: reverse", dx2[i], want, TOL_EXACT);
    double h = 1e-6, xp[N], xm[N];
    for (int k = 0; k < N; k++) xp[k] = xm[k] = x[k], tx[k] = k == i;
    xp[i] += h, xm[i] -= h;
    CHECK("constant record copied in: finite difference", (score(xp, &r, N) - score(xm, &r, N)) / (2 * h), want, TOL_FD);
    struct record r3, dr3 = {0};
    double t = __enzyme_fwddiff((void *)score, enzyme_dup, x, tx, enzyme_dup, &r3, &dr3, enzyme_const, N);
    CHECK("constant record copied in: forward against reverse", t, dx2[i], TOL_MODES);
    CHECK("constant record: the shadow's name is the primal's", dr3.name == r3.name, 1, 0);
  }
  return CHECK_DONE();
}
