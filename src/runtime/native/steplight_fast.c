/*
 * The recorder's per-event work in C, for Pyodide (steplight_tracer.py: `fast_path`).
 *
 * The same algorithm as Recorder.global_trace, Recorder.local_trace and Encoder.top/encode, step
 * for step, for their common cases: "call", "line" and "return" events of a traced frame, and
 * values of the builtin types (None, bool, int, str, dict, list, tuple, set, frozenset, function).
 * Everything else is handed to those Python methods unchanged: an exception event, a return
 * that is not a normal exit, the step and time limits, a code object seen for the first time, a
 * value of any other type (Encoder.encode), any call that is not the interpreter's. So a trace is
 * the same with or without this file: fast.test.ts records the corpus and the lessons both ways
 * in one Python and compares every byte.
 *
 * Built as an Emscripten side module (scripts/build-native.sh) and loaded with ctypes.PyDLL once
 * Pyodide has started. No Python headers: the declarations below are CPython's exported C API,
 * and objects are read only through it (and ob_type, checked at load by `check_layout`).
 */
typedef struct _object PyObject;
typedef long Py_ssize_t;
typedef struct {
  const char *ml_name;
  void *ml_meth;
  int ml_flags;
  const char *ml_doc;
} PyMethodDef;
#define METH_FASTCALL 0x0080
#define METH_KEYWORDS 0x0002
#define Py_NE 3

extern void Py_IncRef(PyObject *);
extern void Py_DecRef(PyObject *);
extern PyObject *PyObject_GetAttr(PyObject *, PyObject *);
extern int PyObject_SetAttr(PyObject *, PyObject *, PyObject *);
extern PyObject *PyObject_Type(PyObject *);
extern PyObject *PyObject_RichCompare(PyObject *, PyObject *, int);
extern int PyObject_IsTrue(PyObject *);
extern Py_ssize_t PyObject_Size(PyObject *);
extern PyObject *PyObject_GetIter(PyObject *);
extern PyObject *PyIter_Next(PyObject *);
extern PyObject *PyObject_GetItem(PyObject *, PyObject *);
extern PyObject *PyObject_Vectorcall(PyObject *, PyObject *const *, unsigned long, PyObject *);
extern PyObject *PyDict_New(void);
extern PyObject *PyDict_Copy(PyObject *);
extern PyObject *PyDict_GetItemWithError(PyObject *, PyObject *);
extern int PyDict_SetItem(PyObject *, PyObject *, PyObject *);
extern int PyDict_DelItem(PyObject *, PyObject *);
extern Py_ssize_t PyDict_Size(PyObject *);
extern int PyDict_Next(PyObject *, Py_ssize_t *, PyObject **, PyObject **);
extern int PyDict_Contains(PyObject *, PyObject *);
extern PyObject *PyList_New(Py_ssize_t);
extern Py_ssize_t PyList_Size(PyObject *);
extern PyObject *PyList_GetItem(PyObject *, Py_ssize_t);
extern int PyList_SetItem(PyObject *, Py_ssize_t, PyObject *);
extern int PyList_Append(PyObject *, PyObject *);
extern PyObject *PyTuple_New(Py_ssize_t);
extern Py_ssize_t PyTuple_Size(PyObject *);
extern PyObject *PyTuple_GetItem(PyObject *, Py_ssize_t);
extern int PyTuple_SetItem(PyObject *, Py_ssize_t, PyObject *);
extern int _PyTuple_Resize(PyObject **, Py_ssize_t);
extern int PySet_Contains(PyObject *, PyObject *);
extern PyObject *PyLong_FromVoidPtr(void *);
extern void *PyLong_AsVoidPtr(PyObject *);
extern PyObject *PyLong_FromSsize_t(Py_ssize_t);
extern Py_ssize_t PyLong_AsSsize_t(PyObject *);
extern long long PyLong_AsLongLongAndOverflow(PyObject *, int *);
extern Py_ssize_t PyUnicode_GetLength(PyObject *);
extern PyObject *PyUnicode_Substring(PyObject *, Py_ssize_t, Py_ssize_t);
extern PyObject *PyUnicode_InternFromString(const char *);
extern PyObject *PyMapping_Items(PyObject *);
extern PyObject *PyFrame_GetCode(PyObject *);
extern PyObject *PyFrame_GetLocals(PyObject *);
extern int PyFrame_GetLineNumber(PyObject *);
extern int PyFrame_GetLasti(PyObject *);
extern PyObject *PyCode_GetCode(PyObject *);
extern PyObject *PyLong_FromLong(long);
extern PyObject *PyErr_Occurred(void);
extern int PyErr_ExceptionMatches(PyObject *);
extern void PyErr_Clear(void);
extern PyObject *PyErr_GetRaisedException(void);
extern void PyObject_GC_UnTrack(void *);
extern PyObject *PyCMethod_New(PyMethodDef *, PyObject *, PyObject *, PyObject *);
extern PyObject *PyExc_Exception, *PyExc_SystemError;
extern void PyErr_SetRaisedException(PyObject *);
extern void PyErr_SetString(PyObject *, const char *);
extern PyObject *PyEval_GetFrame(void);
extern void *PyThreadState_Get(void);
extern int PyCode_Addr2Line(PyObject *, int);
extern PyObject *PyException_GetTraceback(PyObject *);
extern int PyLong_AsInt(PyObject *);
extern long PyLong_AsLong(PyObject *);
extern PyObject *PyTuple_Pack(Py_ssize_t, ...);
typedef unsigned int Py_UCS4;
extern Py_UCS4 *PyUnicode_AsUCS4(PyObject *, Py_UCS4 *, Py_ssize_t, int);
extern PyObject *PyUnicode_FromStringAndSize(const char *, Py_ssize_t);
extern PyObject *PyObject_Repr(PyObject *);
extern double PyFloat_AsDouble(PyObject *);
extern void *PyMem_RawRealloc(void *, unsigned long);
extern void PyMem_RawFree(void *);
extern void *PyMem_RawCalloc(unsigned long, unsigned long);
extern void *memcpy(void *, const void *, unsigned long);
extern PyObject *PyErr_NoMemory(void);
extern PyObject _Py_NoneStruct, _Py_TrueStruct;
extern PyObject PyFrameLocalsProxy_Type;
extern PyObject PyDict_Type, PyList_Type, PyTuple_Type, PySet_Type, PyFrozenSet_Type, PyFrame_Type, PyLong_Type, PyBool_Type, PyUnicode_Type, PyFunction_Type, PyFloat_Type;

#define None (&_Py_NoneStruct)
/*
 * Read from objects directly, as the getters read them (checked by `check_layout` at load): a
 * getter called through getattr costs a trip through JavaScript in Pyodide (its call trampoline).
 * ob_type is every object's second word; a function's __name__ and __qualname__ its 5th and 6th.
 */
#define TYPE(o) (((PyObject **)(o))[1])
#define FUNCTION_NAME(f) (((PyObject **)(f))[4])
#define FUNCTION_QUALNAME(f) (((PyObject **)(f))[5])
/* A tuple's and a list's items (check_layout compares these reads with the API's), read where the
 * object's class and the index are known good: PyTuple_GetItem is a call into the interpreter. */
#define TUPLE_ITEM(t, i) (((PyObject **)(t))[4 + (i)])
#define LIST_ITEM(l, i) ((((PyObject ***)(l))[3])[i])

