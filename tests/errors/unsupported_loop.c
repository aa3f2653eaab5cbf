// expect: cannot differentiate `sum3`: it contains a loop
// expect: unsupported_loop.c:
// expect: needed by the `__enzyme_autodiff` call in `main`
double __enzyme_autodiff(void *, ...);

double sum3(double x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x * i;
  return s;
}

int main(int argc, char **argv) { return (int)__enzyme_autodiff((void *)sum3, 2.0, argc); }
