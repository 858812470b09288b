#!/bin/sh
# Builds the recorder's C fast path (src/runtime/native/steplight_fast.c) as an Emscripten side
# module that Pyodide loads with ctypes. The built file is kept in the repository (CI and `npm
# run build` do not need a C compiler); run this after changing the C file, with Debian's
# emscripten (apt-get install emscripten). tracer.test.ts checks the built file is of this source.
set -eu
cd "$(dirname "$0")/../src/runtime/native"
emcc -O2 -fPIC -sSIDE_MODULE=1 -sWASM_BIGINT=1 -Wall -Werror steplight_fast.c -o steplight_fast.so
sha256sum steplight_fast.c | cut -d' ' -f1 > steplight_fast.so.source-sha256
ls -l steplight_fast.so
