"""Stage 4: compile each Op module with numba into an object file (in worker processes, or on a
cluster), callers declaring their callees.

numba picks Intel SVML up when it is installed, and objects built with it need libsvml at run
time. numba reads the switch below when it is first imported, which may be by the user's own
modules while they are traced: so it is set as soon as this package is imported — by every build
before it traces, and by every compile worker before numba — and the compiler checks it. Not on
importing ``aotbuild`` itself: the setuptools plugin imports that in every project's build.
"""

import os

os.environ["NUMBA_DISABLE_INTEL_SVML"] = "1"
