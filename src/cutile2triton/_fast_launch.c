/* Native launch of a converted kernel's reused compiled kernel (cutile2triton/fast_launch.py).
 *
 * launch(plan, gx, gy, gz, stream, args[, capture[, expand]]) checks that the launch's positional arguments
 * specialize as the plan's compiled kernel was compiled for -- what Triton 3.6's binder computes:
 * constexpr values (same type, equal), tensor dtypes and 16-byte alignment of their data pointers,
 * integers as i32/i64 with divisibility by 16 (1 is a constexpr), floats as fp32, bools as u1 --
 * and launches it with cuLaunchKernelEx exactly as Triton's generated launcher does
 * (triton/backends/nvidia/driver.py, make_launcher: device pointers via cuPointerGetAttribute,
 * the kernel's parameters then its global and profile scratch pointers, block = 32 x num_warps,
 * cluster, cooperative and PDL attributes). True: launched; False: the arguments do not match the
 * plan (nothing launched, the caller goes through Triton); an exception: the driver failed.
 *
 * plan: (function, num_warps, num_ctas, shared_bytes, cooperative, pdl, kinds: bytes, expect: tuple)
 * with one kind and one expected object (constexpr value, tensor dtype, or None) per argument.
 * capture (tests, no GPU): a list; the packed launch is appended instead of launched, and data
 * pointers are taken as they are (no driver call). None: launch.
 * expand: None, or bytes with one code per element of args, which are then a converted launcher's
 * arguments: each array stands for itself, its extents and its strides (expand_args), so that a
 * launcher's reused launch costs one native call (BENCHMARKS.md, "Host time per call").
 *
 * libcuda is opened at the first launch (dlopen, as Triton's launcher does), so the module builds
 * and its checks run on machines without a GPU. */
#include "cuda.h"
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#define PY_SSIZE_T_CLEAN
#include <Python.h>

enum { K_CONST = 0, K_PTR = 1, K_PTR_D = 2, K_I32 = 3, K_I32_D = 4, K_I64 = 5, K_I64_D = 6, K_FP32 = 7, K_U1 = 8 };
#define MAX_ARGS 256
#define MAX_RANK 127  /* expand codes: rank r or 128 + r */

typedef CUresult (*launch_ex_t)(const CUlaunchConfig*, CUfunction, void**, void**);
typedef CUresult (*pointer_attr_t)(void*, CUpointer_attribute, CUdeviceptr);
typedef CUresult (*error_string_t)(CUresult, const char**);
static launch_ex_t launch_ex = NULL;
static pointer_attr_t pointer_attr = NULL;
static error_string_t error_string = NULL;
static PyObject *s_data_ptr = NULL, *s_dtype = NULL, *s_shape = NULL, *s_stride = NULL;
static PyObject *s_get_device = NULL, *s_is_cuda = NULL, *s_is_neg = NULL, *s_is_conj = NULL;
static PyObject *s_one = NULL, *s_zero = NULL, *s_small[MAX_RANK + 1];

static int open_driver(void) {
  if (launch_ex) return 1;
  void* lib = dlopen("libcuda.so.1", RTLD_LAZY);
  if (!lib) {
    PyErr_SetString(PyExc_RuntimeError, "cutile2triton fast launch: cannot open libcuda.so.1");
    return 0;
  }
  pointer_attr = (pointer_attr_t)dlsym(lib, "cuPointerGetAttribute");
  error_string = (error_string_t)dlsym(lib, "cuGetErrorString");
  launch_ex = (launch_ex_t)dlsym(lib, "cuLaunchKernelEx");
  if (!launch_ex || !pointer_attr) {
    launch_ex = NULL;
    PyErr_SetString(PyExc_RuntimeError, "cutile2triton fast launch: libcuda.so.1 lacks cuLaunchKernelEx");
    return 0;
  }
  return 1;
}

/* An argument's check failed with an exception: an ordinary one means "does not match" (cleared;
   Triton's launch will meet it again), but KeyboardInterrupt and SystemExit propagate. */
