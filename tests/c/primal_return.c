/* enzyme_primal_return: the primal result comes back first, then the
 * adjoints (reverse) or the tangent (forward), in a struct the caller
 * declares; enzyme_noret (the primal is not needed) changes nothing. With a
 * pointer argument whose shadow gets its adjoint, and a loop. Checked against
 * the primal itself, closed forms and forward against reverse. */
#include "check.h"

extern int enzyme_primal_return, enzyme_noret;
typedef struct {
  double primal, dx, dy;
} with_primal;
with_primal __enzyme_autodiff_primal(void *, ...);
typedef struct {
  double primal, tangent;
} primal_tangent;
primal_tangent __enzyme_fwddiff_primal(void *, ...);
typedef struct {
  float primal, dx;
} with_primal_f;
with_primal_f __enzyme_autodiff_primal_f(void *, ...);

static double f(double x, double y, const double *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += p[i] * pow(x, i + 1);
  return sin(x) * y + s;
}

static float g(float x) { return x * expf(x); }

int main(void) {
  double p[3] = {2.0, -1.0, 0.5}, dp[3] = {0, 0, 0};
  double x = 0.7, y = 1.3;
  with_primal r = __enzyme_autodiff_primal((void *)f, enzyme_primal_return, x, y, enzyme_dup, p, dp, enzyme_const, 3);
  CHECK("reverse: the primal", r.primal, f(x, y, p, 3), TOL_EXACT);
  double want_dx = cos(x) * y + p[0] + 2 * p[1] * x + 3 * p[2] * x * x;
  CHECK("reverse: d/dx", r.dx, want_dx, TOL_EXACT);
  CHECK("reverse: d/dy", r.dy, sin(x), TOL_EXACT);
  for (int i = 0; i < 3; i++) CHECK("reverse: d/dp", dp[i], pow(x, i + 1), TOL_EXACT);
  /* The marker after the arguments, with a seed. */
  with_primal r2 = __enzyme_autodiff_primal((void *)f, x, y, enzyme_const, p, enzyme_const, 3, enzyme_primal_return, 2.0);
  CHECK("reverse, seeded: the primal", r2.primal, r.primal, TOL_EXACT);
  CHECK("reverse, seeded: d/dx", r2.dx, 2 * want_dx, TOL_EXACT);
  primal_tangent t =
      __enzyme_fwddiff_primal((void *)f, enzyme_primal_return, x, 1.0, y, 0.0, enzyme_const, p, enzyme_const, 3);
  CHECK("forward: the primal", t.primal, r.primal, TOL_EXACT);
  CHECK("forward: tangent against reverse", t.tangent, r.dx, TOL_MODES);
  double dx = __enzyme_autodiff((void *)f, enzyme_noret, x, enzyme_const, y, enzyme_const, p, enzyme_const, 3);
  CHECK("enzyme_noret: d/dx", dx, want_dx, TOL_EXACT);
  with_primal_f rf = __enzyme_autodiff_primal_f((void *)g, enzyme_primal_return, 0.5f);
  CHECK("float: the primal", rf.primal, g(0.5f), TOL_FLOAT);
  CHECK("float: d/dx", rf.dx, (1 + 0.5) * exp(0.5), TOL_FLOAT);
  printf("%d checks, %d failures\n", check_count, check_failures);
  return check_failures != 0;
}
