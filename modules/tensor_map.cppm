// linpipe:tensor_map — host helper that encodes a TMA tensor map (CUtensorMap) for a 2-D
// row-major tensor, so kernels don't each look up the driver entry point and fill
// cuTensorMapEncodeTiled's seven arrays by hand. The map goes to the kernel as a
// `const __grid_constant__ CUtensorMap` parameter and feeds ptx::tma_load_2d.
// CUDA driver API, "Tensor Map Object Management: cuTensorMapEncodeTiled".
module;
#include "linpipe_macros.h"
#if defined(__CUDA__)
#include <__clang_cuda_runtime_wrapper.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#endif
#include <cstdint>
export module linpipe:tensor_map;
#if defined(__CUDA__)
import :driver_api;

namespace linpipe::detail {

inline std::uint32_t element_bytes(CUtensorMapDataType type) {
  switch (type) {
    case CU_TENSOR_MAP_DATA_TYPE_UINT8: return 1;
    case CU_TENSOR_MAP_DATA_TYPE_UINT16:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
    case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16: return 2;
    case CU_TENSOR_MAP_DATA_TYPE_UINT32:
    case CU_TENSOR_MAP_DATA_TYPE_INT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32: return 4;
    case CU_TENSOR_MAP_DATA_TYPE_UINT64:
    case CU_TENSOR_MAP_DATA_TYPE_INT64:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT64: return 8;
    default: return 0;  // packed and sub-byte types: not offered by this helper
  }
}

// The widest box row (bytes) a swizzle mode allows: the swizzle span.
inline std::uint32_t swizzle_span_bytes(CUtensorMapSwizzle swizzle) {
  switch (swizzle) {
    case CU_TENSOR_MAP_SWIZZLE_32B: return 32;
    case CU_TENSOR_MAP_SWIZZLE_64B: return 64;
    case CU_TENSOR_MAP_SWIZZLE_128B: return 128;
    default: return 0;  // no swizzle: no limit beyond the box's 256 elements
  }
}

// cuTensorMapEncodeTiled, looked up once per process (thread-safe static initialisation).
inline PFN_cuTensorMapEncodeTiled_v12000 encode_tiled_entry(cudaError_t* status) {
  struct Lookup {
    cudaError_t status = cudaSuccess;
    PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  };
  static const Lookup found = [] {
    Lookup l;
    l.fn = driver::entry_point<PFN_cuTensorMapEncodeTiled_v12000>("cuTensorMapEncodeTiled", 12000,
                                                                   &l.status);
    return l;
  }();
  *status = found.status;
  return found.fn;
}

}  // namespace linpipe::detail

export namespace linpipe {

// A 2-D row-major tensor in global memory and the box one TMA load brings to shared memory.
struct TensorMap2d {
  const void* base = nullptr;       // 16-byte aligned device pointer
  std::uint64_t rows = 0;           // outer dimension, elements
  std::uint64_t cols = 0;           // inner (contiguous) dimension, elements
  std::uint64_t row_stride_bytes = 0;  // 0: cols x element size (a dense tensor)
  std::uint32_t box_rows = 0;       // 1..256
  std::uint32_t box_cols = 0;       // 1..256; x element size at most the swizzle span
  CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B;  // what wgmma's K-major tiles want
  CUtensorMapL2promotion l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
};

// Encodes `desc` into *map. Returns cudaErrorInvalidValue, with *why saying what to change,
// for a description the copy engine cannot serve; the driver's own refusal also comes back
// as cudaErrorInvalidValue; cudaErrorNotSupported if the driver lacks the entry point.
// Box rows and columns beyond the tensor's edge are filled with zeros by the copy engine.
inline cudaError_t encode_tensor_map_2d(CUtensorMap* map, const TensorMap2d& desc,
                                        const char** why = nullptr) {
  const auto reject = [why](const char* reason) {
    if (why != nullptr) *why = reason;
    return cudaErrorInvalidValue;
  };
  const std::uint32_t element = detail::element_bytes(desc.type);
  const std::uint64_t stride =
      desc.row_stride_bytes != 0 ? desc.row_stride_bytes : desc.cols * element;
  const std::uint32_t span = detail::swizzle_span_bytes(desc.swizzle);
  if (map == nullptr) return reject("encode_tensor_map_2d: map must point to a CUtensorMap");
  if (element == 0)
    return reject("encode_tensor_map_2d: type must be an 8/16/32/64-bit element type");
  if (desc.base == nullptr || reinterpret_cast<std::uintptr_t>(desc.base) % 16 != 0)
    return reject("encode_tensor_map_2d: base must be a 16-byte aligned device pointer");
  if (desc.rows == 0 || desc.cols == 0)
    return reject("encode_tensor_map_2d: rows and cols must be positive");
  if (stride % 16 != 0 || stride < desc.cols * element)
    return reject("encode_tensor_map_2d: the row stride must be a multiple of 16 bytes and at "
                  "least cols x element size (pad the rows)");
  if (desc.box_rows == 0 || desc.box_rows > 256 || desc.box_cols == 0 || desc.box_cols > 256)
    return reject("encode_tensor_map_2d: box_rows and box_cols must be 1..256");
  if ((desc.box_cols * element) % 16 != 0)
    return reject("encode_tensor_map_2d: a box row (box_cols x element size) must be a multiple "
                  "of 16 bytes");
  if (span != 0 && desc.box_cols * element > span)
    return reject("encode_tensor_map_2d: a box row must not exceed the swizzle span (128 bytes "
                  "for SWIZZLE_128B): narrow box_cols or use a wider swizzle");

  cudaError_t status = cudaSuccess;
  const auto encode = detail::encode_tiled_entry(&status);
  if (encode == nullptr) return status;
  const cuuint64_t dims[2] = {desc.cols, desc.rows};
  const cuuint64_t strides[1] = {stride};  // bytes, for dimensions 1..rank-1
  const cuuint32_t box[2] = {desc.box_cols, desc.box_rows};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult r = encode(map, desc.type, 2, const_cast<void*>(desc.base), dims, strides, box,
                            element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, desc.swizzle,
                            desc.l2_promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return reject("encode_tensor_map_2d: the driver refused the description "
                  "(cuTensorMapEncodeTiled failed)");
  return cudaSuccess;
}

}  // namespace linpipe
#endif  // __CUDA__
