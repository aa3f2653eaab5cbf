// expect: it contains a cycle entered in the middle (irreducible control flow)
// expect: needed by the `__enzyme_autodiff` call in `main`
double __enzyme_autodiff(void *, ...);

double jump_in(double x, int n) {
  int i = 0;
  if (n > 5)
    goto inside;
  for (; i < n; i++) {
    x = x * 1.1;
  inside:
    x = x + 1.0;
  }
  return x;
}

int main(int argc, char **argv) { return (int)__enzyme_autodiff((void *)jump_in, 2.0, argc); }