/* What the recorder gives `make` (steplight_tracer.fast_path), in this order. */
enum {
  S_STEPS,        /* Recorder.steps: list of step dicts */
  S_FRAMES,       /* Recorder.frames: id(frame) -> {name: (value, encoding, witness)} */
  S_RAISED,       /* Recorder.raised: id(frame) -> the last exception raised in it */
  S_KNOWN,        /* Recorder.known: id(code) -> (code, function number or None) */
  S_SLOW_LOCAL,   /* Recorder.local_trace, the Python method */
  S_SLOW_GLOBAL,  /* Recorder.global_trace, the Python method */
  S_OUTPUT,       /* the run's Output */
  S_MAX_STEPS,    /* limits["maxSteps"] */
  S_NORMAL_EXITS, /* the opcodes a frame returns normally at (frozenset) */
  S_ENCODER,      /* the Encoder */
  S_ENCODE,       /* Encoder.encode, for every other type */
  S_UNREADABLE,   /* Encoder.unreadable */
  S_REFS,         /* Encoder.refs: id -> (number, object) */
  S_SHARED,       /* Encoder.shared: id -> (str, its encoding) */
  S_STR_LEN, S_ITEMS, S_DEPTH_LIMIT, /* the limits, ints */
  S_NONE, S_TRUE, S_FALSE, /* the encodings of None, True and False (shared) */
  S_SEQUENCE, S_MAPPING, S_FUNCTION, /* the witness checks inlined here (as in Encoder.unchanged) */
  S_RECORDING,    /* steplight_tracer.RECORDING: [True] while the recorder's Python runs (see `python`) */
  S_MONITORING,   /* [True] while sys.monitoring brings the events in place of sys.settrace (see "sys.settrace on sys.monitoring") */
  S_HAND_OVER,    /* Monitor.hand_over(how): sys.settrace takes the events from here on */
  S_DISABLE,      /* sys.monitoring.DISABLE */
  S_LOCAL,  /* the local trace function made here (what each event returns), appended by make */
  S_GLOBAL, /* the global one, appended by make */
};

/* Interned names, made by `make` once. */
static PyObject *s_call, *s_line, *s_return, *s_event, *s_depth, *s_stdout_len, *s_fn, *s_locals, *s_changes, *s_removed,
    *s_value, *s_length, *s_qualname, *s_name, *s_witness, *s_t, *s_v,
    *s_len, *s_id, *s_int, *s_str, *s_func, *s_dict, *s_list, *s_tuple, *s_set, *s_frozenset, *s_entries, *s_items,
    *s_more, *s_ref, *s_of, *s_name_key, *s_exception, *s_quiet, *s_legacy, *s_error, *s_opcodes, *s_empty;

static PyObject *item(PyObject *state, int k) { return LIST_ITEM(state, k); }
static Py_ssize_t number(PyObject *state, int k) { return PyLong_AsSsize_t(item(state, k)); }

/*
 * Calls the recorder's Python with RECORDING set (what its trace functions do themselves): a
 * lesson's audit hook does not hear the events the recorder's own work raises.
 */
static PyObject *python(PyObject *state, PyObject *callable, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  PyObject *flag = item(state, S_RECORDING), *was = PyList_GetItem(flag, 0);
  Py_IncRef(was);
  Py_IncRef(&_Py_TrueStruct);
  PyList_SetItem(flag, 0, &_Py_TrueStruct); /* (steals) */
  PyObject *out = PyObject_Vectorcall(callable, args, (unsigned long)nargs, kwnames);
  PyList_SetItem(flag, 0, was);
  return out;
}

/* The Python method, called as this function was (keywords too). */
static PyObject *slow(PyObject *state, int which, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  return python(state, item(state, which), args, nargs, kwnames);
}

/* Set d[k] = v and drop the caller's reference to v; 0 when v is NULL or the store fails. */
static int put(PyObject *d, PyObject *k, PyObject *v) {
  if (!v) return 0;
  int failed = PyDict_SetItem(d, k, v);
  Py_DecRef(v);
  return !failed;
}

static PyObject *ref_to(PyObject *o) {
  Py_IncRef(o);
  return o;
}

/*
 * The recorder's own containers (encodings, steps, entries, witnesses) leave the cyclic garbage
 * collector's lists once filled: they never take part in a cycle (trees of atoms, and tuples that
 * only the recorder refers to), and scanning them was a third of a step's cost. An object they
 * refer to only counts as referred to from outside, so nothing is ever collected early.
 */
static PyObject *untracked(PyObject *o) {
  if (o) PyObject_GC_UnTrack(o);
  return o;
}

/* A new tuple of n objects (new references taken from `items`; NULL items make it fail). */
static PyObject *tuple_of(Py_ssize_t n, PyObject **items) {
  PyObject *t = PyTuple_New(n);
  int ok = t != 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    if (ok && items[i]) PyTuple_SetItem(t, i, items[i]); /* steals */
    else {
      ok = 0;
      if (items[i]) Py_DecRef(items[i]);
    }
  }
  if (!ok && t) {
    Py_DecRef(t);
    return 0;
  }
  return untracked(t);
}

/* ---- Encoder ---- */

/* Encoder.unchanged: 1 unchanged, 0 changed (or a check raised an Exception), -1 another error. */
static int unchanged(PyObject *state, PyObject *witness) {
  Py_ssize_t n = PyList_Size(witness);
  for (Py_ssize_t k = 0; k < n; k++) {
    PyObject *entry = LIST_ITEM(witness, k);
    PyObject *check = TUPLE_ITEM(entry, 0), *value = TUPLE_ITEM(entry, 1);
    PyObject *a = TUPLE_ITEM(entry, 2), *b = TUPLE_ITEM(entry, 3), *c = TUPLE_ITEM(entry, 4);
    if (check == item(state, S_SEQUENCE)) { /* a list, tuple, set or frozenset of exactly class a */
      PyObject *kind = TYPE(value);
      if (kind != a || PyObject_Size(value) != PyLong_AsSsize_t(b)) return 0;
      Py_ssize_t shown = PyTuple_Size(c);
      if (kind == &PyList_Type || kind == &PyTuple_Type) {
        for (Py_ssize_t i = 0; i < shown; i++) {
          PyObject *now = kind == &PyList_Type ? LIST_ITEM(value, i) : TUPLE_ITEM(value, i);
          if (now != TUPLE_ITEM(c, i)) return 0;
        }
      } else {
        PyObject *it = PyObject_GetIter(value), *now;
        if (!it) return -1;
        Py_ssize_t i = 0;
        int same = 1;
        while (i < shown && (now = PyIter_Next(it))) {
          same = now == TUPLE_ITEM(c, i++);
          Py_DecRef(now);
          if (!same) break;
        }
        Py_DecRef(it);
        if (PyErr_Occurred()) return -1;
        if (!same) return 0;
      }
    } else if (check == item(state, S_MAPPING)) { /* a dict; c = (keys, values) shown */
      if (TYPE(value) != &PyDict_Type || PyDict_Size(value) != PyLong_AsSsize_t(b)) return 0;
      PyObject *keys = TUPLE_ITEM(c, 0), *values = TUPLE_ITEM(c, 1), *key, *now;
      Py_ssize_t pos = 0, i = 0, shown = PyTuple_Size(keys);
      while (i < shown && PyDict_Next(value, &pos, &key, &now)) {
        if (key != TUPLE_ITEM(keys, i) || now != TUPLE_ITEM(values, i)) return 0;
        i++;
      }
    } else if (check == item(state, S_FUNCTION)) { /* a = its __qualname__, b = its __name__ */
      if (FUNCTION_QUALNAME(value) != a || FUNCTION_NAME(value) != b) return 0;
    } else {
      PyObject *call[4] = {value, a, b, c};
      PyObject *result = python(state, check, call, 4, 0);
      if (!result) goto failed;
      int truth = PyObject_IsTrue(result);
      Py_DecRef(result);
      if (truth < 0) goto failed;
      if (!truth) return 0;
    }
  }
  return 1;
failed: /* as `except Exception: return False` around the Python loop */
  if (PyErr_ExceptionMatches(PyExc_Exception)) {
    PyErr_Clear();
    return 0;
  }
  return -1;
}

/* Encoder.ref: the object's small stable id, as a new reference. */
static PyObject *ref(PyObject *state, PyObject *o) {
  PyObject *refs = item(state, S_REFS), *key = PyLong_FromVoidPtr(o);
  if (!key) return 0;
  PyObject *hit = PyDict_GetItemWithError(refs, key);
  if (!hit) {
    PyObject *pair[2] = {PyLong_FromSsize_t(PyErr_Occurred() ? 0 : PyDict_Size(refs) + 1), ref_to(o)};
    if (PyErr_Occurred() || !(hit = tuple_of(2, pair)) || PyDict_SetItem(refs, key, hit)) {
      if (hit) Py_DecRef(hit);
      Py_DecRef(key);
      return 0;
    }
    Py_DecRef(hit); /* refs holds it */
  }
  Py_DecRef(key);
  return ref_to(TUPLE_ITEM(hit, 0));
}

