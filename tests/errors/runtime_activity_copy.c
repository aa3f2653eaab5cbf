// expect: memory operation (`memset`, `memcpy`) through a pointer whose activity is decided at run time
// expect: help: with `enzyme_runtime_activity`, a pointer chosen between one with a shadow and one without
/* A copy out of a pointer whose activity is decided at run time. */
#include <string.h>
extern int enzyme_dup, enzyme_const, enzyme_runtime_activity;
double __enzyme_autodiff(void *, ...);

__attribute__((noinline)) double copy_pick(double *a, double *b, double *out, int which, int n) {
  double *p = which ? a : b;
  memcpy(out, p, n * sizeof(double));
  return out[0] * out[1];
}

int main(int argc, char **argv) {
  double a[2] = {1, 2}, da[2] = {0}, b[2] = {3, 4}, o[2], d_o[2] = {0};
  (void)argv;
  __enzyme_autodiff((void *)copy_pick, enzyme_dup, a, da, enzyme_const, b, enzyme_dup, o, d_o, argc, 2,
                    enzyme_runtime_activity);
  return 0;
}
