// A checkpointed loop in reverse vector mode: refused at build time.
// expect: `f` has a checkpointed loop: not supported in reverse vector mode yet
// expect: call the width-1 derivative once per seed
#include <enzyme/checkpoint.h>
extern int enzyme_width, enzyme_dupv;
void __enzyme_autodiff(void *, ...);
static void step(int64_t i, double *x) { x[0] = x[0] * 1.01 + 0.001 * (double)i; }
static EnzymeCkptConfig config = {3, 0, 0, 0, 0};
static double f(double *x) {
  __enzyme_checkpoint_for((void *)step, 0, 20, enzyme_scheme, &EnzymeCkptRevolve, &config, enzyme_checkpoint_region,
                          x, sizeof(double), x);
  return x[0];
}
int main(void) {
  double x[1] = {1}, dx[2][1] = {{0}, {0}};
  __enzyme_autodiff((void *)f, enzyme_width, 2, enzyme_dupv, sizeof dx[0], x, &dx[0][0], 1.0, 2.0);
  return 0;
}
