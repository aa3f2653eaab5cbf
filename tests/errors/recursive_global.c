// expect: cannot differentiate `rec`: it is called recursively and reads a global
// expect: recursive_global.c:6
double __enzyme_autodiff(void *, ...);
double gain = 1.5;

static double rec(double x, int n) { return n == 0 ? x * gain : x * rec(x, n - 1); }

static double f(double x) {
  gain = x * 0.5; /* written by the differentiated code: it has a shadow */
  return rec(x, 3);
}

int main(void) { return (int)__enzyme_autodiff((void *)f, 2.0); }