/* A new dict {"t": kind} with `more` further (key, value) pairs; the values' references are taken. */
static PyObject *tagged(PyObject *kind, int more, PyObject *k1, PyObject *v1, PyObject *k2, PyObject *v2, PyObject *k3, PyObject *v3) {
  PyObject *out = PyDict_New(), *keys[3] = {k1, k2, k3}, *values[3] = {v1, v2, v3};
  int ok = out && !PyDict_SetItem(out, s_t, kind);
  for (int i = 0; i < more; i++) ok = (ok ? put(out, keys[i], values[i]) : (values[i] ? (Py_DecRef(values[i]), 0) : 0));
  if (!ok && out) {
    Py_DecRef(out);
    return 0;
  }
  return untracked(out);
}

/* Encoder.text: {"t": kind, "v": the first strLen characters} and "len" when cut. */
static PyObject *text(PyObject *state, PyObject *value, PyObject *kind) {
  Py_ssize_t size = PyUnicode_GetLength(value), cap = number(state, S_STR_LEN);
  PyObject *out = tagged(kind, 1, s_v, PyUnicode_Substring(value, 0, size < cap ? size : cap), 0, 0, 0, 0);
  if (out && size > cap && !put(out, s_len, PyLong_FromSsize_t(size))) {
    Py_DecRef(out);
    return 0;
  }
  return out;
}

static PyObject *encode(PyObject *state, PyObject *value, Py_ssize_t depth, PyObject *path);

/* Encoder.encode in Python, for every type not done here. */
static PyObject *encode_in_python(PyObject *state, PyObject *value, Py_ssize_t depth, PyObject *path) {
  PyObject *d = PyLong_FromSsize_t(depth);
  if (!d) return 0;
  PyObject *args[3] = {value, d, path};
  PyObject *out = python(state, item(state, S_ENCODE), args, 3, 0);
  Py_DecRef(d);
  return out;
}

/* Append (check, value, a, b, c) to the encoder's witness list (references to a, b, c taken). */
static int witness_entry(PyObject *state, int check, PyObject *value, PyObject *a, PyObject *b, PyObject *c) {
  PyObject *parts[5] = {ref_to(item(state, check)), ref_to(value), a, b, c};
  PyObject *entry = tuple_of(5, parts);
  if (!entry) return 0;
  PyObject *witness = PyObject_GetAttr(item(state, S_ENCODER), s_witness);
  int ok = witness && !PyList_Append(witness, entry);
  if (witness) Py_DecRef(witness);
  Py_DecRef(entry);
  return ok;
}

/* Encoder.container, for a dict, list, tuple, set or frozenset of exactly that class. */
static PyObject *container(PyObject *state, PyObject *value, PyObject *name, Py_ssize_t depth, PyObject *path) {
  PyObject *kind = TYPE(value), *key = 0, *ident = 0, *out = 0, *inner = 0, *shown = 0, *keys = 0, *values = 0, *encoded = 0, *result = 0;
  int is_dict = kind == &PyDict_Type;
  if (!(ident = ref(state, value))) return 0;
  Py_ssize_t size = PyObject_Size(value), limit = number(state, S_ITEMS);
  if (!(out = tagged(name, 2, s_id, ref_to(ident), s_len, PyLong_FromSsize_t(size), 0, 0))) goto done;
  for (Py_ssize_t i = 0, n = PyTuple_Size(path); i < n; i++)
    if (PyLong_AsVoidPtr(TUPLE_ITEM(path, i)) == (void *)value) { /* id(value) in path */
      result = tagged(s_ref, 2, s_id, ref_to(ident), s_of, ref_to(name), 0, 0);
      goto done;
    }
  if (depth >= number(state, S_DEPTH_LIMIT)) {
    PyObject *none_shown = s_empty;
    if (is_dict) {
      PyObject *pair[2] = {ref_to(s_empty), ref_to(s_empty)};
      if (!(none_shown = tuple_of(2, pair))) goto done;
    } else Py_IncRef(none_shown);
    if (!witness_entry(state, is_dict ? S_MAPPING : S_SEQUENCE, value, ref_to(kind), PyLong_FromSsize_t(size), none_shown)) goto done;
    if (PyDict_SetItem(out, s_more, (PyObject *)&_Py_TrueStruct)) goto done;
    result = ref_to(out);
    goto done;
  }
  Py_ssize_t n = size < limit ? size : limit, plen = PyTuple_Size(path);
  /* inner = path + (id(value),) */
  if (!(inner = PyTuple_New(plen + 1))) goto done;
  for (Py_ssize_t i = 0; i < plen; i++) PyTuple_SetItem(inner, i, ref_to(TUPLE_ITEM(path, i)));
  if (!(key = PyLong_FromVoidPtr(value))) goto done;
  PyTuple_SetItem(inner, plen, ref_to(key));
  /* what the encoding shows, read before any of it is encoded (as tuple(islice(...))) */
  if (is_dict) {
    if (!(keys = untracked(PyTuple_New(n))) || !(values = untracked(PyTuple_New(n)))) goto done;
    PyObject *k, *v;
    Py_ssize_t pos = 0, i = 0;
    while (i < n && PyDict_Next(value, &pos, &k, &v)) {
      PyTuple_SetItem(keys, i, ref_to(k));
      PyTuple_SetItem(values, i++, ref_to(v));
    }
  } else if (kind == &PyList_Type || kind == &PyTuple_Type) {
    if (!(shown = untracked(PyTuple_New(n)))) goto done;
    for (Py_ssize_t i = 0; i < n; i++) PyTuple_SetItem(shown, i, ref_to(kind == &PyList_Type ? LIST_ITEM(value, i) : TUPLE_ITEM(value, i)));
  } else {
    PyObject *it = PyObject_GetIter(value), *now;
    if (!it || !(shown = untracked(PyTuple_New(n)))) {
      if (it) Py_DecRef(it);
      goto done;
    }
    Py_ssize_t i = 0;
    while (i < n && (now = PyIter_Next(it))) PyTuple_SetItem(shown, i++, now);
    Py_DecRef(it);
    if (PyErr_Occurred() || (i < n && _PyTuple_Resize(&shown, n = i))) goto done; /* (a set yields what its size says) */
  }
  if (!(encoded = untracked(PyList_New(n)))) goto done;
  for (Py_ssize_t i = 0; i < n; i++) {
    if (is_dict) {
      PyObject *pair = untracked(PyList_New(2)), *k = 0, *v = 0;
      if (!pair) goto done;
      PyList_SetItem(encoded, i, pair);
      if (!(k = encode(state, TUPLE_ITEM(keys, i), depth + 1, inner))) goto done;
      PyList_SetItem(pair, 0, k);
      if (!(v = encode(state, TUPLE_ITEM(values, i), depth + 1, inner))) goto done;
      PyList_SetItem(pair, 1, v);
    } else {
      PyObject *e = encode(state, TUPLE_ITEM(shown, i), depth + 1, inner);
      if (!e) goto done;
      PyList_SetItem(encoded, i, e);
    }
  }
  if (PyDict_SetItem(out, is_dict ? s_entries : s_items, encoded)) goto done;
  if (is_dict) {
    PyObject *pair[2] = {ref_to(keys), ref_to(values)};
    if (!(shown = tuple_of(2, pair))) goto done;
  }
  if (!witness_entry(state, is_dict ? S_MAPPING : S_SEQUENCE, value, ref_to(kind), PyLong_FromSsize_t(size), ref_to(shown))) goto done;
  result = ref_to(untracked(out));
done:
  if (ident) Py_DecRef(ident);
  if (key) Py_DecRef(key);
  if (out) Py_DecRef(out);
  if (inner) Py_DecRef(inner);
  if (shown) Py_DecRef(shown);
  if (keys) Py_DecRef(keys);
  if (values) Py_DecRef(values);
  if (encoded) Py_DecRef(encoded);
  return result;
}