static int mismatch_or_raise(void) {
  if (!PyErr_ExceptionMatches(PyExc_Exception)) return 0;
  PyErr_Clear();
  return 1;
}
#define MISMATCH_ON_ERROR() do { if (!mismatch_or_raise()) return NULL; Py_RETURN_FALSE; } while (0)

/* The binder's integer rule: i32 for [-2^31, 2^31), i64 beyond, 1 a constexpr; "D" when divisible by 16. */
static int int_matches(PyObject* v, int kind, int64_t* out) {
  if (!PyLong_CheckExact(v)) return 0;
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
  if (x == -1 && PyErr_Occurred()) return -1;  /* the caller decides: mismatch or propagate */
  if (overflow) return 0;
  int is32 = x >= INT32_MIN && x <= INT32_MAX;
  int wide = kind == K_I64 || kind == K_I64_D;
  int div = kind == K_I32_D || kind == K_I64_D;
  if (x == 1 || is32 == wide || ((x % 16) == 0) != div) return 0;
  *out = x;
  return 1;
}

/* The kernel's arguments of a launcher's: each array (expand code r: rank r; 128 + r: rank at most r)
   becomes itself, its extents and its strides -- padded with 1 and 0 to rank r, then its rank, for
   128 + r -- as the converted launcher passes them (cpp/host/launcher.cpp); code 0: the argument
   itself. 0: another rank, or not an array with a tuple shape and stride() (the launcher's own path
   says why); -1: an exception to propagate. The extents' and strides' tuples are kept in `held`. */
static int expand_args(PyObject* args, PyObject* expand, PyObject** flat, Py_ssize_t* nflat, PyObject** held,
                       int* nheld) {
  Py_ssize_t n = PyTuple_GET_SIZE(args), k = 0;
  const unsigned char* codes = (const unsigned char*)PyBytes_AS_STRING(expand);
  if (PyBytes_GET_SIZE(expand) != n) return 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* v = PyTuple_GET_ITEM(args, i);
    int code = codes[i], rank = code & 127, upto = code >= 128;
    if (k + 1 + 2 * rank + upto > MAX_ARGS) return 0;
    flat[k++] = v;
    if (!code) continue;
    PyObject* shape = PyObject_GetAttr(v, s_shape);
    if (!shape) return mismatch_or_raise() ? 0 : -1;
    held[(*nheld)++] = shape;
    PyObject* stride = PyObject_CallMethodNoArgs(v, s_stride);
    if (!stride) return mismatch_or_raise() ? 0 : -1;
    held[(*nheld)++] = stride;
    if (!PyTuple_Check(shape) || !PyTuple_Check(stride)) return 0;
    Py_ssize_t dims = PyTuple_GET_SIZE(shape);
    if (PyTuple_GET_SIZE(stride) != dims || (upto ? dims > rank : dims != rank)) return 0;
    for (Py_ssize_t d = 0; d < rank; ++d) flat[k++] = d < dims ? PyTuple_GET_ITEM(shape, d) : s_one;
    for (Py_ssize_t d = 0; d < rank; ++d) flat[k++] = d < dims ? PyTuple_GET_ITEM(stride, d) : s_zero;
    if (upto) flat[k++] = s_small[dims];
  }
  *nflat = k;
  return 1;
}

static PyObject* launch_flat(PyObject* plan, PyObject* const* flat, Py_ssize_t nflat, PyObject* const* a,
                             PyObject* capture);

