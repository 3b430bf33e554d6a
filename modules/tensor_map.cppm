// linpipe:tensor_map — host helpers that encode a TMA tensor map (CUtensorMap) for a 2-D
// row-major tensor or a stack of them, so kernels don't each look up the driver entry point
// and fill cuTensorMapEncodeTiled's seven arrays by hand. The map goes to the kernel as a
// `const __grid_constant__ CUtensorMap` parameter and feeds ptx::tma_load_2d / tma_load_3d.
// CUDA driver API, "Tensor Map Object Management: cuTensorMapEncodeTiled".
module;
#include "linpipe_macros.h"
#if defined(__CUDA__)
#include <cuda.h>
#include <cudaTypedefs.h>
#endif
#include <cstdint>
#if defined(__CUDA__)
// After the standard headers: linpipe_cuda_attributes.h says why.
#include <cuda_runtime_api.h>
#endif
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

// A stack of `planes` 2-D row-major tensors, `plane_stride_bytes` apart (batch x heads of
// sequence x head-dim rows, say), and the box one TMA load brings to shared memory. A box
// reads rows of one plane only when box_planes is 1: its rows past the plane's last are
// zeros, never the next plane's first rows.
struct TensorMap3d {
  const void* base = nullptr;            // 16-byte aligned device pointer
  std::uint64_t planes = 0;              // outermost dimension
  std::uint64_t rows = 0;                // rows of a plane
  std::uint64_t cols = 0;                // inner (contiguous) dimension, elements
  std::uint64_t row_stride_bytes = 0;    // 0: cols x element size (dense rows)
  std::uint64_t plane_stride_bytes = 0;  // 0: rows x row stride (dense planes)
  std::uint32_t box_planes = 1;          // 1..256
  std::uint32_t box_rows = 0;            // 1..256
  std::uint32_t box_cols = 0;            // 1..256; x element size at most the swizzle span
  CUtensorMapDataType type = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
  CUtensorMapL2promotion l2_promotion = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
};

}  // namespace linpipe

namespace linpipe::detail {
// Validates `desc` and encodes it as a map of `rank` dimensions (2: planes must be 1).
inline cudaError_t encode_tensor_map(CUtensorMap* map, const TensorMap3d& desc, cuuint32_t rank,
                                     const char** why) {
  const auto reject = [why](const char* reason) {
    if (why != nullptr) *why = reason;
    return cudaErrorInvalidValue;
  };
  const std::uint32_t element = element_bytes(desc.type);
  const std::uint64_t stride =
      desc.row_stride_bytes != 0 ? desc.row_stride_bytes : desc.cols * element;
  const std::uint64_t plane_stride =
      desc.plane_stride_bytes != 0 ? desc.plane_stride_bytes : desc.rows * stride;
  const std::uint32_t span = swizzle_span_bytes(desc.swizzle);
  if (map == nullptr) return reject("encode_tensor_map: map must point to a CUtensorMap");
  if (element == 0)
    return reject("encode_tensor_map: type must be an 8/16/32/64-bit element type");
  if (desc.base == nullptr || reinterpret_cast<std::uintptr_t>(desc.base) % 16 != 0)
    return reject("encode_tensor_map: base must be a 16-byte aligned device pointer");
  if (desc.planes == 0 || desc.rows == 0 || desc.cols == 0)
    return reject("encode_tensor_map: planes, rows and cols must be positive");
  if (stride % 16 != 0 || stride < desc.cols * element)
    return reject("encode_tensor_map: the row stride must be a multiple of 16 bytes and at "
                  "least cols x element size (pad the rows)");
  if (plane_stride % 16 != 0 || plane_stride < desc.rows * stride)
    return reject("encode_tensor_map: the plane stride must be a multiple of 16 bytes and at "
                  "least rows x row stride (pad the planes)");
  if (desc.box_rows == 0 || desc.box_rows > 256 || desc.box_cols == 0 || desc.box_cols > 256 ||
      desc.box_planes == 0 || desc.box_planes > 256)
    return reject("encode_tensor_map: box_planes, box_rows and box_cols must be 1..256");
  if ((desc.box_cols * element) % 16 != 0)
    return reject("encode_tensor_map: a box row (box_cols x element size) must be a multiple "
                  "of 16 bytes");
  if (span != 0 && desc.box_cols * element > span)
    return reject("encode_tensor_map: a box row must not exceed the swizzle span (128 bytes "
                  "for SWIZZLE_128B): narrow box_cols or use a wider swizzle");

  cudaError_t status = cudaSuccess;
  const auto encode = encode_tiled_entry(&status);
  if (encode == nullptr) return status;
  const cuuint64_t dims[3] = {desc.cols, desc.rows, desc.planes};
  const cuuint64_t strides[2] = {stride, plane_stride};  // bytes, for dimensions 1..rank-1
  const cuuint32_t box[3] = {desc.box_cols, desc.box_rows, desc.box_planes};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  const CUresult r = encode(map, desc.type, rank, const_cast<void*>(desc.base), dims, strides, box,
                            element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, desc.swizzle,
                            desc.l2_promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return reject("encode_tensor_map: the driver refused the description "
                  "(cuTensorMapEncodeTiled failed)");
  return cudaSuccess;
}
}  // namespace linpipe::detail

export namespace linpipe {

// Encodes `desc` into *map, a 3-D map: ptx::tma_load_3d takes (col, row, plane). Returns
// cudaErrorInvalidValue, with *why saying what to change, for a description the copy engine
// cannot serve; the driver's own refusal also comes back as cudaErrorInvalidValue;
// cudaErrorNotSupported if the driver lacks the entry point. Box elements beyond the
// tensor's edge (in any dimension) are filled with zeros by the copy engine.
inline cudaError_t encode_tensor_map_3d(CUtensorMap* map, const TensorMap3d& desc,
                                        const char** why = nullptr) {
  return detail::encode_tensor_map(map, desc, 3, why);
}

// A 2-D tensor's map: one plane (ptx::tma_load_2d takes (col, row)). Refusals as
// encode_tensor_map_3d's.
inline cudaError_t encode_tensor_map_2d(CUtensorMap* map, const TensorMap2d& desc,
                                        const char** why = nullptr) {
  TensorMap3d one_plane;
  one_plane.base = desc.base;
  one_plane.planes = 1;
  one_plane.rows = desc.rows;
  one_plane.cols = desc.cols;
  one_plane.row_stride_bytes = desc.row_stride_bytes;
  one_plane.box_rows = desc.box_rows;
  one_plane.box_cols = desc.box_cols;
  one_plane.type = desc.type;
  one_plane.swizzle = desc.swizzle;
  one_plane.l2_promotion = desc.l2_promotion;
  return detail::encode_tensor_map(map, one_plane, 2, why);
}

}  // namespace linpipe
#endif  // __CUDA__
