/* Derivatives of MPI's Fortran bindings (`include 'mpif.h'`, as flang calls
 * them: `mpi_send_(buf, count, datatype, ..., ierror)`, every argument by
 * reference, handles as Fortran integers): each rule converts the handles
 * and calls the C binding's rule (mpi.c, in this translation unit: the
 * Makefile compiles this file, which includes it). */
#include "mpi.c"

typedef MPI_Fint fint;

static MPI_Datatype ftype(const fint *t) { return MPI_Type_f2c(*t); }
static MPI_Comm fcomm(const fint *c) { return MPI_Comm_f2c(*c); }
static MPI_Op fop(const fint *o) { return MPI_Op_f2c(*o); }

/* MPICH learns the addresses of Fortran's special arguments (MPI_IN_PLACE,
 * MPI_STATUS_IGNORE, members of common blocks) on its Fortran bindings'
 * first call; the rules call the C bindings, so they ask first. */
extern int MPIR_F_NeedInit;
extern void *MPIR_F_MPI_IN_PLACE;
void mpirinitf_(void);
static void fortran_addresses(void) {
  if (MPIR_F_NeedInit) {
    mpirinitf_();
    MPIR_F_NeedInit = 0;
  }
}

/* A Fortran status (or MPI_STATUS_IGNORE) from a C one. */
static void fstatus_from(fint *f, const MPI_Status *c) {
  fortran_addresses();
  if (f != MPI_F_STATUS_IGNORE)
    MPI_Status_c2f(c, f);
}

void mpi_send_(const void *, const fint *, const fint *, const fint *, const fint *, const fint *, fint *);
void mpi_recv_(void *, const fint *, const fint *, const fint *, const fint *, const fint *, fint *, fint *);
void mpi_bcast_(void *, const fint *, const fint *, const fint *, const fint *, fint *);
void mpi_reduce_(const void *, void *, const fint *, const fint *, const fint *, const fint *, const fint *, fint *);
void mpi_allreduce_(const void *, void *, const fint *, const fint *, const fint *, const fint *, fint *);


/* ---- mpi_send_ ---- */
static void f_send_fwd(const void *buf, const void *dbuf, const fint *n, const fint *dn, const fint *dt,
                       const fint *ddt, const fint *dest, const fint *ddest, const fint *tag, const fint *dtag,
                       const fint *comm, const fint *dcomm, fint *ierr, fint *dierr) {
  (void)dn, (void)ddt, (void)ddest, (void)dtag, (void)dcomm, (void)dierr;
  *ierr = send_fwd(buf, dbuf, *n, ftype(dt), *dest, *tag, fcomm(comm));
}
static void f_send_aug(const void *buf, void *dbuf, const fint *n, const fint *dn, const fint *dt, const fint *ddt,
                       const fint *dest, const fint *ddest, const fint *tag, const fint *dtag, const fint *comm,
                       const fint *dcomm, fint *ierr, fint *dierr) {
  (void)dn, (void)ddt, (void)ddest, (void)dtag, (void)dcomm, (void)dierr;
  *ierr = send_aug(buf, dbuf, *n, ftype(dt), *dest, *tag, fcomm(comm));
}
static void f_send_rev(const void *buf, void *dbuf, const fint *n, const fint *dn, const fint *dt, const fint *ddt,
                       const fint *dest, const fint *ddest, const fint *tag, const fint *dtag, const fint *comm,
                       const fint *dcomm, fint *ierr, fint *dierr) {
  (void)dn, (void)ddt, (void)ddest, (void)dtag, (void)dcomm, (void)ierr, (void)dierr;
  send_rev(buf, dbuf, *n, ftype(dt), *dest, *tag, fcomm(comm));
}
REGISTER void *__enzyme_register_derivative_mpi_send_[2] = {(void *)mpi_send_, (void *)f_send_fwd};
REGISTER void *__enzyme_register_gradient_mpi_send_[3] = {(void *)mpi_send_, (void *)f_send_aug, (void *)f_send_rev};