/* Encoder.encode: a new reference to the value's encoding, or NULL with an exception set. */
static PyObject *encode(PyObject *state, PyObject *value, Py_ssize_t depth, PyObject *path) {
  PyObject *kind = TYPE(value);
  if (value == None) return ref_to(item(state, S_NONE));
  if (kind == &PyBool_Type) return ref_to(item(state, value == &_Py_TrueStruct ? S_TRUE : S_FALSE));
  if (kind == &PyLong_Type) { /* Encoder.big_int: exact below 2**53 */
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (!overflow && v > -(1LL << 53) && v < (1LL << 53)) return tagged(s_int, 1, s_v, ref_to(value), 0, 0, 0, 0);
    if (PyErr_Occurred()) return 0;
    return encode_in_python(state, value, depth, path);
  }
  if (kind == &PyUnicode_Type) { /* encoded once per object, the encoding shared (Encoder.shared) */
    PyObject *shared = item(state, S_SHARED), *key = PyLong_FromVoidPtr(value);
    if (!key) return 0;
    PyObject *hit = PyDict_GetItemWithError(shared, key);
    if (hit && TUPLE_ITEM(hit, 0) == value) {
      Py_DecRef(key);
      return ref_to(TUPLE_ITEM(hit, 1));
    }
    PyObject *out = PyErr_Occurred() ? 0 : text(state, value, s_str);
    if (out) {
      PyObject *pair[2] = {ref_to(value), ref_to(out)}, *entry = tuple_of(2, pair);
      if (!entry || PyDict_SetItem(shared, key, entry)) {
        Py_DecRef(out);
        out = 0;
      }
      if (entry) Py_DecRef(entry);
    }
    Py_DecRef(key);
    return out;
  }
  if (kind == &PyDict_Type) return container(state, value, s_dict, depth, path);
  if (kind == &PyList_Type) return container(state, value, s_list, depth, path);
  if (kind == &PyTuple_Type) return container(state, value, s_tuple, depth, path);
  if (kind == &PySet_Type) return container(state, value, s_set, depth, path);
  if (kind == &PyFrozenSet_Type) return container(state, value, s_frozenset, depth, path);
  if (kind == &PyFunction_Type) { /* its names in the witness (a function can be renamed), then Encoder.callable */
    PyObject *qualname = ref_to(FUNCTION_QUALNAME(value)), *name = ref_to(FUNCTION_NAME(value)); /* (always str) */
    PyObject *shown = PyUnicode_GetLength(qualname) ? qualname : name; /* __qualname__ or __name__ */
    Py_IncRef(shown);
    if (!witness_entry(state, S_FUNCTION, value, qualname, name, ref_to(None))) {
      Py_DecRef(shown);
      return 0;
    }
    return tagged(s_func, 2, s_name_key, shown, s_id, ref(state, value), 0, 0);
  }
  return encode_in_python(state, value, depth, path);
}

/* Encoder.top: a new tuple (value, its encoding, its witness); the witness None when unreadable. */
static PyObject *top(PyObject *state, PyObject *value) {
  PyObject *encoder = item(state, S_ENCODER), *witness = untracked(PyList_New(0)), *out;
  if (!witness || PyObject_SetAttr(encoder, s_witness, witness)) {
    if (witness) Py_DecRef(witness);
    return 0;
  }
  if (!(out = encode(state, value, 0, s_empty))) {
    Py_DecRef(witness);
    if (!PyErr_ExceptionMatches(PyExc_Exception)) return 0;
    PyObject *error = PyErr_GetRaisedException();
    PyObject *args[2] = {value, error};
    out = python(state, item(state, S_UNREADABLE), args, 2, 0);
    Py_DecRef(error);
    if (!out) return 0;
    witness = ref_to(None);
  }
  PyObject *parts[3] = {ref_to(value), out, witness};
  return tuple_of(3, parts);
}

/* ---- Recorder ---- */

/* Recorder.known[id(code)] (borrowed), or NULL: not known yet, or an error (set). */
static PyObject *known(PyObject *state, PyObject *code) {
  PyObject *code_id = PyLong_FromVoidPtr(code);
  if (!code_id) return 0;
  PyObject *hit = PyDict_GetItemWithError(item(state, S_KNOWN), code_id);
  Py_DecRef(code_id);
  return hit;
}

/*
 * list(f_locals.items()). A function's frame gives a FrameLocalsProxy, whose items() is a method
 * call (through JavaScript in Pyodide's call trampoline); its keys, iterated, and each read by its
 * name are the same pairs in the same order, through its C slots.
 */
static PyObject *locals_items(PyObject *locals) {
  if (TYPE(locals) != (PyObject *)&PyFrameLocalsProxy_Type) return PyMapping_Items(locals);
  PyObject *names = PyObject_GetIter(locals), *items = names ? PyList_New(0) : 0, *name;
  if (!items) {
    if (names) Py_DecRef(names);
    return 0;
  }
  while ((name = PyIter_Next(names))) {
    PyObject *value = PyObject_GetItem(locals, name), *pair = value ? PyTuple_Pack(2, name, value) : 0;
    int failed = !pair || PyList_Append(items, pair);
    Py_DecRef(name);
    if (value) Py_DecRef(value);
    if (pair) Py_DecRef(pair);
    if (failed) break;
  }
  Py_DecRef(names);
  if (PyErr_Occurred()) {
    Py_DecRef(items);
    return 0;
  }
  return items;
}


