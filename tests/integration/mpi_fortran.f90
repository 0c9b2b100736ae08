! mpi_fortran.f90: a Fortran MPI program (`use mpi`) with a known pattern,
! for profiler_fortran.sh.  Per iteration each rank sends to rank+1:
! MPI_SEND (n integers), MPI_ISEND (n), MPI_SSEND (n), MPI_SENDRECV (n),
! a persistent MPI_SEND_INIT request started once (2n), and one
! MPI_SEND to MPI_PROC_NULL (never counted); then one MPI_ALLREDUCE of
! one double and one MPI_BARRIER.  Arguments: ITERS N.
program mpi_fortran
  use mpi
  implicit none
  integer :: ierr, rank, nranks, right, left, i, iters, n, req, preq, rreq
  integer :: status(MPI_STATUS_SIZE)
  integer, allocatable :: sbuf(:), rbuf(:)
  double precision :: x, y
  character(len=32) :: arg

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  call get_command_argument(1, arg)
  read (arg, *) iters
  call get_command_argument(2, arg)
  read (arg, *) n
  allocate (sbuf(2*n), rbuf(2*n))
  sbuf = rank
  right = mod(rank + 1, nranks)
  left = mod(rank + nranks - 1, nranks)
  call MPI_SEND_INIT(sbuf, 2*n, MPI_INTEGER, right, 7, MPI_COMM_WORLD, preq, ierr)
  do i = 1, iters
    call MPI_IRECV(rbuf, n, MPI_INTEGER, left, 1, MPI_COMM_WORLD, rreq, ierr)
    call MPI_SEND(sbuf, n, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
    call MPI_WAIT(rreq, status, ierr)
    call MPI_IRECV(rbuf, n, MPI_INTEGER, left, 2, MPI_COMM_WORLD, rreq, ierr)
    call MPI_ISEND(sbuf, n, MPI_INTEGER, right, 2, MPI_COMM_WORLD, req, ierr)
    call MPI_WAIT(req, status, ierr)
    call MPI_WAIT(rreq, status, ierr)
    call MPI_IRECV(rbuf, n, MPI_INTEGER, left, 3, MPI_COMM_WORLD, rreq, ierr)
    call MPI_SSEND(sbuf, n, MPI_INTEGER, right, 3, MPI_COMM_WORLD, ierr)
    call MPI_WAIT(rreq, status, ierr)
    call MPI_SENDRECV(sbuf, n, MPI_INTEGER, right, 4, rbuf, n, MPI_INTEGER, &
                      left, 4, MPI_COMM_WORLD, status, ierr)
    call MPI_IRECV(rbuf, 2*n, MPI_INTEGER, left, 7, MPI_COMM_WORLD, rreq, ierr)
    call MPI_START(preq, ierr)
    call MPI_WAIT(preq, status, ierr)
    call MPI_WAIT(rreq, status, ierr)
    call MPI_SEND(sbuf, n, MPI_INTEGER, MPI_PROC_NULL, 5, MPI_COMM_WORLD, ierr)
    x = rank
    call MPI_ALLREDUCE(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  end do
  call MPI_REQUEST_FREE(preq, ierr)
  deallocate (sbuf, rbuf)
  call MPI_FINALIZE(ierr)
end program mpi_fortran
