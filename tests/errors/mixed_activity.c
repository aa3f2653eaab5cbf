// expect: pointer that may or may not point to differentiated memory
// expect: help: choose between pointers of the same activity
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

double pick(const double *a, const double *b, int which) {
  const double *p = which ? a : b;
  return p[0] * p[1];
}

int main(int argc, char **argv) {
  double a[2] = {1, 2}, da[2] = {0}, b[2] = {3, 4};
  (void)argv;
  __enzyme_autodiff((void *)pick, enzyme_dup, a, da, enzyme_const, b, argc);
  return 0;
}