static PyObject* launch(PyObject* self, PyObject* const* a, Py_ssize_t n) {
  if (n < 6 || n > 8) {
    PyErr_SetString(PyExc_TypeError, "launch(plan, gx, gy, gz, stream, args[, capture[, expand]])");
    return NULL;
  }
  PyObject *plan = a[0], *args = a[5], *capture = n >= 7 && a[6] != Py_None ? a[6] : NULL;
  PyObject* expand = n == 8 && a[7] != Py_None ? a[7] : NULL;
  if (!PyTuple_Check(plan) || PyTuple_GET_SIZE(plan) != 8 || !PyTuple_Check(args) ||
      !PyBytes_Check(PyTuple_GET_ITEM(plan, 6)) || !PyTuple_Check(PyTuple_GET_ITEM(plan, 7)) ||
      (capture && !PyList_Check(capture)) || (expand && !PyBytes_Check(expand))) {
    PyErr_SetString(PyExc_TypeError, "launch: plan must be fast_launch.plan()'s tuple, args a tuple, expand bytes");
    return NULL;
  }
  if (!expand) return launch_flat(plan, &PyTuple_GET_ITEM(args, 0), PyTuple_GET_SIZE(args), a, capture);
  PyObject *flat[MAX_ARGS], *held[2 * MAX_ARGS];
  Py_ssize_t nflat = 0;
  int nheld = 0;
  int ok = expand_args(args, expand, flat, &nflat, held, &nheld);
  PyObject* r = ok < 0 ? NULL : ok == 0 ? (Py_INCREF(Py_False), Py_False) : launch_flat(plan, flat, nflat, a, capture);
  for (int i = 0; i < nheld; ++i) Py_DECREF(held[i]);
  return r;
}

