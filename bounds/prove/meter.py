"""The work meter's counter in C: a profile function (``PyEval_SetProfile``) compiled by Numba that adds one to a
count at each Python function call of the thread, the same events a ``sys.settrace`` function sees as ``"call"``
(generator resumptions included), and raises ``SIGPROF`` once the count reaches a limit (again at the next call
past it after the signal's handler deferred the cut).  It counts what a Python trace function counts without
entering a Python frame per call, and keeps counting whatever the handler raises (Python removes a trace function
through which an exception passes, and the calls after a cut inside an enclosing stage would go uncounted).

``STATE`` holds ``[calls counted, limit, signal pending]`` (limit 0: none); ``verify_domain`` reads and writes it.
The compiled function is cached by Numba (it embeds no address: it reads the array's data pointer from the array it
is given)."""
from __future__ import annotations

import ctypes
import signal

import numpy as np
from numba import carray, cfunc, types
from numba.core import cgutils
from numba.extending import intrinsic

STATE = np.zeros(3, dtype=np.int64)
_SIGPROF = int(signal.SIGPROF)
_raise = types.ExternalFunction("raise", types.int32(types.int32))
_CALL = 0  # PyTrace_CALL


@intrinsic
def _pointer(typingctx, address):
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)
    return types.voidptr(address), codegen


@cfunc(types.int32(types.voidptr, types.voidptr, types.int32, types.voidptr), nopython=True, cache=True)
def _profile(obj, frame, what, arg):
    if what == _CALL:
        data = carray(obj, 3, np.int64)[2]  # a NumPy array object: reference count, type, data pointer
        state = carray(_pointer(data), 3, np.int64)
        state[0] += 1
        if state[1] > 0 and state[0] >= state[1] and state[2] == 0:
            state[2] = 1  # cleared by the signal's handler, whose own call would otherwise raise it again
            _raise(_SIGPROF)
    return 0


_set_profile = ctypes.pythonapi.PyEval_SetProfile
_set_profile.argtypes = [ctypes.c_void_p, ctypes.py_object]
_set_profile.restype = None


def start() -> None:
    """Count this thread's Python calls into ``STATE`` until ``sys.setprofile`` is called."""
    _set_profile(_profile.address, STATE)
