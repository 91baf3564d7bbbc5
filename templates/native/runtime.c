/*
 * The numba runtime helpers that compiled Ops call, built into every aotbuild package.
 *
 * This is how numba's own pycc builds them (numba/pycc/modulemixin.c): numba's C sources are
 * included with every symbol hidden, and PYCC_COMPILING makes exception data unpickle with the
 * standard `pickle` module instead of importing numba. The sources come from the numba that
 * builds the package; they are a build-time dependency only (licence: numba's BSD-2-Clause).
 *
 * nrt.cpp (the memory allocator, C++ for its atomics) is compiled as its own object.
 */

#define NUMBA_EXPORT_FUNC(_rettype) VISIBILITY_HIDDEN _rettype
#define NUMBA_EXPORT_DATA(_vartype) VISIBILITY_HIDDEN _vartype
#define PYCC_COMPILING

/* One NumPy C-API table for the whole extension; the entry module imports it. */
#define PY_ARRAY_UNIQUE_SYMBOL aotbuild_ARRAY_API
#define NO_IMPORT_ARRAY

#include "_numba_common.h"
#include "_helperlib.c"
#include "core/runtime/nrt.h"

#if (PY_MAJOR_VERSION == 3) && (PY_MINOR_VERSION >= 12)
    #define Py_BUILD_CORE 1
    #include "internal/pycore_pyhash.h"
    #undef Py_BUILD_CORE
#endif

/* Hash secrets used by compiled string hashing (numba issue #6386). */
VISIBILITY_HIDDEN int64_t _numba_hashsecret_siphash_k0;
VISIBILITY_HIDDEN int64_t _numba_hashsecret_siphash_k1;
VISIBILITY_HIDDEN int64_t _numba_hashsecret_djbx33a_suffix;

/*
 * Initialise the runtime before any compiled code runs: the memory system, the hash secrets
 * of this interpreter, and numba's random state (used by np.random in kernels).
 */
VISIBILITY_HIDDEN int
aot_runtime_init(void)
{
    _numba_hashsecret_siphash_k0 = _Py_HashSecret.siphash.k0;
    _numba_hashsecret_siphash_k1 = _Py_HashSecret.siphash.k1;
    _numba_hashsecret_djbx33a_suffix = _Py_HashSecret.djbx33a.suffix;
    NRT_MemSys_init();
    numba_rnd_ensure_global_init();
    return 0;
}