/* launch() on the kernel's arguments flat[0..nflat). */
static PyObject* launch_flat(PyObject* plan, PyObject* const* flat, Py_ssize_t nflat, PyObject* const* a,
                             PyObject* capture) {
  PyObject *kinds_obj = PyTuple_GET_ITEM(plan, 6), *expect = PyTuple_GET_ITEM(plan, 7);
  Py_ssize_t nargs = PyBytes_GET_SIZE(kinds_obj);
  const unsigned char* kinds = (const unsigned char*)PyBytes_AS_STRING(kinds_obj);
  if (nflat != nargs || PyTuple_GET_SIZE(expect) != nargs || nargs > MAX_ARGS) Py_RETURN_FALSE;

  uint64_t slots[MAX_ARGS + 2];
  size_t sizes[MAX_ARGS + 2];
  void* params[MAX_ARGS + 2];
  int np = 0;
  for (Py_ssize_t i = 0; i < nargs; ++i) {
    PyObject *v = flat[i], *e = PyTuple_GET_ITEM(expect, i);
    uint64_t slot = 0;
    size_t size = 0;
    switch (kinds[i]) {
      case K_CONST: {
        if (Py_TYPE(v) != Py_TYPE(e)) Py_RETURN_FALSE;
        int eq = PyObject_RichCompareBool(v, e, Py_EQ);
        if (eq < 0) MISMATCH_ON_ERROR();
        if (eq != 1) Py_RETURN_FALSE;
        /* 0.0 and -0.0 are equal but compile apart (cuTile's constants compare bits; 1 / x differs). */
        if (PyFloat_CheckExact(v) && !signbit(PyFloat_AS_DOUBLE(v)) != !signbit(PyFloat_AS_DOUBLE(e)))
          Py_RETURN_FALSE;
        continue;  /* not a kernel parameter */
      }
      case K_PTR:
      case K_PTR_D: {
        PyObject* dtype = PyObject_GetAttr(v, s_dtype);
        if (!dtype) MISMATCH_ON_ERROR();
        Py_DECREF(dtype);  /* compared by identity: torch dtypes are singletons */
        if (dtype != e) Py_RETURN_FALSE;
        PyObject* p = PyObject_CallMethodNoArgs(v, s_data_ptr);
        if (!p) MISMATCH_ON_ERROR();
        uint64_t ptr = PyLong_AsUnsignedLongLong(p);
        Py_DECREF(p);
        if (ptr == (uint64_t)-1 && PyErr_Occurred()) MISMATCH_ON_ERROR();
        if (((ptr % 16) == 0) != (kinds[i] == K_PTR_D)) Py_RETURN_FALSE;
        if (ptr && !capture) {  /* Triton's getPointer: the device address, or not a device pointer */
          if (!open_driver()) return NULL;
          uint64_t dev = 0;
          if (pointer_attr(&dev, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, (CUdeviceptr)ptr) != CUDA_SUCCESS)
            Py_RETURN_FALSE;  /* e.g. a CPU tensor: Triton's launch reports it */
          ptr = dev;
        }
        slot = ptr;
        size = sizeof(CUdeviceptr);
        break;
      }
      case K_I32:
      case K_I32_D:
      case K_I64:
      case K_I64_D: {
        int64_t x;
        int m = int_matches(v, kinds[i], &x);
        if (m < 0) MISMATCH_ON_ERROR();
        if (!m) Py_RETURN_FALSE;
        if (kinds[i] == K_I32 || kinds[i] == K_I32_D) {
          int32_t y = (int32_t)x;
          memcpy(&slot, &y, sizeof y);
          size = sizeof y;
        } else {
          memcpy(&slot, &x, sizeof x);
          size = sizeof x;
        }
        break;
      }
      case K_FP32: {
        if (!PyFloat_CheckExact(v)) Py_RETURN_FALSE;
        float f = (float)PyFloat_AS_DOUBLE(v);
        memcpy(&slot, &f, sizeof f);
        size = sizeof f;
        break;
      }
      case K_U1: {
        if (!PyBool_Check(v)) Py_RETURN_FALSE;
        uint8_t b = v == Py_True;
        memcpy(&slot, &b, sizeof b);
        size = sizeof b;
        break;
      }
      default:
        Py_RETURN_FALSE;
    }
    slots[np] = slot;
    sizes[np] = size;
    ++np;
  }
  /* Every Triton 3.6 kernel ends with its global and profile scratch pointers: null (the plan
     requires kernels that need neither buffer). */
  slots[np] = 0, sizes[np] = sizeof(CUdeviceptr), ++np;
  slots[np] = 0, sizes[np] = sizeof(CUdeviceptr), ++np;
  for (int i = 0; i < np; ++i) params[i] = &slots[i];

  unsigned long long function = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(plan, 0));
  long num_warps = PyLong_AsLong(PyTuple_GET_ITEM(plan, 1)), num_ctas = PyLong_AsLong(PyTuple_GET_ITEM(plan, 2));
  long shared = PyLong_AsLong(PyTuple_GET_ITEM(plan, 3));
  int coop = PyObject_IsTrue(PyTuple_GET_ITEM(plan, 4)), pdl = PyObject_IsTrue(PyTuple_GET_ITEM(plan, 5));
  long gx = PyLong_AsLong(a[1]), gy = PyLong_AsLong(a[2]), gz = PyLong_AsLong(a[3]);
  unsigned long long stream = PyLong_AsUnsignedLongLong(a[4]);
  if (PyErr_Occurred()) return NULL;
  /* Triton's launcher parses the grid as C ints (and raises beyond): leave those launches to it. */
  if (gx > INT32_MAX || gy > INT32_MAX || gz > INT32_MAX || gx < 0 || gy < 0 || gz < 0 || num_warps <= 0 ||
      num_ctas <= 0 || (unsigned long long)gx * (unsigned long long)num_ctas > UINT32_MAX ||
      (unsigned long long)gx * (unsigned long long)gy > INT32_MAX ||
      (unsigned long long)gx * (unsigned long long)gy * (unsigned long long)gz > INT32_MAX)  /* no wrap: gx*gy <= 2^31 here */
    Py_RETURN_FALSE;  /* negative extents and an int-overflowing grid too: Triton's launcher decides */

  if (capture) {
    PyObject* packed = PyList_New(np);
    if (!packed) return NULL;
    for (int i = 0; i < np; ++i) {
      PyObject* b = PyBytes_FromStringAndSize((const char*)&slots[i], (Py_ssize_t)sizes[i]);
      if (!b) {
        Py_DECREF(packed);
        return NULL;
      }
      PyList_SET_ITEM(packed, i, b);
    }
    PyObject* rec = Py_BuildValue("{s:(lll),s:l,s:l,s:K,s:N}", "grid", gx * num_ctas, gy, gz, "block", 32 * num_warps,
                                  "shared", shared, "stream", stream, "params", packed);
    if (!rec) return NULL;
    int err = PyList_Append(capture, rec);
    Py_DECREF(rec);
    if (err) return NULL;
    Py_RETURN_TRUE;
  }
  if (gx == 0 || gy == 0 || gz == 0) Py_RETURN_TRUE;  /* as Triton: an empty grid launches nothing */
  if (!open_driver()) return NULL;

  if (num_ctas == 16) Py_RETURN_FALSE;  /* needs a non-portable cluster attribute: Triton's launch sets it */
  CUlaunchAttribute attrs[4];
  memset(attrs, 0, sizeof attrs);  /* as Triton's `{.id = ..., .value = 1}`: every other byte zero */
  int nattrs = 0;
  if (pdl) {
    attrs[nattrs].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attrs[nattrs++].value.programmaticStreamSerializationAllowed = 1;
  }
  if (coop) {
    attrs[nattrs].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    attrs[nattrs++].value.cooperative = 1;
  }
  if (num_ctas != 1) {
    attrs[nattrs].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attrs[nattrs].value.clusterDim.x = (unsigned)num_ctas;
    attrs[nattrs].value.clusterDim.y = 1;
    attrs[nattrs++].value.clusterDim.z = 1;
    attrs[nattrs].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
    attrs[nattrs++].value.clusterSchedulingPolicyPreference = CU_CLUSTER_SCHEDULING_POLICY_SPREAD;
  }
  CUlaunchConfig config;
  memset(&config, 0, sizeof config);
  config.gridDimX = (unsigned)(gx * num_ctas);
  config.gridDimY = (unsigned)gy;
  config.gridDimZ = (unsigned)gz;
  config.blockDimX = (unsigned)(32 * num_warps);
  config.blockDimY = 1;
  config.blockDimZ = 1;
  config.sharedMemBytes = (unsigned)shared;
  config.hStream = (CUstream)stream;
  config.attrs = attrs;
  config.numAttrs = (unsigned)nattrs;
  CUresult r;
  Py_BEGIN_ALLOW_THREADS;
  r = launch_ex(&config, (CUfunction)function, params, NULL);
  Py_END_ALLOW_THREADS;
  if (r == CUDA_ERROR_INVALID_CONTEXT) Py_RETURN_FALSE;  /* no current context: Triton's launch makes one */
  if (r != CUDA_SUCCESS) {
    const char* msg = NULL;
    if (error_string) error_string(r, &msg);
    PyErr_Format(PyExc_RuntimeError, "Triton Error [CUDA]: %s", msg ? msg : "cuLaunchKernelEx failed");
    return NULL;
  }
  Py_RETURN_TRUE;
}