/* Recorder.local_trace for "call", "line" and normal "return" events (the Python method, step for step). */
static PyObject *local_trace(PyObject *state, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  if (kwnames || nargs != 3 || TYPE(args[0]) != &PyFrame_Type || (args[1] != s_line && args[1] != s_call && args[1] != s_return))
    return slow(state, S_SLOW_LOCAL, args, nargs, kwnames);
  PyObject *frame = args[0], *event = args[1], *arg = args[2];
  PyObject *steps = item(state, S_STEPS), *frames = item(state, S_FRAMES);
  Py_ssize_t count = PyList_Size(steps);
  if (count >= number(state, S_MAX_STEPS) || !(count & 255))
    return slow(state, S_SLOW_LOCAL, args, nargs, kwnames); /* the limits: the Python method stops the run */
  PyObject *code = PyFrame_GetCode(frame), *hit = known(state, code);
  if (hit && event == s_return) { /* a return at one of the normal exits; any other is the Python method's */
    PyObject *bytecode = PyCode_GetCode(code), *lasti = bytecode ? PyLong_FromLong(PyFrame_GetLasti(frame)) : 0; /* co_code, f_lasti */
    PyObject *op = lasti ? PyObject_GetItem(bytecode, lasti) : 0;
    int normal = op ? PySet_Contains(item(state, S_NORMAL_EXITS), op) : -1;
    if (bytecode) Py_DecRef(bytecode);
    if (lasti) Py_DecRef(lasti);
    if (op) Py_DecRef(op);
    if (normal < 0) PyErr_Clear(); /* read again by the Python method */
    if (normal <= 0) hit = 0;
  }
  Py_DecRef(code);
  if (!hit) return PyErr_Occurred() ? 0 : slow(state, S_SLOW_LOCAL, args, nargs, kwnames);
  PyObject *fn = TUPLE_ITEM(hit, 1);

  PyObject *key = 0, *before = 0, *locals = 0, *items = 0, *changes = 0, *current = 0, *step = 0, *result = 0;
  if (!(key = PyLong_FromVoidPtr(frame))) goto done;
  before = PyDict_GetItemWithError(frames, key); /* borrowed until the IncRef below */
  if (!before && PyErr_Occurred()) goto done;
  if (before) Py_IncRef(before); /* held while Python runs (Encoder.encode) */
  Py_ssize_t depth = PyDict_Size(frames) + !before; /* target frames on the stack, this one included */
  if (!(locals = PyFrame_GetLocals(frame)) || !(items = locals_items(locals))) goto done; /* f_locals */
  if (!(changes = untracked(PyDict_New()))) goto done;
  Py_ssize_t n = PyList_Size(items);
  int same = 1;
  if (!before) {
    if (!(current = untracked(PyDict_New()))) goto done;
    for (Py_ssize_t k = 0; k < n; k++) {
      PyObject *pair = LIST_ITEM(items, k), *name = TUPLE_ITEM(pair, 0), *value = TUPLE_ITEM(pair, 1);
      PyObject *entry = top(state, value);
      if (!entry) goto done;
      int stored = !PyDict_SetItem(current, name, entry) && !PyDict_SetItem(changes, name, TUPLE_ITEM(entry, 1));
      Py_DecRef(entry);
      if (!stored) goto done;
    }
  } else {
    /* the previous step's entries stand until a local changes; `same`: the same names */
    same = n == PyDict_Size(before);
    for (Py_ssize_t k = 0; k < n; k++) {
      PyObject *pair = LIST_ITEM(items, k), *name = TUPLE_ITEM(pair, 0), *value = TUPLE_ITEM(pair, 1);
      PyObject *old = PyDict_GetItemWithError(before, name);
      if (!old) {
        if (PyErr_Occurred()) goto done;
        same = 0;
      } else if (TUPLE_ITEM(old, 0) == value) {
        PyObject *witness = TUPLE_ITEM(old, 2);
        if (witness != None) {
          int holds = PyList_Size(witness) == 0 ? 1 : unchanged(state, witness);
          if (holds < 0) goto done;
          if (holds) continue; /* the same object, and what its encoding read is unchanged */
        }
      }
      if (old) Py_IncRef(old);
      PyObject *entry = top(state, value);
      if (!entry) {
        if (old) Py_DecRef(old);
        goto done;
      }
      if (!current && !(current = PyDict_Copy(before))) {
        Py_DecRef(entry);
        if (old) Py_DecRef(old);
        goto done;
      }
      int ok = !PyDict_SetItem(current, name, entry), differs = 1;
      if (ok && old) {
        PyObject *ne = PyObject_RichCompare(TUPLE_ITEM(old, 1), TUPLE_ITEM(entry, 1), Py_NE);
        differs = ne ? PyObject_IsTrue(ne) : -1;
        if (ne) Py_DecRef(ne);
        ok = differs >= 0;
      }
      if (ok && differs) ok = !PyDict_SetItem(changes, name, TUPLE_ITEM(entry, 1));
      Py_DecRef(entry);
      if (old) Py_DecRef(old);
      if (!ok) goto done;
    }
    if (!current) current = ref_to(before); /* nothing changed: shared, never changed in place */
  }
  if (!(step = untracked(PyDict_New()))) goto done;
  int line = PyFrame_GetLineNumber(frame); /* f_lineno: None when there is none */
  if (PyDict_SetItem(step, s_event, event) || !put(step, s_line, line < 0 ? ref_to(None) : PyLong_FromLong(line)) ||
      !put(step, s_depth, PyLong_FromSsize_t(depth)) || !put(step, s_stdout_len, PyObject_GetAttr(item(state, S_OUTPUT), s_length)))
    goto done;
  int truth = PyObject_IsTrue(fn);
  if (truth < 0 || (truth && PyDict_SetItem(step, s_fn, fn))) goto done;
  if (!before) {
    if (PyDict_SetItem(step, s_locals, changes)) goto done;
  } else {
    if (PyDict_Size(changes) && PyDict_SetItem(step, s_changes, changes)) goto done;
    if (!same) { /* names came or went: the entries in the order of f_locals, and what went */
      PyObject *ordered = untracked(PyDict_New()), *removed = untracked(PyList_New(0)), *name, *ignored;
      int ok = ordered && removed;
      for (Py_ssize_t k = 0; ok && k < n; k++) {
        name = TUPLE_ITEM(LIST_ITEM(items, k), 0);
        PyObject *entry = PyDict_GetItemWithError(current, name);
        ok = entry && !PyDict_SetItem(ordered, name, entry);
      }
      for (Py_ssize_t pos = 0; ok && PyDict_Next(before, &pos, &name, &ignored);) {
        int there = PyDict_Contains(ordered, name);
        ok = there >= 0 && (there || !PyList_Append(removed, name));
      }
      if (ok && PyList_Size(removed)) ok = !PyDict_SetItem(step, s_removed, removed);
      if (removed) Py_DecRef(removed);
      if (ordered) {
        Py_DecRef(current);
        current = ordered;
      }
      if (!ok) goto done;
    }
  }
  untracked(changes);
  untracked(current);
  if (PyDict_SetItem(frames, key, current)) goto done;
  if (event == s_return) { /* a normal exit: the value returned; the frame is no longer on the stack */
    PyObject *entry = top(state, arg);
    if (!entry) goto done;
    int ok = !PyDict_SetItem(step, s_value, TUPLE_ITEM(entry, 1));
    Py_DecRef(entry);
    if (!ok || PyDict_DelItem(frames, key)) goto done;
    PyObject *raised = item(state, S_RAISED);
    int there = PyDict_Contains(raised, key);
    if (there < 0 || (there && PyDict_DelItem(raised, key))) goto done;
  }
  if (PyList_Append(steps, untracked(step))) goto done;
  result = ref_to(item(state, S_LOCAL));
done:
  if (before) Py_DecRef(before);
  if (key) Py_DecRef(key);
  if (locals) Py_DecRef(locals);
  if (items) Py_DecRef(items);
  if (changes) Py_DecRef(changes);
  if (current) Py_DecRef(current);
  if (step) Py_DecRef(step);
  return result;
}

/* Recorder.global_trace: the call event of any frame; a traced code object's frame is recorded. */
static PyObject *global_trace(PyObject *state, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  if (kwnames || nargs != 3 || TYPE(args[0]) != &PyFrame_Type) return slow(state, S_SLOW_GLOBAL, args, nargs, kwnames);
  PyObject *code = PyFrame_GetCode(args[0]), *hit = known(state, code);
  Py_DecRef(code);
  if (!hit) return PyErr_Occurred() ? 0 : slow(state, S_SLOW_GLOBAL, args, nargs, kwnames);
  PyObject *fn = TUPLE_ITEM(hit, 1);
  int callee = fn == None ? 0 : PyObject_IsTrue(fn);
  if (callee < 0) return 0;
  if (fn == None || (callee && !PyDict_Size(item(state, S_FRAMES)))) return ref_to(None); /* a callee is traced only under the target */
  PyObject *call[3] = {args[0], s_call, args[2]};
  return local_trace(state, call, 3, 0);
}

/* ---- sys.settrace on sys.monitoring ---- */

/*
 * sys.settrace makes the interpreter report every line and return of every frame, and ask the
 * global trace function about every call: a hook workload's deepcopy and dict methods cost more
 * than the recorder's own work. These callbacks take the same events from a sys.monitoring tool
 * instead (steplight_tracer.Monitor registers them) and do with them what CPython's
 * Python/legacy_tracing.c and sysmodule.c's trace_trampoline do, line for line: the same trace
 * functions are called with the same frames, events and arguments, f_trace is set and cleared as
 * there, f_lineno is set around a line event, f_trace_lines is obeyed. What they add is
 * sys.monitoring.DISABLE for the events of a code object the recorder has classed as never
 * traced (Recorder.known: no function number), which settrace would have reported to no one: its
 * frames have no trace function, as the global one answered None for them.
 *
 * What settrace does that these do not copy is handed over to it (Monitor.hand_over): from then on
 * sys.settrace has the recorder's functions and every event, and frames keep the f_trace these set,
 * as they would have had. That happens when lesson code sets a tracer of its own (the runner's
 * sys.settrace), reaches the interpreter's own sys.settrace (its c_traceobj is then set: the
 * interpreter calls settrace's callbacks before a tool's, so it has had the event), asks for
 * opcode events, or when a trace function raises (settrace turns itself off). What a lesson could
 * still see is in the README ("Events from sys.monitoring").
 */

#define FRAME_TRACE(f) (((PyObject **)(f))[4])
#define FRAME_LINENO(f) (((int *)(f))[5])
#define FRAME_TRACE_LINES(f) (((char *)(f))[24])
#define FRAME_TRACE_OPCODES(f) (((char *)(f))[25])

static long trace_slot = -1; /* the word of PyThreadState that holds c_traceobj (find_trace_slot) */

static int legacy_on(void) { return ((PyObject **)PyThreadState_Get())[trace_slot] != 0; }

static int monitoring(PyObject *state) { return PyList_GetItem(item(state, S_MONITORING), 0) == &_Py_TrueStruct; }