/* ---- mpi_recv_ ---- */
static void f_recv_fwd(void *buf, void *dbuf, const fint *n, const fint *dn, const fint *dt, const fint *ddt,
                       const fint *src, const fint *dsrc, const fint *tag, const fint *dtag, const fint *comm,
                       const fint *dcomm, fint *status, fint *dstatus, fint *ierr, fint *dierr) {
  (void)dn, (void)ddt, (void)dsrc, (void)dtag, (void)dcomm, (void)dstatus, (void)dierr;
  MPI_Status st;
  *ierr = recv_fwd(buf, dbuf, *n, ftype(dt), *src, *tag, fcomm(comm), &st, NULL);
  fstatus_from(status, &st);
}
static void *f_recv_aug(void *buf, void *dbuf, const fint *n, const fint *dn, const fint *dt, const fint *ddt,
                        const fint *src, const fint *dsrc, const fint *tag, const fint *dtag, const fint *comm,
                        const fint *dcomm, fint *status, fint *dstatus, fint *ierr, fint *dierr) {
  (void)dn, (void)ddt, (void)dsrc, (void)dtag, (void)dcomm, (void)dstatus, (void)dierr;
  MPI_Status st;
  aug_int a = recv_aug(buf, dbuf, *n, ftype(dt), *src, *tag, fcomm(comm), &st, NULL);
  fstatus_from(status, &st);
  *ierr = a.result;
  return a.tape;
}
static void f_recv_rev(void *buf, void *dbuf, const fint *n, const fint *dn, const fint *dt, const fint *ddt,
                       const fint *src, const fint *dsrc, const fint *tag, const fint *dtag, const fint *comm,
                       const fint *dcomm, fint *status, fint *dstatus, fint *ierr, fint *dierr, void *tape) {
  (void)dn, (void)ddt, (void)dsrc, (void)dtag, (void)dcomm, (void)status, (void)dstatus, (void)ierr, (void)dierr;
  recv_rev(buf, dbuf, *n, ftype(dt), *src, *tag, fcomm(comm), MPI_STATUS_IGNORE, NULL, tape);
}
REGISTER void *__enzyme_register_derivative_mpi_recv_[2] = {(void *)mpi_recv_, (void *)f_recv_fwd};
REGISTER void *__enzyme_register_gradient_mpi_recv_[3] = {(void *)mpi_recv_, (void *)f_recv_aug, (void *)f_recv_rev};

/* ---- mpi_bcast_ ---- */
static void f_bcast_fwd(void *buf, void *dbuf, const fint *n, const fint *dn, const fint *dt, const fint *ddt,
                        const fint *root, const fint *droot, const fint *comm, const fint *dcomm, fint *ierr,
                        fint *dierr) {
  (void)dn, (void)ddt, (void)droot, (void)dcomm, (void)dierr;
  *ierr = bcast_fwd(buf, dbuf, *n, ftype(dt), *root, fcomm(comm));
}
static void f_bcast_aug(void *buf, void *dbuf, const fint *n, const fint *dn, const fint *dt, const fint *ddt,
                        const fint *root, const fint *droot, const fint *comm, const fint *dcomm, fint *ierr,
                        fint *dierr) {
  (void)dn, (void)ddt, (void)droot, (void)dcomm, (void)dierr;
  *ierr = bcast_aug(buf, dbuf, *n, ftype(dt), *root, fcomm(comm));
}
static void f_bcast_rev(void *buf, void *dbuf, const fint *n, const fint *dn, const fint *dt, const fint *ddt,
                        const fint *root, const fint *droot, const fint *comm, const fint *dcomm, fint *ierr,
                        fint *dierr) {
  (void)dn, (void)ddt, (void)droot, (void)dcomm, (void)ierr, (void)dierr;
  bcast_rev(buf, dbuf, *n, ftype(dt), *root, fcomm(comm));
}
REGISTER void *__enzyme_register_derivative_mpi_bcast_[2] = {(void *)mpi_bcast_, (void *)f_bcast_fwd};
REGISTER void *__enzyme_register_gradient_mpi_bcast_[3] = {(void *)mpi_bcast_, (void *)f_bcast_aug,
                                                          (void *)f_bcast_rev};

