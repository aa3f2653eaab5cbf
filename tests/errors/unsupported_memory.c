// expect: cannot differentiate store of a differentiated value into memory that has no shadow in `scale`
// expect: unsupported_memory.c:9
// expect: help: pass the pointer with `enzyme_dup`
double __enzyme_autodiff(void *, ...);
double last; /* a global: it has no shadow, so active values may not be kept in it */
double get_last(void) { return last; }

double scale(double x) {
  last = x * 3.0;
  return x * get_last();
}

int main(void) { return (int)__enzyme_autodiff((void *)scale, 2.0); }