/* Monitor.hand_over(how); an exception being raised is kept. 0 if the hand-over itself failed. */
static int hand_over(PyObject *state, PyObject *how) {
  PyObject *pending = PyErr_GetRaisedException(), *args[1] = {how};
  PyObject *out = how == s_error ? PyObject_Vectorcall(item(state, S_HAND_OVER), args, 1, 0) /* as settrace's own sys.settrace(None): heard */
                                 : python(state, item(state, S_HAND_OVER), args, 1, 0);
  if (out) Py_DecRef(out);
  if (pending) {
    if (!out) PyErr_Clear();
    PyErr_SetRaisedException(pending);
  }
  return out != 0;
}

/* Set a frame's f_trace (a new reference taken; NULL clears it). */
static void set_frame_trace(PyObject *frame, PyObject *function) {
  PyObject *old = FRAME_TRACE(frame);
  FRAME_TRACE(frame) = function;
  if (old) Py_DecRef(old);
}

/* trace_trampoline: the event to the frame's trace function (to the global one for "call"). */
static int deliver(PyObject *state, PyObject *frame, PyObject *event, PyObject *arg) {
  PyObject *callback = event == s_call ? item(state, S_GLOBAL) : FRAME_TRACE(frame), *result;
  if (!callback) return 0;
  PyObject *args[3] = {frame, event, arg};
  Py_IncRef(callback);
  if (callback == item(state, S_LOCAL)) result = local_trace(state, args, 3, 0);
  else if (callback == item(state, S_GLOBAL)) result = global_trace(state, args, 3, 0);
  else result = PyObject_Vectorcall(callback, args, 3, 0);
  Py_DecRef(callback);
  if (!result) { /* settrace is turned off, and this frame's trace function dropped */
    hand_over(state, s_error);
    set_frame_trace(frame, 0);
    return -1;
  }
  if (result != None) set_frame_trace(frame, result);
  else Py_DecRef(result);
  return 0;
}

/* Whether these callbacks still have the events; 0 once sys.settrace has them. */
static int live(PyObject *state) {
  if (!monitoring(state)) return 0;
  if (legacy_on()) { /* lesson code reached the interpreter's sys.settrace: it has had this event */
    hand_over(state, s_legacy);
    return 0;
  }
  return 1;
}

/* 1 a code object of a traced function, 0 one the recorder never traces, -1 not classed yet (or an error). */
static int classed(PyObject *state, PyObject *code) {
  PyObject *hit = known(state, code);
  return hit ? TUPLE_ITEM(hit, 1) != None : -1;
}

/*
 * What an event of `code` needs before its work: 0 to do it; else 1 with *out what the callback
 * returns (a new reference, NULL on an error): None once sys.settrace has the events, and for a
 * code object the recorder never traces DISABLE, or None where the event cannot be disabled.
 */
static int needless(PyObject *state, PyObject *code, int can_disable, PyObject **out) {
  int kind = live(state) ? classed(state, code) : -2; /* (a hand-over or a lookup can fail) */
  if (PyErr_Occurred()) *out = 0;
  else if (kind == 0 && can_disable) *out = ref_to(item(state, S_DISABLE));
  else if (kind == 0 || kind == -2) *out = ref_to(None);
  else return 0;
  return 1;
}

static PyObject *current_frame(void) {
  PyObject *frame = PyEval_GetFrame(); /* borrowed */
  if (!frame) PyErr_SetString(PyExc_SystemError, "Missing frame when calling trace function.");
  return frame;
}

/* call_trace_func: a "call", "return" or "exception" event of the frame running now. */
static PyObject *trace_event(PyObject *state, PyObject *event, PyObject *arg) {
  PyObject *frame = current_frame();
  if (!frame) return 0;
  int opcodes = FRAME_TRACE_OPCODES(frame);
  if (opcodes && !hand_over(state, s_quiet)) return 0; /* settrace would turn opcode events on here */
  Py_IncRef(frame);
  int failed = deliver(state, frame, event, arg);
  FRAME_LINENO(frame) = 0;
  if (!failed && opcodes && PyObject_SetAttr(frame, s_opcodes, (PyObject *)&_Py_TrueStruct)) failed = 1; /* (its setter turns them on) */
  Py_DecRef(frame);
  return failed ? 0 : ref_to(None);
}

/* trace_line: a "line" event of the frame running now, at `line`. */
static PyObject *trace_line(PyObject *state, int line) {
  PyObject *frame = current_frame();
  if (!frame) return 0;
  if (!FRAME_TRACE_LINES(frame) || line < 0) return ref_to(None);
  Py_IncRef(frame);
  FRAME_LINENO(frame) = line;
  int failed = deliver(state, frame, s_line, None);
  FRAME_LINENO(frame) = 0;
  Py_DecRef(frame);
  return failed ? 0 : ref_to(None);
}

/* PY_START, PY_RESUME (code, offset): "call", to the global trace function. */
static PyObject *on_start(PyObject *state, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  if (!live(state)) return ref_to(None);
  int kind = classed(state, args[0]);
  if (kind == 0) return ref_to(item(state, S_DISABLE)); /* the global function answers None for it, for good */
  if (kind < 0 && PyErr_Occurred()) return 0;
  PyObject *out = trace_event(state, s_call, None);
  if (out && kind < 0 && classed(state, args[0]) == 0) { /* classed just now */
    Py_DecRef(out);
    return ref_to(item(state, S_DISABLE));
  }
  return out;
}

/* PY_THROW (code, offset, exception): "call" too; this event cannot be disabled. */
static PyObject *on_throw(PyObject *state, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  PyObject *out;
  return needless(state, args[0], 0, &out) ? out : trace_event(state, s_call, None);
}

/* PY_RETURN, PY_YIELD (code, offset, value): "return" with the value. */
static PyObject *on_return(PyObject *state, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  PyObject *out;
  return needless(state, args[0], 1, &out) ? out : trace_event(state, s_return, args[2]);
}

/* PY_UNWIND (code, offset, exception): "return" with None; cannot be disabled. */
static PyObject *on_unwind(PyObject *state, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  PyObject *out;
  return needless(state, args[0], 0, &out) ? out : trace_event(state, s_return, None);
}

/* RAISE, STOP_ITERATION (code, offset, exception): "exception" with (type, exception, traceback). */
static PyObject *exception_event(PyObject *state, PyObject *exception) {
  PyObject *traceback = PyException_GetTraceback(exception), *arg = PyTuple_Pack(3, TYPE(exception), exception, traceback ? traceback : None);
  if (traceback) Py_DecRef(traceback);
  if (!arg) return 0;
  PyObject *out = trace_event(state, s_exception, arg);
  Py_DecRef(arg);
  return out;
}

static PyObject *on_raise(PyObject *state, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  PyObject *out;
  return needless(state, args[0], 0, &out) ? out : exception_event(state, args[2]);
}

static PyObject *on_stop_iteration(PyObject *state, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  PyObject *out;
  return needless(state, args[0], 1, &out) ? out : exception_event(state, args[2]);
}

/* LINE (code, line). */
static PyObject *on_line(PyObject *state, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  PyObject *out;
  if (needless(state, args[0], 1, &out)) return out;
  int line = PyLong_AsInt(args[1]);
  return line == -1 && PyErr_Occurred() ? 0 : trace_line(state, line);
}

/* JUMP (code, from, to): settrace reports a backward jump within one line as a line event. */
static PyObject *on_jump(PyObject *state, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
  PyObject *out;
  if (needless(state, args[0], 1, &out)) return out;
  long from = PyLong_AsLong(args[1]) / 2, to = PyLong_AsLong(args[2]) / 2; /* in code units */
  if (PyErr_Occurred()) return 0;
  if (to > from) return ref_to(item(state, S_DISABLE)); /* a forward jump */
  int to_line = PyCode_Addr2Line(args[0], (int)to * 2);
  if (to_line != PyCode_Addr2Line(args[0], (int)from * 2)) return ref_to(item(state, S_DISABLE)); /* the line event is LINE's */
  PyObject *frame = current_frame();
  if (!frame) return 0;
  return FRAME_TRACE_LINES(frame) ? trace_line(state, to_line) : ref_to(None);
}

/* Filled in by `monitor`, not initialised statically: a side module's data is not relocated for it. */
static PyMethodDef monitor_defs[8];