/* MPI_IN_PLACE in Fortran: the C binding's MPI_IN_PLACE. */
static const void *fsend(const void *send) {
  fortran_addresses();
  return send == MPIR_F_MPI_IN_PLACE ? MPI_IN_PLACE : send;
}

/* ---- mpi_allreduce_ ---- */
static void f_allreduce_fwd(const void *send, const void *dsend, void *recv, void *drecv, const fint *n,
                            const fint *dn, const fint *dt, const fint *ddt, const fint *op, const fint *dop,
                            const fint *comm, const fint *dcomm, fint *ierr, fint *dierr) {
  (void)dn, (void)ddt, (void)dop, (void)dcomm, (void)dierr;
  *ierr = allreduce_fwd(fsend(send), dsend, recv, drecv, *n, ftype(dt), fop(op), fcomm(comm));
}
static void *f_allreduce_aug(const void *send, void *dsend, void *recv, void *drecv, const fint *n, const fint *dn,
                             const fint *dt, const fint *ddt, const fint *op, const fint *dop, const fint *comm,
                             const fint *dcomm, fint *ierr, fint *dierr) {
  (void)dn, (void)ddt, (void)dop, (void)dcomm, (void)dierr;
  aug_int a = allreduce_aug(fsend(send), dsend, recv, drecv, *n, ftype(dt), fop(op), fcomm(comm));
  *ierr = a.result;
  return a.tape;
}
static void f_allreduce_rev(const void *send, void *dsend, void *recv, void *drecv, const fint *n, const fint *dn,
                            const fint *dt, const fint *ddt, const fint *op, const fint *dop, const fint *comm,
                            const fint *dcomm, fint *ierr, fint *dierr, void *tape) {
  (void)dn, (void)ddt, (void)dop, (void)dcomm, (void)ierr, (void)dierr;
  allreduce_rev(fsend(send), dsend, recv, drecv, *n, ftype(dt), fop(op), fcomm(comm), tape);
}
REGISTER void *__enzyme_register_derivative_mpi_allreduce_[2] = {(void *)mpi_allreduce_, (void *)f_allreduce_fwd};
REGISTER void *__enzyme_register_gradient_mpi_allreduce_[3] = {(void *)mpi_allreduce_, (void *)f_allreduce_aug,
                                                              (void *)f_allreduce_rev};

/* ---- mpi_reduce_ ---- */
static void f_reduce_fwd(const void *send, const void *dsend, void *recv, void *drecv, const fint *n, const fint *dn,
                         const fint *dt, const fint *ddt, const fint *op, const fint *dop, const fint *root,
                         const fint *droot, const fint *comm, const fint *dcomm, fint *ierr, fint *dierr) {
  (void)dn, (void)ddt, (void)dop, (void)droot, (void)dcomm, (void)dierr;
  *ierr = reduce_fwd(fsend(send), dsend, recv, drecv, *n, ftype(dt), fop(op), *root, fcomm(comm));
}
static void *f_reduce_aug(const void *send, void *dsend, void *recv, void *drecv, const fint *n, const fint *dn,
                          const fint *dt, const fint *ddt, const fint *op, const fint *dop, const fint *root,
                          const fint *droot, const fint *comm, const fint *dcomm, fint *ierr, fint *dierr) {
  (void)dn, (void)ddt, (void)dop, (void)droot, (void)dcomm, (void)dierr;
  aug_int a = reduce_aug(fsend(send), dsend, recv, drecv, *n, ftype(dt), fop(op), *root, fcomm(comm));
  *ierr = a.result;
  return a.tape;
}
static void f_reduce_rev(const void *send, void *dsend, void *recv, void *drecv, const fint *n, const fint *dn,
                         const fint *dt, const fint *ddt, const fint *op, const fint *dop, const fint *root,
                         const fint *droot, const fint *comm, const fint *dcomm, fint *ierr, fint *dierr, void *tape) {
  (void)dn, (void)ddt, (void)dop, (void)droot, (void)dcomm, (void)ierr, (void)dierr;
  reduce_rev(fsend(send), dsend, recv, drecv, *n, ftype(dt), fop(op), *root, fcomm(comm), tape);
}
REGISTER void *__enzyme_register_derivative_mpi_reduce_[2] = {(void *)mpi_reduce_, (void *)f_reduce_fwd};
REGISTER void *__enzyme_register_gradient_mpi_reduce_[3] = {(void *)mpi_reduce_, (void *)f_reduce_aug,
                                                           (void *)f_reduce_rev};

