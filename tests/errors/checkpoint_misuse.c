// Checkpointed loops called wrongly: no scheme, arguments that do not match
// the step (a float through `...` arrives as a double), a while loop's step
// that does not say whether to go on.
// expect: `__enzyme_checkpoint_for` needs `enzyme_scheme, &scheme, &config` after the number of steps
// expect: the arguments after the markers do not match `step`'s parameters after the step number
// expect: the step `step_while` of a checkpointed while loop must return an integer
// expect: checkpoint_misuse.c:15
#include <enzyme/checkpoint.h>
extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);
static void step(int64_t i, double *x, float k) { x[0] *= k + (float)i; }
static void step_while(int64_t i, double *x) { x[0] *= 0.5 + (double)i; }
static EnzymeCkptConfig c = {2, 0, 0, 0, 0};
static double f(double *x) {
  __enzyme_checkpoint_for((void *)step, 0, 5, &EnzymeCkptPeriodic, &c, x, 1.5f);
  __enzyme_checkpoint_for((void *)step, 0, 5, enzyme_scheme, &EnzymeCkptPeriodic, &c, x, 1.5f);
  __enzyme_checkpoint_while((void *)step_while, enzyme_scheme, &EnzymeCkptStoreAll, &c, x);
  return x[0];
}
int main(void) {
  double x = 1, dx = 0;
  __enzyme_autodiff((void *)f, enzyme_dup, &x, &dx);
  return 0;
}
