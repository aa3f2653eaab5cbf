/* Derivatives of MPI's Fortran bindings (`include 'mpif.h'`, as flang calls
 * them: `mpi_send_(buf, count, datatype, ..., ierror)`, every argument by
 * reference, handles as Fortran integers): each rule converts the handles
 * and calls the C binding's rule (mpi.c, in this translation unit: the
 * Makefile compiles this file, which includes it). Blocking calls and
 * collectives; the non-blocking ones are refused by name in Fortran for
 * now. */
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