void mpi_sendrecv_(const void *, const fint *, const fint *, const fint *, const fint *, void *, const fint *,
                   const fint *, const fint *, const fint *, const fint *, fint *, fint *);
void mpi_allgather_(const void *, const fint *, const fint *, void *, const fint *, const fint *, const fint *, fint *);
void mpi_gather_(const void *, const fint *, const fint *, void *, const fint *, const fint *, const fint *,
                 const fint *, fint *);
void mpi_scatter_(const void *, const fint *, const fint *, void *, const fint *, const fint *, const fint *,
                  const fint *, fint *);

/* ---- mpi_sendrecv_ ---- */
#define SENDRECV_PARAMS(SEND_SHADOW, RECV_SHADOW)                                                                     \
  const void *send, SEND_SHADOW dsend, const fint *sc, const fint *dsc, const fint *st, const fint *dst,               \
      const fint *dest, const fint *ddest, const fint *stag, const fint *dstag, void *recv, RECV_SHADOW drecv,        \
      const fint *rc, const fint *drc, const fint *rt, const fint *drt, const fint *src, const fint *dsrc,             \
      const fint *rtag, const fint *drtag, const fint *comm, const fint *dcomm, fint *status, fint *dstatus,           \
      fint *ierr, fint *dierr
#define SENDRECV_UNUSED                                                                                               \
  (void)dsc, (void)dst, (void)ddest, (void)dstag, (void)drc, (void)drt, (void)dsrc, (void)drtag, (void)dcomm,        \
      (void)dstatus, (void)dierr
static void f_sendrecv_fwd(SENDRECV_PARAMS(const void *, void *)) {
  SENDRECV_UNUSED;
  MPI_Status s;
  *ierr = sendrecv_fwd(send, dsend, *sc, ftype(st), *dest, *stag, recv, drecv, *rc, ftype(rt), *src, *rtag,
                       fcomm(comm), &s, NULL);
  fstatus_from(status, &s);
}
static void *f_sendrecv_aug(SENDRECV_PARAMS(void *, void *)) {
  SENDRECV_UNUSED;
  MPI_Status s;
  aug_int a = sendrecv_aug(send, dsend, *sc, ftype(st), *dest, *stag, recv, drecv, *rc, ftype(rt), *src, *rtag,
                           fcomm(comm), &s, NULL);
  fstatus_from(status, &s);
  *ierr = a.result;
  return a.tape;
}
static void f_sendrecv_rev(SENDRECV_PARAMS(void *, void *), void *tape) {
  SENDRECV_UNUSED, (void)status, (void)ierr;
  sendrecv_rev(send, dsend, *sc, ftype(st), *dest, *stag, recv, drecv, *rc, ftype(rt), *src, *rtag, fcomm(comm),
               MPI_STATUS_IGNORE, NULL, tape);
}
REGISTER void *__enzyme_register_derivative_mpi_sendrecv_[2] = {(void *)mpi_sendrecv_, (void *)f_sendrecv_fwd};
REGISTER void *__enzyme_register_gradient_mpi_sendrecv_[3] = {(void *)mpi_sendrecv_, (void *)f_sendrecv_aug,
                                                             (void *)f_sendrecv_rev};

