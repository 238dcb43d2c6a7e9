"""torch.distributed on MPI: process groups and collectives for data-parallel training.

Start the processes with ``mpiexec -n N python -m mpi4py script.py`` (or ``npgrad distributed-run --nproc
N script.py``), then call ``init_process_group("mpi")`` as a PyTorch script does; ranks and world size
come from the MPI launcher. Tensors travel through MPI's buffer interface (no pickling); objects
(``broadcast_object_list`` ...) are pickled. Needs mpi4py and an MPI (``pip install npgrad[distributed]``);
``is_available()`` says whether they are there.
"""
from ._group import (Backend, GroupMember, ProcessGroup, ReduceOp, destroy_process_group,  # noqa: F401
                     get_backend, get_global_rank, get_group_rank, get_process_group_ranks, get_rank,
                     get_world_size, group, init_process_group, is_available, is_gloo_available, is_initialized,
                     is_mpi_available, is_nccl_available, new_group)
from ._work import Work  # noqa: F401
from ._collectives import (all_gather, all_gather_into_tensor, all_reduce, all_to_all, all_to_all_single,  # noqa
                           barrier, broadcast, gather, irecv, isend, recv, reduce, reduce_scatter,
                           reduce_scatter_tensor, scatter, send)
from ._objects import all_gather_object, broadcast_object_list, gather_object, scatter_object_list  # noqa: F401

reduce_op = ReduceOp
