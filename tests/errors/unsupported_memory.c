// expect: cannot differentiate memory access (`load`) in `scale`
// expect: unsupported_memory.c:9
// expect: help: this version differentiates functions over scalar
double __enzyme_autodiff(void *, ...);
double factor = 3.0; /* written elsewhere, so it stays a load at every -O level */
void set_factor(double f) { factor = f; }

double scale(double x) {
  return x * factor;
}

int main(void) { return (int)__enzyme_autodiff((void *)scale, 2.0); }