/* ---- mpi_allgather_, mpi_gather_, mpi_scatter_: the same shape, a root for the last two ---- */
#define GATHER_PARAMS(SEND_SHADOW)                                                                                     \
  const void *send, SEND_SHADOW dsend, const fint *sc, const fint *dsc, const fint *st, const fint *dst, void *recv,   \
      void *drecv, const fint *rc, const fint *drc, const fint *rt, const fint *drt
#define GATHER_UNUSED (void)dsc, (void)dst, (void)drc, (void)drt

static void f_allgather_fwd(GATHER_PARAMS(const void *), const fint *comm, const fint *dcomm, fint *ierr, fint *dierr) {
  GATHER_UNUSED, (void)dcomm, (void)dierr;
  *ierr = allgather_fwd(send, dsend, *sc, ftype(st), recv, drecv, *rc, ftype(rt), fcomm(comm));
}
static void f_allgather_aug(GATHER_PARAMS(void *), const fint *comm, const fint *dcomm, fint *ierr, fint *dierr) {
  GATHER_UNUSED, (void)dcomm, (void)dierr;
  *ierr = allgather_aug(send, dsend, *sc, ftype(st), recv, drecv, *rc, ftype(rt), fcomm(comm));
}
static void f_allgather_rev(GATHER_PARAMS(void *), const fint *comm, const fint *dcomm, fint *ierr, fint *dierr) {
  GATHER_UNUSED, (void)dcomm, (void)ierr, (void)dierr;
  allgather_rev(send, dsend, *sc, ftype(st), recv, drecv, *rc, ftype(rt), fcomm(comm));
}
REGISTER void *__enzyme_register_derivative_mpi_allgather_[2] = {(void *)mpi_allgather_, (void *)f_allgather_fwd};
REGISTER void *__enzyme_register_gradient_mpi_allgather_[3] = {(void *)mpi_allgather_, (void *)f_allgather_aug,
                                                              (void *)f_allgather_rev};

#define ROOTED_TAIL const fint *root, const fint *droot, const fint *comm, const fint *dcomm, fint *ierr, fint *dierr
#define ROOTED_UNUSED (void)droot, (void)dcomm, (void)dierr

static void f_gather_fwd(GATHER_PARAMS(const void *), ROOTED_TAIL) {
  GATHER_UNUSED, ROOTED_UNUSED;
  *ierr = gather_fwd(send, dsend, *sc, ftype(st), recv, drecv, *rc, ftype(rt), *root, fcomm(comm));
}
static void f_gather_aug(GATHER_PARAMS(void *), ROOTED_TAIL) {
  GATHER_UNUSED, ROOTED_UNUSED;
  *ierr = gather_aug(send, dsend, *sc, ftype(st), recv, drecv, *rc, ftype(rt), *root, fcomm(comm));
}
static void f_gather_rev(GATHER_PARAMS(void *), ROOTED_TAIL) {
  GATHER_UNUSED, ROOTED_UNUSED, (void)ierr;
  gather_rev(send, dsend, *sc, ftype(st), recv, drecv, *rc, ftype(rt), *root, fcomm(comm));
}
REGISTER void *__enzyme_register_derivative_mpi_gather_[2] = {(void *)mpi_gather_, (void *)f_gather_fwd};
REGISTER void *__enzyme_register_gradient_mpi_gather_[3] = {(void *)mpi_gather_, (void *)f_gather_aug,
                                                           (void *)f_gather_rev};

