/* The result's activity markers, as Enzyme's C++ header passes them (by
 * address or loaded): enzyme_const_return (reverse: nothing flows back from
 * the result, only from memory; forward: no tangent, the primal with
 * enzyme_primal_return), enzyme_active_return and enzyme_dup_return (the
 * defaults for float results). Checked against closed forms, forward
 * against reverse. */
#include "check.h"

extern int enzyme_const_return, enzyme_active_return, enzyme_dup_return, enzyme_primal_return;
typedef struct {
  double primal;
} only_primal;
only_primal __enzyme_fwddiff_primal(void *, ...);

/* A result and a side effect on memory. */
static double f(double x, double *acc) {
  acc[0] += x * x * x;
  return sin(x) * exp(x);
}

int main(void) {
  const double x = 0.5;
  double acc[1] = {0}, dacc[1] = {1};
  double dx = __enzyme_autodiff((void *)f, enzyme_const_return, x, enzyme_dup, acc, dacc);
  CHECK("reverse, constant result: only memory's adjoint", dx, 3 * x * x, TOL_EXACT);
  dacc[0] = 1;
  dx = __enzyme_autodiff((void *)f, &enzyme_active_return, x, enzyme_dup, acc, dacc);
  double dfx = (cos(x) + sin(x)) * exp(x);
  CHECK("reverse, active result (by address)", dx, 3 * x * x + dfx, TOL_EXACT);
  dacc[0] = 0;
  double t = __enzyme_fwddiff((void *)f, enzyme_dup_return, x, 1.0, enzyme_dup, acc, dacc);
  CHECK("forward, duplicated result: the tangent", t, dfx, TOL_EXACT);
  CHECK("forward: memory's tangent", dacc[0], 3 * x * x, TOL_EXACT);
  dacc[0] = 0;
  only_primal p =
      __enzyme_fwddiff_primal((void *)f, enzyme_const_return, enzyme_primal_return, x, 1.0, enzyme_dup, acc, dacc);
  CHECK("forward, constant result: the primal", p.primal, sin(x) * exp(x), TOL_EXACT);
  CHECK("forward, constant result: memory's tangent still", dacc[0], 3 * x * x, TOL_EXACT);
  printf("%d checks, %d failures\n", check_count, check_failures);
  return check_failures != 0;
}
