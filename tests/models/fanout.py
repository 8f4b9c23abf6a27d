"""Independent fixture cases on every core: a fork pool of one-thread torch processes, results in the cases' order.

The generators set torch.set_num_threads(1) at import (their float64 runs are small: one thread each is faster than
several sharing a case), so the cases themselves are what runs in parallel. MHA_FIXTURE_JOBS=1 runs them in this
process, one after the other (for a debugger or a traceback without the pool's frames).
"""

import multiprocessing
import os


def fanout(fn, args):
    """[fn(*a) for a in args], on up to MHA_FIXTURE_JOBS (default: the CPU count) processes. Put the longest first:
    the pool hands out one case at a time, in order. fn must be a module-level function and args picklable."""
    jobs = min(int(os.environ.get("MHA_FIXTURE_JOBS") or os.cpu_count() or 1), len(args))
    if jobs <= 1:
        return [fn(*a) for a in args]
    # fork: the children start with the parent's imports (transformers takes seconds to import) and no torch op has
    # run yet, so no thread pool is copied half-initialised.
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        return pool.starmap(fn, args, chunksize=1)