static void f_scatter_fwd(GATHER_PARAMS(const void *), ROOTED_TAIL) {
  GATHER_UNUSED, ROOTED_UNUSED;
  *ierr = scatter_fwd(send, dsend, *sc, ftype(st), recv, drecv, *rc, ftype(rt), *root, fcomm(comm));
}
static void f_scatter_aug(GATHER_PARAMS(void *), ROOTED_TAIL) {
  GATHER_UNUSED, ROOTED_UNUSED;
  *ierr = scatter_aug(send, dsend, *sc, ftype(st), recv, drecv, *rc, ftype(rt), *root, fcomm(comm));
}
static void f_scatter_rev(GATHER_PARAMS(void *), ROOTED_TAIL) {
  GATHER_UNUSED, ROOTED_UNUSED, (void)ierr;
  scatter_rev(send, dsend, *sc, ftype(st), recv, drecv, *rc, ftype(rt), *root, fcomm(comm));
}
REGISTER void *__enzyme_register_derivative_mpi_scatter_[2] = {(void *)mpi_scatter_, (void *)f_scatter_fwd};
REGISTER void *__enzyme_register_gradient_mpi_scatter_[3] = {(void *)mpi_scatter_, (void *)f_scatter_aug,
                                                            (void *)f_scatter_rev};

/* ---- Non-blocking: mpi_isend_, mpi_irecv_, mpi_wait_, mpi_waitall_, mpi_test_. A request is a Fortran
 * integer; its shadow holds what the C rules keep in a request's shadow (the number of the operation's
 * record, or MPI_REQUEST_NULL). ---- */
void mpi_isend_(const void *, const fint *, const fint *, const fint *, const fint *, const fint *, fint *, fint *);
void mpi_irecv_(void *, const fint *, const fint *, const fint *, const fint *, const fint *, fint *, fint *);
void mpi_wait_(fint *, fint *, fint *);
void mpi_waitall_(const fint *, fint *, fint *, fint *);
void mpi_test_(fint *, fint *, fint *, fint *);

#define P2P_PARAMS(BUF, SHADOW)                                                                                        \
  BUF buf, SHADOW dbuf, const fint *n, const fint *dn, const fint *dt, const fint *ddt, const fint *peer,             \
      const fint *dpeer, const fint *tag, const fint *dtag, const fint *comm, const fint *dcomm, fint *req,           \
      fint *dreq, fint *ierr, fint *dierr
#define P2P_UNUSED (void)dn, (void)ddt, (void)dpeer, (void)dtag, (void)dcomm, (void)dierr

static void f_isend_fwd(P2P_PARAMS(const void *, const void *)) {
  P2P_UNUSED;
  MPI_Request r, number;
  *ierr = isend_fwd(buf, dbuf, *n, ftype(dt), *peer, *tag, fcomm(comm), &r, &number);
  *req = MPI_Request_c2f(r), *dreq = number;
}
static void *f_isend_aug(P2P_PARAMS(const void *, void *)) {
  P2P_UNUSED;
  MPI_Request r, number;
  aug_int a = isend_aug(buf, dbuf, *n, ftype(dt), *peer, *tag, fcomm(comm), &r, &number);
  *req = MPI_Request_c2f(r), *dreq = number;
  *ierr = a.result;
  return a.tape;
}
static void f_isend_rev(P2P_PARAMS(const void *, void *), void *tape) {
  P2P_UNUSED, (void)buf, (void)dbuf, (void)n, (void)dt, (void)peer, (void)tag, (void)comm, (void)req, (void)dreq,
      (void)ierr;
  finish_adjoint((int)(long)tape);
}
REGISTER void *__enzyme_register_derivative_mpi_isend_[2] = {(void *)mpi_isend_, (void *)f_isend_fwd};
REGISTER void *__enzyme_register_gradient_mpi_isend_[3] = {(void *)mpi_isend_, (void *)f_isend_aug,
                                                          (void *)f_isend_rev};