/* The key of a tuple of arrays as a converted module's _c2t_array_list builds it (cpp/host/runtime_lists.cpp,
   kArrayLists): (rank, int32, then per element (data_ptr(), shape, stride(), dtype, get_device(),
   is_neg(), is_conj())), and in *cuda whether the first element is a CUDA tensor. NULL with an
   exception set. Each tuple is made once its items exist: the accessors may run Python code (tensor
   subclasses), which must not find a half-filled tuple among the garbage collector's objects. */
#define LIST_KEY_WORDS 7
static PyObject* list_key(PyObject* seq, PyObject* rank, PyObject* int32, int* cuda) {
  Py_ssize_t n = PyTuple_GET_SIZE(seq);
  PyObject* parts = PyList_New(0);
  if (!parts || PyList_Append(parts, rank) < 0 || PyList_Append(parts, int32) < 0) goto fail;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* t = PyTuple_GET_ITEM(seq, i);
    PyObject* v[LIST_KEY_WORDS] = {NULL};
    int ok = (v[0] = PyObject_CallMethodNoArgs(t, s_data_ptr)) && (v[1] = PyObject_GetAttr(t, s_shape)) &&
             (v[2] = PyObject_CallMethodNoArgs(t, s_stride)) && (v[3] = PyObject_GetAttr(t, s_dtype)) &&
             (v[4] = PyObject_CallMethodNoArgs(t, s_get_device)) && (v[5] = PyObject_CallMethodNoArgs(t, s_is_neg)) &&
             (v[6] = PyObject_CallMethodNoArgs(t, s_is_conj));
    PyObject* e = ok ? PyTuple_Pack(LIST_KEY_WORDS, v[0], v[1], v[2], v[3], v[4], v[5], v[6]) : NULL;
    for (int k = 0; k < LIST_KEY_WORDS; ++k) Py_XDECREF(v[k]);
    if (!e) goto fail;
    int appended = PyList_Append(parts, e);
    Py_DECREF(e);
    if (appended < 0) goto fail;
    if (i == 0) {
      PyObject* c = PyObject_GetAttr(t, s_is_cuda);
      if (!c) goto fail;
      *cuda = PyObject_IsTrue(c);
      Py_DECREF(c);
      if (*cuda < 0) goto fail;
    }
  }
  PyObject* key = PyList_AsTuple(parts);
  Py_DECREF(parts);
  return key;
