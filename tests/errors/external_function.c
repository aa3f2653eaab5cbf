// expect: cannot differentiate call to external function `mystery_kernel`
// expect: void *__enzyme_register_gradient_mystery_kernel[3] = {(void *)mystery_kernel, (void *)mystery_kernel_aug, (void *)mystery_kernel_rev};
// expect: external_function.c:8
double __enzyme_autodiff(void *, ...);
double mystery_kernel(double);

double f(double x) {
  return mystery_kernel(x) * x;
}

int main(void) { return (int)__enzyme_autodiff((void *)f, 2.0); }
