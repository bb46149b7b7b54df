"""tessel from Python: the CuTe layout algebra, the kernel catalog and its kernels.

Everything is the C++ library, bound by pybind11 in the extension module tessel._tessel; this file
only re-exports it. See docs/python.md.
"""

from ._tessel import *  # noqa: F401,F403
from ._tessel import Error  # noqa: F401
