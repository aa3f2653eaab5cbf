/* Globals registered inactive carry no derivative, even where the optimiser
 * forwards a value stored into one to a load after it (issue 39, item 1:
 * `g = x * x; return g * x;` gave 3x^2 instead of x^2 at every level).
 * Each spelling: the registration global __enzyme_inactive_global, the
 * attribute enzyme_inactive on a variable, annotate("enzyme_inactive");
 * a scalar, an array element read in a loop, a struct field, and a read in
 * a helper function the derivative inlines. Every answer below differs
 * when the registration is ignored; both modes, against closed forms. */
#include "check.h"

double g;
void *__enzyme_inactive_global[1] = {(void *)&g};

/* d/dx = g = x^2 (3x^2 if g carried a derivative). */
static double scalar(double x) {
  g = x * x;
  return g * x;
}

__attribute__((enzyme_inactive)) double table[4];

/* A table the code fills with active values and reads back in a loop:
 * d/dx = sum_k table[k] = x^2 (1 + 2 + 3 + 4) / 10 = x^2. */
static double array(double x) {
  for (int k = 0; k < 4; k++) table[k] = (k + 1) * x * x / 10;
  double s = 0;
  for (int k = 0; k < 4; k++) s += table[k] * x;
  return s;
}

struct stats {
  int calls;
  double last;
};
__attribute__((annotate("enzyme_inactive"))) struct stats seen;

/* A field of an inactive struct: d/dx = seen.last = sin x. */
static double field(double x) {
  seen.calls++;
  seen.last = sin(x);
  return seen.last * x;
}

double cached;
void *__enzyme_inactive_global_cache[1] = {(void *)&cached};

__attribute__((noinline)) static double read_cache(void) { return cached; }

/* Written here, read in a helper: d/dx = 2 * cached = 2 exp(x). */
static double through_call(double x) {
  cached = exp(x);
  return read_cache() * x * 2;
}

int main(void) {
  for (double x = 0.3; x < 1.5; x += 0.4) {
    double r = __enzyme_autodiff((void *)scalar, x);
    double f = __enzyme_fwddiff((void *)scalar, enzyme_dup, x, 1.0);
    CHECK("__enzyme_inactive_global: reverse", r, x * x, TOL_EXACT);
    CHECK("__enzyme_inactive_global: forward", f, x * x, TOL_EXACT);
    CHECK("the global holds the primal value", g, x * x, TOL_EXACT);

    r = __enzyme_autodiff((void *)array, x);
    f = __enzyme_fwddiff((void *)array, enzyme_dup, x, 1.0);
    CHECK("enzyme_inactive array: reverse", r, x * x, TOL_EXACT);
    CHECK("enzyme_inactive array: forward", f, x * x, TOL_EXACT);

    r = __enzyme_autodiff((void *)field, x);
    f = __enzyme_fwddiff((void *)field, enzyme_dup, x, 1.0);
    CHECK("annotate(enzyme_inactive) struct field: reverse", r, sin(x), TOL_EXACT);
    CHECK("annotate(enzyme_inactive) struct field: forward", f, sin(x), TOL_EXACT);

    r = __enzyme_autodiff((void *)through_call, x);
    f = __enzyme_fwddiff((void *)through_call, enzyme_dup, x, 1.0);
    CHECK("inactive global read in a helper: reverse", r, 2 * exp(x), TOL_EXACT);
    CHECK("inactive global read in a helper: forward", f, 2 * exp(x), TOL_EXACT);
  }
  CHECK("the inactive struct's counter counted every call", seen.calls, 3 * 2, 0);
  return CHECK_DONE();
}
