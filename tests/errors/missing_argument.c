// expect: call is missing an argument for parameter
// expect: of `mul`
// expect: missing_argument.c:8
double __enzyme_autodiff(void *, ...);
double mul(double x, double y) { return x * y; }

int main(void) {
  return (int)__enzyme_autodiff((void *)mul, 2.0);
}
