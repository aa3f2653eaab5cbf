// expect: the first argument of `__enzyme_autodiff` must be a function
double __enzyme_autodiff(void *, ...);
double sq(double x) { return x * x; }

int main(int argc, char **argv) {
  void *fp = argc > 5 ? (void *)sq : (void *)argv;
  return (int)__enzyme_autodiff(fp, 2.0);
}