/*
 * The callbacks for sys.monitoring, over the state `make` filled: (PY_START and PY_RESUME,
 * PY_THROW, PY_RETURN and PY_YIELD, PY_UNWIND, RAISE, STOP_ITERATION, LINE, JUMP), or NULL when
 * this Python's thread state or frames are not laid out as read here (find_trace_slot).
 */
PyObject *monitor(PyObject *state) {
  if (trace_slot < 0 || PyList_Size(state) != S_GLOBAL + 1) return 0;
  void *functions[8] = {on_start, on_throw, on_return, on_unwind, on_raise, on_stop_iteration, on_line, on_jump};
  const char *labels[8] = {"start", "throw", "return", "unwind", "raise", "stop_iteration", "line", "jump"};
  PyObject *made[8];
  for (int i = 0; i < 8; i++) {
    monitor_defs[i] = (PyMethodDef){labels[i], functions[i], METH_FASTCALL | METH_KEYWORDS, 0};
    made[i] = PyCMethod_New(&monitor_defs[i], state, 0, 0);
  }
  return tuple_of(8, made);
}

/*
 * Finds where PyThreadState holds c_traceobj: sys.settrace(probe) has just been called. 1 when
 * exactly one word of it is the probe; `traced` then reads it (the caller checks it follows
 * sys.settrace), and check_frame whether frames are laid out as FRAME_* read them.
 */
int find_trace_slot(PyObject *probe) {
  PyObject **words = (PyObject **)PyThreadState_Get();
  long found = -1;
  for (long i = 0; i < 128; i++)
    if (words[i] == probe) {
      if (found >= 0) return 0;
      found = i;
    }
  trace_slot = found;
  return found >= 0;
}

PyObject *traced(void) { return ref_to(trace_slot >= 0 && legacy_on() ? ((PyObject **)PyThreadState_Get())[trace_slot] : None); }

/* `frame` (of a running function) has f_trace `marker`, f_trace_lines `lines` and f_trace_opcodes off. */
int check_frame(PyObject *frame, PyObject *marker, int lines) {
  int fits = TYPE(frame) == &PyFrame_Type && ((PyObject **)frame)[3] != 0 && FRAME_TRACE(frame) == (marker == None ? 0 : marker) &&
             FRAME_TRACE_LINES(frame) == lines && FRAME_TRACE_OPCODES(frame) == 0 && FRAME_LINENO(frame) == 0;
  if (!fits) trace_slot = -1; /* (and no monitor) */
  return fits;
}

/* ---- The trace as JSON ---- */

/*
 * `json_dumps(value, ascii=True)` (the tracer's: _json's C encoder, compact, no sorting, NaN
 * refused) for the values a trace is made of, written into one buffer: _json makes a string for
 * every key and number and a list for every dict's items, and that was a third of a run's time.
 * The output is the same byte for byte (fast.test.ts compares them); a value of any other type,
 * a float that is not finite or a dict key that is not a str makes `dump` return None, and the
 * tracer writes the trace with json_dumps instead (which writes or refuses it as it always did).
 */
typedef struct {
  PyObject *value; /* a str, dict, list or tuple written before, at data[at:at + n] */
  unsigned long at, n;
  int height; /* how deep it nests (0 for a str): written again at depth d only if d + height <= 200 */
} Written;

enum { WRITTEN_BITS = 14 };

typedef struct {
  char *data;
  unsigned long size, cap;
  Py_UCS4 *chars; /* a string's characters, copied out of it */
  Py_ssize_t chars_cap;
  /*
   * What was written, by object (a direct-mapped cache; a newer object takes an older one's slot).
   * A trace shares objects (dict keys, the encoding of a str), and nothing runs while it is
   * written, so an object written again is the same text: it is copied from where it was written.
   */
  Written *written;
} Json;
enum { JSON_FAILED = 0, JSON_OK = 1, JSON_OTHER = -1 };

static int room(Json *out, unsigned long more) {
  if (out->size + more <= out->cap) return 1;
  unsigned long cap = out->cap ? out->cap : 1 << 16;
  while (cap < out->size + more) cap *= 2;
  char *data = PyMem_RawRealloc(out->data, cap);
  if (!data) return (PyErr_NoMemory(), 0);
  out->data = data;
  out->cap = cap;
  return 1;
}

static int raw(Json *out, const char *text, unsigned long n) {
  if (!room(out, n)) return 0;
  for (unsigned long i = 0; i < n; i++) out->data[out->size++] = text[i];
  return 1;
}

static void hex4(char *at, unsigned c) {
  const char *digits = "0123456789abcdef";
  at[0] = '\\', at[1] = 'u', at[2] = digits[(c >> 12) & 15], at[3] = digits[(c >> 8) & 15], at[4] = digits[(c >> 4) & 15], at[5] = digits[c & 15];
}

/* Room for n characters copied out of a str. */
static int chars_room(Json *out, Py_ssize_t n) {
  if (n < out->chars_cap) return 1;
  Py_ssize_t cap = n + 64;
  Py_UCS4 *chars = PyMem_RawRealloc(out->chars, (unsigned long)cap * sizeof(Py_UCS4));
  if (!chars) return (PyErr_NoMemory(), 0);
  out->chars = chars;
  out->chars_cap = cap;
  return 1;
}

/* The str's n characters copied into out->chars. */
static int chars_of(Json *out, PyObject *s, Py_ssize_t n) {
  return n >= 0 && chars_room(out, n) && (!n || PyUnicode_AsUCS4(s, out->chars, out->chars_cap, 0));
}

/* A str as encode_basestring_ascii writes it: printable ASCII as is, the rest escaped. */
static int json_str(Json *out, PyObject *s) {
  Py_ssize_t n = PyUnicode_GetLength(s);
  if (!chars_of(out, s, n) || !room(out, (unsigned long)n * 12 + 2)) return JSON_FAILED; /* at most 12 bytes a character */
  char *at = out->data + out->size, *start = at;
  *at++ = '"';
  for (Py_ssize_t i = 0; i < n; i++) {
    Py_UCS4 c = out->chars[i];
    if (c >= ' ' && c <= '~' && c != '\\' && c != '"') *at++ = (char)c;
    else if (c == '\\' || c == '"') *at++ = '\\', *at++ = (char)c;
    else if (c == '\b') *at++ = '\\', *at++ = 'b';
    else if (c == '\f') *at++ = '\\', *at++ = 'f';
    else if (c == '\n') *at++ = '\\', *at++ = 'n';
    else if (c == '\r') *at++ = '\\', *at++ = 'r';
    else if (c == '\t') *at++ = '\\', *at++ = 't';
    else if (c >= 0x10000) { /* a UTF-16 surrogate pair */
      c -= 0x10000;
      hex4(at, 0xd800 | (c >> 10)), at += 6;
      hex4(at, 0xdc00 | (c & 0x3ff)), at += 6;
    } else hex4(at, c), at += 6;
  }
  *at++ = '"';
  out->size += (unsigned long)(at - start);
  return JSON_OK;
}

/* A number as _json writes it: its type's __repr__ (an int or a float: the caller checked). */
static int json_repr(Json *out, PyObject *number) {
  PyObject *text = PyObject_Repr(number);
  if (!text) return JSON_FAILED;
  Py_ssize_t n = PyUnicode_GetLength(text);
  int ok = chars_of(out, text, n) && room(out, (unsigned long)n);
  Py_DecRef(text);
  if (!ok) return JSON_FAILED;
  for (Py_ssize_t i = 0; i < n; i++) out->data[out->size++] = (char)out->chars[i];
  return JSON_OK;
}

static int json_fresh(Json *out, PyObject *value, int depth, int *height);

/* Writes the value at `depth`; *height is how deep it nests. Objects written before are copied. */
static int json_value(Json *out, PyObject *value, int depth, int *height) {
  PyObject *kind = TYPE(value);
  *height = 0;
  if (depth > 200) return JSON_OTHER; /* deeper than any trace: json_dumps says what it is */
  if (kind != &PyUnicode_Type && kind != &PyDict_Type && kind != &PyList_Type && kind != &PyTuple_Type) return json_fresh(out, value, depth, height);
  unsigned long slot = (unsigned long)(((unsigned long)value >> 3) * 2654435761u) >> (32 - WRITTEN_BITS);
  Written *seen = out->written ? out->written + (slot & ((1u << WRITTEN_BITS) - 1)) : 0;
  if (seen && seen->value == value && depth + seen->height <= 200) {
    if (!room(out, seen->n)) return JSON_FAILED;
    memcpy(out->data + out->size, out->data + seen->at, seen->n);
    out->size += seen->n;
    *height = seen->height;
    return JSON_OK;
  }
  unsigned long at = out->size;
  int done = json_fresh(out, value, depth, height);
  if (done == JSON_OK && seen) *seen = (Written){value, at, out->size - at, *height};
  return done;
}

