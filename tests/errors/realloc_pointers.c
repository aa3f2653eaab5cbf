// expect: cannot differentiate `realloc` of a block whose contents are not plain floats or integers
// expect: realloc_pointers.c:17
/* A block of structs holding a float and a pointer, grown with realloc and
 * also read byte by byte: which bytes are floats is no longer clear from
 * its accesses (read field by field only, it works). */
#include <stdlib.h>
extern int enzyme_dup;
double __enzyme_autodiff(void *, ...);

struct weighted { double w; const double *at; };

double sum_rows(const double *x, int n) {
  struct weighted *rows = malloc(sizeof *rows);
  double s = 0;
  unsigned check = 0;
  for (int i = 0; i < n; i++) {
    rows = realloc(rows, (i + 1) * sizeof *rows);
    rows[i].w = x[i] * 2;
    rows[i].at = x + i;
    s += rows[i].w * *rows[i].at;
  }
  for (unsigned long j = 0; j < n * sizeof *rows; j++) check += ((const unsigned char *)rows)[j];
  free(rows);
  return s + (check == 7);
}

int main(int argc, char **argv) {
  double x[3] = {1, 2, 3}, dx[3] = {0};
  (void)argv;
  __enzyme_autodiff((void *)sum_rows, enzyme_dup, x, dx, argc + 2);
  return 0;
}
