// expect: cannot differentiate call to external function `mystery_kernel`
// expect: external_function.c:7
double __enzyme_autodiff(void *, ...);
double mystery_kernel(double);

double f(double x) {
  return mystery_kernel(x) * x;
}

int main(void) { return (int)__enzyme_autodiff((void *)f, 2.0); }
