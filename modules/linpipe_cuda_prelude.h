// linpipe_cuda_prelude.h — every header linpipe's module units include, parsed ahead of the
// source in each CUDA compile that imports linpipe (linpipe_target_cuda_sources and linpipe-tidy
// pass -include for it), so that standard headers may follow `import linpipe;` in a .cu file.
//
// Why: clang's CUDA mode takes a deleted function for __host__ __device__ once it is declared,
// but for __host__ while a redeclaration of it is parsed. A header a module unit included in its
// global module fragment is parsed again in an importer that includes it after the import (the
// fragment's include guards do not reach the importer), and each deleted function it redeclares
// (std::ref(const T&&), the ranges poison pills `void end(auto&) = delete`, ...) then fails the
// device-side compile with "__host__ function 'end' cannot overload __host__ __device__ function
// 'end'". Parsed before the import, each such header is guarded out of later includes.
//
// Every `#include <...>` in a module unit must be listed here (modules/CMakeLists.txt checks it
// when the project is configured).
#ifndef LINPIPE_CUDA_PRELUDE_H
#define LINPIPE_CUDA_PRELUDE_H

#include <algorithm>
#include <atomic>
#include <chrono>
#include <concepts>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#if defined(__CUDA__)
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#endif

#endif  // LINPIPE_CUDA_PRELUDE_H