fail:
  Py_XDECREF(parts);
  return NULL;
}

/* list_hit(arrays, rank, int32, tables, captured, queries) -> (items, table, facts) or None: the
   reuse path of a converted module's _c2t_array_list in one native call: a 4-array list 4.0 -> 2.3 us
   on the development CPU (where its key costs what the Python key does, the tensors' accessors
   dominating, and the saving is the Python around it: the lock, the CUDA queries, the frames), and
   10-28 us per call of TileGym's group_gemm (three lists) on the H200's host, growing with the lists'
   length (BENCHMARKS.md, s26). The list's key is
   looked up in `captured`, then in `tables` (an entry found there becomes the most recently used once
   the tables hold more than 128 lists), and a found entry (table, facts, stream made
   on, ...) is returned as (list(arrays), table, facts) where it may be used as is: for a CUDA list,
   no CUDA graph capture under way (queries[0]() false) and the current stream (queries[1](device))
   the one the table was made on. None for everything else -- not found, capture, another stream,
   not a non-empty list or tuple of tensors, queries None for a CUDA list -- and the caller's Python
   path does all of it (checks and their errors, making the table, recording the stream). With the
   GIL held and no Python code run between the lookup and the reinsertion, the dicts' changes are
   atomic for the Python path's threads. */
static PyObject* list_hit(PyObject* self, PyObject* const* a, Py_ssize_t n) {
  (void)self;
  if (n != 6 || !PyDict_Check(a[3]) || !PyDict_Check(a[4])) {
    PyErr_SetString(PyExc_TypeError, "list_hit(arrays, rank, int32, tables: dict, captured: dict, queries)");
    return NULL;
  }
  PyObject *arrays = a[0], *tables = a[3], *captured = a[4], *queries = a[5];
  if (!PyList_Check(arrays) && !PyTuple_Check(arrays)) Py_RETURN_NONE;
  /* A tuple of the elements as they are now: the tensors' accessors may run Python code (subclasses,
     __torch_function__) that changes a list while its key is built. */
  PyObject* seq = PySequence_Tuple(arrays);
  if (!seq) {
    if (!mismatch_or_raise()) return NULL;
    Py_RETURN_NONE;
  }
  if (PyTuple_GET_SIZE(seq) == 0) {
    Py_DECREF(seq);
    Py_RETURN_NONE;
  }
  PyObject *key = NULL, *entry = NULL, *result = NULL;
  int cuda = 0;
  if (!(key = list_key(seq, a[1], a[2], &cuda))) goto error;
  if (cuda) {
    if (!PyTuple_Check(queries) || PyTuple_GET_SIZE(queries) != 2) goto none;
    PyObject* capturing = PyObject_CallNoArgs(PyTuple_GET_ITEM(queries, 0));
    if (!capturing) goto error;
    int yes = PyObject_IsTrue(capturing);
    Py_DECREF(capturing);
    if (yes) goto maybe_error;  /* capture (1) or an error (-1) */
  }
  int in_tables = 0;
  entry = PyDict_GET_SIZE(captured) ? PyDict_GetItemWithError(captured, key) : NULL;
  if (!entry && !PyErr_Occurred()) {
    entry = PyDict_GetItemWithError(tables, key);
    in_tables = entry != NULL;
  }
  if (!entry) goto maybe_error;
  Py_INCREF(entry);  /* borrowed from a dict that may change below */
  if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) < 3) goto none;
  if (cuda) {
    PyObject* device = PyTuple_GET_ITEM(PyTuple_GET_ITEM(key, 2), 4);
    PyObject* stream = PyObject_CallOneArg(PyTuple_GET_ITEM(queries, 1), device);
    if (!stream) goto error;
    int same = PyObject_RichCompareBool(stream, PyTuple_GET_ITEM(entry, 2), Py_EQ);
    Py_DECREF(stream);
    if (same != 1) goto maybe_error;  /* another stream: recorded on it by the Python path */
  }
  /* Moved to the end (two more hashes of the key, ~0.5 us for four elements) only once the tables
     hold more than 128 lists: below that nothing is evicted, and an entry found again while they grow
     from 128 to the Python path's bound of 256 is moved; one not found in that stretch may be evicted
     sooner than true LRU order would (a table made again: host time only). */
  if (in_tables && PyDict_GET_SIZE(tables) > 128 &&
      (PyDict_DelItem(tables, key) < 0 || PyDict_SetItem(tables, key, entry) < 0))
    goto error;
  PyObject* items = PySequence_List(seq);
  if (!items) goto error;
  result = PyTuple_Pack(3, items, PyTuple_GET_ITEM(entry, 0), PyTuple_GET_ITEM(entry, 1));
  Py_DECREF(items);
  goto done;
