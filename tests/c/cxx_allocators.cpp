// C++ allocation functions in differentiated code, both modes (issue 39,
// item 2): `new (std::nothrow)`, over-aligned types (`alignas(64)`, whose
// `operator new` and `operator delete` take the alignment), arrays of them,
// and sized deallocation. Each block's shadow is allocated and freed the
// same way as the block; Jacobians against central differences, forward
// against reverse; valgrind (the -O2 -g run) checks the frees match.
#include <new>
#include "jacobian.h"

struct alignas(64) cell {
  double v[3];
};

static void nothrow_new(const double *x, double *y) {
  double *b = new (std::nothrow) double[3];
  if (!b) {
    y[0] = 0;
    return;
  }
  for (int k = 0; k < 3; k++) b[k] = x[k] * x[(k + 1) % 3];
  y[0] = b[0] + 2 * b[1] + 3 * b[2];
  delete[] b;
}

static void aligned_new(const double *x, double *y) {
  cell *c = new cell;
  for (int k = 0; k < 3; k++) c->v[k] = sin(x[k]);
  y[0] = c->v[0] * c->v[1] + c->v[2];
  delete c;
}

static void aligned_array(const double *x, double *y) {
  cell *c = new cell[2];
  for (int j = 0; j < 2; j++)
    for (int k = 0; k < 3; k++) c[j].v[k] = x[k] * (j + 1);
  y[0] = c[0].v[0] * c[1].v[1] + c[1].v[2] * c[0].v[2];
  y[1] = c[1].v[0];
  delete[] c;
}

static void aligned_nothrow(const double *x, double *y) {
  cell *c = new (std::nothrow) cell;
  c->v[0] = x[0] * x[1];
  c->v[1] = exp(c->v[0]);
  y[0] = c->v[1] + x[2];
  delete c;
}

struct node {
  double w;
  node *next;
};

// Sized `operator delete(void *, size_t)`.
static void sized_delete(const double *x, double *y) {
  node *a = new node{x[0], nullptr};
  node *b = new node{x[1] * a->w, a};
  y[0] = b->w + b->next->w * x[2];
  ::operator delete(b, sizeof(node));
  ::operator delete(a, sizeof(node));
}

int main() {
  CHECK_JACOBIAN(nothrow_new, 3, 1, 0.5, -0.25, 1.5);
  CHECK_JACOBIAN(aligned_new, 3, 1, 0.5, -0.25, 1.5);
  CHECK_JACOBIAN(aligned_array, 3, 2, 0.5, -0.25, 1.5);
  CHECK_JACOBIAN(aligned_nothrow, 3, 1, 0.5, -0.25, 1.5);
  CHECK_JACOBIAN(sized_delete, 3, 1, 0.5, -0.25, 1.5);
  return CHECK_DONE();
}
