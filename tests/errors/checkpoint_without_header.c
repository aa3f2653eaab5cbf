// A checkpointed loop in a program none of whose files includes enzyme-rs's
// <enzyme/checkpoint.h>, which defines the driver reverse mode calls.
// expect: `__enzyme_checkpoint_for` without enzyme-rs's checkpointing driver
// expect: include <enzyme/checkpoint.h> (the one installed with enzyme-rs)
// expect: checkpoint_without_header.c:13
#include <stdint.h>
extern int enzyme_dup, enzyme_scheme, enzyme_checkpoint_region;
void __enzyme_checkpoint_for(void *, int64_t, int64_t, ...);
double __enzyme_autodiff(void *, ...);
static void step(int64_t i, double *x) { x[0] *= 1.01 + 0.0 * (double)i; }
static int config[8];
static double f(double *x) {
  __enzyme_checkpoint_for((void *)step, 0, 10, enzyme_scheme, (void *)config, (void *)config,
                          enzyme_checkpoint_region, x, sizeof(double), x);
  return x[0];
}
int main(void) {
  double x = 1, dx = 0;
  __enzyme_autodiff((void *)f, enzyme_dup, &x, &dx);
  return 0;
}