static void f_irecv_fwd(P2P_PARAMS(void *, void *)) {
  P2P_UNUSED;
  MPI_Request r, number;
  *ierr = irecv_fwd(buf, dbuf, *n, ftype(dt), *peer, *tag, fcomm(comm), &r, &number);
  *req = MPI_Request_c2f(r), *dreq = number;
}
static void *f_irecv_aug(P2P_PARAMS(void *, void *)) {
  P2P_UNUSED;
  MPI_Request r, number;
  aug_int a = irecv_aug(buf, dbuf, *n, ftype(dt), *peer, *tag, fcomm(comm), &r, &number);
  *req = MPI_Request_c2f(r), *dreq = number;
  *ierr = a.result;
  return a.tape;
}
static void f_irecv_rev(P2P_PARAMS(void *, void *), void *tape) {
  P2P_UNUSED, (void)buf, (void)dbuf, (void)n, (void)dt, (void)peer, (void)tag, (void)comm, (void)req, (void)dreq,
      (void)ierr;
  finish_adjoint((int)(long)tape);
}
REGISTER void *__enzyme_register_derivative_mpi_irecv_[2] = {(void *)mpi_irecv_, (void *)f_irecv_fwd};
REGISTER void *__enzyme_register_gradient_mpi_irecv_[3] = {(void *)mpi_irecv_, (void *)f_irecv_aug,
                                                          (void *)f_irecv_rev};

static void f_wait_fwd(fint *req, fint *dreq, fint *status, fint *dstatus, fint *ierr, fint *dierr) {
  (void)dstatus, (void)dierr;
  MPI_Request r = MPI_Request_f2c(*req), number = *dreq;
  MPI_Status s;
  *ierr = wait_fwd(&r, &number, &s, NULL);
  *req = MPI_Request_c2f(r), *dreq = number;
  fstatus_from(status, &s);
}
static void *f_wait_aug(fint *req, fint *dreq, fint *status, fint *dstatus, fint *ierr, fint *dierr) {
  (void)dstatus, (void)dierr;
  MPI_Request r = MPI_Request_f2c(*req), number = *dreq;
  MPI_Status s;
  aug_int a = wait_aug(&r, &number, &s, NULL);
  *req = MPI_Request_c2f(r), *dreq = number;
  fstatus_from(status, &s);
  *ierr = a.result;
  return a.tape;
}
static void f_wait_rev(fint *req, fint *dreq, fint *status, fint *dstatus, fint *ierr, fint *dierr, void *tape) {
  (void)req, (void)dreq, (void)status, (void)dstatus, (void)ierr, (void)dierr;
  start_adjoint((int)(long)tape);
}
REGISTER void *__enzyme_register_derivative_mpi_wait_[2] = {(void *)mpi_wait_, (void *)f_wait_fwd};
REGISTER void *__enzyme_register_gradient_mpi_wait_[3] = {(void *)mpi_wait_, (void *)f_wait_aug, (void *)f_wait_rev};

/* The C requests (or their shadows) of an array of Fortran ones. */
static MPI_Request *c_requests(int count, const fint *reqs, int convert) {
  MPI_Request *c = malloc((count > 0 ? count : 1) * sizeof(MPI_Request));
  require(c != NULL, "out of memory in an MPI derivative");
  for (int k = 0; k < count; k++) c[k] = convert ? MPI_Request_f2c(reqs[k]) : (MPI_Request)reqs[k];
  return c;
}
static void f_statuses_from(int count, fint *statuses, const MPI_Status *c) {
  fortran_addresses();
  if (statuses == MPI_F_STATUSES_IGNORE)
    return;
  for (int k = 0; k < count; k++) MPI_Status_c2f(&c[k], statuses + (size_t)k * MPI_F_STATUS_SIZE);
}