static int json_fresh(Json *out, PyObject *value, int depth, int *height) {
  PyObject *kind = TYPE(value);
  int inner = 0;
  if (value == None) return raw(out, "null", 4);
  if (value == &_Py_TrueStruct) return raw(out, "true", 4);
  if (kind == &PyBool_Type) return raw(out, "false", 5);
  if (kind == &PyUnicode_Type) return json_str(out, value);
  if (kind == &PyLong_Type) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow) return json_repr(out, value);
    if (v == -1 && PyErr_Occurred()) return JSON_FAILED;
    char digits[24], *at = digits + sizeof(digits);
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do *--at = (char)('0' + u % 10); while (u /= 10);
    if (v < 0) *--at = '-';
    return raw(out, at, (unsigned long)(digits + sizeof(digits) - at));
  }
  if (kind == &PyFloat_Type) {
    double d = PyFloat_AsDouble(value);
    if (d != d || d - d != 0) return JSON_OTHER; /* NaN or infinite: json_dumps refuses it */
    return json_repr(out, value);
  }
  if (kind == &PyDict_Type) {
    PyObject *key, *item;
    Py_ssize_t pos = 0;
    int first = 1, done;
    if (!raw(out, "{", 1)) return JSON_FAILED;
    while (PyDict_Next(value, &pos, &key, &item)) {
      if (TYPE(key) != &PyUnicode_Type) return JSON_OTHER;
      if ((!first && !raw(out, ",", 1)) || json_value(out, key, depth, &inner) != JSON_OK || !raw(out, ":", 1)) return JSON_FAILED;
      if ((done = json_value(out, item, depth + 1, &inner)) != JSON_OK) return done;
      if (inner + 1 > *height) *height = inner + 1;
      first = 0;
    }
    if (first) *height = 1;
    return raw(out, "}", 1);
  }
  if (kind == &PyList_Type || kind == &PyTuple_Type) {
    int is_list = kind == &PyList_Type, done;
    Py_ssize_t n = is_list ? PyList_Size(value) : PyTuple_Size(value);
    if (!raw(out, "[", 1)) return JSON_FAILED;
    *height = 1;
    for (Py_ssize_t i = 0; i < n; i++) {
      if (i && !raw(out, ",", 1)) return JSON_FAILED;
      if ((done = json_value(out, is_list ? LIST_ITEM(value, i) : TUPLE_ITEM(value, i), depth + 1, &inner)) != JSON_OK) return done;
      if (inner + 1 > *height) *height = inner + 1;
    }
    return raw(out, "]", 1);
  }
  return JSON_OTHER;
}

/* The value as JSON text (a str), None when it holds what only json_dumps writes, NULL on error. */
PyObject *dump(PyObject *value) {
  Json out = {0, 0, 0, 0, 0, PyMem_RawCalloc(1u << WRITTEN_BITS, sizeof(Written))};
  int height, done = json_value(&out, value, 0, &height);
  PyObject *result = done == JSON_OK ? PyUnicode_FromStringAndSize(out.data ? out.data : "", (Py_ssize_t)out.size) : done == JSON_OTHER ? ref_to(None) : 0;
  PyMem_RawFree(out.data);
  PyMem_RawFree(out.chars);
  PyMem_RawFree(out.written);
  return result;
}

/* Filled in by `make`, not initialised statically: a side module's data is not relocated for it. */
static PyMethodDef local_def, global_def;

static int names(void) {
  const char *text[] = {"call", "line", "return", "event", "depth", "stdoutLen", "fn", "locals", "changes", "removed", "value", "length", "__qualname__", "__name__", "witness", "t", "v", "len", "id", "int", "str", "func", "dict", "list", "tuple", "set", "frozenset", "entries", "items", "more", "ref", "of", "name", "exception", "quiet", "legacy", "error", "f_trace_opcodes"};
  PyObject **slot[] = {&s_call, &s_line, &s_return, &s_event, &s_depth, &s_stdout_len, &s_fn, &s_locals, &s_changes, &s_removed, &s_value, &s_length, &s_qualname, &s_name, &s_witness, &s_t, &s_v, &s_len, &s_id, &s_int, &s_str, &s_func, &s_dict, &s_list, &s_tuple, &s_set, &s_frozenset, &s_entries, &s_items, &s_more, &s_ref, &s_of, &s_name_key, &s_exception, &s_quiet, &s_legacy, &s_error, &s_opcodes};
  for (unsigned i = 0; i < sizeof(slot) / sizeof(slot[0]); i++)
    if (!*slot[i] && !(*slot[i] = PyUnicode_InternFromString(text[i]))) return 0;
  return s_empty || (s_empty = PyTuple_New(0));
}

/* This Python's objects are laid out as TYPE and FUNCTION_* read them (`function`: a Python function). */
int check_layout(PyObject *function) {
  if (!names()) return 0;
  PyObject *kind = PyObject_Type(function), *name = PyObject_GetAttr(function, s_name), *qualname = PyObject_GetAttr(function, s_qualname);
  int fits = kind == &PyFunction_Type && TYPE(function) == kind && TYPE(None) == PyObject_Type(None) && name == FUNCTION_NAME(function) && qualname == FUNCTION_QUALNAME(function) && name != qualname;
  PyObject *pair = PyTuple_Pack(2, None, function), *list = PyList_New(0);
  fits = fits && pair && list && !PyList_Append(list, name) && !PyList_Append(list, qualname) && TUPLE_ITEM(pair, 0) == PyTuple_GetItem(pair, 0) &&
         TUPLE_ITEM(pair, 1) == function && LIST_ITEM(list, 0) == PyList_GetItem(list, 0) && LIST_ITEM(list, 1) == qualname;
  if (pair) Py_DecRef(pair);
  if (list) Py_DecRef(list);
  Py_DecRef(kind);
  if (name) Py_DecRef(name);
  if (qualname) Py_DecRef(qualname);
  PyErr_Clear();
  return fits;
}

/*
 * The two trace functions over `state` (a list laid out as the enum above; the local one is
 * appended to it): the global one as a new reference (the local one is state[S_LOCAL]), or NULL.
 */
PyObject *make(PyObject *state) {
  if (!names()) return 0;
  if (PyList_Size(state) != S_LOCAL) return 0; /* a list (steplight_tracer.FastState) */
  int kinds[][2] = {{S_STEPS, 0}, {S_FRAMES, 1}, {S_RAISED, 1}, {S_KNOWN, 1}, {S_MAX_STEPS, 2}, {S_REFS, 1}, {S_SHARED, 1}, {S_STR_LEN, 2}, {S_ITEMS, 2}, {S_DEPTH_LIMIT, 2}, {S_NORMAL_EXITS, 3}, {S_RECORDING, 0}, {S_MONITORING, 0}};
  PyObject *types[] = {&PyList_Type, &PyDict_Type, &PyLong_Type, &PyFrozenSet_Type};
  for (unsigned i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
    if (TYPE(item(state, kinds[i][0])) != types[kinds[i][1]]) return 0;
  local_def = (PyMethodDef){"local_trace", (void *)local_trace, METH_FASTCALL | METH_KEYWORDS, 0};
  global_def = (PyMethodDef){"global_trace", (void *)global_trace, METH_FASTCALL | METH_KEYWORDS, 0};
  PyObject *local = PyCMethod_New(&local_def, state, 0, 0), *global = local ? PyCMethod_New(&global_def, state, 0, 0) : 0;
  int failed = !global || PyList_Append(state, local) || PyList_Append(state, global);
  if (local) Py_DecRef(local);
  if (failed && global) Py_DecRef(global);
  return failed ? 0 : global;
}
