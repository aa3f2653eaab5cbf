/* Enzyme's annotations, as Enzyme's users write them: registration globals
 * (__enzyme_function_like, __enzyme_inactivefn, __enzyme_inactive_global),
 * the attributes enzyme_inactive and enzyme_function_like (read by our clang
 * plugin), annotate("enzyme_inactive"), __enzyme_ignore_derivatives and
 * __enzyme_call_inactive. Each is checked against a closed form, in both
 * modes, with the annotated function called in a loop. */
#include "check.h"

/* log1p by a truncated series: its own derivative is not 1/(1+x). */
static double log1p_series(double x) {
  double s = 0, p = x;
  for (int k = 1; k < 5; k++) {
    s += (k % 2 ? p : -p) / k;
    p *= x;
  }
  return s;
}
void *__enzyme_function_like[2] = {(void *)log1p_series, (void *)"log1p"};

/* exp by a few Taylor terms, declared to be differentiated as exp. */
__attribute__((enzyme_function_like("exp"))) static double exp_taylor(double x) {
  return 1 + x + x * x / 2 + x * x * x / 6;
}

/* Counters and logging: no derivative, whatever they compute. */
static int counted;
static double count_call(double x) {
  counted++;
  return x * 1e3;
}
void *__enzyme_inactivefn[1] = {(void *)count_call};

__attribute__((enzyme_inactive)) static double scale_of(double x) { return 7.0 * x; }
__attribute__((annotate("enzyme_inactive"))) static double offset_of(double x) { return x * x; }

static double inactive_log(double x, double y) { return x * y * 100.0; }

/* A cache the code writes active values into; declared inactive. */
double cache;
void *__enzyme_inactive_global[1] = {(void *)&cache};

double __enzyme_ignore_derivatives(double);
double __enzyme_call_inactive(void *, ...);

static double f(double x) {
  double s = 0;
  for (int k = 0; k < 3; k++) {
    s += log1p_series(x) * (k + 1);  /* d: 6 / (1 + x) */
    s += exp_taylor(x);              /* d: 3 exp(x) */
    s += count_call(x);              /* inactive */
    s += scale_of(x) + offset_of(x); /* inactive */
    cache = x * x;                   /* into an inactive global */
  }
  s += __enzyme_ignore_derivatives(x * x);              /* stop-gradient */
  s += __enzyme_call_inactive((void *)inactive_log, x, x); /* inactive call */
  return s * x;
}

/* Its closed-form derivative, with the annotated functions' rules. */
static double df(double x) {
  double s = 0;
  for (int k = 0; k < 3; k++) {
    s += log1p_series(x) * (k + 1) + exp_taylor(x) + count_call(x) + scale_of(x) + offset_of(x);
  }
  s += x * x + x * x * 100.0;
  /* exp's rule is written with its result, so the function's own value. */
  double ds = 6.0 / (1 + x) + 3 * exp_taylor(x);
  return s + ds * x;
}

int main(void) {
  for (double x = 0.1; x < 0.5; x += 0.15) {
    counted = 0;
    double rev = __enzyme_autodiff((void *)f, x);
    double fwd = __enzyme_fwddiff((void *)f, enzyme_dup, x, 1.0);
    int calls = counted;
    CHECK("reverse vs closed form", rev, df(x), TOL_EXACT);
    CHECK("forward vs reverse", fwd, rev, TOL_MODES);
    /* The inactive function ran once per primal call: 3 per mode. */
    CHECK("inactive calls ran once per primal evaluation", calls, 6, 0);
    CHECK("the inactive global holds the primal value", cache, x * x, TOL_EXACT);
  }
  return CHECK_DONE();
}