static void f_waitall_fwd(const fint *count, const fint *dcount, fint *reqs, fint *dreqs, fint *statuses,
                          fint *dstatuses, fint *ierr, fint *dierr) {
  (void)dcount, (void)dstatuses, (void)dierr;
  int n = *count;
  MPI_Request *r = c_requests(n, reqs, 1), *numbers = c_requests(n, dreqs, 0);
  MPI_Status *s = statuses_for(n);
  *ierr = waitall_fwd(n, r, numbers, s, NULL);
  for (int k = 0; k < n; k++) reqs[k] = MPI_Request_c2f(r[k]), dreqs[k] = numbers[k];
  f_statuses_from(n, statuses, s);
  free(r), free(numbers), free(s);
}
static void *f_waitall_aug(const fint *count, const fint *dcount, fint *reqs, fint *dreqs, fint *statuses,
                           fint *dstatuses, fint *ierr, fint *dierr) {
  (void)dcount, (void)dstatuses, (void)dierr;
  int n = *count;
  MPI_Request *r = c_requests(n, reqs, 1), *numbers = c_requests(n, dreqs, 0);
  MPI_Status *s = statuses_for(n);
  aug_int a = waitall_aug(n, r, numbers, s, NULL);
  for (int k = 0; k < n; k++) reqs[k] = MPI_Request_c2f(r[k]), dreqs[k] = numbers[k];
  f_statuses_from(n, statuses, s);
  free(r), free(numbers), free(s);
  *ierr = a.result;
  return a.tape;
}
static void f_waitall_rev(const fint *count, const fint *dcount, fint *reqs, fint *dreqs, fint *statuses,
                          fint *dstatuses, fint *ierr, fint *dierr, void *tape) {
  (void)count, (void)dcount, (void)reqs, (void)dreqs, (void)statuses, (void)dstatuses, (void)ierr, (void)dierr;
  waitall_rev(0, NULL, NULL, NULL, NULL, tape);
}
REGISTER void *__enzyme_register_derivative_mpi_waitall_[2] = {(void *)mpi_waitall_, (void *)f_waitall_fwd};
REGISTER void *__enzyme_register_gradient_mpi_waitall_[3] = {(void *)mpi_waitall_, (void *)f_waitall_aug,
                                                            (void *)f_waitall_rev};

/* A LOGICAL flag: MPICH's Fortran true is 1. */
static void f_test_fwd(fint *req, fint *dreq, fint *flag, fint *dflag, fint *status, fint *dstatus, fint *ierr,
                       fint *dierr) {
  (void)dflag, (void)dstatus, (void)dierr;
  MPI_Request r = MPI_Request_f2c(*req), number = *dreq;
  MPI_Status s;
  int done;
  *ierr = test_fwd(&r, &number, &done, NULL, &s, NULL);
  *req = MPI_Request_c2f(r), *dreq = number, *flag = done != 0;
  if (done)
    fstatus_from(status, &s);
}
static void *f_test_aug(fint *req, fint *dreq, fint *flag, fint *dflag, fint *status, fint *dstatus, fint *ierr,
                        fint *dierr) {
  (void)dflag, (void)dstatus, (void)dierr;
  MPI_Request r = MPI_Request_f2c(*req), number = *dreq;
  MPI_Status s;
  int done;
  aug_int a = test_aug(&r, &number, &done, NULL, &s, NULL);
  *req = MPI_Request_c2f(r), *dreq = number, *flag = done != 0;
  if (done)
    fstatus_from(status, &s);
  *ierr = a.result;
  return a.tape;
}
static void f_test_rev(fint *req, fint *dreq, fint *flag, fint *dflag, fint *status, fint *dstatus, fint *ierr,
                       fint *dierr, void *tape) {
  (void)req, (void)dreq, (void)flag, (void)dflag, (void)status, (void)dstatus, (void)ierr, (void)dierr;
  start_adjoint((int)(long)tape);
}
REGISTER void *__enzyme_register_derivative_mpi_test_[2] = {(void *)mpi_test_, (void *)f_test_fwd};
REGISTER void *__enzyme_register_gradient_mpi_test_[3] = {(void *)mpi_test_, (void *)f_test_aug, (void *)f_test_rev};