maybe_error:
  if (!PyErr_Occurred()) goto none;
error:  /* an ordinary exception: the Python path meets it again and says what it is */
  if (!mismatch_or_raise()) goto done;
none:
  result = Py_None;
  Py_INCREF(result);
done:
  Py_XDECREF(entry);
  Py_XDECREF(key);
  Py_DECREF(seq);
  return result;
}

static PyMethodDef methods[] = {
    {"launch", (PyCFunction)(void (*)(void))launch, METH_FASTCALL,
     "launch(plan, gx, gy, gz, stream, args[, capture[, expand]]) -> bool: see the file's header"},
    {"list_hit", (PyCFunction)(void (*)(void))list_hit, METH_FASTCALL,
     "list_hit(arrays, rank, int32, tables, captured, queries) -> (items, table, facts) or None"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "c2t_fast_launch", NULL, -1, methods};

PyMODINIT_FUNC PyInit_c2t_fast_launch(void) {
  s_data_ptr = PyUnicode_InternFromString("data_ptr");
  s_dtype = PyUnicode_InternFromString("dtype");
  s_shape = PyUnicode_InternFromString("shape");
  s_stride = PyUnicode_InternFromString("stride");
  s_get_device = PyUnicode_InternFromString("get_device");
  s_is_cuda = PyUnicode_InternFromString("is_cuda");
  s_is_neg = PyUnicode_InternFromString("is_neg");
  s_is_conj = PyUnicode_InternFromString("is_conj");
  if (!s_data_ptr || !s_dtype || !s_shape || !s_stride || !s_get_device || !s_is_cuda || !s_is_neg || !s_is_conj)
    return NULL;
  for (int r = 0; r <= MAX_RANK; ++r)
    if (!(s_small[r] = PyLong_FromLong(r))) return NULL;
  s_one = s_small[1], s_zero = s_small[0];
  return PyModule_Create(&module);
}
