/* Enzyme's per-operation log of an error estimate: a program that defines
 * `enzymeLogError(id, err)` and `enzymeLogValue(id, res, n, operands)` gets
 * a call of each for every operation whose error reaches the result, with
 * that operation's error (Enzyme's model, written out by hand below) and its
 * result and operands. Enzyme's own example: in (1 - cos x) / x^2 four
 * operations are logged, and `sin(v4)`, only printed, is not. (A float
 * stored into a global would be logged too: the global carries derivatives.) */
#include <stdint.h>
#include <string.h>
#include "check.h"
#include "error_model.h"

#pragma STDC FP_CONTRACT OFF

double __enzyme_error_estimate(void *, ...);

enum { MAX_LOG = 16 };
static int errors_logged, values_logged;
static const char *error_ids[MAX_LOG], *value_ids[MAX_LOG];
static double logged_errors[MAX_LOG], logged_results[MAX_LOG], logged_operands[MAX_LOG][2];
static unsigned logged_counts[MAX_LOG];

void enzymeLogError(const char *id, double err) {
  if (errors_logged < MAX_LOG)
    error_ids[errors_logged] = id, logged_errors[errors_logged] = err;
  errors_logged++;
}

void enzymeLogValue(const char *id, double res, unsigned n, double *operands) {
  if (values_logged < MAX_LOG) {
    value_ids[values_logged] = id, logged_results[values_logged] = res, logged_counts[values_logged] = n;
    for (unsigned k = 0; k < n && k < 2; k++)
      logged_operands[values_logged][k] = operands[k];
  }
  values_logged++;
}

static double fun(double x) {
  double v1 = cos(x);
  double v2 = 1 - v1;
  double v3 = x * x;
  double v4 = v2 / v3;
  printf("sin(v4) = %g\n", sin(v4)); /* only shown: not logged */
  return v4;
}


int main(void) {
  double x = 1e-7;
  double e = __enzyme_error_estimate((void *)fun, x, 0.0);
  CHECK("the estimate (Enzyme's published value)", e, 2.2222222222e-2, 1e-4);
  CHECK("operations logged by enzymeLogError", errors_logged, 4, 0);
  CHECK("operations logged by enzymeLogValue", values_logged, 4, 0);
  if (errors_logged != 4 || values_logged != 4)
    return CHECK_DONE();
  /* Program order: cos, 1 - v1, x * x, v2 / v3. */
  double v1 = cos(x), v2 = 1 - v1, v3 = x * x, v4 = v2 / v3;
  double e1 = err(v1, 0), e2 = err(v2, fabs(e1 * v1 / v2)), e3 = err(v3, 0);
  double e4 = err(v4, fabs(e2 * v2 / v4 / v3) + fabs(e3 * v3 / v4 * (-v4 / v3)));
  double want_errors[4] = {e1, e2, e3, e4}, want_results[4] = {v1, v2, v3, v4};
  double want_operands[4][2] = {{x, 0}, {1, v1}, {x, x}, {v2, v3}};
  unsigned want_counts[4] = {1, 2, 2, 2};
  for (int k = 0; k < 4; k++) {
    CHECK("logged error", logged_errors[k], want_errors[k], 1e-12);
    CHECK("logged result", logged_results[k], want_results[k], 1e-15);
    CHECK("logged operand count", logged_counts[k], want_counts[k], 0);
    for (unsigned j = 0; j < want_counts[k]; j++)
      CHECK("logged operand", logged_operands[k][j], want_operands[k][j], 1e-15);
    CHECK("one id for the value and the error", strcmp(error_ids[k], value_ids[k]) == 0, 1, 0);
    for (int j = 0; j < k; j++)
      CHECK("a different id per operation", strcmp(error_ids[k], error_ids[j]) != 0, 1, 0);
  }
  printf("ids: %s %s %s %s\n", error_ids[0], error_ids[1], error_ids[2], error_ids[3]);
  return CHECK_DONE();
}
